/**
 * SQS's `SendMessage` and `ChangeMessageVisibility` (JSON 1.0, `X-Amz-Target: AmazonSQS.*`), as the
 * local endpoints (local/endpoints.ts) serve them once a request has passed their front: each is
 * read, handed on, and answered as SQS answers it (a sent message with the body's MD5 the SDK checks).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { answerJson, AWS_JSON_1_0, jsonObjectOf } from './http-request';

/** A ChangeMessageVisibility request, as sent. */
export interface VisibilityChange {
  readonly QueueUrl: string;
  readonly ReceiptHandle: string;
  readonly VisibilityTimeout: number;
}

/** A message SendMessage sent, with the id SQS gave it. */
export interface SentMessage {
  readonly queueUrl: string;
  readonly messageId: string;
  readonly body: string;
  readonly groupId?: string;
  readonly deduplicationId?: string;
}


export function serveVisibilityChange(body: string, res: ServerResponse, onVisibilityChange: (change: VisibilityChange) => void): void {
  const change = jsonObjectOf<VisibilityChange>(body);
  if (!change) return sqsError(res, 'InvalidParameterValue', 'The request is not a JSON object.');
  onVisibilityChange(change);
  answerJson(res, 200, {}, {}, AWS_JSON_1_0);
}

export function serveSendMessage(body: string, res: ServerResponse, onMessage: (message: SentMessage) => void): void {
  const input = jsonObjectOf<{ QueueUrl?: unknown; MessageBody?: unknown; MessageGroupId?: string; MessageDeduplicationId?: string }>(body);
  if (!input) return sqsError(res, 'InvalidParameterValue', 'The request is not a JSON object.');
  if (typeof input.QueueUrl !== 'string' || typeof input.MessageBody !== 'string') {
    return sqsError(res, 'MissingParameter', 'QueueUrl and MessageBody are required (strings).');
  }
  const messageId = randomUUID();
  answerJson(res, 200, { MessageId: messageId, MD5OfMessageBody: createHash('md5').update(input.MessageBody).digest('hex') }, {}, AWS_JSON_1_0);
  onMessage({
    queueUrl: input.QueueUrl,
    messageId,
    body: input.MessageBody,
    groupId: input.MessageGroupId,
    deduplicationId: input.MessageDeduplicationId,
  });
}

function sqsError(res: ServerResponse, type: string, message: string): void {
  answerJson(res, 400, { __type: `com.amazonaws.sqs#${type}`, message }, {}, AWS_JSON_1_0);
}
