/**
 * The AWS APIs the functions call, on one 127.0.0.1 port: Lambda's Invoke (the handler reaches the
 * approvals engine through `@aws-sdk/client-lambda`, `AWS_ENDPOINT_URL_LAMBDA`), EventBridge's
 * PutEvents (the reply bus, `AWS_ENDPOINT_URL_EVENTBRIDGE`), whose events are recorded and passed on,
 * and SQS's ChangeMessageVisibility (`AWS_ENDPOINT_URL_SQS`: a rate-limited record's retry time).
 * Only requests with a loopback `Host`, signed by keys that `access` names, may call them
 * (local/endpoint-access.ts: the run's own functions; the tests' hosts name the tests' keys); anyone
 * else gets a 403, decided from the headers before the body is read. A body over Lambda's or
 * EventBridge's own limit (local/body-limits.ts) is a 413, and is not read past the limit.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ASYNC_INVOKE_BODY_LIMIT, INVOKE_BODY_LIMIT, PUT_EVENTS_BODY_LIMIT } from './body-limits';
import { authenticate, invokeRefusal, otherActionRefusal, screen, type EndpointAccess, type Refusal } from './endpoint-access';
import type { InvokeOutcome } from './function-sandbox';
import { answerAndClose, joinHeaders, readBody, splitUrl } from './http-request';
import { LOCAL_ACCOUNT } from './intrinsics';
import { listenOnLoopback } from './loopback-server';

/** An entry of a PutEvents request, as sent. */
export interface PutEventsEntry {
  readonly Source: string;
  readonly DetailType: string;
  readonly Detail: string;
  readonly EventBusName?: string;
}

export interface BusEvent {
  readonly bus: string;
  readonly source: string;
  readonly detailType: string;
  /** `Detail`, parsed (kept as text when it is not JSON). */
  readonly detail: unknown;
  readonly time: string;
  /** The PutEvents entry exactly as it was sent. */
  readonly entry: PutEventsEntry;
}

/** A ChangeMessageVisibility request, as sent. */
export interface VisibilityChange {
  readonly QueueUrl: string;
  readonly ReceiptHandle: string;
  readonly VisibilityTimeout: number;
}

export interface EndpointHandlers {
  /** Invokes the function of that local name, or `undefined` when there is none. */
  invoke(name: string, event: unknown): Promise<InvokeOutcome> | undefined;
  onEvent(event: BusEvent): void;
  /** SQS's ChangeMessageVisibility (a rate-limited call's record comes back when its window ends). @default - accepted, ignored */
  onVisibilityChange?(change: VisibilityChange): void;
}

export interface LocalEndpoints {
  readonly url: string;
  close(): Promise<void>;
}

export async function startEndpoints(handlers: EndpointHandlers, access: EndpointAccess): Promise<LocalEndpoints> {
  let port = 0;
  const server: Server = createServer((req, res) => {
    void serve(req, res, { handlers, access, port }).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { message: String(error) });
    });
  });
  const listening = await listenOnLoopback(server);
  port = listening.port;
  return { url: listening.url, close: () => listening.close() };
}

interface EndpointContext {
  readonly handlers: EndpointHandlers;
  readonly access: EndpointAccess;
  readonly port: number;
}

async function serve(req: IncomingMessage, res: ServerResponse, context: EndpointContext): Promise<void> {
  const { rawPath, rawQueryString } = splitUrl(req.url ?? '/');
  const headers = joinHeaders(req);
  const invoke = req.method === 'POST' ? /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(rawPath) : null;
  const target = headers['x-amz-target'] ?? '';
  const visibility = target === 'AmazonSQS.ChangeMessageVisibility';
  if (!invoke && target !== 'AWSEvents.PutEvents' && !visibility) {
    // Refused before the body is read; the message repeats nothing the request carried.
    answerAndClose(res, 400, { 'content-type': 'application/json' }, JSON.stringify({ __type: 'UnknownOperationException', message: 'local: no such operation' }));
    return;
  }
  const service = invoke ? 'lambda' : visibility ? 'sqs' : 'events';
  const screened = screen(headers, service, context.port, context.access);
  if (screened) return refuse(res, screened, service);
  const limit = visibility ? VISIBILITY_BODY_LIMIT : !invoke ? PUT_EVENTS_BODY_LIMIT : headers['x-amz-invocation-type'] === 'Event' ? ASYNC_INVOKE_BODY_LIMIT : INVOKE_BODY_LIMIT;
  const bytes = await readBody(req, limit);
  if (bytes === undefined) return tooLarge(res, service, limit);
  const body = bytes.toString('utf8');
  const request = { method: req.method ?? 'GET', rawPath, rawQueryString, headers, body };
  const signer = await authenticate(request, service, context.port, context.access);
  if ('refused' in signer) return refuse(res, signer.refused, service);
  if (invoke) return serveInvoke(decodeURIComponent(invoke[1]), signer.accessKeyId, req, body, res, context);
  const [action, resource] = visibility
    ? ['sqs:ChangeMessageVisibility', `arn:aws:sqs:${context.access.region}:${LOCAL_ACCOUNT}:*`]
    : ['events:PutEvents', `arn:aws:events:${context.access.region}:${LOCAL_ACCOUNT}:event-bus/*`];
  const refused = otherActionRefusal(signer.accessKeyId, action, resource, context.access);
  if (refused) return refuse(res, refused, service);
  if (visibility) return serveVisibilityChange(body, res, context.handlers);
  return servePutEvents(body, res, context.handlers);
}

/** A ChangeMessageVisibility request is a few hundred bytes: its receipt handle, the queue URL and a number. */
const VISIBILITY_BODY_LIMIT = 16 * 1024;

function serveVisibilityChange(body: string, res: ServerResponse, handlers: EndpointHandlers): void {
  let change: VisibilityChange;
  try {
    change = JSON.parse(body) as VisibilityChange;
  } catch {
    json(res, 400, { __type: 'com.amazonaws.sqs#InvalidParameterValue', message: 'The request is not JSON.' }, {}, 'application/x-amz-json-1.0');
    return;
  }
  handlers.onVisibilityChange?.(change);
  json(res, 200, {}, {}, 'application/x-amz-json-1.0');
}

async function serveInvoke(
  nameOrArn: string,
  accessKeyId: string,
  req: IncomingMessage,
  body: string,
  res: ServerResponse,
  { handlers, access }: EndpointContext,
): Promise<void> {
  const name = functionName(nameOrArn);
  const refused = invokeRefusal(accessKeyId, name, `arn:aws:lambda:${access.region}:${LOCAL_ACCOUNT}:function:${name}`, access);
  if (refused) return refuse(res, refused, 'lambda');
  let event: unknown;
  try {
    event = body ? JSON.parse(body) : {};
  } catch {
    json(res, 400, { Type: 'User', message: 'Could not parse request body into json' }, { 'x-amzn-errortype': 'InvalidRequestContentException' });
    return;
  }
  const pending = handlers.invoke(name, event);
  if (!pending) {
    json(res, 404, { Type: 'User', message: `Function not found: ${nameOrArn}` }, { 'x-amzn-errortype': 'ResourceNotFoundException' });
    return;
  }
  if (req.headers['x-amz-invocation-type'] === 'Event') {
    void pending;
    res.writeHead(202);
    res.end();
    return;
  }
  const outcome = await pending;
  if (outcome.ok) json(res, 200, outcome.result, { 'x-amz-executed-version': '$LATEST' });
  else json(res, 200, { errorType: outcome.error.errorType, errorMessage: outcome.error.errorMessage }, { 'x-amz-function-error': 'Unhandled' });
}

function servePutEvents(body: string, res: ServerResponse, handlers: EndpointHandlers): void {
  const input = JSON.parse(body || '{}') as { Entries?: PutEventsEntry[] };
  const entries = (input.Entries ?? []).map((entry) => {
    let detail: unknown = entry.Detail;
    try {
      detail = JSON.parse(entry.Detail);
    } catch {
      // kept as text
    }
    handlers.onEvent({
      bus: entry.EventBusName ?? 'default',
      source: entry.Source,
      detailType: entry.DetailType,
      detail,
      time: new Date().toISOString(),
      entry,
    });
    return { EventId: randomUUID() };
  });
  json(res, 200, { FailedEntryCount: 0, Entries: entries }, {}, 'application/x-amz-json-1.1');
}

/** `name`, `name:qualifier`, or an ARN (`arn:aws:lambda:region:account:function:name[:qualifier]`). */
export function functionName(value: string): string {
  if (value.startsWith('arn:')) return value.split(':')[6] ?? value;
  return value.split(':')[0];
}

/**
 * A 403 as Lambda (REST JSON, `x-amzn-errortype`) or EventBridge (JSON 1.1, `__type`) answers it; the
 * connection closes with it, so that a body not read yet is never read.
 */
function refuse(res: ServerResponse, refusal: Refusal, service: 'lambda' | 'events' | 'sqs'): void {
  const reason = { 'x-local-forbidden-reason': refusal.reason };
  if (service === 'lambda') {
    const body = refusal.type === 'AccessDeniedException' ? { Type: 'User', message: refusal.message } : { message: refusal.message };
    answerAndClose(res, 403, { 'content-type': 'application/json', 'x-amzn-errortype': refusal.type, ...reason }, JSON.stringify(body));
  } else {
    const body = { __type: refusal.type, message: refusal.message };
    answerAndClose(res, 403, { 'content-type': 'application/x-amz-json-1.1', ...reason }, JSON.stringify(body));
  }
}

/** A 413 for a body over `limit`, as Lambda words it, closing the connection (the rest is never read). */
function tooLarge(res: ServerResponse, service: 'lambda' | 'events' | 'sqs', limit: number): void {
  const operation = service === 'lambda' ? 'InvokeFunction' : service === 'sqs' ? 'ChangeMessageVisibility' : 'PutEvents';
  const message = `Request must be smaller than ${limit} bytes for the ${operation} operation`;
  if (service === 'lambda') {
    answerAndClose(res, 413, { 'content-type': 'application/json', 'x-amzn-errortype': 'RequestEntityTooLargeException' }, JSON.stringify({ Type: 'User', message }));
  } else {
    answerAndClose(res, 413, { 'content-type': 'application/x-amz-json-1.1' }, JSON.stringify({ __type: 'RequestEntityTooLargeException', message }));
  }
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type, ...headers });
  res.end(JSON.stringify(body ?? null));
}

