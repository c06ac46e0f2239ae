/**
 * `cdk-tool-handler/durable`: what a Lambda durable function uses to call tools and wait for their
 * results, approvals included (docs/flows.md).
 */
export { callTool, ToolCallFailed } from './durable/call-tool';
export type { CallbackContext, CallToolOptions, WaitDuration } from './durable/call-tool';
