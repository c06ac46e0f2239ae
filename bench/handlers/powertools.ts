/**
 * The Powertools baseline: BatchProcessor for partial failures, each body checked with the
 * parser's `parse` against the user's zod envelope, idempotency on DynamoDB (see powertools-core).
 * This is the leanest way to use the three utilities (only the user's `import * as z` schemas reach
 * zod), so it is the strongest baseline: the one results.json compares against.
 */
import { BatchProcessor, EventType } from '@aws-lambda-powertools/batch';
import { parse } from '@aws-lambda-powertools/parser';
import { CallEnvelope, createPowertoolsHandler, type PowertoolsHandlerOptions } from './powertools-core';

export function createHandler(options: PowertoolsHandlerOptions = {}) {
  return createPowertoolsHandler(options, new BatchProcessor(EventType.SQS), (record) =>
    parse(JSON.parse(record.body), undefined, CallEnvelope),
  );
}

export const handler = createHandler();
