/**
 * Tags the construct puts on what it makes, and IAM conditions read: which of the package's
 * functions a Lambda function is (and whose), and which roles may publish with the source
 * `cdk-tool-handler`.
 */
export const TAG = {
  /** On the package's own functions: `approvals-api`, `approvals-engine` or `approvals-expirer`. */
  function: 'cdk-tool-handler:function',
  /** On the package's own functions: the owner they serve. */
  owner: 'cdk-tool-handler:owner',
} as const;

/** Values of `TAG.function`. */
export const FUNCTION_ROLE = {
  api: 'approvals-api',
  engine: 'approvals-engine',
  expirer: 'approvals-expirer',
} as const;

/** On the handler's and the expirer's roles: the reply bus lets only these put `cdk-tool-handler` events. */
export const PUBLISHER_TAG = { key: 'cdk-tool-handler:publisher', value: 'true' } as const;
