/**
 * The AWS APIs the functions call, on one 127.0.0.1 port: Lambda's Invoke (the handler reaches the
 * approvals engine through `@aws-sdk/client-lambda`, `AWS_ENDPOINT_URL_LAMBDA`) and EventBridge's
 * PutEvents (the reply bus, `AWS_ENDPOINT_URL_EVENTBRIDGE`), whose events are recorded and passed on.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InvokeOutcome } from './workers';
import { readBody } from './function-url';

export interface BusEvent {
  readonly bus: string;
  readonly source: string;
  readonly detailType: string;
  readonly detail: unknown;
  readonly time: string;
}

export interface EndpointHandlers {
  /** Invokes the function of that local name, or `undefined` when there is none. */
  invoke(name: string, event: unknown): Promise<InvokeOutcome> | undefined;
  onEvent(event: BusEvent): void;
}

export interface LocalEndpoints {
  readonly url: string;
  close(): Promise<void>;
}

export async function startEndpoints(handlers: EndpointHandlers): Promise<LocalEndpoints> {
  const server: Server = createServer((req, res) => {
    void serve(req, res, handlers).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { message: String(error) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function serve(req: IncomingMessage, res: ServerResponse, handlers: EndpointHandlers): Promise<void> {
  const body = await readBody(req);
  const invoke = /^\/2015-03-31\/functions\/([^/]+)\/invocations/.exec(req.url ?? '');
  if (invoke && req.method === 'POST') return serveInvoke(decodeURIComponent(invoke[1]), req, body, res, handlers);
  const target = String(req.headers['x-amz-target'] ?? '');
  if (target === 'AWSEvents.PutEvents') return servePutEvents(body, res, handlers);
  json(res, 400, { __type: 'UnknownOperationException', message: `local: no such operation (${req.method} ${req.url} ${target})` });
}

async function serveInvoke(nameOrArn: string, req: IncomingMessage, body: string, res: ServerResponse, handlers: EndpointHandlers): Promise<void> {
  const name = functionName(nameOrArn);
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
  const input = JSON.parse(body || '{}') as { Entries?: Array<Record<string, string>> };
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

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type, ...headers });
  res.end(JSON.stringify(body ?? null));
}

