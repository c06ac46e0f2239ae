/**
 * A given approvals table that cannot work is a synth error that says what to add: a table
 * defined in the app whose key, indexes or stream the functions cannot use. An imported table, whose
 * schema cannot be seen, only warns (warnings.test.ts), unless it has no stream for the resume path.
 */
import { Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import { INDEXES, TABLE } from '../../lambda/construct-contract';
import { thrown } from '../support/thrown';
import { toolStack, unbundledApp, withApprovalIndexes } from './helpers';

const PENDING =
  'a global secondary index "pendingByOwner" (partition key String "pendingOwner", sort key Number "expiresAt", all attributes projected)';
const BY_OWNER =
  'a global secondary index "approvalsByOwner" (partition key String "owner", sort key Number "createdAt", all attributes projected)';
const ADD_PENDING =
  "`table.addGlobalSecondaryIndex({ indexName: 'pendingByOwner', partitionKey: { name: 'pendingOwner', type: dynamodb.AttributeType.STRING }, " +
  "sortKey: { name: 'expiresAt', type: dynamodb.AttributeType.NUMBER } })`";
const ADD_BY_OWNER =
  "`table.addGlobalSecondaryIndex({ indexName: 'approvalsByOwner', partitionKey: { name: 'owner', type: dynamodb.AttributeType.STRING }, " +
  "sortKey: { name: 'createdAt', type: dynamodb.AttributeType.NUMBER } })`";
const ONE_PER_DEPLOYMENT = '(a deployed table takes one new index per deployment).';
const NO_STREAM =
  '`approvalsTable` has no stream, which `autoResume` needs: create the table with ' +
  '`stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES` (or import it with its `tableStreamArn`), or set `autoResume: false`.';

/** A table in the app with the store's key, TTL and stream (and no index unless `indexes` adds some). */
function table(stack: Stack, options: Partial<dynamodb.TableProps> = {}): dynamodb.Table {
  return new dynamodb.Table(stack, 'T', {
    partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
    timeToLiveAttribute: TABLE.ttlAttribute,
    stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
    ...options,
  });
}

/** The message of the synth error `build` causes (the test fails when nothing is thrown). */
const synthError = (build: (stack: Stack) => dynamodb.ITable): string =>
  (thrown(() => toolStack(unbundledApp(), 'Test', {}, (stack) => ({ approvalsTable: build(stack) }))) as Error).message;

describe('a table of this app that cannot work is an error naming what to add', () => {
  test('no per-owner index: both are named, with the code that adds each', () => {
    expect(synthError((stack) => table(stack))).toBe(
      `Test/Tools: \`approvalsTable\` lacks ${PENDING} and ${BY_OWNER}, which listing and expiring approvals query, ` +
        `got: pendingByOwner: no such index; approvalsByOwner: no such index. Add them before passing the table: ${ADD_PENDING}; ${ADD_BY_OWNER} ` +
        ONE_PER_DEPLOYMENT,
    );
  });

  test('one of the two: only the missing one is named', () => {
    const message = synthError((stack) => {
      const t = table(stack);
      const [pending] = INDEXES;
      t.addGlobalSecondaryIndex({
        indexName: pending.name,
        partitionKey: { name: pending.partitionKey.name, type: dynamodb.AttributeType.STRING },
        sortKey: { name: pending.sortKey.name, type: dynamodb.AttributeType.NUMBER },
      });
      return t;
    });
    expect(message).toBe(
      `Test/Tools: \`approvalsTable\` lacks ${BY_OWNER}, which listing and expiring approvals query, got: approvalsByOwner: no such index. ` +
        `Add it before passing the table: ${ADD_BY_OWNER} ${ONE_PER_DEPLOYMENT}`,
    );
  });

  test('indexes of the right names with String sort keys, or projecting keys only, count as missing and say what they are', () => {
    const message = synthError((stack) => {
      const t = table(stack);
      const [pending, byOwner] = INDEXES;
      t.addGlobalSecondaryIndex({
        indexName: pending.name,
        partitionKey: { name: pending.partitionKey.name, type: dynamodb.AttributeType.STRING },
        sortKey: { name: pending.sortKey.name, type: dynamodb.AttributeType.STRING },
      });
      t.addGlobalSecondaryIndex({
        indexName: byOwner.name,
        partitionKey: { name: byOwner.partitionKey.name, type: dynamodb.AttributeType.STRING },
        sortKey: { name: byOwner.sortKey.name, type: dynamodb.AttributeType.NUMBER },
        projectionType: dynamodb.ProjectionType.KEYS_ONLY,
      });
      return t;
    });
    expect(message).toContain(
      'got: pendingByOwner: partition key pendingOwner (S), sort key expiresAt (S), projection ALL; ' +
        'approvalsByOwner: partition key owner (S), sort key createdAt (N), projection KEYS_ONLY.',
    );
  });

  test("the earlier version's `approvals` index alone: both per-owner indexes are missing", () => {
    const message = synthError((stack) => {
      const t = table(stack);
      t.addGlobalSecondaryIndex({ indexName: 'approvals', partitionKey: { name: 'approvalId', type: dynamodb.AttributeType.STRING } });
      return t;
    });
    expect(message).toMatch(/^Test\/Tools: `approvalsTable` lacks a global secondary index "pendingByOwner" .* and a global secondary index "approvalsByOwner"/);
  });

  test('everything wrong at once is one error, each problem in a sentence of its own', () => {
    const message = synthError((stack) =>
      new dynamodb.Table(stack, 'T', { partitionKey: { name: 'id', type: dynamodb.AttributeType.STRING } }),
    );
    expect(message.startsWith(
      'Test/Tools: `approvalsTable` must have a String partition key "pk" and no sort key, got: partition key id (S). ' +
        `${NO_STREAM} \`approvalsTable\` lacks ${PENDING} and ${BY_OWNER}`,
    )).toBe(true);
  });

  test('indexes added after the table was passed count as missing: the check runs in the constructor, before bundling', () => {
    expect(() => {
      const { stack } = toolStack(unbundledApp(), 'Late', {}, (s) => ({ approvalsTable: table(s) }));
      withApprovalIndexes(stack.node.findChild('T') as dynamodb.Table);
    }).toThrow(/^Late\/Tools: `approvalsTable` lacks/);
  });

  test('a table with everything: no error, no table warning', () => {
    const { stack } = toolStack(unbundledApp(), 'Good', {}, (s) => ({ approvalsTable: withApprovalIndexes(table(s)) }));
    expect(Annotations.fromStack(stack).findWarning('/Good/Tools', Match.stringLikeRegexp('approvalsTable'))).toEqual([]);
  });
});

describe('the stream: needed only where this handler makes the resume path', () => {
  test('no stream while autoResume is on is an error', () => {
    expect(synthError((stack) => withApprovalIndexes(table(stack, { stream: undefined })))).toBe(`Test/Tools: ${NO_STREAM}`);
  });

  test('no stream with autoResume off, or with the resume bus of another app: no error', () => {
    expect(() => toolStack(unbundledApp(), 'Off', { autoResume: false }, (s) => ({ approvalsTable: withApprovalIndexes(table(s, { stream: undefined })) }))).not.toThrow();
    expect(() =>
      toolStack(unbundledApp(), 'Elsewhere', { owner: 'two' }, (s) => ({
        approvalsTable: withApprovalIndexes(table(s, { stream: undefined })),
        approvalsResumeBus: events.EventBus.fromEventBusName(s, 'Bus', 'resumes'),
      })),
    ).not.toThrow();
  });

  test('an imported table without its stream ARN is an error; its schema, which cannot be seen, only warns', () => {
    expect(synthError((stack) => dynamodb.Table.fromTableName(stack, 'T', 'approvals'))).toBe(`Test/Tools: ${NO_STREAM}`);
    const { stack } = toolStack(unbundledApp(), 'Imported', {}, (s) => ({
      approvalsTable: dynamodb.Table.fromTableAttributes(s, 'T', {
        tableName: 'approvals',
        tableStreamArn: 'arn:aws:dynamodb:us-east-1:123456789012:table/approvals/stream/2030-01-01T00:00:00.000',
      }),
    }));
    const found = Annotations.fromStack(stack).findWarning('/Imported/Tools', Match.stringLikeRegexp('approvalsTableUnchecked'));
    expect(found).toHaveLength(1);
  });
});
