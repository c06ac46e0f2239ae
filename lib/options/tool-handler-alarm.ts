/**
 * The alarms a `ToolHandler` makes, each named for what a person must do when it fires (its
 * construct id under `Alarms/`, or under the table's resume path for the resume dead letters).
 * List them in `disabledAlarms` to leave some out.
 */
export enum ToolHandlerAlarm {
  /** Messages in the created tool queue's dead-letter queue. */
  REDRIVE_TOOL_DEAD_LETTER_QUEUE = 'RedriveToolDeadLetterQueue',
  /** Messages in `eventDeadLetterQueue`. */
  REDRIVE_EVENT_DEAD_LETTER_QUEUE = 'RedriveEventDeadLetterQueue',
  /** Messages in the table resume path's dead-letter queue (one alarm per table). */
  REDRIVE_RESUME_DEAD_LETTERS = 'RedriveResumeDeadLetters',
  /** The tool queue's oldest message is older than `queueAgeAlarmThreshold`. */
  CLEAR_TOOL_QUEUE_BACKLOG = 'ClearToolQueueBacklog',
  /** The failed share of calls is above `failedCallsAlarmThreshold`. */
  FIX_FAILING_TOOL_CALLS = 'FixFailingToolCalls',
  /** The handler is throttled. */
  RAISE_HANDLER_CONCURRENCY = 'RaiseHandlerConcurrency',
  /** The expirer fails. */
  FIX_APPROVALS_EXPIRER = 'FixApprovalsExpirer',
  /** The expirer's figures stopped arriving. */
  RESTORE_APPROVALS_EXPIRER = 'RestoreApprovalsExpirer',
  /** The oldest pending approval nears its expiry. */
  DECIDE_PENDING_APPROVALS = 'DecidePendingApprovals',
}
