import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { ToolHandler, ToolHandlerProps } from '../../lib';
import { addApprovalIndexes } from '../../lib/approvals/approvals-table';

/** The sample's tools module: an entry that exists, for stacks that skip bundling. */
export const ENTRY = path.join(__dirname, '..', '..', 'bin', 'tools.ts');

export const ENV = { account: '123456789012', region: 'us-east-1' };

/** An app that bundles nothing: for tests that do not look inside the asset. */
export function unbundledApp(): App {
  return new App({ context: { 'aws:cdk:bundling-stacks': [] } });
}

/** The required props, plus `overrides`. */
export function props(overrides: Partial<ToolHandlerProps> = {}): ToolHandlerProps {
  return { entry: ENTRY, tools: ['add', 'refund'], ...overrides };
}

/** A stack with one `ToolHandler` (id `Tools`); `extra` may add more to the stack first. */
export function toolStack(
  app: App,
  id: string,
  overrides: Partial<ToolHandlerProps> = {},
  extra?: (stack: Stack) => Partial<ToolHandlerProps>,
): { stack: Stack; tools: ToolHandler } {
  const stack = new Stack(app, id, { env: ENV });
  const more = extra ? extra(stack) : {};
  const tools = new ToolHandler(stack, 'Tools', props({ ...overrides, ...more }));
  return { stack, tools };
}

/** Builds one stack in a fresh unbundled app and returns its template. */
export function templateOf(
  overrides: Partial<ToolHandlerProps> = {},
  extra?: (stack: Stack) => Partial<ToolHandlerProps>,
): Template {
  const { stack } = toolStack(unbundledApp(), 'Test', overrides, extra);
  return Template.fromStack(stack);
}

/** The one resource of `type` in `template` (fails when there is not exactly one). */
export function onlyResource(template: Template, type: string, props?: object): { id: string; resource: any } {
  const found = template.findResources(type, props ? { Properties: props } : undefined);
  const ids = Object.keys(found);
  if (ids.length !== 1) throw new Error(`expected one ${type}, found ${ids.length}: ${ids.join(', ')}`);
  return { id: ids[0], resource: found[ids[0]] };
}

/**
 * The one resource of `type` that belongs to the tool handler itself, not to the approvals service
 * (whose functions, roles and log groups sit under `Approvals`).
 */
export function handlerResource(template: Template, type: string, props?: object): { id: string; resource: any } {
  const found = template.findResources(type, props ? { Properties: props } : undefined);
  const ids = Object.keys(found).filter((id) => !/^[A-Za-z0-9]*(Approvals(Engine|Api|Expirer)|AutoResume|Expiry)/.test(id));
  if (ids.length !== 1) throw new Error(`expected one handler ${type}, found ${ids.length}: ${ids.join(', ')}`);
  return { id: ids[0], resource: found[ids[0]] };
}

/** Every statement of every IAM policy attached to the role `roleId` (inline `AWS::IAM::Policy`). */
export function statementsOfRole(template: Template, roleId: string): any[] {
  const policies = template.findResources('AWS::IAM::Policy');
  return Object.values(policies)
    .filter((p: any) => (p.Properties.Roles ?? []).some((r: any) => r.Ref === roleId))
    .flatMap((p: any) => p.Properties.PolicyDocument.Statement);
}

export function actionsOf(statement: any): string[] {
  return ([] as string[]).concat(statement.Action ?? []);
}

/** `table` with the two per-owner indexes a given table needs (a table without them is a synth error). */
export function withApprovalIndexes<T extends dynamodb.Table>(table: T): T {
  addApprovalIndexes(table);
  return table;
}
