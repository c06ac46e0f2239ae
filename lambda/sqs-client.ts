/**
 * The runtime's SQS client, made once per container on first use, so a bundle that never sends to
 * SQS never loads the SDK. With `AWS_ENDPOINT_URL_SQS` set (a local run, tests) every request goes
 * to that endpoint: the SDK's `useQueueUrlAsEndpoint` would otherwise send to the queue URL's host.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { resolveRegion } from './config';

let shared: SQSClient | undefined;

/** The SQS SDK, loaded on first use. */
export function sqsSdk(): typeof import('@aws-sdk/client-sqs') {
  return require('@aws-sdk/client-sqs') as typeof import('@aws-sdk/client-sqs');
}

export function sqsClient(): SQSClient {
  return (shared ??= new (sqsSdk().SQSClient)({ region: resolveRegion(), useQueueUrlAsEndpoint: !process.env.AWS_ENDPOINT_URL_SQS }));
}
