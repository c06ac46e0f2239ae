/**
 * SDK middleware for tests: counts the requests a client sends, records their inputs, and answers
 * chosen requests with a service error as DynamoDB would send it (so the SDK's own deserializer
 * and retry rules see a real HTTP response).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface SentCommand {
  /** e.g. `UpdateItemCommand` */
  readonly command: string;
  /** The document-level input (before marshalling). */
  readonly input: Record<string, unknown>;
}

export interface RequestRecorder {
  /** One entry per `send`. */
  readonly sent: SentCommand[];
  /** HTTP requests actually attempted (retries included). */
  readonly attempts: number;
  reset(): void;
  detach(): void;
}

let nextId = 0;

export function recordRequests(client: DynamoDBDocumentClient): RequestRecorder {
  const id = nextId++;
  const sent: SentCommand[] = [];
  let attempts = 0;
  const sendName = `test-record-send-${id}`;
  const attemptName = `test-count-attempt-${id}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push({ command: String(context.commandName), input: structuredClone(args.input as Record<string, unknown>) });
      return next(args);
    },
    { step: 'initialize', name: sendName, priority: 'high' },
  );
  client.middlewareStack.add(
    (next) => async (args) => {
      attempts++;
      return next(args);
    },
    { step: 'finalizeRequest', name: attemptName, priority: 'low' },
  );
  return {
    sent,
    get attempts() {
      return attempts;
    },
    reset() {
      sent.length = 0;
      attempts = 0;
    },
    detach() {
      client.middlewareStack.remove(sendName);
      client.middlewareStack.remove(attemptName);
    },
  };
}

export interface ServiceFault {
  readonly statusCode: number;
  /** The error code DynamoDB puts in `__type`. */
  readonly type: string;
  readonly message: string;
}

export const THROTTLING: ServiceFault = {
  statusCode: 400,
  type: 'com.amazon.coral.availability#ThrottlingException',
  message: 'Rate of requests exceeds the allowed throughput.',
};

export const INTERNAL_SERVER_ERROR: ServiceFault = {
  statusCode: 500,
  type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
  message: 'Internal server error',
};

export const SERVICE_UNAVAILABLE: ServiceFault = {
  statusCode: 503,
  type: 'com.amazon.coral.availability#ServiceUnavailableException',
  message: 'Service unavailable',
};

/**
 * Answers the `nth` HTTP request from now (1-based; `times` requests from there) with `fault`
 * instead of sending it. Returns a function that removes the fault.
 */
export function injectFault(
  client: DynamoDBDocumentClient,
  fault: ServiceFault,
  options: { nth?: number; times?: number } = {},
): () => void {
  const name = `test-fault-${nextId++}`;
  const first = options.nth ?? 1;
  const last = first + (options.times ?? 1) - 1;
  let seen = 0;
  const middleware = (next: (args: unknown) => Promise<unknown>) => async (args: unknown) => {
    seen++;
    if (seen < first || seen > last) return next(args);
    const body = new TextEncoder().encode(JSON.stringify({ __type: fault.type, message: fault.message }));
    const headers = { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'injected-fault' };
    return { response: { statusCode: fault.statusCode, headers, body }, output: undefined };
  };
  client.middlewareStack.addRelativeTo(middleware as never, {
    name,
    relation: 'after',
    toMiddleware: 'deserializerMiddleware',
  });
  return () => client.middlewareStack.remove(name);
}
