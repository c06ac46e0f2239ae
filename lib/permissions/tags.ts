import { PACKAGED_FUNCTIONS } from '../../lambda/packaged-functions';

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

/** Values of `TAG.function`: the handler's, and each package function's name (lambda/packaged-functions.ts). */
export const FUNCTION_ROLE = {
  handler: 'tool-handler',
  api: PACKAGED_FUNCTIONS.api.name,
  engine: PACKAGED_FUNCTIONS.engine.name,
  expirer: PACKAGED_FUNCTIONS.expirer.name,
  interceptor: PACKAGED_FUNCTIONS.interceptor.name,
} as const;

/** On the handler's and the expirer's roles: the reply bus lets only these put reply events (their owner's). */
export const PUBLISHER_TAG = { key: 'cdk-tool-handler:publisher', value: 'true' } as const;
