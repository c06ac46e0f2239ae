import { Annotations } from 'aws-cdk-lib';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { CALLER_PROOF_HEADER } from '../../lambda/caller-proof';
import { fail } from '../errors';
import { acknowledgeGatewayInvoke, GatewayCallerProofs } from './gateway-caller-proofs';
import { AddToGatewayOptions } from '../options/gateway-options';
import { RESUME_APPROVAL_TOOL, type ToolManifestEntry } from '../../lambda/construct-contract';
import { gatewayToolDefinitions, placeholderDefinition, resumeApprovalDefinition } from './gateway-schema';
import { allowlistedTools } from '../bundling/manifest-reader';

/** The W3C trace context's headers: the handler continues the trace they carry. */
const TRACE_HEADERS = ['traceparent', 'tracestate'] as const;

/** AgentCore's limit on `<target>___<tool>`, the name an MCP client sees. */
const MAX_QUALIFIED_NAME = 64;
const TARGET_NAME = /^[A-Za-z0-9_-]{1,100}$/;

export interface GatewayTargetInput {
  readonly gateway: agentcore.IGateway;
  readonly lambdaFunction: lambda.IFunction;
  /** The allowlist, in the order of the props. */
  readonly allowlist: readonly string[];
  /** The manifest read at synth, if any. */
  readonly manifest: readonly ToolManifestEntry[] | undefined;
  readonly options: AddToGatewayOptions;
  /** The handler's owner: whose walls the gateway's interceptor carries when `callerIdentity` makes it. */
  readonly owner: string;
}

/**
 * A Lambda target of `gateway` whose inline tool schema lists the allowlisted tools, and
 * `resume_approval` when one of them may require approval (or when that is unknown: no manifest).
 * `GatewayTarget.forLambda` grants the gateway's role `lambda:InvokeFunction` on the function.
 * With `callerIdentity`, the gateway proves its callers (gateway-caller-proofs.ts): the function
 * may check the proofs, and the target lets the proof's header through to it.
 */
export function createGatewayTarget(scope: Construct, id: string, input: GatewayTargetInput): agentcore.GatewayTarget {
  const warn = (key: string, message: string) => Annotations.of(scope).addWarningV2(`cdk-tool-handler:${key}`, message);
  const targetName = input.options.gatewayTargetName ?? scope.node.id.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 100);
  if (!TARGET_NAME.test(targetName)) {
    fail(`\`gatewayTargetName\` must be 1 to 100 characters of a-z A-Z 0-9 _ -, got: ${JSON.stringify(targetName)}.`, scope);
  }

  const clash = input.allowlist.includes(RESUME_APPROVAL_TOOL) || input.manifest?.some((tool) => tool.name === RESUME_APPROVAL_TOOL);
  if (clash) {
    fail(
      `\`addToGateway\` adds a tool named ${RESUME_APPROVAL_TOOL} (it resumes approvals through the Gateway), but the tools module ` +
        'defines one of that name: rename it.',
      scope,
    );
  }
  const tools = allowlistedTools(input.manifest, input.allowlist);
  let definitions: agentcore.ToolDefinition[];
  if (tools) {
    const reduced = gatewayToolDefinitions(tools);
    reduced.warnings.forEach((message) => warn('gatewaySchema', message));
    definitions = reduced.definitions;
  } else {
    warn(
      'gatewayWithoutManifest',
      'No tools manifest was read (bundling skipped): the gateway target lists each allowlisted tool as ' +
        '`{ type: object }` with its name as description.',
    );
    definitions = input.allowlist.map(placeholderDefinition);
  }
  const mayNeedApproval = !tools || tools.some((tool) => tool.approval !== 'never');
  if (mayNeedApproval) definitions.push(resumeApprovalDefinition());
  for (const { name } of definitions) {
    const qualified = `${targetName}___${name}`;
    if (qualified.length > MAX_QUALIFIED_NAME) {
      warn(
        'gatewayToolNameLength',
        `The Gateway tool name ${qualified} is ${qualified.length} characters, over AgentCore's ${MAX_QUALIFIED_NAME}: ` +
          'shorten `gatewayTargetName` or the tool name.',
      );
    }
  }
  const identity = input.options.callerIdentity;
  const proofs = identity && GatewayCallerProofs.of(scope, input.gateway, identity, input.owner);
  proofs?.checkProofsIn(scope, input.lambdaFunction);
  const target = agentcore.GatewayTarget.forLambda(scope, id, {
    gateway: input.gateway,
    gatewayTargetName: targetName,
    description: input.options.description,
    lambdaFunction: input.lambdaFunction,
    toolSchema: agentcore.ToolSchema.fromInline(definitions),
  });
  acknowledgeGatewayInvoke(input.gateway, input.lambdaFunction);
  // The Gateway hands a Lambda target only the headers its target allowlists: the trace context's
  // always, the caller's proof with `callerIdentity`. `forLambda` takes no metadata configuration,
  // so it is set on the CloudFormation resource.
  (target.node.defaultChild as agentcore.CfnGatewayTarget).metadataConfiguration = {
    allowedRequestHeaders: proofs ? [CALLER_PROOF_HEADER, ...TRACE_HEADERS] : [...TRACE_HEADERS],
  };
  return target;
}
