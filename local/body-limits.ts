/**
 * How large a request body each local endpoint reads: AWS's own limit for the same call, so that
 * what passes locally passes in the cloud, and a larger body is refused before it is read (a body
 * is held in memory whole, to check its hash against the signature). Sizes in bytes.
 */
import { FLOW_COMPLETION_BYTES } from '../lambda/result-offload';

/**
 * Lambda's Invoke, synchronous (`RequestResponse`): 6 MB, Lambda's payload quota; Lambda refuses more
 * with "Request must be smaller than 6291456 bytes for the InvokeFunction operation".
 */
export const INVOKE_BODY_LIMIT = 6_291_456;

/** Lambda's Invoke with `X-Amz-Invocation-Type: Event`: 1 MB, Lambda's quota for asynchronous payloads. */
export const ASYNC_INVOKE_BODY_LIMIT = 1_048_576;

/** A function URL: Lambda's synchronous payload quota, 6 MB, as for Invoke. */
export const FUNCTION_URL_BODY_LIMIT = 6_291_456;

/**
 * EventBridge's PutEvents: the entries may total 256 KB (EventBridge's entry-size rule), but each
 * `Detail` travels as JSON text escaped inside the request's JSON, which can grow it several times;
 * 1 MB leaves room for that, and is far below what could hurt.
 */
export const PUT_EVENTS_BODY_LIMIT = 1_048_576;

/**
 * DynamoDB: 16 MB, the largest request DynamoDB takes (a BatchWriteItem's total; one item is at most
 * 400 KB, but a batch carries 25 of them), and dynalite's own limit. 1 MB, DynamoDB's limit on what a
 * Query or Scan reads, is no limit on a request.
 */
export const DYNAMODB_BODY_LIMIT = 16 * 1024 * 1024;

/**
 * The MCP server: 4 MB, the MCP TypeScript SDK's default for a Streamable HTTP request body (its
 * `DEFAULT_MAX_REQUEST_BODY_SIZE`); a tool call's arguments are far smaller.
 */
export const MCP_BODY_LIMIT = 4 * 1024 * 1024;

/**
 * SQS's SendMessage: a message may be 1 MiB (SQS's quota). The request carries it as a JSON string,
 * and escaping at most doubles it (SQS takes no control character but tab, LF and CR, each escaped in
 * two bytes, as `"` and `\` are); the queue URL and the rest of the request fit in 64 KiB beside it.
 */
export const SEND_MESSAGE_BODY_LIMIT = 2 * 1_048_576 + 65_536;

/** SQS's ChangeMessageVisibility: a few hundred bytes (its receipt handle, the queue URL and a number). */
export const VISIBILITY_BODY_LIMIT = 16 * 1024;

/**
 * A flow's completion: Step Functions' SendTaskSuccess / SendTaskFailure, a durable callback's
 * succeed / fail. The output may be 256 KiB (`FLOW_COMPLETION_BYTES`, both services' limit);
 * SendTaskSuccess carries it as a JSON string, which escaping at most doubles (the output is JSON
 * text), and a task token (1 KiB at most) or a failure's cause (32 KiB at most) fits in 64 KiB beside it.
 */
export const FLOW_COMPLETION_BODY_LIMIT = 2 * FLOW_COMPLETION_BYTES + 65_536;
