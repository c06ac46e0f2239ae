/**
 * The Powertools handler as the batch utility's parser integration documents it: BatchProcessor
 * parses every record with the parser's SqsRecordSchema, its body through JSONStringified and the
 * user's envelope. Those Powertools schemas import `{ z } from 'zod'`, which esbuild cannot tree-shake,
 * so this variant carries all of zod; it is reported beside the baseline, never as it.
 */
import { BatchProcessor, EventType } from '@aws-lambda-powertools/batch';
import { parser } from '@aws-lambda-powertools/batch/parser';
import { JSONStringified } from '@aws-lambda-powertools/parser/helpers';
import { SqsRecordSchema } from '@aws-lambda-powertools/parser/schemas/sqs';
import { CallEnvelope, createPowertoolsHandler, type PowertoolsHandlerOptions } from './powertools-core';

/** Built once, not per record. */
const RecordSchema = SqsRecordSchema.extend({ body: JSONStringified(CallEnvelope) });

export function createHandler(options: PowertoolsHandlerOptions = {}) {
  return createPowertoolsHandler(
    options,
    new BatchProcessor(EventType.SQS, { parser, schema: RecordSchema }),
    // The processor has already parsed the body into the envelope.
    (record) => record.body as unknown as CallEnvelope,
  );
}

export const handler = createHandler();
