/**
 * The contract between the construct (`lib/`) and the runtime (`lambda/`): environment variables,
 * the approvals table's layout and the tools manifest. Plain constants and types only: jsii follows this file from
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
  /** Who owns the approvals and calls of this handler: its key space in the table (`[A-Za-z0-9_.-]{1,64}`). */
  owner: 'TOOL_HANDLER_OWNER',
  /** The engine's cap on a claim's lifetime: the handler function's timeout, in seconds. */
  claimMaxSeconds: 'TOOL_HANDLER_CLAIM_MAX_S',
  /** Set when approval notifications may show args: `Tool Approval Requested` events then carry them. */
  notifyWithArgs: 'TOOL_HANDLER_NOTIFY_WITH_ARGS',
  /** The CloudWatch namespace of the metrics every function writes; unset means `CdkToolHandler`. */
  metricsNamespace: 'TOOL_HANDLER_METRICS_NAMESPACE',
  /**
   * The KMS key (ARN) whose signature proves a Gateway caller (`addToGateway` with `callerIdentity`):
   * unset, a Gateway call has no caller.
   */
  callerKey: 'TOOL_HANDLER_CALLER_KEY',
  /** The Bedrock Agents session attribute that names the end user (`addToBedrockAgent` with `callerAttribute`). */
  bedrockCallerAttribute: 'TOOL_HANDLER_BEDROCK_CALLER_ATTRIBUTE',
  /**
   * The tool queue's `maxReceiveCount`: a record received that many times goes to the dead-letter
   * queue if it fails, so a waiting flow is told of the failure then. Unset: a retryable failure of a
   * queued call never completes its flow.
   */
  maxReceiveCount: 'TOOL_HANDLER_MAX_RECEIVE_COUNT',
  /**
   * Set when an approvals inbox serves the handler: the inbox's link of an approval is this followed
   * by its id, carried by `pending_approval` replies (`inbox_url`) and notifications.
   */
  inboxUrl: 'TOOL_HANDLER_INBOX_URL',
  /** The bucket of offloaded results (`resultOffload`); unset, a result over its way back's limit fails. */
  resultBucket: 'TOOL_HANDLER_RESULT_BUCKET',
  /** Results above this many bytes of JSON are offloaded (`resultOffloadThreshold`). */
  resultThresholdBytes: 'TOOL_HANDLER_RESULT_THRESHOLD_BYTES',
  /** Days after which the bucket's lifecycle deletes an offloaded result. */
  resultExpiryDays: 'TOOL_HANDLER_RESULT_EXPIRY_DAYS',
} as const;

/**
 * The Gateway interceptor's own variables (`CallerIdentity.jwt`), apart from `ENV` so that a handler's
 * bundle carries none of them; it reads `ENV.callerKey` too.
 */
export const INTERCEPTOR_ENV = {
  /**
   * Its issuer (`CallerIdentity.jwt`): its OpenID discovery document's URL
   * (`.../.well-known/openid-configuration`), from which it reads the issuer and the JWKS.
   */
  callerDiscoveryUrl: 'TOOL_HANDLER_CALLER_DISCOVERY_URL',
  /** Its accepted audiences (a token's `aud`), a JSON array of strings. */
  callerAudiences: 'TOOL_HANDLER_CALLER_AUDIENCES',
  /** Its accepted clients (an access token's `client_id`), a JSON array of strings. */
  callerClients: 'TOOL_HANDLER_CALLER_CLIENTS',
  /** The claims it carries to `ctx.caller.claims`, a JSON array of claim names. */
  callerClaims: 'TOOL_HANDLER_CALLER_CLAIMS',
} as const;

/** The approvals inbox function's variables (`ApprovalsInbox`), apart from `ENV` so that a handler's bundle carries none of them. */
export const INBOX_ENV = {
  /** The OpenID Connect issuer whose tokens sign approvers in (its `iss`; discovery at `<issuer>/.well-known/openid-configuration`). */
  issuer: 'TOOL_HANDLER_INBOX_ISSUER',
  /** The app client the page signs in with (public: code flow with PKCE, no secret). */
  clientId: 'TOOL_HANDLER_INBOX_CLIENT_ID',
  /** A token is accepted when its `aud` holds this, or its `client_id` is the client's. */
  audience: 'TOOL_HANDLER_INBOX_AUDIENCE',
  /** The scopes the page asks for, space-separated. */
  scopes: 'TOOL_HANDLER_INBOX_SCOPES',
  /** The claim that lists a user's groups. */
  groupsClaim: 'TOOL_HANDLER_INBOX_GROUPS_CLAIM',
  /** The inbox's own origin (`https://host`): the page's redirect URI, and the only `Origin` a decision may come from. */
  origin: 'TOOL_HANDLER_INBOX_ORIGIN',
  /** The handlers it serves, a JSON array of `{ owner, table, tools: [{ name, description? }] }`. */
  handlers: 'TOOL_HANDLER_INBOX_HANDLERS',
  /** Who may decide what: a JSON object, owner to the groups that may decide its approvals (an owner it does not name: every signed-in user). */
  approvers: 'TOOL_HANDLER_INBOX_APPROVERS',
  /** Where the page signs in, when known at synth (Cognito's managed login); else from the issuer's discovery document. */
  authorizationEndpoint: 'TOOL_HANDLER_INBOX_AUTHORIZATION_ENDPOINT',
  /** Where the page exchanges its code for tokens, likewise. */
  tokenEndpoint: 'TOOL_HANDLER_INBOX_TOKEN_ENDPOINT',
  /** Where signing out ends the provider's session (Cognito's `/logout`), likewise (`end_session_endpoint`). */
  endSessionEndpoint: 'TOOL_HANDLER_INBOX_END_SESSION_ENDPOINT',
} as const;
/**
 * Not a variable the function reads at run time: the construct's bundling defines
 * `process.env.TOOL_HANDLER_RESULT_OFFLOAD` as "false" for a handler without `resultOffload`, so
 * that esbuild drops the offload code from its bundle.
 */
export const OFFLOAD_BUNDLED = 'TOOL_HANDLER_RESULT_OFFLOAD';

/** `resultOffloadThreshold`'s default, in bytes: 256 KiB, what every way back carries. */
export const DEFAULT_RESULT_THRESHOLD_BYTES = 256 * 1024;

/** `resultOffload.expiration`'s default, in days: how long an offloaded result is kept. */
export const DEFAULT_RESULT_EXPIRY_DAYS = 7;

/**
 * Not a variable the function reads at run time either: the construct's bundling defines
 * `process.env.TOOL_HANDLER_APPROVALS_VIA_ENGINE` as "true" (its handlers always name their approvals
 * engine), so that esbuild drops the table's approval writes from the bundle.
 */
export const APPROVALS_VIA_ENGINE = 'TOOL_HANDLER_APPROVALS_VIA_ENGINE';

/** The constants the construct's bundling defines for esbuild to fold (`OFFLOAD_BUNDLED`, `APPROVALS_VIA_ENGINE`). */
export function foldedConstants(options: { readonly resultOffload: boolean }): Record<string, string> {
  return {
    [`process.env.${OFFLOAD_BUNDLED}`]: JSON.stringify(options.resultOffload ? 'true' : 'false'),
    [`process.env.${APPROVALS_VIA_ENGINE}`]: JSON.stringify('true'),
  };
}

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
  /**
   * The owner again, present only while the approval is pending: the partition key of the sparse
   * pending index. The decision and the expiry remove it.
   */
  pendingOwner: 'pendingOwner',
  /** Who asked (the caller of the call, JSON), when the call named one. */
  requestedBy: 'requestedBy',
  /** The caller's id alone, beside `requestedBy`: what a claim limited to one caller tests. */
  requestedById: 'requestedById',
  /** The kind of the flow that waits for the call (`sfn`, `durable`), when one does: never its token. */
  flow: 'flow',
  /** The trace of the call that asked (JSON), when it had one: its resume continues it. */
  trace: 'trace',
} as const;

/**
 * The approvals table: one string partition key, no sort key, one TTL attribute, two per-owner
 * indexes. Every key carries its owner (`approval#<owner>#<id>`, `call#<owner>#...`), so that IAM can
 * wall owners off from each other by key (`dynamodb:LeadingKeys`).
 */
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
  /** Between the owner and the rest of a key; owners never contain it. */
  ownerSeparator: '#',
  /**
   * A sparse index of pending approvals only, per owner, by expiry (`pendingOwner`, `expiresAt`):
   * the pending list and the expirer read what is pending, never history.
   */
  pendingIndex: 'pendingByOwner',
  pendingIndexKey: APPROVAL_ATTRIBUTES.pendingOwner,
  /**
   * Every approval, per owner, by creation (`owner`, `createdAt`): the other lists, newest first.
   * Call items carry no `owner`, so they never enter it.
   */
  ownerIndex: 'approvalsByOwner',
  ownerIndexKey: APPROVAL_ATTRIBUTES.owner,
  ownerIndexSortKey: APPROVAL_ATTRIBUTES.createdAt,
} as const;

/** A per-owner index of the approvals table: its name and keys (the type `S` string, `N` number). */
export interface IndexLayout {
  readonly name: string;
  readonly partitionKey: { readonly name: string; readonly type: 'S' };
  readonly sortKey: { readonly name: string; readonly type: 'N' };
}

/** The table's indexes, each projecting every attribute: what the construct creates and the stores read. */
export const INDEXES: readonly IndexLayout[] = [
  {
    name: TABLE.pendingIndex,
    partitionKey: { name: TABLE.pendingIndexKey, type: 'S' },
    sortKey: { name: TABLE.expiresAttribute, type: 'N' },
  },
  {
    name: TABLE.ownerIndex,
    partitionKey: { name: TABLE.ownerIndexKey, type: 'S' },
    sortKey: { name: TABLE.ownerIndexSortKey, type: 'N' },
  },
];

/** What an owner may look like: it is part of every key and of IAM patterns, so never `#`, `*` or `?`. */
export const OWNER_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

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
  /** Epoch ms: the end of the invocation that holds the lease; until then the call may be running. */
  leaseUntil: 'leaseUntil',
  /**
   * Epoch ms, at or after `leaseUntil`: until then another delivery of the call is a duplicate copy,
   * answered without running (the holder ran it, runs it, or its source delivers it again).
   */
  heldUntil: 'heldUntil',
  /**
   * The holding delivery's SQS message (`-` for none): that message's own redelivery takes the call
   * over once the holder's invocation has ended, whatever `heldUntil` says.
   */
  heldBy: 'heldBy',
  reply: 'reply',
  /** A rate limit's count of calls in its window (an item of its own, `kind` `rate`). */
  count: 'count',
} as const;

/**
 * Attributes of a flow item: the `reply_to` of a call waiting for its approval, and the record of its
 * completion. A flow item lives among its owner's call items (`call#<owner>#flow#<approval id>`), which
 * only the handler and the expirer reach: the approvals API, the inbox and the resume path never see it.
 */
export const FLOW_ATTRIBUTES = {
  kind: 'kind',
  /** The waiting flow's task token or callback id (JSON), a credential; removed once completed. */
  replyTo: 'replyTo',
  /** Epoch ms at which the completion was recorded: set once, by a conditional write. */
  completionAt: 'completionAt',
  /** The completing attempt's token: only it may take its record back when the engine could not be reached. */
  completionBy: 'completionBy',
  /** `succeeded`, `failed`, or `closed` when the engine said the flow had already closed. */
  completion: 'completion',
} as const;

/** Between a call key's owner and a flow item's approval id: `call#<owner>#flow#<approval id>`. */
export const FLOW_KEY_MARK = 'flow#';

/** What a tool name may look like, checked by the runtime and by the construct's `tools`. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * The owner of a store or executor given none (without the construct, which always sets
 * `TOOL_HANDLER_OWNER`).
 */
export const HANDLER_OWNER = 'handler';

/** The stack outputs of approvals inbox URLs end in this. */
export const INBOX_URL_OUTPUT_SUFFIX = 'ApprovalsInboxUrl';

/** The stack outputs of approvals API URLs end in this: the construct names them so, the CLI's `--stack` looks for it. */
export const API_URL_OUTPUT_SUFFIX = 'ApprovalsApiUrl';

/**
 * The reply bus: every event the construct's functions put there has the source
 * `cdk-tool-handler.<owner>` (`replyEventSource`), and IAM lets each owner's roles use only their
 * own owner's, so a rule that matches one owner's source sees only that owner's events. A consumer
 * of every owner's events matches the prefix `cdk-tool-handler.`. No other source may begin with
 * `REPLY_SOURCE_ROOT` on a reply bus.
 */
export const REPLY_SOURCE_ROOT = 'cdk-tool-handler';

/** The reply-bus source of `owner`'s events. */
export function replyEventSource(owner: string): string {
  return `${REPLY_SOURCE_ROOT}.${owner}`;
}

/**
 * `Symbol.for` key of the marker that `toolHandler` sets on the handler it returns: a function that
 * gives the tools manifest. The construct reads it at synth from the bundle it built.
 */
export const TOOL_MANIFEST_SYMBOL_KEY = 'cdk-tool-handler.toolManifest';

/**
 * The tool that `addToGateway` adds to a gateway target whose tools may need approval: its input is
 * `{ approval_id }`, and the handler answers it as the resume of that approval. No user tool may
 * take the name.
 */
export const RESUME_APPROVAL_TOOL = 'resume_approval';

/** One tool of a tools module, as the construct reads it from the bundle at synth (`ToolHandler.toolManifest`). */
export interface ToolManifestEntry {
  /** The tool's name. */
  readonly name: string;

  /**
   * The tool's description.
   *
   * @default - the tool has none
   */
  readonly description?: string;

  /** The tool's input JSON Schema (zod 4's `z.toJSONSchema`, input side). */
  readonly inputSchema: { [key: string]: any };

  /**
   * The JSON Schema of the tool's result (its `output` schema, output side).
   *
   * @default - the tool declares no output schema
   */
  readonly outputSchema?: { [key: string]: any };

  /** Whether a call needs approval: `always`, `never`, or `depends` (a predicate over the args). */
  readonly approval: string;

  /** Whether the tool is read-only (never duplicate-suppressed). */
  readonly readOnly: boolean;
}

/**
 * The type of the metadata entry in which a `ToolHandler` describes its parts in the cloud assembly
 * (`manifest.json`, under the artifact's `metadata["/<stack>/<construct path>"]`), as
 * `ToolHandlerParts`: what `cdk-tool-handler local` runs, found without guessing from construct
 * paths or resource types.
 */
export const PARTS_METADATA_TYPE = 'cdk-tool-handler:parts';

/**
 * A `ToolHandler`'s parts, each by its logical id in the handler's stack; a part that the construct
 * did not make, or made in another stack, is absent.
 */
export interface ToolHandlerParts {
  /** The layout of this object; a reader refuses a version it does not know. */
  readonly version: 1;
  /** Whose approvals and calls these are (`TOOL_HANDLER_OWNER`). */
  readonly owner: string;
  /** The function that runs the tools. */
  readonly handler: string;
  /** The package's own functions (lambda/packaged-functions.ts), by role. */
  readonly engine?: string;
  readonly api?: string;
  readonly expirer?: string;
  /** The approvals table. */
  readonly table?: string;
  /** The queue the handler reads. */
  readonly queue?: string;
  /** The table's pipe that announces decided approvals on the resume bus. */
  readonly resumePipe?: string;
  /** The handler's rule on the resume bus, whose target is its queue. */
  readonly resumeRule?: string;
  /** The schedule that runs the expirer. */
  readonly expirySchedule?: string;
}

/** The metadata type under which an `ApprovalsInbox` describes itself in the cloud assembly, as `InboxParts`. */
export const INBOX_METADATA_TYPE = 'cdk-tool-handler:inbox';

/** An `ApprovalsInbox`, as the local run reads it. */
export interface InboxParts {
  /** The layout of this object; a reader refuses a version it does not know. */
  readonly version: 1;
  /** Its function, by logical id in the inbox's stack. */
  readonly function: string;
  /** The owners of the handlers it serves. */
  readonly owners: string[];
}
