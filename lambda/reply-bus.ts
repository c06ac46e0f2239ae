/**
 * The reply bus: every reply and error reply as an EventBridge event whose source names its owner
 * (`cdk-tool-handler.<owner>`) and whose detail carries `owner`, for callers and approvers to learn
 * of results and pending approvals that arrived by queue or rule.
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { requesterView, type Caller } from './caller';
import { ownerFrom } from './config';
import { AdapterError, configError } from './errors';
import type { JsonObject } from './json';
import { OWNER_PATTERN, replyEventSource } from './construct-contract';
import type { ErrorReply, Reply } from './reply';

/** Where replies go for callers and approvers to learn of them. */
export interface ReplyPublisher {
  /** Publishes one reply; `extras` is what its call's outcome holds for the bus besides. */
  publish(reply: Reply | ErrorReply, extras?: ReplyExtras): Promise<void>;
}

/** What a call's outcome holds for the reply bus besides the reply, never part of the reply itself. */
export interface ReplyExtras {
  /** A `pending_approval` reply's args, which `Tool Approval Requested` events may carry. */
  readonly approvalArgs?: unknown;
  /** Whom the call acts for: `Tool Approval Requested` events say who asked. */
  readonly caller?: Caller;
}

/** What `Tool Approval Requested` says of who asked, for a call without a caller. */
export const NO_REQUESTER = '(no caller)';

export const REPLY_DETAIL_TYPES = {
  ok: 'Tool Call Succeeded',
  pending_approval: 'Tool Approval Requested',
  already_done: 'Tool Call Already Done',
  error: 'Tool Call Failed',
} as const;

/** Published by the expirer when it marks an approval expired. */
export const APPROVAL_EXPIRED_DETAIL_TYPE = 'Tool Approval Expired';

/** The detail of a `Tool Approval Expired` event (the publisher adds `owner`). */
export interface ApprovalExpiredDetail {
  readonly approval_id: string;
  readonly tool: string;
  readonly run_id: string;
  readonly call_id: string;
  readonly expires_at: string;
}

/** EventBridge takes entries of at most 256 KB; a larger reply goes out without its result. */
const MAX_DETAIL_BYTES = 256 * 1024 - 1024;

export interface EventBridgeReplyPublisherProps {
  /** Name or ARN of the event bus. */
  readonly busName: string;
  /** @default a client created on first use and shared by the container */
  readonly client?: EventBridgeClient;
  /**
   * `Tool Approval Requested` events carry the call's `args` (for approvers' notifications; args
   * may hold personal data). The reply a caller gets never does. @default false
   */
  readonly approvalArgs?: boolean;
  /**
   * Whose events these are: the source is `cdk-tool-handler.<owner>` and every detail carries
   * `owner`. The construct's roles may publish their own owner's source only.
   * @default - `TOOL_HANDLER_OWNER`, else `handler`
   */
  readonly owner?: string;
}

let sharedClient: EventBridgeClient | undefined;

/** Loaded on first publish: a handler without a reply bus never pays for loading the SDK client. */
function eventBridgeSdk(): typeof import('@aws-sdk/client-eventbridge') {
  return require('@aws-sdk/client-eventbridge') as typeof import('@aws-sdk/client-eventbridge');
}

/** Who asked, on a `Tool Approval Requested` event: as the API shows it, and its id alone for a notification's text. */
function requester(caller: Caller | undefined): { requested_by: ReturnType<typeof requesterView> | null; requested_by_id: string } {
  return caller ? { requested_by: requesterView(caller), requested_by_id: caller.id } : { requested_by: null, requested_by_id: NO_REQUESTER };
}

/** Publishes each reply to an EventBridge bus with the source `cdk-tool-handler.<owner>`. */
export class EventBridgeReplyPublisher implements ReplyPublisher {
  /** Whose events these are (`props.owner`). */
  readonly owner: string;

  constructor(private readonly props: EventBridgeReplyPublisherProps) {
    const owner = props.owner ?? ownerFrom();
    if (typeof owner !== 'string' || !OWNER_PATTERN.test(owner)) {
      throw configError(`EventBridgeReplyPublisher \`owner\` must be 1 to 64 characters of A-Z a-z 0-9 _ . -, got: ${JSON.stringify(owner)}.`);
    }
    this.owner = owner;
  }

  async publish(reply: Reply | ErrorReply, extras?: ReplyExtras): Promise<void> {
    const args = this.props.approvalArgs ? extras?.approvalArgs : undefined;
    const detail = {
      ...reply,
      ...(args === undefined ? {} : { args }),
      ...(reply.status === 'pending_approval' ? requester(extras?.caller) : {}),
      owner: this.owner,
    };
    let text = JSON.stringify(detail);
    if (Buffer.byteLength(text, 'utf8') > MAX_DETAIL_BYTES && 'result' in detail) {
      const { result: _omitted, ...rest } = detail;
      text = JSON.stringify({ ...rest, result_omitted: 'the result is too large for an EventBridge event' });
    }
    await this.send(REPLY_DETAIL_TYPES[reply.status], text);
  }

  /** Publishes one event of `detailType` whose detail is `detail` with this publisher's `owner`. */
  async publishEvent(detailType: string, detail: JsonObject): Promise<void> {
    await this.send(detailType, JSON.stringify({ ...detail, owner: this.owner }));
  }

  private async send(detailType: string, detail: string): Promise<void> {
    const { EventBridgeClient, PutEventsCommand } = eventBridgeSdk();
    const client = this.props.client ?? (sharedClient ??= new EventBridgeClient({}));
    let output;
    try {
      output = await client.send(
        new PutEventsCommand({
          Entries: [
            {
              EventBusName: this.props.busName,
              Source: replyEventSource(this.owner),
              DetailType: detailType,
              Detail: detail,
            },
          ],
        }),
      );
    } catch (error) {
      throw new AdapterError(`Publishing the reply to ${this.props.busName} failed: ${(error as Error).message}`, {
        cause: error,
        retryable: true,
      });
    }
    if (output.FailedEntryCount) {
      const entry = output.Entries?.[0];
      throw new AdapterError(
        `Publishing the reply to ${this.props.busName} failed: ${entry?.ErrorCode ?? 'unknown'} ${entry?.ErrorMessage ?? ''}`.trim(),
        { retryable: true },
      );
    }
  }
}
