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
} as const;

/** Attributes of an approval item that the handler writes (create, claim, release, complete). */
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
} as const;

/** The approvals table: one string partition key, no sort key, one TTL attribute. */
export const TABLE = {
  partitionKey: 'pk',
  /** Epoch seconds; DynamoDB's TTL deletes the item some time after it. */
  ttlAttribute: 'expiresAt',
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
 * Attributes that only approvers write. The handler never writes them, so IAM can forbid it to
 * (`dynamodb:Attributes`) and allow approvers to write nothing else.
 */
export const DECISION_ATTRIBUTES = {
  decision: 'decision',
  decidedBy: 'decidedBy',
  decidedAt: 'decidedAt',
  reason: 'reason',
  /**
   * The approval's `fingerprint` (tool and args) as it stood when decided, copied by `decide`: a
   * resume runs only args that hash to it, so args rewritten after the decision never run.
   */
  decidedFingerprint: 'decidedFingerprint',
} as const;

/** Values of the `decision` attribute. */
export const DECISION = { approved: 'approved', denied: 'denied' } as const;

/** Attributes of a call item (duplicate suppression, §6a). */
export const CALL_ATTRIBUTES = {
  kind: 'kind',
  fingerprint: 'fingerprint',
  state: 'state',
  leaseToken: 'leaseToken',
  leaseUntil: 'leaseUntil',
  reply: 'reply',
} as const;

/** What a tool name may look like (§2), checked by the runtime and by the construct's `tools`. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/** The `owner` every approval created by `toolHandler` carries; resumes accept only these. */
export const HANDLER_OWNER = 'handler';

/** The reply bus (§7). */
export const REPLY_EVENT_SOURCE = 'cdk-tool-handler';

/**
 * `Symbol.for` key of the marker that `toolHandler` sets on the handler it returns: a function that
 * gives the tools manifest (§12). The construct reads it at synth from the bundle it built.
 */
export const TOOL_MANIFEST_SYMBOL_KEY = 'cdk-tool-handler.toolManifest';
