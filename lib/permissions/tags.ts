/**
 * Tags the construct puts on what it makes, and IAM conditions read: which of the construct's
 * functions a Lambda function is (and whose), whose a role is, and which roles may publish reply
 * events.
 */
export const TAG = {
  /** On the construct's functions: which part it is (`FUNCTION_ROLE`). */
  function: 'cdk-tool-handler:function',
  /** On the construct's functions and roles: the owner they serve. */
  owner: 'cdk-tool-handler:owner',
} as const;

/** Values of `TAG.function`. */
export const FUNCTION_ROLE = {
  handler: 'tool-handler',
  api: 'approvals-api',
  engine: 'approvals-engine',
  expirer: 'approvals-expirer',
  /** The Gateway's REQUEST interceptor that proves callers (`addToGateway` with `callerIdentity`). */
  interceptor: 'gateway-interceptor',
} as const;

/** On the handler's and the expirer's roles: the reply bus lets only these put reply events (their owner's). */
export const PUBLISHER_TAG = { key: 'cdk-tool-handler:publisher', value: 'true' } as const;
