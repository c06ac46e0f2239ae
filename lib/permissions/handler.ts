import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { CALL_ATTRIBUTES, FLOW_ATTRIBUTES, TABLE } from '../../lambda/construct-contract';
import { FUNCTION_ROLE, TAG } from './tags';
import { invokeFunctionStatement } from './callers';
import { callKeys, onlyItems } from './conditions';

/**
 * Every attribute a call item or a flow item (a waiting flow's reply_to and its completion) has, and
 * so every attribute the handler's writes may name.
 */
export const CALL_ITEM_ATTRIBUTES: string[] = [
  ...new Set([TABLE.partitionKey, TABLE.expiresAttribute, TABLE.ttlAttribute, ...Object.values(CALL_ATTRIBUTES), ...Object.values(FLOW_ATTRIBUTES)]),
];

/**
 * Everything the tool handler's role is given besides its log group, its queue, its keys and its
 * reply bus and its walls (walls.ts): its owner's call items (`handlerTableStatements`), the Denies
 * that keep it off the approvals API and expirers (`handlerInvokeDenials`), and invoke on its own engine.
 */
export function handlerStatements(table: dynamodb.ITable, owner: string, engine: lambda.IFunction): iam.PolicyStatement[] {
  return [
    ...handlerTableStatements(table, owner),
    ...handlerInvokeDenials(),
    invokeFunctionStatement(engine),
  ];
}

/**
 * The handler: UpdateItem and DeleteItem of its owner's call items, naming call-item attributes
 * only. Denied outright: every other action on the table, everything on its indexes and stream,
 * any request on a key outside its owner's calls (approval items, other owners' calls), and any
 * write naming another attribute (such as `owner`, which would put a call's kept reply into an
 * index that readers query).
 */
function handlerTableStatements(table: dynamodb.ITable, owner: string): iam.PolicyStatement[] {
  const tableArn = table.tableArn;
  const writes = ['dynamodb:UpdateItem', 'dynamodb:DeleteItem'];
  return [
    new iam.PolicyStatement({
      sid: 'ToolHandlerWritesItsCallItems',
      actions: writes,
      resources: [tableArn],
      conditions: {
        ...onlyItems(callKeys(owner)),
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': CALL_ITEM_ATTRIBUTES },
      },
    }),
    new iam.PolicyStatement({
      sid: 'ToolHandlerNothingElseOnTheTable',
      effect: iam.Effect.DENY,
      notActions: writes,
      resources: [tableArn],
    }),
    new iam.PolicyStatement({
      sid: 'ToolHandlerNoIndexesNorStream',
      effect: iam.Effect.DENY,
      actions: ['dynamodb:*'],
      resources: [`${tableArn}/index/*`, `${tableArn}/stream/*`],
    }),
    new iam.PolicyStatement({
      sid: 'ToolHandlerOnlyItsOwnCallItems',
      effect: iam.Effect.DENY,
      actions: ['dynamodb:*'],
      resources: [tableArn],
      conditions: { 'ForAnyValue:StringNotLike': { 'dynamodb:LeadingKeys': [callKeys(owner)] } },
    }),
    new iam.PolicyStatement({
      sid: 'ToolHandlerOnlyCallAttributes',
      effect: iam.Effect.DENY,
      actions: writes,
      resources: [tableArn],
      conditions: { 'ForAnyValue:StringNotEquals': { 'dynamodb:Attributes': CALL_ITEM_ATTRIBUTES } },
    }),
  ];
}

/**
 * The handler may never invoke an approvals API (not directly, not through its URL) nor an expirer
 * of any handler: functions are told apart by the tags the construct puts on them (Lambda evaluates
 * `aws:ResourceTag` for `InvokeFunction`). An explicit Deny, so it holds after the role is given
 * `lambda:InvokeFunction` (or `lambda:*`) on `*`. Other owners' functions are walled off for every
 * role of the construct (walls.ts).
 */
function handlerInvokeDenials(): iam.PolicyStatement[] {
  return [
    new iam.PolicyStatement({
      sid: 'ToolHandlerNeverApprovalsApisNorExpirers',
      effect: iam.Effect.DENY,
      actions: ['lambda:InvokeFunction', 'lambda:InvokeFunctionUrl', 'lambda:InvokeAsync'],
      resources: ['*'],
      conditions: { StringEquals: { [`aws:ResourceTag/${TAG.function}`]: [FUNCTION_ROLE.api, FUNCTION_ROLE.expirer] } },
    }),
  ];
}
