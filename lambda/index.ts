export { tool } from './tool';
export type { ApprovalMode, RateLimit, Tool, ToolContext, ToolOptions } from './tool';
export type { Caller, CallerClaim } from './caller';
export { TOOL_MANIFEST } from './manifest';
export type { ToolManifestEntry } from './manifest';
export type { GatewayReply } from './events/gateway';
export { ToolExecutor } from './executor';
export type { ToolExecutorOptions } from './executor';
export { parseEnvelope, MAX_ENVELOPE_BYTES, MAX_ENVELOPE_DEPTH } from './envelope';
export type { Envelope, CallEnvelope, ResumeEnvelope, ParseEnvelopeOptions } from './envelope';
export { handleEnvelope } from './handle-envelope';
export type { HandleEnvelopeOptions } from './handle-envelope';
export { toolHandler } from './tool-handler';
export type { ToolHandlerOptions, ToolHandlerResult, ToolLambdaHandler } from './tool-handler';
export {
  ToolHandlerError,
  ToolUsageError,
  ToolNotFound,
  ApprovalNotFound,
  AdapterError,
  ApprovalDenied,
  ToolFailed,
  ToolOutputInvalid,
  ToolTimeout,
  CallInProgress,
  StoreUnavailable,
  StoreMisconfigured,
  CallerRequired,
  RateLimited,
} from './errors';
export type { Reply, OkReply, PendingApprovalReply, AlreadyDoneReply, ErrorReply } from './reply';
export { EventBridgeReplyPublisher, REPLY_DETAIL_TYPES } from './reply-bus';
export type { ReplyPublisher, ReplyExtras, EventBridgeReplyPublisherProps } from './reply-bus';
export { MemoryApprovalStore } from './stores/memory';
export { DynamoApprovalStore } from './stores/dynamo';
export { DynamoHandlerStore } from './stores/dynamo-handler-store';
export type { DynamoApprovalStoreProps } from './stores/dynamo';
export type { StoreOptions } from './stores/options';
export type * from './stores/types';
export type { ReplyTo, SfnReplyTo, DurableReplyTo } from './flows/reply-to';
export { MemoryFlowStore } from './stores/memory-flows';
