import { INDEXES, TABLE } from '../../lambda/construct-contract';
import { conditionsHold, coversAction, decide, wildcard, type Decision } from './iam-evaluation';

/**
 * A small model of how IAM authorizes a DynamoDB request, for the statements this construct writes:
 * the request context DynamoDB builds (action, `dynamodb:LeadingKeys`, `dynamodb:Attributes`,
 * `dynamodb:ReturnValues`) and the evaluation (an explicit Deny wins, then any Allow, else denied).
 *
 * `dynamodb:Attributes` is every top-level attribute name the request names: key attributes, names in
 * the update, condition, projection, filter and key-condition expressions (placeholders resolved), and
 * a PutItem's item. Names only returned by `ReturnValues` are not in it (Developer Guide, "Using IAM
 * policy conditions for fine-grained access control"). Condition operators this model does not know
 * make it throw, so a policy change cannot pass unexamined.
 */

export interface RequestContext {
  readonly action: string;
  /** What the request reads or writes: `table`, or `index/<name>` for a request with `IndexName`. */
  readonly resource: string;
  readonly leadingKeys: string[];
  readonly attributes: string[];
  readonly returnValues?: string;
}

export type { Decision };

const WORDS = new Set([
  'SET', 'REMOVE', 'ADD', 'DELETE', 'AND', 'OR', 'NOT', 'IN', 'BETWEEN',
  'attribute_exists', 'attribute_not_exists', 'attribute_type', 'begins_with', 'contains', 'size',
  'if_not_exists', 'list_append',
]);

/** The context of one SDK command (document-level or low-level input). */
export function requestContext(command: string, input: Record<string, any>): RequestContext {
  const operation = command.replace(/Command$/, '');
  const action = `dynamodb:${OPERATIONS[operation] ?? operation}`;
  const names: Record<string, string> = input.ExpressionAttributeNames ?? {};
  const attributes = new Set<string>();
  const key = input.Key as Record<string, unknown> | undefined;
  for (const name of Object.keys(key ?? {})) attributes.add(name);
  for (const name of Object.keys(input.Item ?? {})) attributes.add(name);
  for (const field of ['UpdateExpression', 'ConditionExpression', 'ProjectionExpression', 'FilterExpression', 'KeyConditionExpression']) {
    if (typeof input[field] === 'string') for (const name of topLevelNames(input[field], names)) attributes.add(name);
  }
  const leadingKeys = key ? Object.values(key).slice(0, 1).map(scalar) : queryPartition(input, names);
  const resource = typeof input.IndexName === 'string' ? `index/${input.IndexName}` : 'table';
  return { action, resource, leadingKeys, attributes: [...attributes], returnValues: input.ReturnValues ?? 'NONE' };
}

const OPERATIONS: Record<string, string> = {
  Get: 'GetItem', Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem',
  GetItem: 'GetItem', PutItem: 'PutItem', UpdateItem: 'UpdateItem', DeleteItem: 'DeleteItem',
  Scan: 'Scan', Query: 'Query', BatchWrite: 'BatchWriteItem', BatchGet: 'BatchGetItem',
};

/**
 * A Query's leading key: the value its key condition gives the partition key of the table, or of the
 * index it reads (for an index, `dynamodb:LeadingKeys` is the index's partition key value).
 */
function queryPartition(input: Record<string, any>, names: Record<string, string>): string[] {
  if (typeof input.KeyConditionExpression !== 'string') return [];
  const index = INDEXES.find((i) => i.name === input.IndexName);
  const partitionKey = index ? index.partitionKey.name : TABLE.partitionKey;
  const values: Record<string, unknown> = input.ExpressionAttributeValues ?? {};
  for (const [, name, value] of input.KeyConditionExpression.matchAll(/(#?\w+)\s*=\s*(:\w+)/g)) {
    if ((names[name] ?? name) === partitionKey) return [scalar(values[value])];
  }
  return [];
}

function scalar(value: unknown): string {
  if (typeof value === 'object' && value !== null && 'S' in value) return String((value as { S: unknown }).S);
  return String(value);
}

/** Top-level attribute names of an expression: the first element of each path. */
function topLevelNames(expression: string, names: Record<string, string>): string[] {
  const found: string[] = [];
  const tokens = expression.match(/[#:]?[A-Za-z_][A-Za-z0-9_]*|\.|\[\d+\]/g) ?? [];
  let afterDot = false;
  for (const token of tokens) {
    if (token === '.') {
      afterDot = true;
      continue;
    }
    if (token.startsWith('[')) continue;
    const nested = afterDot;
    afterDot = false;
    if (nested || token.startsWith(':') || WORDS.has(token)) continue;
    if (token.startsWith('#')) {
      const name = names[token];
      if (name === undefined) throw new Error(`unknown placeholder ${token} in ${expression}`);
      found.push(name);
    } else {
      found.push(token);
    }
  }
  return found;
}

/**
 * A policy statement with a table resource it names: `table`, or a pattern below the table such as
 * `index/<name>`, `index/*` or `stream/*`.
 */
export interface ScopedStatement {
  readonly resource: string;
  readonly statement: any;
}

/** Decides `request` against the statements on the table, its indexes and its stream. */
export function evaluate(scoped: ScopedStatement[], request: RequestContext): Decision {
  const statements = scoped.filter((s) => wildcard(s.resource, request.resource)).map((s) => s.statement);
  return decide(
    statements.filter((s) => coversAction(s, request.action)),
    (s) => conditionsHold(s.Condition, (key) => contextValues(key, request)),
  );
}

function contextValues(key: string, request: RequestContext): string[] | undefined {
  switch (key) {
    case 'dynamodb:LeadingKeys':
      return request.leadingKeys.length ? request.leadingKeys : undefined;
    case 'dynamodb:Attributes':
      return request.attributes.length ? request.attributes : undefined;
    case 'dynamodb:ReturnValues':
      return request.returnValues === undefined ? undefined : [request.returnValues];
    default:
      throw new Error(`the model does not know the condition key ${key}`);
  }
}
