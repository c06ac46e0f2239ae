/**
 * Stands in for SQS's `SendMessage` (JSON 1.0, `X-Amz-Target: AmazonSQS.SendMessage`) on 127.0.0.1:
 * each message is handed to `onMessage` (the local run delivers it to the handler as an SQS record),
 * and answered as SQS answers, with the body's MD5 the SDK checks.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { readBody } from './http-request';
import { listenOnLoopback, type LoopbackServer } from './loopback-server';

export interface SentMessage {
  readonly queueUrl: string;
  readonly messageId: string;
  readonly body: string;
  readonly groupId?: string;
  readonly deduplicationId?: string;
}

const MAX_MESSAGE_BYTES = 1024 * 1024;

export async function startSqsFront(onMessage: (message: SentMessage) => void): Promise<LoopbackServer> {
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req, MAX_MESSAGE_BYTES + 64 * 1024);
      const answer = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify(payload));
      };
      if (body === undefined) return answer(400, { __type: 'com.amazonaws.sqs#InvalidParameterValue', message: 'message too large' });
      if (req.headers['x-amz-target'] !== 'AmazonSQS.SendMessage') {
        return answer(400, { __type: 'com.amazonaws.sqs#UnsupportedOperation', message: 'only SendMessage is served here' });
      }
      const input = JSON.parse(body.toString('utf8')) as { QueueUrl?: string; MessageBody?: string; MessageGroupId?: string; MessageDeduplicationId?: string };
      if (typeof input.QueueUrl !== 'string' || typeof input.MessageBody !== 'string') {
        return answer(400, { __type: 'com.amazonaws.sqs#MissingParameter', message: 'QueueUrl and MessageBody are required' });
      }
      const messageId = randomUUID();
      answer(200, { MessageId: messageId, MD5OfMessageBody: createHash('md5').update(input.MessageBody).digest('hex') });
      onMessage({
        queueUrl: input.QueueUrl,
        messageId,
        body: input.MessageBody,
        groupId: input.MessageGroupId,
        deduplicationId: input.MessageDeduplicationId,
      });
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  return listenOnLoopback(server);
}
