/**
 * Names that the construct (`lib/`) and the runtime (`lambda/`) must agree on: environment
 * variables and the approvals table's layout. Plain constants only: jsii follows this file from
 * `lib/`, so it must never import zod or the AWS SDK.
 */

/** Environment variables that the construct sets and `toolHandler` reads. */
export const ENV = {
  tools: 'TOOL_HANDLER_TOOLS',
  timeoutSeconds: 'TOOL_HANDLER_TIMEOUT_S',
  marginSeconds: 'TOOL_HANDLER_MARGIN_S',
  approvalsTable: 'TOOL_HANDLER_APPROVALS_TABLE',
  approvalTtlSeconds: 'TOOL_HANDLER_APPROVAL_TTL_S',
  replyBus: 'TOOL_HANDLER_REPLY_BUS',
  /** The approvals engine function (name or ARN); the handler reaches approvals only through it. */
  approvalsEngine: 'TOOL_HANDLER_APPROVALS_ENGINE',
  /** Who owns the approvals this handler creates and resumes. */
  owner: 'TOOL_HANDLER_OWNER',
  /** The engine's cap on a claim's lifetime: the handler function's timeout, in seconds. */
  claimMaxSeconds: 'TOOL_HANDLER_CLAIM_MAX_S',
  /** Set when approval notifications may show args: `Tool Approval Requested` events then carry them. */
  notifyWithArgs: 'TOOL_HANDLER_NOTIFY_WITH_ARGS',
} as const;

/** Attributes of an approval item that the approvals engine writes (create, claim, release, complete). */
export const APPROVAL_ATTRIBUTES = {
  kind: 'kind',
  approvalId: 'approvalId',
  tool: 'tool',
  args: 'args',
  fingerprint: 'fingerprint',
  runId: 'runId',
  callId: 'callId',
  owner: 'owner',
  createdAt: 'createdAt',
  claimToken: 'claimToken',
  claimedUntil: 'claimedUntil',
  completedAt: 'completedAt',
  result: 'result',
  /** Set by the expirer when it marks an undecided approval expired (epoch ms). */
  expiredAt: 'expiredAt',
} as const;

/** The approvals table: one string partition key, no sort key, one TTL attribute. */
export const TABLE = {
  partitionKey: 'pk',
  /** Epoch seconds: when an approval expires undecided, or a kept reply is no longer kept. */
  expiresAttribute: 'expiresAt',
  /**
   * Epoch seconds, the table's TTL attribute: DynamoDB deletes the item some time after it. An
   * approval's is a day after its `expiresAt`, so that no approval vanishes before the expirer has
   * marked and announced it; a call item's equals its `expiresAt`.
   */
  ttlAttribute: 'deleteAt',
  approvalKeyPrefix: 'approval#',
  callKeyPrefix: 'call#',
  /**
   * A sparse global secondary index of approval items only (keyed on `approvalId`, which call items
   * lack): listing approvals scans it, so a reader never needs to scan the table's call items.
   */
  approvalsIndex: 'approvals',
  approvalsIndexKey: APPROVAL_ATTRIBUTES.approvalId,
} as const;

/**
 * Attributes that only the approvals API writes (a decision). The engine never writes them; the
 * handler can reach no approval item at all.
 */
export const DECISION_ATTRIBUTES = {
  decision: 'decision',
  decidedBy: 'decidedBy',
  decidedAt: 'decidedAt',
  reason: 'reason',
  /**
   * The hash of the stored tool and args that the decision was taken on, computed by `decide`: a
   * claim succeeds only while the approval's `fingerprint` still equals it.
   */
  decidedFingerprint: 'decidedFingerprint',
} as const;

/** Values of the `decision` attribute. */
export const DECISION = { approved: 'approved', denied: 'denied' } as const;

/** Attributes of a call item (duplicate suppression). */
export const CALL_ATTRIBUTES = {
  kind: 'kind',
  fingerprint: 'fingerprint',
  state: 'state',
  leaseToken: 'leaseToken',
  leaseUntil: 'leaseUntil',
  reply: 'reply',
} as const;

/** What a tool name may look like, checked by the runtime and by the construct's `tools`. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * The default `owner` of the approvals `toolHandler` creates; resumes accept only approvals of their
 * own owner (`TOOL_HANDLER_OWNER`, which the construct sets when it shares a table).
 */
export const HANDLER_OWNER = 'handler';

/** The reply bus. */
export const REPLY_EVENT_SOURCE = 'cdk-tool-handler';

/**
 * `Symbol.for` key of the marker that `toolHandler` sets on the handler it returns: a function that
 * gives the tools manifest. The construct reads it at synth from the bundle it built.
 */
export const TOOL_MANIFEST_SYMBOL_KEY = 'cdk-tool-handler.toolManifest';
