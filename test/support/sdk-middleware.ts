/**
 * SDK middleware for tests: counts the requests a client sends, records their inputs, and answers
 * chosen requests with a service error as DynamoDB would send it (so the SDK's own deserializer
 * and retry rules see a real HTTP response).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface SentCommand {
  /** e.g. `UpdateItemCommand` */
  readonly command: string;
  /** The document-level input (before marshalling). */
  readonly input: Record<string, unknown>;
}

export interface RequestRecorder {
  /** One entry per `send`. */
  readonly sent: SentCommand[];
  /** HTTP requests actually attempted (retries included). */
  readonly attempts: number;
  reset(): void;
  detach(): void;
}

let nextId = 0;

export function recordRequests(client: DynamoDBDocumentClient): RequestRecorder {
  const id = nextId++;
  const sent: SentCommand[] = [];
  let attempts = 0;
  const sendName = `test-record-send-${id}`;
  const attemptName = `test-count-attempt-${id}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push({ command: String(context.commandName), input: structuredClone(args.input as Record<string, unknown>) });
      return next(args);
    },
    { step: 'initialize', name: sendName, priority: 'high' },
  );
  client.middlewareStack.add(
    (next) => async (args) => {
      attempts++;
      return next(args);
    },
    { step: 'finalizeRequest', name: attemptName, priority: 'low' },
  );
  return {
    sent,
    get attempts() {
      return attempts;
    },
    reset() {
      sent.length = 0;
      attempts = 0;
    },
    detach() {
      client.middlewareStack.remove(sendName);
      client.middlewareStack.remove(attemptName);
    },
  };
}

export interface ServiceFault {
  readonly statusCode: number;
  /** The error code DynamoDB puts in `__type`. */
  readonly type: string;
  readonly message: string;
}

export const THROTTLING: ServiceFault = {
  statusCode: 400,
  type: 'com.amazon.coral.availability#ThrottlingException',
  message: 'Rate of requests exceeds the allowed throughput.',
};

export const INTERNAL_SERVER_ERROR: ServiceFault = {
  statusCode: 500,
  type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
  message: 'Internal server error',
};

export const SERVICE_UNAVAILABLE: ServiceFault = {
  statusCode: 503,
  type: 'com.amazon.coral.availability#ServiceUnavailableException',
  message: 'Service unavailable',
};

/**
 * Answers the `nth` HTTP request from now (1-based; `times` requests from there) with `fault`
 * instead of sending it. Returns a function that removes the fault.
 */
export function injectFault(
  client: DynamoDBDocumentClient,
  fault: ServiceFault,
  options: { nth?: number; times?: number } = {},
): () => void {
  const name = `test-fault-${nextId++}`;
  const first = options.nth ?? 1;
  const last = first + (options.times ?? 1) - 1;
  let seen = 0;
  const middleware = (next: (args: unknown) => Promise<unknown>) => async (args: unknown) => {
    seen++;
    if (seen < first || seen > last) return next(args);
    const body = new TextEncoder().encode(JSON.stringify({ __type: fault.type, message: fault.message }));
    const headers = { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'injected-fault' };
    return { response: { statusCode: fault.statusCode, headers, body }, output: undefined };
  };
  client.middlewareStack.addRelativeTo(middleware as never, {
    name,
    relation: 'after',
    toMiddleware: 'deserializerMiddleware',
  });
  return () => client.middlewareStack.remove(name);
}

/** The network error a connection reset gives; the SDK's retry strategy treats it as transient. */
export function connectionReset(): Error {
  return Object.assign(new Error('socket hang up (injected after the table answered)'), { code: 'ECONNRESET' });
}

export interface LostAnswers {
  /** Requests whose answer was thrown away so far. */
  readonly lost: number;
  remove(): void;
}

/**
 * After letting `after` requests of `command` (e.g. `UpdateItemCommand`) through untouched, lets the
 * next `times` HTTP requests of it reach the table, then
 * throws a connection reset instead of returning the table's answer: the write is applied but the
 * caller never hears so, and the SDK retries it (the client needs `maxAttempts` of 2 or more).
 * With `retryAnswer`, the retry that follows is answered with that fault instead of being sent.
 * Sits inside the SDK's retry middleware, so it sees every attempt.
 */
export function loseAnswers(
  client: DynamoDBDocumentClient,
  options: { command: string; after?: number; times?: number; retryAnswer?: ServiceFault },
): LostAnswers {
  const name = `test-lose-answer-${nextId++}`;
  const limit = options.times ?? 1;
  let passed = 0;
  let lost = 0;
  let answerNextWithFault = false;
  client.middlewareStack.add(
    ((next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
      if (context.commandName !== options.command) return next(args);
      if (answerNextWithFault && options.retryAnswer) {
        answerNextWithFault = false;
        throw serviceError(options.retryAnswer);
      }
      if (passed < (options.after ?? 0) || lost >= limit) {
        passed++;
        return next(args);
      }
      await next(args);
      lost++;
      answerNextWithFault = true;
      throw connectionReset();
    }) as never,
    { step: 'finalizeRequest', name, priority: 'low' },
  );
  return {
    get lost() {
      return lost;
    },
    remove: () => client.middlewareStack.remove(name),
  };
}

/** A service error shaped as the SDK's deserializer would throw it. */
function serviceError(fault: ServiceFault): Error {
  const type = fault.type.split('#').pop()!;
  return Object.assign(new Error(fault.message), {
    name: type,
    $fault: fault.statusCode >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: fault.statusCode },
  });
}

export const CONDITIONAL_CHECK_FAILED: ServiceFault = {
  statusCode: 400,
  type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
  message: 'The conditional request failed',
};

/**
 * Holds the first `times` requests of `command` whose document input `matches` for `ms` before
 * they are sent (the SDK's request timeout does not run while they wait), then sends them.
 */
export function holdRequests(
  client: DynamoDBDocumentClient,
  options: { command: string; ms: number; times?: number; matches?: (input: Record<string, unknown>) => boolean },
): { readonly held: number; remove(): void } {
  const name = `test-hold-${nextId++}`;
  const limit = options.times ?? 1;
  let held = 0;
  client.middlewareStack.add(
    ((next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: { input: Record<string, unknown> }) => {
      const wanted = context.commandName === options.command && (options.matches?.(args.input) ?? true);
      if (wanted && held < limit) {
        held++;
        await new Promise((resolve) => setTimeout(resolve, options.ms));
      }
      return next(args);
    }) as never,
    { step: 'initialize', name, priority: 'low' },
  );
  return {
    get held() {
      return held;
    },
    remove: () => client.middlewareStack.remove(name),
  };
}

/**
 * After letting `after` requests of `command` through untouched, sends the next one as usual and
 * sends it once more `ms` later, as a stalled attempt that the table applies late would be. Resolves
 * `replayed` (with the late attempt's error, if any) once the late copy was answered.
 */
export function replayLater(
  client: DynamoDBDocumentClient,
  options: { command: string; after?: number; ms: number },
): { readonly replayed: Promise<unknown>; remove(): void } {
  const name = `test-replay-${nextId++}`;
  let passed = 0;
  let done = false;
  let settle: (value: unknown) => void = () => undefined;
  const replayed = new Promise<unknown>((resolve) => {
    settle = resolve;
  });
  client.middlewareStack.add(
    ((next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
      if (context.commandName !== options.command || done || passed++ < (options.after ?? 0)) return next(args);
      done = true;
      setTimeout(() => {
        next(args).then(
          () => settle(undefined),
          (error: unknown) => settle(error),
        );
      }, options.ms);
      return next(args);
    }) as never,
    { step: 'finalizeRequest', name, priority: 'low' },
  );
  return { replayed, remove: () => client.middlewareStack.remove(name) };
}
