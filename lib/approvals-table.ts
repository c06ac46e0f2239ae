import { Annotations, RemovalPolicy, Token } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { INDEXES, IndexLayout, TABLE } from '../lambda/names';
import { fail } from './errors';
import { ToolHandlerProps } from './tool-handler-props';

/** The handler's approvals table: `props.approvalsTable` (checked), or a created one (`ApprovalsTable`). */
export function approvalsTableFor(scope: Construct, props: ToolHandlerProps, removalPolicy: RemovalPolicy): dynamodb.ITable {
  if (props.approvalsTable) {
    checkGivenTable(scope, props.approvalsTable);
    return props.approvalsTable;
  }
  return createApprovalsTable(scope, 'ApprovalsTable', { encryptionKey: props.encryptionKey, removalPolicy });
}

interface ApprovalsTableOptions {
  readonly encryptionKey?: kms.IKey;
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The table the runtime's DynamoDB store uses (lambda/names.ts `TABLE`): approvals (`approval#...`)
 * and duplicate-suppressed calls (`call#...`) under one String partition key, no sort key, expired by
 * TTL. On demand, since tool calls come in bursts; point-in-time recovery, since approvals are an
 * audit trail; retained on stack deletion unless told otherwise. Two per-owner indexes of approval
 * items (call items carry neither key) let the functions list approvals without reading the call
 * items, which hold every tool's kept reply, or another owner's approvals.
 */
function createApprovalsTable(scope: Construct, id: string, options: ApprovalsTableOptions): dynamodb.Table {
  const table = new dynamodb.Table(scope, id, {
    partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: TABLE.ttlAttribute,
    // The resume pipe (autoResume) reads decisions from it.
    stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    encryption: options.encryptionKey
      ? dynamodb.TableEncryption.CUSTOMER_MANAGED
      : dynamodb.TableEncryption.AWS_MANAGED,
    encryptionKey: options.encryptionKey,
    removalPolicy: options.removalPolicy,
  });
  addApprovalIndexes(table);
  return table;
}

/** Adds the two per-owner indexes the stores read (`INDEXES`) to a table. */
export function addApprovalIndexes(table: dynamodb.Table): void {
  for (const index of INDEXES) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey.name, type: dynamodb.AttributeType.STRING },
      sortKey: { name: index.sortKey.name, type: dynamodb.AttributeType.NUMBER },
      projectionType: dynamodb.ProjectionType.ALL,
    });
  }
}

/**
 * Checks a table the user passed. A `dynamodb.Table` defined in this app can be checked (its key
 * schema must be the store's: a wrong one throws; TTL on another attribute warns); any other table
 * cannot, which adds a warning.
 */
function checkGivenTable(scope: Construct, table: dynamodb.ITable): void {
  if (!(table instanceof dynamodb.Table)) {
    Annotations.of(scope).addWarningV2(
      'cdk-tool-handler:approvalsTableUnchecked',
      `The key schema and TTL of \`approvalsTable\` cannot be checked: it needs a String partition key "${TABLE.partitionKey}", ` +
        `no sort key, TTL on "${TABLE.ttlAttribute}", and ${describeIndexes()}.`,
    );
    return;
  }
  const { partitionKeys, sortKeys } = table.schemaV2();
  const describe = (keys: dynamodb.Attribute[]) => keys.map((key) => `${key.name} (${key.type})`).join(', ') || 'none';
  const [partitionKey] = partitionKeys;
  if (
    partitionKeys.length !== 1 ||
    partitionKey.name !== TABLE.partitionKey ||
    partitionKey.type !== dynamodb.AttributeType.STRING ||
    sortKeys.length > 0
  ) {
    const sortKey = sortKeys.length > 0 ? `, sort key ${describe(sortKeys)}` : '';
    fail(
      `\`approvalsTable\` must have a String partition key "${TABLE.partitionKey}" and no sort key, ` +
        `got: partition key ${describe(partitionKeys)}${sortKey}.`,
      scope,
    );
  }
  const missing = INDEXES.filter((index) => !hasIndex(table, index));
  if (missing.length > 0) {
    Annotations.of(scope).addWarningV2(
      'cdk-tool-handler:approvalsTableIndex',
      `\`approvalsTable\` lacks ${missing.map(describeIndex).join(' and ')}: listing and expiring approvals will fail.`,
    );
  }
  const cfn = table.node.defaultChild as dynamodb.CfnTable;
  const ttl = cfn.timeToLiveSpecification as dynamodb.CfnTable.TimeToLiveSpecificationProperty | undefined;
  const ttlAttribute = ttl && !Token.isUnresolved(ttl) && ttl.enabled !== false ? ttl.attributeName : undefined;
  if (ttlAttribute !== TABLE.ttlAttribute) {
    Annotations.of(scope).addWarningV2(
      'cdk-tool-handler:approvalsTableTtl',
      `\`approvalsTable\` should have TTL on "${TABLE.ttlAttribute}", got: ${ttlAttribute ?? 'no TTL'}. ` +
        'Without it, expired approvals and kept replies are never deleted (the handler still treats them as gone).',
    );
  }
}

function hasIndex(table: dynamodb.Table, index: IndexLayout): boolean {
  try {
    const { partitionKeys, sortKeys } = table.schemaV2(index.name);
    return (
      partitionKeys.length === 1 &&
      partitionKeys[0].name === index.partitionKey.name &&
      partitionKeys[0].type === dynamodb.AttributeType.STRING &&
      sortKeys.length === 1 &&
      sortKeys[0].name === index.sortKey.name &&
      sortKeys[0].type === dynamodb.AttributeType.NUMBER
    );
  } catch {
    return false; // schemaV2() throws for an index the table does not have
  }
}

function describeIndex(index: IndexLayout): string {
  return `a global secondary index "${index.name}" (partition key String "${index.partitionKey.name}", sort key Number "${index.sortKey.name}", all attributes projected)`;
}

function describeIndexes(): string {
  return INDEXES.map(describeIndex).join(' and ');
}
