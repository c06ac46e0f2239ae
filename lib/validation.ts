import { Annotations, Duration, Token } from 'aws-cdk-lib';
import { IConstruct } from 'constructs';
import { ENV } from '../lambda/construct-contract';
import { OWNER_PATTERN, TOOL_NAME_PATTERN } from '../lambda/construct-contract';
import { allowlistOf, allowlistProp } from './allowlist';
import { DEFAULTS, MAX_FUNCTION_TIMEOUT_SECONDS } from './defaults';
import { atPath, fail } from './errors';
import { checkEsbuild } from './esbuild-check';
import { ToolEventSourceOptions } from './options/event-source-options';
import { ToolHandlerProps } from './tool-handler-props';

/**
 * Synth-time checks of the props. Each message names the prop, says what it got and what it needs
 * (in the style of `errors.ts`). Values that are unresolved tokens are skipped: they are only known
 * at deploy time.
 */

/** The props with defaults applied, in the units the rest of the construct uses. */
export interface Settings {
  readonly timeoutSeconds: number;
  readonly marginSeconds: number;
  readonly functionTimeoutSeconds: number;
  readonly batchingWindowSeconds: number;
  readonly approvalTtlSeconds: number;
}

/**
 * The construct's settings from its props: impossible props throw (naming `scope`), doubtful ones
 * add a warning, and a stack that bundles locally needs esbuild.
 */
export function checkedSettings(scope: IConstruct, props: ToolHandlerProps): Settings {
  const settings = atPath(scope, () => resolveSettings(props));
  checkEsbuild(scope, props);
  if (settings.marginSeconds === 0) {
    Annotations.of(scope).addWarningV2(
      'cdk-tool-handler:marginZero',
      '`margin` is 0 s: a tool may run until Lambda stops the function, leaving no time to report its result.',
    );
  }
  return settings;
}

function resolveSettings(props: ToolHandlerProps): Settings {
  validateTools(allowlistOf(props), allowlistProp(props));
  validateOwner(props.owner);
  validateHandler(props.handler);
  const timeoutSeconds = wholeSeconds('timeout', props.timeout ?? DEFAULTS.timeout);
  const marginSeconds = wholeSeconds('margin', props.margin ?? DEFAULTS.margin);
  if (timeoutSeconds < 1) {
    fail(`\`timeout\` must be at least 1 second, got: ${timeoutSeconds} s.`);
  }
  if (marginSeconds >= timeoutSeconds) {
    fail(`\`margin\` must be shorter than \`timeout\`, got: margin ${marginSeconds} s, timeout ${timeoutSeconds} s.`);
  }
  const total = timeoutSeconds + marginSeconds;
  if (total > MAX_FUNCTION_TIMEOUT_SECONDS) {
    fail(
      `\`timeout\` plus \`margin\` must be at most 15 minutes (${MAX_FUNCTION_TIMEOUT_SECONDS} s), the Lambda maximum, ` +
        `got: timeout ${timeoutSeconds} s + margin ${marginSeconds} s = ${total} s.`,
    );
  }
  const functionTimeoutSeconds = timeoutSeconds + marginSeconds;

  validateQueueSettings(props);
  const batchingWindowSeconds =
    props.maxBatchingWindow === undefined ? 0 : wholeSeconds('maxBatchingWindow', props.maxBatchingWindow);

  const approvalTtlSeconds = wholeSeconds('approvalTtl', props.approvalTtl ?? DEFAULTS.approvalTtl);
  if (approvalTtlSeconds < functionTimeoutSeconds) {
    fail(
      '`approvalTtl` must be at least the function timeout (`timeout` + `margin`), so that no record expires while ' +
        `its call runs, got: approvalTtl ${approvalTtlSeconds} s, function timeout ${functionTimeoutSeconds} s.`,
    );
  }

  validateFunctionSettings(props);
  return { timeoutSeconds, marginSeconds, functionTimeoutSeconds, batchingWindowSeconds, approvalTtlSeconds };
}

function validateTools(tools: string[], prop: string): void {
  if (!Array.isArray(tools) || tools.length === 0) {
    fail(`\`${prop}\` must name at least one tool, got: ${JSON.stringify(tools ?? null)}.`);
  }
  const seen = new Set<string>();
  tools.forEach((name, index) => {
    if (Token.isUnresolved(name)) return;
    if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
      fail(`\`${prop}[${index}]\` must be 1 to 128 characters of A-Z a-z 0-9 _ . -, got: ${JSON.stringify(name)}.`);
    }
    if (seen.has(name)) fail(`\`${prop}\` must not name a tool twice, got: ${JSON.stringify(name)} twice.`);
    seen.add(name);
  });
}

function validateOwner(owner: string | undefined): void {
  if (owner === undefined || Token.isUnresolved(owner)) return;
  if (typeof owner !== 'string' || !OWNER_PATTERN.test(owner)) {
    fail(`\`owner\` must be 1 to 64 characters of A-Z a-z 0-9 _ . -, got: ${JSON.stringify(owner)}.`);
  }
}

function validateHandler(handler: string | undefined): void {
  if (handler === undefined || Token.isUnresolved(handler)) return;
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(handler)) {
    fail(
      '`handler` must be the name of an export of `entry`: a JavaScript identifier (A-Z a-z 0-9 _ $, not starting ' +
        `with a digit; no file name, no dots), got: ${JSON.stringify(handler)}.`,
    );
  }
}

function validateQueueSettings(props: ToolHandlerProps): void {
  const { maxReceiveCount, batchSize, maxBatchingWindow, maxConcurrency } = props;
  if (maxReceiveCount !== undefined) {
    if (props.queue !== undefined) {
      fail(
        '`maxReceiveCount` applies only to the queue the construct creates; set the redrive policy of `queue` instead, ' +
          `got: maxReceiveCount ${maxReceiveCount} with an existing \`queue\`.`,
      );
    }
    integerInRange('maxReceiveCount', maxReceiveCount, 1, 1000);
  }
  const fifo = isFifo(props);
  if (props.queue !== undefined && props.fifo !== undefined && props.fifo !== props.queue.fifo) {
    fail(
      `\`fifo\` must match the given \`queue\`, got: fifo ${props.fifo}, but the queue is ` +
        `${props.queue.fifo ? 'a FIFO' : 'a standard'} queue.`,
    );
  }
  const windowSeconds =
    maxBatchingWindow === undefined ? undefined : wholeSeconds('maxBatchingWindow', maxBatchingWindow);
  if (maxBatchingWindow !== undefined && windowSeconds !== undefined) {
    if (windowSeconds > 300) {
      fail(`\`maxBatchingWindow\` must be at most 5 minutes (300 s), got: ${windowSeconds} s.`);
    }
    if (fifo) {
      fail(
        '`maxBatchingWindow` must not be set for a FIFO queue (its event source has no batching window), ' +
          `got: ${format(maxBatchingWindow)}.`,
      );
    }
  }
  if (batchSize !== undefined) {
    integerInRange('batchSize', batchSize, 1, 10000);
    // Lambda takes more than 10 messages per batch only with a batching window of at least 1 s; a
    // window under 1 s (whole seconds, so 0 s) is no window.
    if (known(batchSize) && batchSize > 10 && (windowSeconds === undefined || windowSeconds < 1)) {
      const window = windowSeconds === undefined ? 'no maxBatchingWindow' : `maxBatchingWindow ${windowSeconds} s`;
      fail(
        '`batchSize` must be at most 10 without a `maxBatchingWindow` of at least 1 s, ' +
          `got: batchSize ${batchSize}, ${window}.`,
      );
    }
  }
  if (maxConcurrency !== undefined) integerInRange('maxConcurrency', maxConcurrency, 2, 1000);
}

function validateFunctionSettings(props: ToolHandlerProps): void {
  if (props.memorySize !== undefined) integerInRange('memorySize', props.memorySize, 128, 10240);
  if (props.retryAttempts !== undefined) integerInRange('retryAttempts', props.retryAttempts, 0, 2);
  if (props.maxEventAge !== undefined) {
    durationInRange('maxEventAge', props.maxEventAge, 60, 6 * 3600, '1 minute to 6 hours');
  }
  const reserved = new Set<string>(Object.values(ENV));
  for (const key of Object.keys(props.environment ?? {})) {
    if (reserved.has(key)) {
      fail(`\`environment\` must not set ${key}: the construct sets it from its props, got: ${key}.`);
    }
  }
}

/** Checks one EventBridge source; `label` names it as the user wrote it. */
export function validateEventSource(label: string, options: ToolEventSourceOptions): void {
  const pattern = options.eventPattern;
  if (pattern === undefined || pattern === null || Object.keys(pattern).length === 0) {
    fail(`\`${label}.eventPattern\` must match on at least one field, got: ${JSON.stringify(pattern ?? null)}.`);
  }
  if (options.retryAttempts !== undefined) integerInRange(`${label}.retryAttempts`, options.retryAttempts, 0, 185);
  if (options.maxEventAge !== undefined) {
    durationInRange(`${label}.maxEventAge`, options.maxEventAge, 60, 24 * 3600, '1 minute to 24 hours');
  }
}

export function isFifo(props: ToolHandlerProps): boolean {
  return props.queue !== undefined ? props.queue.fifo : props.fifo ?? false;
}

/** Whether a number is known at synth time (not a token). */
export function known(value: number): boolean {
  return !Token.isUnresolved(value);
}

function wholeSeconds(prop: string, duration: Duration): number {
  if (duration.isUnresolved()) {
    fail(`\`${prop}\` must be known at synth time (the construct derives other settings from it), got: a token.`);
  }
  const ms = duration.toMilliseconds();
  if (ms % 1000 !== 0) fail(`\`${prop}\` must be a whole number of seconds, got: ${ms} ms.`);
  return ms / 1000;
}

function integerInRange(prop: string, value: number, min: number, max: number): void {
  if (!known(value)) return;
  if (!Number.isInteger(value) || value < min || value > max) {
    fail(`\`${prop}\` must be a whole number from ${min} to ${max}, got: ${value}.`);
  }
}

function durationInRange(prop: string, duration: Duration, min: number, max: number, range: string): void {
  if (duration.isUnresolved()) return;
  const seconds = duration.toMilliseconds() / 1000;
  if (!Number.isInteger(seconds) || seconds < min || seconds > max) {
    fail(`\`${prop}\` must be whole seconds from ${range}, got: ${format(duration)}.`);
  }
}

/** `90 s`, or `1500 ms` when not whole seconds. */
export function format(duration: Duration): string {
  if (duration.isUnresolved()) return duration.toString();
  const ms = duration.toMilliseconds();
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
