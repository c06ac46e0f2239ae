import { Duration, Token } from 'aws-cdk-lib';
import { IConstruct } from 'constructs';
import { fail } from '../errors';
import { ToolHandlerProps } from '../tool-handler-props';
import { METRIC_PERIOD } from './metrics';

/** The alarms' limits when their props are left out (each prop's `@default`). */
const ALARM_DEFAULTS = {
  deadLetterMessages: 1,
  queueAge: Duration.minutes(15),
  failedPercent: 10,
  throttles: 1,
  expirerErrors: 1,
  expirerSilence: Duration.minutes(15),
  /** Of `approvalTtl`. */
  pendingAgeShare: 0.8,
} as const;

/** The alarms' limits, checked, in the units the alarms use. */
export interface AlarmLimits {
  readonly deadLetterMessages: number;
  readonly queueAgeSeconds: number;
  readonly failedPercent: number;
  readonly throttles: number;
  readonly expirerErrors: number;
  /** 5-minute periods without the expirer's figures. */
  readonly expirerSilencePeriods: number;
  readonly pendingAgeSeconds: number;
}

/**
 * The alarm props with their defaults, checked: each error names the prop, what it got and what it
 * needs. Unresolved tokens are left to deploy time.
 */
export function alarmLimits(scope: IConstruct, props: ToolHandlerProps, approvalTtlSeconds: number): AlarmLimits {
  const wholeAtLeastOne = (name: string, value: number): number => {
    if (!Token.isUnresolved(value) && (!Number.isInteger(value) || value < 1)) {
      fail(`\`${name}\` must be a whole number of at least 1, got: ${value}.`, scope);
    }
    return value;
  };
  const seconds = (name: string, value: Duration, min: number): number => {
    if (value.isUnresolved()) return value.toSeconds();
    const s = value.toSeconds({ integral: false });
    if (!Number.isInteger(s) || s < min) fail(`\`${name}\` must be whole seconds, at least ${min} s, got: ${value.toHumanString()}.`, scope);
    return s;
  };

  const failedPercent = props.failedCallsAlarmThreshold ?? ALARM_DEFAULTS.failedPercent;
  if (!Token.isUnresolved(failedPercent) && !(failedPercent > 0 && failedPercent <= 100)) {
    fail(`\`failedCallsAlarmThreshold\` must be a percent of calls, more than 0 and at most 100, got: ${failedPercent}.`, scope);
  }

  const silence = props.expirerSilenceAlarmThreshold ?? ALARM_DEFAULTS.expirerSilence;
  const silenceSeconds = seconds('expirerSilenceAlarmThreshold', silence, 600);
  if (silenceSeconds % METRIC_PERIOD.toSeconds() !== 0) {
    fail(`\`expirerSilenceAlarmThreshold\` must be a whole number of 5-minute periods, at least 10 minutes, got: ${silence.toHumanString()}.`, scope);
  }

  const pendingAgeSeconds = props.pendingApprovalAgeAlarmThreshold
    ? seconds('pendingApprovalAgeAlarmThreshold', props.pendingApprovalAgeAlarmThreshold, 1)
    : Math.floor(approvalTtlSeconds * ALARM_DEFAULTS.pendingAgeShare);
  if (props.pendingApprovalAgeAlarmThreshold && pendingAgeSeconds >= approvalTtlSeconds) {
    fail(
      `\`pendingApprovalAgeAlarmThreshold\` must be less than \`approvalTtl\` (an approval older than that has expired), ` +
        `got: ${pendingAgeSeconds} s, approvalTtl ${approvalTtlSeconds} s.`,
      scope,
    );
  }

  return {
    deadLetterMessages: wholeAtLeastOne('deadLetterAlarmThreshold', props.deadLetterAlarmThreshold ?? ALARM_DEFAULTS.deadLetterMessages),
    queueAgeSeconds: seconds('queueAgeAlarmThreshold', props.queueAgeAlarmThreshold ?? ALARM_DEFAULTS.queueAge, 60),
    failedPercent,
    throttles: wholeAtLeastOne('throttlesAlarmThreshold', props.throttlesAlarmThreshold ?? ALARM_DEFAULTS.throttles),
    expirerErrors: wholeAtLeastOne('expirerErrorsAlarmThreshold', props.expirerErrorsAlarmThreshold ?? ALARM_DEFAULTS.expirerErrors),
    expirerSilencePeriods: silenceSeconds / METRIC_PERIOD.toSeconds(),
    pendingAgeSeconds,
  };
}
