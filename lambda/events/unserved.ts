import type { Context } from 'aws-lambda';
import { ToolUsageError } from '../errors';
import { isJsonObject } from '../json';
import { refuse, type Host } from './host';
import { isSqsRecord } from './sqs-records';

/** An event of a kind the handler does not serve, as read: why it is refused, and its request id. */
export interface Unserved {
  readonly error: ToolUsageError;
  readonly requestId: string | undefined;
}

/**
 * Events of kinds the handler does not serve (S3, SNS, Kinesis, DynamoDB streams, API Gateway, ALB,
 * Kafka, MQ, ...): a function wired to the wrong source is told what arrived, not only that the
 * envelope lacks `tool`. Refused like a direct invoke's bad envelope: logged, then thrown.
 */
export const unservedHost: Host<Unserved, never> = {
  recognise(event, context: Partial<Context> | undefined) {
    const what = unservedKind(event);
    if (what === undefined) return undefined;
    const error = new ToolUsageError(`Invalid event: ${what}; the handler takes tool calls only.`);
    return { error, requestId: context?.awsRequestId };
  },
  answer({ error, requestId }) {
    refuse(error, {}, 'lambda', requestId);
    return Promise.reject(error);
  },
  outOfTime: ({ error }) => Promise.reject(error),
};

/** The services that mark their events or records with `eventSource` (`aws:<key>`, or the key alone). */
const SOURCES: Record<string, string> = {
  s3: 'S3',
  sns: 'SNS',
  kinesis: 'Kinesis',
  dynamodb: 'a DynamoDB stream',
  kafka: 'Kafka',
  SelfManagedKafka: 'Kafka',
  mq: 'Amazon MQ',
  rmq: 'Amazon MQ',
};

/**
 * What the event is, with the field that tells it, or `undefined` for an event that may be an
 * envelope (whose refusal lists its keys: envelope.ts).
 */
function unservedKind(event: unknown): string | undefined {
  if (!isJsonObject(event) || 'tool' in event || 'approval_id' in event) return undefined;
  if ('requestContext' in event) return 'an HTTP request (API Gateway, ALB, a function URL): `requestContext` is set';
  if ('apiPath' in event) return 'a Bedrock Agents API-schema call: `apiPath` is set, only function details are served';
  const records = event.Records;
  // SQS batches are taken before this host: the first record that is not SQS's says what the batch is.
  const at = Array.isArray(records) ? Math.max(0, records.findIndex((r) => !isSqsRecord(r))) : -1;
  const found = at < 0 ? event : (records as unknown[])[at];
  const record = isJsonObject(found) ? found : {};
  const field = 'EventSource' in record ? 'EventSource' : 'eventSource';
  const source = record[field];
  if (at < 0 && source === undefined) return undefined;
  const service = typeof source === 'string' ? source.replace(/^aws:/, '') : '';
  const known = Object.hasOwn(SOURCES, service);
  // Only a source of the list is shown: any other value is the caller's, and may be anything.
  const shown = known
    ? `is \`${source as string}\``
    : typeof source === 'string'
      ? 'names a source the handler does not know'
      : source === undefined
        ? 'is missing'
        : 'is not a string';
  return `an event from ${known ? SOURCES[service] : 'another source'}: \`${at < 0 ? '' : `Records[${at}].`}${field}\` ${shown}`;
}
