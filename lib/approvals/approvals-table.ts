import { Annotations, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { INDEXES, IndexLayout, TABLE } from '../../lambda/construct-contract';
import { makesResumePath } from './auto-resume';
import { fail } from '../errors';
import { ToolHandlerProps } from '../tool-handler-props';

/** The handler's approvals table: `props.approvalsTable` (checked), or a created one (`ApprovalsTable`). */
export function approvalsTableFor(scope: Construct, props: ToolHandlerProps, removalPolicy: RemovalPolicy): dynamodb.ITable {
  if (props.approvalsTable) {
    // The resume path (autoResume) reads the stream of the table it is made for.
    checkGivenTable(scope, props.approvalsTable, makesResumePath(props));
    return props.approvalsTable;
  }
  return createApprovalsTable(scope, 'ApprovalsTable', { encryptionKey: props.encryptionKey, removalPolicy });
}

interface ApprovalsTableOptions {
  readonly encryptionKey?: kms.IKey;
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The table the runtime's DynamoDB store uses (lambda/construct-contract.ts `TABLE`): approvals (`approval#...`)
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
 * Checks a table the user passed, in the constructor (before anything is bundled), so a table with
 * its indexes added later counts as lacking them. A `dynamodb.Table` defined in this app can be
 * checked: a wrong key schema, a missing or different index, and (when this handler reads its stream)
 * a missing stream or one without old images cannot work, and throw together, each saying what to
 * change; TTL on another attribute only warns. Any other table's schema cannot be seen, which warns;
 * without a stream ARN it cannot feed the resume path, which throws.
 */
function checkGivenTable(scope: Construct, table: dynamodb.ITable, readsStream: boolean): void {
  const stream = readsStream ? streamProblem(table) : undefined;
  if (!(table instanceof dynamodb.Table)) {
    if (stream) fail(stream, scope);
    Annotations.of(scope).addWarningV2(
      'cdk-tool-handler:approvalsTableUnchecked',
      `The key schema and TTL of \`approvalsTable\` cannot be checked: it needs a String partition key "${TABLE.partitionKey}", ` +
        `no sort key, TTL on "${TABLE.ttlAttribute}", and ${describeIndexes()}.`,
    );
    return;
  }
  const problems = [keySchemaProblem(table), stream, indexProblem(table)].filter((p): p is string => p !== undefined);
  if (problems.length > 0) fail(problems.join(' '), scope);
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

/**
 * Why `table` cannot feed the resume path, whose pipe reads its stream and filters on new and old
 * images; undefined when it can (or, for a table not of this app, when its stream view cannot be seen).
 */
export function streamProblem(table: dynamodb.ITable): string | undefined {
  if (!table.tableStreamArn) {
    return (
      '`approvalsTable` has no stream, which `autoResume` needs: create the table with ' +
      '`stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES` (or import it with its `tableStreamArn`), or set `autoResume: false`.'
    );
  }
  if (!(table instanceof dynamodb.Table)) return undefined;
  const spec = (table.node.defaultChild as dynamodb.CfnTable).streamSpecification as dynamodb.CfnTable.StreamSpecificationProperty | undefined;
  const view = spec?.streamViewType;
  if (view !== undefined && typeof view === 'string' && view !== dynamodb.StreamViewType.NEW_AND_OLD_IMAGES) {
    return (
      `\`approvalsTable\`'s stream must show new and old images for \`autoResume\`, got: ${view}. ` +
      'Use `stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES`, or set `autoResume: false`.'
    );
  }
  return undefined;
}

function keySchemaProblem(table: dynamodb.Table): string | undefined {
  const { partitionKeys, sortKeys } = table.schemaV2();
  const [partitionKey] = partitionKeys;
  if (
    partitionKeys.length === 1 &&
    partitionKey.name === TABLE.partitionKey &&
    partitionKey.type === dynamodb.AttributeType.STRING &&
    sortKeys.length === 0
  ) {
    return undefined;
  }
  const sortKey = sortKeys.length > 0 ? `, sort key ${describeKeys(sortKeys)}` : '';
  return (
    `\`approvalsTable\` must have a String partition key "${TABLE.partitionKey}" and no sort key, ` +
    `got: partition key ${describeKeys(partitionKeys)}${sortKey}.`
  );
}

/** The indexes the API and the expirer query that `table` lacks (or has with other keys or projection), and the code that adds them. */
function indexProblem(table: dynamodb.Table): string | undefined {
  const missing = INDEXES.filter((index) => !hasIndex(table, index));
  if (missing.length === 0) return undefined;
  const found = missing.map((index) => `${index.name}: ${describeFound(table, index.name)}`).join('; ');
  return (
    `\`approvalsTable\` lacks ${missing.map(describeIndex).join(' and ')}, which listing and expiring approvals query, ` +
    `got: ${found}. Add ${missing.length > 1 ? 'them' : 'it'} before passing the table: ${missing.map(addIndexCode).join('; ')} ` +
    '(a deployed table takes one new index per deployment).'
  );
}

function hasIndex(table: dynamodb.Table, index: IndexLayout): boolean {
  const schema = indexSchema(table, index.name);
  return (
    schema !== undefined &&
    schema.partitionKeys.length === 1 &&
    schema.partitionKeys[0].name === index.partitionKey.name &&
    schema.partitionKeys[0].type === dynamodb.AttributeType.STRING &&
    schema.sortKeys.length === 1 &&
    schema.sortKeys[0].name === index.sortKey.name &&
    schema.sortKeys[0].type === dynamodb.AttributeType.NUMBER &&
    projectionOf(table, index.name) === dynamodb.ProjectionType.ALL
  );
}

function indexSchema(table: dynamodb.Table, indexName: string): dynamodb.KeySchema | undefined {
  try {
    return table.schemaV2(indexName);
  } catch {
    return undefined; // schemaV2() throws for an index the table does not have
  }
}

/** The projection of a global secondary index of `table` as it stands now (ALL when none is given). */
function projectionOf(table: dynamodb.Table, indexName: string): string | undefined {
  const cfn = table.node.defaultChild as dynamodb.CfnTable;
  const indexes = Stack.of(table).resolve(cfn.globalSecondaryIndexes) as
    | Array<{ indexName?: string; projection?: { projectionType?: string } }>
    | undefined;
  const index = indexes?.find((i) => i.indexName === indexName);
  return index === undefined ? undefined : index.projection?.projectionType ?? dynamodb.ProjectionType.ALL;
}

function describeFound(table: dynamodb.Table, indexName: string): string {
  const schema = indexSchema(table, indexName);
  if (schema === undefined) return 'no such index';
  const sortKey = schema.sortKeys.length > 0 ? `, sort key ${describeKeys(schema.sortKeys)}` : '';
  return `partition key ${describeKeys(schema.partitionKeys)}${sortKey}, projection ${projectionOf(table, indexName)}`;
}

function describeKeys(keys: dynamodb.Attribute[]): string {
  return keys.map((key) => `${key.name} (${key.type})`).join(', ') || 'none';
}

function describeIndex(index: IndexLayout): string {
  return `a global secondary index "${index.name}" (partition key String "${index.partitionKey.name}", sort key Number "${index.sortKey.name}", all attributes projected)`;
}

function describeIndexes(): string {
  return INDEXES.map(describeIndex).join(' and ');
}

/** The aws-cdk-lib call that adds `index` to a table (the projection defaults to ALL). */
function addIndexCode(index: IndexLayout): string {
  return (
    `\`table.addGlobalSecondaryIndex({ indexName: '${index.name}', ` +
    `partitionKey: { name: '${index.partitionKey.name}', type: dynamodb.AttributeType.STRING }, ` +
    `sortKey: { name: '${index.sortKey.name}', type: dynamodb.AttributeType.NUMBER } })\``
  );
}
