/**
 * The AWS APIs the functions call, on one 127.0.0.1 port: Lambda's Invoke (the handler reaches the
 * approvals engine through `@aws-sdk/client-lambda`, `AWS_ENDPOINT_URL_LAMBDA`), EventBridge's
 * PutEvents (the reply bus, `AWS_ENDPOINT_URL_EVENTBRIDGE`), whose events are recorded and passed on,
 * SQS's ChangeMessageVisibility (`AWS_ENDPOINT_URL_SQS`: a rate-limited record's retry time) and
 * SendMessage (a durable function's `callTool`), and the completions of a waiting flow: Step
 * Functions' SendTaskSuccess / SendTaskFailure (`AWS_ENDPOINT_URL_SFN`) and Lambda's durable
 * callbacks (local/flow-completions.ts). Each request is known by its path or `X-Amz-Target` alone
 * and goes to its own handler; an operation without one is refused as unknown.
 *
 * Every operation has the same front: only requests with a loopback `Host`, signed by keys that
 * `access` names, may call them (local/endpoint-access.ts: the run's own functions; the tests' hosts
 * name the tests' keys); anyone else gets a 403, decided from the headers before the body is read. A
 * body over the operation's own AWS limit (local/body-limits.ts) is a 413, and is not read past the limit.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  ASYNC_INVOKE_BODY_LIMIT,
  FLOW_COMPLETION_BODY_LIMIT,
  INVOKE_BODY_LIMIT,
  PUT_EVENTS_BODY_LIMIT,
  SEND_MESSAGE_BODY_LIMIT,
  VISIBILITY_BODY_LIMIT,
} from './body-limits';
import { authenticate, invokeRefusal, otherActionRefusal, screen, type EndpointAccess, type Refusal, type SignedService } from './endpoint-access';
import { DURABLE_CALLBACK_PATH, serveDurableCallback, serveTaskCompletion, TASK_COMPLETIONS, type CompleteFlow } from './flow-completions';
import type { InvokeOutcome } from './function-sandbox';
import { answerAndClose, answerJson, AWS_JSON_1_0, AWS_JSON_1_1, joinHeaders, readBody, splitUrl } from './http-request';
import { LOCAL_ACCOUNT } from './intrinsics';
import { listenOnLoopback } from './loopback-server';
import { serveSendMessage, serveVisibilityChange, type SentMessage, type VisibilityChange } from './sqs-api';

export type { SentMessage, VisibilityChange } from './sqs-api';

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

/** What each operation is handed once a request has passed the front; an operation whose handler is absent is refused as unknown. */
export interface EndpointHandlers {
  /** Lambda's Invoke: invokes the function of that local name, or `undefined` when there is none. @default - refused as unknown */
  invoke?(name: string, event: unknown): Promise<InvokeOutcome> | undefined;
  /** EventBridge's PutEvents: each event. @default - refused as unknown */
  onEvent?(event: BusEvent): void;
  /** SQS's ChangeMessageVisibility (a rate-limited call's record comes back when its window ends). @default - accepted, ignored */
  onVisibilityChange?(change: VisibilityChange): void;
  /** SQS's SendMessage: each message, after SQS's answer. @default - refused as unknown */
  onMessage?(message: SentMessage): void;
  /** A flow's completion (Step Functions' SendTaskSuccess / SendTaskFailure, a durable callback's succeed / fail). @default - refused as unknown */
  completeFlow?: CompleteFlow;
}

export interface LocalEndpoints {
  readonly url: string;
  close(): Promise<void>;
}

export async function startEndpoints(handlers: EndpointHandlers, access: EndpointAccess): Promise<LocalEndpoints> {
  let port = 0;
  const server: Server = createServer((req, res) => {
    void serve(req, res, { handlers, access, port }).catch((error: unknown) => {
      if (!res.headersSent) answerJson(res, 500, { message: String(error) });
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

/** How an API words its errors: Lambda's REST JSON (`x-amzn-errortype`), or AWS's JSON 1.0 / 1.1 (`__type`). */
type Protocol = 'rest-json' | typeof AWS_JSON_1_0 | typeof AWS_JSON_1_1;

/** One operation the endpoints serve, as known from the request's method, path and headers alone. */
interface Operation {
  /** The service it is signed for (SigV4's signing name). */
  readonly service: SignedService;
  readonly protocol: Protocol;
  /** Its name, as a 413 words it. */
  readonly name: string;
  /** The largest body it reads (local/body-limits.ts). */
  readonly limit: number;
  /** Why the signer may not do it, or `undefined` when they may. */
  refusal(accessKeyId: string): Refusal | undefined;
  serve(body: string, res: ServerResponse): void | Promise<void>;
}

async function serve(req: IncomingMessage, res: ServerResponse, context: EndpointContext): Promise<void> {
  const { rawPath, rawQueryString } = splitUrl(req.url ?? '/');
  const headers = joinHeaders(req);
  const operation = operationOf(req.method ?? 'GET', rawPath, headers, context);
  if (!operation) {
    // Refused before the body is read; the message repeats nothing the request carried.
    answerAndClose(res, 400, { 'content-type': 'application/json' }, JSON.stringify({ __type: 'UnknownOperationException', message: 'local: no such operation' }));
    return;
  }
  const screened = screen(headers, operation.service, context.port, context.access);
  if (screened) return refuse(res, screened, operation.protocol);
  const bytes = await readBody(req, operation.limit);
  if (bytes === undefined) return tooLarge(res, operation);
  const body = bytes.toString('utf8');
  const request = { method: req.method ?? 'GET', rawPath, rawQueryString, headers, body };
  const signer = await authenticate(request, operation.service, context.port, context.access);
  if ('refused' in signer) return refuse(res, signer.refused, operation.protocol);
  const refused = operation.refusal(signer.accessKeyId);
  if (refused) return refuse(res, refused, operation.protocol);
  await operation.serve(body, res);
}

const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

/** The operation a request asks for, or `undefined` when it is none the endpoints serve (or its handler is absent). */
function operationOf(method: string, rawPath: string, headers: Readonly<Record<string, string>>, { handlers, access }: EndpointContext): Operation | undefined {
  const arn = (service: string, resource: string) => `arn:aws:${service}:${access.region}:${LOCAL_ACCOUNT}:${resource}`;
  /** An operation whose IAM action is `<service>:<name>` (anything but an Invoke: local/endpoint-access.ts). */
  const action = (service: SignedService, protocol: Protocol, name: string, limit: number, resource: string, serveIt: Operation['serve']): Operation => ({
    service,
    protocol,
    name,
    limit,
    refusal: (accessKeyId) => otherActionRefusal(accessKeyId, `${service}:${name}`, arn(service, resource), access),
    serve: serveIt,
  });
  const invoke = method === 'POST' ? INVOKE_PATH.exec(rawPath) : null;
  if (invoke) {
    if (!handlers.invoke) return undefined;
    // Decoded once the request is known to be signed (a bad escape is no reason to answer before that).
    const nameOrArn = () => decodeURIComponent(invoke[1]);
    const async = headers['x-amz-invocation-type'] === 'Event';
    return {
      service: 'lambda',
      protocol: 'rest-json',
      name: 'InvokeFunction',
      limit: async ? ASYNC_INVOKE_BODY_LIMIT : INVOKE_BODY_LIMIT,
      refusal: (accessKeyId) => {
        const name = functionName(nameOrArn());
        return invokeRefusal(accessKeyId, name, arn('lambda', `function:${name}`), access);
      },
      serve: (body, res) => serveInvoke((name, event) => handlers.invoke!(name, event), nameOrArn(), async, body, res),
    };
  }
  const { completeFlow } = handlers;
  const callback = method === 'POST' ? DURABLE_CALLBACK_PATH.exec(rawPath) : null;
  if (callback) {
    const ok = callback[2] === 'succeed';
    const name = ok ? 'SendDurableExecutionCallbackSuccess' : 'SendDurableExecutionCallbackFailure';
    return completeFlow && action('lambda', 'rest-json', name, FLOW_COMPLETION_BODY_LIMIT, 'function:*', (body, res) =>
      serveDurableCallback(decodeURIComponent(callback[1]), ok, body, res, completeFlow),
    );
  }
  const target = headers['x-amz-target'] ?? '';
  const task = TASK_COMPLETIONS.get(target);
  if (task) {
    return completeFlow && action('states', AWS_JSON_1_0, task, FLOW_COMPLETION_BODY_LIMIT, 'stateMachine:*', (body, res) => serveTaskCompletion(task, body, res, completeFlow));
  }
  switch (target) {
    case 'AWSEvents.PutEvents':
      return handlers.onEvent && action('events', AWS_JSON_1_1, 'PutEvents', PUT_EVENTS_BODY_LIMIT, 'event-bus/*', (body, res) => servePutEvents(body, res, (e) => handlers.onEvent!(e)));
    case 'AmazonSQS.ChangeMessageVisibility':
      return action('sqs', AWS_JSON_1_0, 'ChangeMessageVisibility', VISIBILITY_BODY_LIMIT, '*', (body, res) =>
        serveVisibilityChange(body, res, (change) => handlers.onVisibilityChange?.(change)),
      );
    case 'AmazonSQS.SendMessage':
      return handlers.onMessage && action('sqs', AWS_JSON_1_0, 'SendMessage', SEND_MESSAGE_BODY_LIMIT, '*', (body, res) => serveSendMessage(body, res, (m) => handlers.onMessage!(m)));
    default:
      return undefined;
  }
}

async function serveInvoke(
  invoke: NonNullable<EndpointHandlers['invoke']>,
  nameOrArn: string,
  async: boolean,
  body: string,
  res: ServerResponse,
): Promise<void> {
  let event: unknown;
  try {
    event = body ? JSON.parse(body) : {};
  } catch {
    answerJson(res, 400, { Type: 'User', message: 'Could not parse request body into json' }, { 'x-amzn-errortype': 'InvalidRequestContentException' });
    return;
  }
  const pending = invoke(functionName(nameOrArn), event);
  if (!pending) {
    answerJson(res, 404, { Type: 'User', message: `Function not found: ${nameOrArn}` }, { 'x-amzn-errortype': 'ResourceNotFoundException' });
    return;
  }
  if (async) {
    void pending;
    res.writeHead(202);
    res.end();
    return;
  }
  const outcome = await pending;
  if (outcome.ok) answerJson(res, 200, outcome.result, { 'x-amz-executed-version': '$LATEST' });
  else answerJson(res, 200, { errorType: outcome.error.errorType, errorMessage: outcome.error.errorMessage }, { 'x-amz-function-error': 'Unhandled' });
}

function servePutEvents(body: string, res: ServerResponse, onEvent: (event: BusEvent) => void): void {
  const input = JSON.parse(body || '{}') as { Entries?: PutEventsEntry[] };
  const entries = (input.Entries ?? []).map((entry) => {
    let detail: unknown = entry.Detail;
    try {
      detail = JSON.parse(entry.Detail);
    } catch {
      // kept as text
    }
    onEvent({
      bus: entry.EventBusName ?? 'default',
      source: entry.Source,
      detailType: entry.DetailType,
      detail,
      time: new Date().toISOString(),
      entry,
    });
    return { EventId: randomUUID() };
  });
  answerJson(res, 200, { FailedEntryCount: 0, Entries: entries }, {}, AWS_JSON_1_1);
}

/** `name`, `name:qualifier`, or an ARN (`arn:aws:lambda:region:account:function:name[:qualifier]`). */
export function functionName(value: string): string {
  if (value.startsWith('arn:')) return value.split(':')[6] ?? value;
  return value.split(':')[0];
}

/**
 * A 403 as the operation's API answers it (Lambda: `x-amzn-errortype`; JSON 1.0 and 1.1: `__type`);
 * the connection closes with it, so that a body not read yet is never read.
 */
function refuse(res: ServerResponse, refusal: Refusal, protocol: Protocol): void {
  const reason = { 'x-local-forbidden-reason': refusal.reason };
  if (protocol === 'rest-json') {
    const body = refusal.type === 'AccessDeniedException' ? { Type: 'User', message: refusal.message } : { message: refusal.message };
    answerAndClose(res, 403, { 'content-type': 'application/json', 'x-amzn-errortype': refusal.type, ...reason }, JSON.stringify(body));
  } else {
    const body = { __type: refusal.type, message: refusal.message };
    answerAndClose(res, 403, { 'content-type': protocol, ...reason }, JSON.stringify(body));
  }
}

/** A 413 for a body over the operation's limit, as Lambda words it, closing the connection (the rest is never read). */
function tooLarge(res: ServerResponse, { protocol, name, limit }: Operation): void {
  const message = `Request must be smaller than ${limit} bytes for the ${name} operation`;
  if (protocol === 'rest-json') {
    answerAndClose(res, 413, { 'content-type': 'application/json', 'x-amzn-errortype': 'RequestEntityTooLargeException' }, JSON.stringify({ Type: 'User', message }));
  } else {
    answerAndClose(res, 413, { 'content-type': protocol }, JSON.stringify({ __type: 'RequestEntityTooLargeException', message }));
  }
}
