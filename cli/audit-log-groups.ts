/**
 * Which log groups of a deployed stack hold audit records (docs/operations.md, "Audit records"): those of the
 * functions the construct tags `cdk-tool-handler:function` = `tool-handler`, `approvals-api` or
 * `approvals-expirer` in the stack's template (`GetTemplate`). A function's log group is the one its
 * `LoggingConfig.LogGroup` names (a `Ref` to a log group of the stack, whose physical id,
 * from `ListStackResources`, is its name), else Lambda's default, `/aws/lambda/<function name>`.
 * With `--output`, only the ToolHandler whose approvals API that output holds (its owner tag).
 */
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { CliError } from '../console/errors';
import { API_URL_OUTPUT_SUFFIX } from '../lambda/construct-contract';
import { FUNCTION_ROLE, TAG } from '../lib/permissions/tags';
import { refOf } from '../local/assembly';
import type { StackResource } from './cloudformation';
import { withProcessEnv } from './process-env';
import { stackError } from './stack-url';

/** A log group that holds audit records, whose function it is, and whose owner. */
export interface AuditLogGroup {
  readonly logGroup: string;
  /** `tool-handler`, `approvals-api` or `approvals-expirer`. */
  readonly part: string;
  readonly owner: string;
}

const AUDIT_WRITERS: readonly string[] = [FUNCTION_ROLE.handler, FUNCTION_ROLE.api, FUNCTION_ROLE.expirer];

type Template = { Resources?: Record<string, { Type?: string; Properties?: Record<string, any> }>; Outputs?: Record<string, { Value?: unknown }> };

export async function readAuditLogGroups(input: {
  readonly stack: string;
  readonly output?: string;
  readonly region?: string;
  readonly credentials: AwsCredentialIdentityProvider;
  readonly env: Readonly<Record<string, string | undefined>>;
}): Promise<AuditLogGroup[]> {
  // Loaded on use, as stack-url.ts loads it: `--local` never pays for the CloudFormation client.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { describeStackTemplate } = require('./cloudformation') as typeof import('./cloudformation');
  const described = await withProcessEnv(input.env, async () => {
    try {
      return await describeStackTemplate({ stack: input.stack, region: input.region, credentials: input.credentials });
    } catch (error) {
      throw stackError(input.stack, error, 'cloudformation:GetTemplate and cloudformation:ListStackResources, which grantReadAudit gives');
    }
  });
  let template: Template;
  try {
    template = JSON.parse(described.templateBody) as Template;
  } catch {
    throw new CliError(`The template of stack ${input.stack} is not JSON: \`audit --stack\` reads the templates that the CDK deploys.`);
  }
  return auditLogGroupsOf(input.stack, template, described.resources, input.output);
}

export function auditLogGroupsOf(stack: string, template: Template, resources: readonly StackResource[], output?: string): AuditLogGroup[] {
  const physical = new Map(resources.map((r) => [r.logicalId, r.physicalId]));
  const functions = Object.entries(template.Resources ?? {}).flatMap(([logicalId, r]) => {
    if (r.Type !== 'AWS::Lambda::Function') return [];
    const part = tagOf(r.Properties, TAG.function);
    const owner = tagOf(r.Properties, TAG.owner);
    return part !== undefined && owner !== undefined && AUDIT_WRITERS.includes(part) ? [{ logicalId, part, owner, properties: r.Properties ?? {} }] : [];
  });
  if (functions.length === 0) {
    throw new CliError(
      `Stack ${stack} has no function that writes audit records (a ToolHandler's handler, approvals API or expirer, tagged ${TAG.function}): ` +
        'is a ToolHandler deployed in it? Pass the stack that holds it.',
    );
  }
  const owner = output === undefined ? undefined : ownerOfOutput(stack, template, output);
  return functions
    .filter((f) => owner === undefined || f.owner === owner)
    .sort((a, b) => a.owner.localeCompare(b.owner) || AUDIT_WRITERS.indexOf(a.part) - AUDIT_WRITERS.indexOf(b.part))
    .map((f) => ({ logGroup: logGroupOf(stack, f.logicalId, f.properties, physical), part: f.part, owner: f.owner }));
}

function logGroupOf(stack: string, functionId: string, properties: Record<string, any>, physical: ReadonlyMap<string, string>): string {
  const named = properties.LoggingConfig?.LogGroup;
  if (typeof named === 'string') return named;
  const ref = refOf(named);
  const name = ref === undefined ? undefined : physical.get(ref);
  if (name !== undefined) return name;
  const functionName = physical.get(functionId);
  if (ref === undefined && functionName !== undefined) return `/aws/lambda/${functionName}`;
  throw new CliError(`Stack ${stack} lists no ${ref === undefined ? `function ${functionId}` : `log group ${ref}`}: is its deployment complete?`);
}

/** The owner of the ToolHandler whose approvals API URL the output `key` holds. */
function ownerOfOutput(stack: string, template: Template, key: string): string {
  const outputs = Object.keys(template.Outputs ?? {}).filter((k) => k.endsWith(API_URL_OUTPUT_SUFFIX));
  if (!outputs.includes(key)) {
    throw new CliError(
      outputs.length === 0
        ? `Stack ${stack} has no output whose key ends in ${API_URL_OUTPUT_SUFFIX}.`
        : `Stack ${stack} has no output ${key} ending in ${API_URL_OUTPUT_SUFFIX}; it has: ${outputs.join(', ')}.`,
    );
  }
  const url = template.Resources?.[refOf(template.Outputs?.[key]?.Value) ?? ''];
  const api = template.Resources?.[refOf(url?.Properties?.TargetFunctionArn) ?? ''];
  const owner = tagOf(api?.Properties, TAG.owner);
  if (url?.Type !== 'AWS::Lambda::Url' || api?.Type !== 'AWS::Lambda::Function' || owner === undefined) {
    throw new CliError(`Output ${key} of stack ${stack} does not hold a ToolHandler's approvals API URL: pass one that does, or leave out --output.`);
  }
  return owner;
}

function tagOf(properties: Record<string, any> | undefined, key: string): string | undefined {
  const tags = properties?.Tags;
  if (!Array.isArray(tags)) return undefined;
  const value = tags.find((t) => t && t.Key === key)?.Value;
  return typeof value === 'string' ? value : undefined;
}
