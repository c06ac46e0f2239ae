/**
 * A local run of one `ToolHandler`: dynalite with the approvals table, the
 * synthesized handler, approvals engine, API and expirer each in a worker thread of this process
 * with the environment the template gives it (local/function-sandbox.ts), the AWS APIs they call
 * (Lambda's Invoke, EventBridge's PutEvents, a waiting flow's completions: local/endpoints.ts) on a
 * local port, the API behind a local function URL that checks SigV4,
 * and a stand-in for the resume pipe. Its endpoints, the DynamoDB one included, accept only the
 * run's own keys, made at its start.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { auditRecordOf } from '../console/audit-record';
import { CliError } from '../console/errors';
import { ENV, HANDLER_OWNER, INBOX_ENV } from '../lambda/construct-contract';
import { PACKAGED_FUNCTIONS, type LocalPackagedRole, type PackagedFunctionRole } from '../lambda/packaged-functions';
import { approvalKeyPrefix } from '../lambda/stores/dynamo-items';
import { findInbox, findToolHandlers, readStack, type FunctionResource, type Template, type ToolHandlerParts } from './assembly';
import { startHttpApiHost, type HttpApiHost } from './http-api-host';
import { startLocalOidcIssuer, type LocalOidcIssuer } from './oidc-issuer';
import { createTableInput, startDynamo, type LocalDynamo } from './dynamo';
import { startEndpoints, type BusEvent, type LocalEndpoints } from './endpoints';
import type { FlowEngines } from './flow-engines';
import { startS3, type LocalS3 } from './s3';
import { EventPatternError } from './event-pattern';
import { FunctionSandbox, type FunctionSpec, type InvokeOutcome } from './function-sandbox';
import { startFunctionUrlHost, type FunctionUrlHost } from './function-url';
import { AuditFile } from './audit-file';
import { LOCAL_ACCOUNT, LOCAL_REGION, Resolver } from './intrinsics';
import { sdkNodePath } from './modules';
import { notificationsFor, topicRules, type TopicRule } from './notifications';
import { pipeSpec, resumeMessage, resumeRuleSpec, type PipeSpec, type ResumeRuleSpec } from './pipe';
import { busCarried, busLine, shownEnvelope, type LocalLine } from './print';
import { newRunCredentials, type AccessKey } from './run-credentials';

/** Who the local function URL says the approver is, unless `--principal` says otherwise. */
export const LOCAL_APPROVER_ARN = `arn:aws:sts::${LOCAL_ACCOUNT}:assumed-role/Approver/alice`;

/**
 * What the run starts: the handler, the package's functions that run beside it
 * (lambda/packaged-functions.ts), and the approvals inbox that serves it, if any.
 */
type Part = 'handler' | LocalPackagedRole | 'inbox';

const LOCAL_PACKAGED_ROLES = (Object.keys(PACKAGED_FUNCTIONS) as PackagedFunctionRole[]).filter(
  (role): role is LocalPackagedRole => PACKAGED_FUNCTIONS[role].runsLocally,
);

/** Who signs in to the local inbox, unless a test says otherwise (`LocalRun.signInToInbox`). */
export const LOCAL_INBOX_USER = { sub: 'local-approver', email: 'approver@localhost' } as const;

/** The reply bus's local name when the stack has none. */
export const STAND_IN_BUS = 'local-reply-bus';

export interface LocalRunOptions {
  /** A cloud assembly directory (`cdk.out`). */
  readonly assembly: string;
  readonly stack?: string;
  /** Which ToolHandler, when the stack has several (its construct path or the handler's logical id). */
  readonly handler?: string;
  /** The approver's principal ARN. @default LOCAL_APPROVER_ARN */
  readonly principal?: string;
  /** Seconds between runs of the expirer. @default 1 */
  readonly expireEverySeconds?: number;
  /** Environment overrides per part (`engine`, `handler`, ...). */
  readonly overrides?: Partial<Record<Part, Record<string, string>>>;
  /** Every line `local` prints. */
  readonly print: (line: LocalLine) => void;
  /**
   * The flows that wait for the run's calls (local/flow-engines.ts): the run's endpoints hand them
   * the completions the functions send (Step Functions' task responses, durable callbacks), signed
   * with the run's keys. @default - completions are refused as unknown operations
   */
  readonly flowEngines?: FlowEngines;
}

export class LocalRun {
  readonly events: BusEvent[] = [];
  readonly lines: LocalLine[] = [];
  /** The audit records the functions wrote, each its line as written. */
  readonly auditLines: string[] = [];
  private auditFile?: AuditFile;
  private readonly sandboxes = new Map<string, FunctionSandbox>();
  private expiring?: NodeJS.Timeout;
  private messages = 0;
  private dynamo?: LocalDynamo;
  private endpoints?: LocalEndpoints;
  /** S3 for offloaded results (`resultOffload`): the handler puts them, a presigned URL gets them. */
  private s3?: LocalS3;
  private url?: FunctionUrlHost;
  private inboxHost?: HttpApiHost;
  private oidcIssuer?: LocalOidcIssuer;
  /** The groups the local approver is in: every group the inbox names, so it may decide what the run serves. */
  private inboxGroups: string[] = [];
  /** What the run itself sets in a part's environment (its local endpoints), before `overrides`. */
  private readonly localEnv: Partial<Record<Part, Record<string, string>>> = {};
  private pipe?: PipeSpec;
  private resumeRule?: ResumeRuleSpec;
  /** The handler's owner: its approvals' keys are `approval#<owner>#<id>`. */
  private owner = HANDLER_OWNER;
  private topicRules: TopicRule[] = [];
  private parts!: ToolHandlerParts;
  private keyNames: string[] = [];
  private tableName?: string;
  /** The tool handler function's name in this run. */
  private handlerName = '';
  private queueArn = `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT}:local-tool-queue`;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly credentials = newRunCredentials();
  private stopping = false;
  stackName = '';
  /** The stack's template, as read at start. */
  template: Template = {};

  private constructor(private readonly options: LocalRunOptions) {}

  static async start(options: LocalRunOptions): Promise<LocalRun> {
    const run = new LocalRun(options);
    try {
      await run.boot();
    } catch (error) {
      await run.stop();
      throw error;
    }
    return run;
  }

  get apiUrl(): string | undefined {
    return this.url?.url;
  }

  /** The local approvals inbox (`http://127.0.0.1:<port>/`), when an `ApprovalsInbox` of the stack serves the handler. */
  get inboxUrl(): string | undefined {
    return this.inboxHost && `${this.inboxHost.url}/`;
  }

  /** The local OpenID issuer the inbox signs in with. */
  get inboxIssuerUrl(): string | undefined {
    return this.oidcIssuer?.url;
  }

  /** Who signs in to the local inbox from now on (the local issuer signs them in at once). */
  async signInToInbox(claims: Record<string, unknown>): Promise<void> {
    await this.oidcIssuer?.signInAs(claims);
  }

  get region(): string {
    return LOCAL_REGION;
  }

  /** Where the functions' Lambda, EventBridge, SQS and Step Functions clients are pointed (`AWS_ENDPOINT_URL_LAMBDA`, ...). */
  get awsEndpointUrl(): string {
    return this.endpoints!.url;
  }

  /** Where the functions' DynamoDB clients are pointed (`AWS_ENDPOINT_URL_DYNAMODB`): the checked front of dynalite. */
  get dynamoEndpointUrl(): string {
    return this.dynamo!.endpoint;
  }

  /** What `local call` needs: the Lambda endpoint, the tool handler's name, and the keys that may invoke it (and nothing else). */
  get caller(): AccessKey & { readonly endpoint: string; readonly functionName: string } {
    return { ...this.credentials.caller, endpoint: this.endpoints!.url, functionName: this.handlerName };
  }

  /** The keys this run's function URL knows as the approver (random, made at the run's start), and who that is. */
  get approver(): AccessKey & { readonly userArn: string } {
    return { ...this.credentials.approver, userArn: this.options.principal ?? LOCAL_APPROVER_ARN };
  }

  /** The local name of a part's function. */
  functionName(label: Part): string | undefined {
    return this.sandbox(label)?.spec.name;
  }

  /** The keys a part's function signs its AWS calls with (from its environment). */
  credentialsOf(label: Part): AccessKey | undefined {
    const env = this.sandbox(label)?.spec.env;
    return env && { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY };
  }

  get hasExpirer(): boolean {
    return this.parts.expirer !== undefined;
  }

  get hasPipe(): boolean {
    return this.pipe !== undefined;
  }

  private emit(line: LocalLine): void {
    // What invokes cut short by the stop answer is not news.
    if (this.stopping) return;
    this.lines.push(line);
    this.options.print(line);
  }

  private async boot(): Promise<void> {
    const stack = readStack(this.options.assembly, this.options.stack);
    this.stackName = stack.name;
    this.template = stack.template;
    const all = findToolHandlers(stack);
    const wanted = this.options.handler;
    const chosen = wanted ? all.find((p) => p.constructPath === wanted || p.handler.constructPath.startsWith(wanted) || p.handler.logicalId === wanted) : all[0];
    if (!chosen) throw new CliError(`No ToolHandler ${wanted} in stack ${stack.name}.`);
    if (!wanted && all.length > 1) {
      this.emit({ type: 'info', message: `note: the stack has ${all.length} ToolHandlers; running ${chosen.handler.constructPath} (pick with --handler).` });
    }
    this.parts = chosen;
    try {
      this.pipe = pipeSpec(chosen.pipe);
      this.resumeRule = resumeRuleSpec(chosen.resumeRule?.properties, chosen.resumeRule?.target);
    } catch (error) {
      if (error instanceof EventPatternError) throw new CliError(`local cannot follow the stack's resume path: ${error.message}`);
      throw error;
    }
    this.owner = String(chosen.handler.properties.Environment?.Variables?.[ENV.owner] ?? HANDLER_OWNER);
    const resolver = new Resolver(stack.template);
    this.handlerName = resolver.name(chosen.handler.logicalId);
    if (chosen.queueId) this.queueArn = resolver.arn(chosen.queueId);
    const topics = topicRules(stack.template, resolver);
    this.topicRules = topics.rules;
    for (const { rule, reason } of topics.setAside) {
      this.emit({ type: 'info', message: `note: local does not show the SNS messages of rule ${rule}: ${reason}` });
    }

    const nodePath = sdkNodePath().join(path.delimiter);
    const { handler: handlerKey, functions: functionsKey, caller: callerKey } = this.credentials;
    // The keys the functions sign their AWS calls with: the only keys the AWS endpoints, S3 and DynamoDB know.
    const functionKeys = new Map([handlerKey, functionsKey].map((key) => [key.accessKeyId, key.secretAccessKey]));
    this.dynamo = await startDynamo({ region: LOCAL_REGION, keys: functionKeys });
    if (chosen.tableId && chosen.table) {
      this.tableName = resolver.name(chosen.tableId);
      this.keyNames = (chosen.table.KeySchema ?? []).map((k: { AttributeName: string }) => k.AttributeName);
      await this.dynamo.createTable(createTableInput(this.tableName, chosen.table));
    }
    const nameOf = (fn: FunctionResource | undefined) => (fn ? resolver.name(fn.logicalId) : undefined);
    const apiName = nameOf(chosen.api);
    const engineName = nameOf(chosen.engine);
    this.endpoints = await startEndpoints(
      {
        invoke: (name, event) => this.sandboxes.get(name)?.invoke(event),
        onEvent: (event) => {
          this.events.push(event);
          this.emit(busLine(event));
          for (const n of notificationsFor(this.topicRules, event)) this.emit({ type: 'notification', topic: n.topic, message: n.message });
        },
        completeFlow: this.options.flowEngines?.complete,
      },
      {
        region: LOCAL_REGION,
        keys: new Map([...functionKeys, [callerKey.accessKeyId, callerKey.secretAccessKey]]),
        urlOnly: new Set(apiName ? [apiName] : []),
        invokedOnlyBy: new Map(engineName ? [[engineName, handlerKey.accessKeyId]] : []),
        invokesOnly: new Map([[callerKey.accessKeyId, this.handlerName]]),
      },
    );

    this.s3 = await startS3({ region: LOCAL_REGION, keys: functionKeys });
    const runtimeEnv = {
      AWS_REGION: LOCAL_REGION,
      AWS_DEFAULT_REGION: LOCAL_REGION,
      AWS_ENDPOINT_URL_DYNAMODB: this.dynamo.endpoint,
      AWS_ENDPOINT_URL_LAMBDA: this.endpoints.url,
      AWS_ENDPOINT_URL_EVENTBRIDGE: this.endpoints.url,
      AWS_ENDPOINT_URL_SFN: this.endpoints.url,
      AWS_ENDPOINT_URL_SQS: this.endpoints.url,
      AWS_ENDPOINT_URL_S3: this.s3.url,
      AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE: '1',
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs_local',
    };
    const start = (label: Part, fn: FunctionResource | undefined) => {
      if (!fn) return;
      if (!fn.codeDir || !fs.existsSync(fn.codeDir)) {
        throw new CliError(`The ${label} function's code (${fn.constructPath}) is not in the assembly: was it synthesized with bundling?`);
      }
      const env = { ...resolver.environment(fn.properties), ...this.replyBusFor(label, fn), ...this.localEnv[label], ...this.options.overrides?.[label] };
      const key = label === 'handler' ? handlerKey : functionsKey;
      const spec: FunctionSpec = {
        name: resolver.name(fn.logicalId),
        label,
        codeDir: fn.codeDir,
        handler: fn.handler,
        env: {
          ...env,
          ...runtimeEnv,
          AWS_ACCESS_KEY_ID: key.accessKeyId,
          AWS_SECRET_ACCESS_KEY: key.secretAccessKey,
          AWS_LAMBDA_FUNCTION_NAME: resolver.name(fn.logicalId),
        },
        timeoutSeconds: Number(fn.properties.Timeout ?? 3),
        memoryMb: Number(fn.properties.MemorySize ?? 128),
      };
      this.sandboxes.set(spec.name, new FunctionSandbox(spec, { nodePath, onLog: (fnLabel, line) => this.functionLine(fnLabel, line) }));
    };
    const inbox = findInbox(stack, this.owner);
    if (inbox) {
      // Its origin must be known before the function starts: the host comes first, then the function behind it.
      this.inboxHost = await startHttpApiHost(async (event) => {
        const outcome = await this.sandbox('inbox')!.invoke(event);
        if (!outcome.ok) throw new Error(`${outcome.error.errorType}: ${outcome.error.errorMessage}`);
        this.afterInboxCall(event.requestContext.http.method, event.rawPath, event.rawQueryString, outcome.result);
        return outcome.result as any;
      });
      const env = resolver.environment(inbox.fn.properties);
      this.inboxGroups = [...new Set(Object.values<string[]>(JSON.parse(env[INBOX_ENV.approvers] ?? '{}')).flat())];
      this.oidcIssuer = await startLocalOidcIssuer({ ...LOCAL_INBOX_USER, groups: this.inboxGroups });
      this.localEnv.inbox = {
        [INBOX_ENV.issuer]: this.oidcIssuer.url,
        [INBOX_ENV.origin]: this.inboxHost.url,
        // Signing in goes to the local issuer, whose discovery document names its endpoints.
        [INBOX_ENV.authorizationEndpoint]: '',
        [INBOX_ENV.tokenEndpoint]: '',
        [INBOX_ENV.endSessionEndpoint]: '',
        [INBOX_ENV.groupsClaim]: 'groups',
        // The run serves one handler: the inbox serves only its owner here.
        [INBOX_ENV.handlers]: JSON.stringify(
          (JSON.parse(env[INBOX_ENV.handlers] ?? '[]') as Array<{ owner: string }>).filter((h) => h.owner === this.owner),
        ),
      };
      if (chosen.handler.properties.Environment?.Variables?.[ENV.inboxUrl] !== undefined) {
        this.localEnv.handler = { [ENV.inboxUrl]: `${this.inboxHost.url}/#/o/${encodeURIComponent(this.owner)}/a/` };
      }
    }
    start('handler', chosen.handler);
    for (const role of LOCAL_PACKAGED_ROLES) start(role, chosen[role]);
    if (inbox) start('inbox', inbox.fn);

    try {
      await Promise.all([...this.sandboxes.values()].map((w) => w.ready()));
    } catch (error) {
      throw new CliError((error as Error).message);
    }

    if (chosen.api) {
      const api = this.sandbox('api')!;
      const { approver } = this;
      this.url = await startFunctionUrlHost({
        region: LOCAL_REGION,
        accountId: LOCAL_ACCOUNT,
        credentials: { [approver.accessKeyId]: { secretAccessKey: approver.secretAccessKey, userArn: approver.userArn } },
        handler: async (event) => {
          const outcome = await api.invoke(event);
          if (!outcome.ok) throw new Error(`${outcome.error.errorType}: ${outcome.error.errorMessage}`);
          this.afterApiCall(event.requestContext.http.method, event.rawPath, outcome.result);
          return outcome.result;
        },
      });
    }
    if (!this.pipe && chosen.api) {
      this.emit({ type: 'info', message: 'note: the stack has no resume pipe; after a decision local sends {"approval_id": ...} itself.' });
    }
    if (chosen.expirer) {
      const every = (this.options.expireEverySeconds ?? 1) * 1000;
      this.expiring = setInterval(() => void this.expireOnce(), every);
    }
    this.emit({
      type: 'ready',
      stack: stack.name,
      api_url: this.url?.url,
      ...(this.inboxHost ? { inbox_url: `${this.inboxHost.url}/` } : {}),
      functions: Object.fromEntries([...this.sandboxes.values()].map((w) => [w.spec.label, w.spec.name])),
    });
  }

  /** A line a function wrote: printed with `--logs`; an audit record among them is also printed, and kept. */
  private functionLine(fn: string, line: string): void {
    this.emit({ type: 'log', function: fn, line });
    const record = auditRecordOf(line);
    if (!record) return;
    this.auditLines.push(line);
    this.auditFile?.append(line);
    this.emit({ type: 'audit', function: fn, record });
  }

  /**
   * Keeps the run's audit records in `path` (for `cdk-tool-handler audit --local`), those written so
   * far and every later one, until the run stops, which removes the file.
   */
  keepAuditIn(path: string): void {
    this.auditFile = new AuditFile(path, this.auditLines);
  }

  /**
   * The reply bus: the template's; when the stack has none at all, a stand-in for the handler and
   * the expirer, so that replies of queued calls and expiries can be seen.
   */
  private replyBusFor(label: string, fn: FunctionResource): Record<string, string> {
    if (label !== 'handler' && label !== 'expirer') return {};
    if (fn.properties.Environment?.Variables?.TOOL_HANDLER_REPLY_BUS !== undefined) return {};
    if (this.parts.handler.properties.Environment?.Variables?.TOOL_HANDLER_REPLY_BUS !== undefined) return {};
    if (label === 'handler') {
      this.emit({ type: 'info', message: `note: the stack has no reply bus; local gives the functions one (${STAND_IN_BUS}) to show replies.` });
    }
    return { TOOL_HANDLER_REPLY_BUS: STAND_IN_BUS };
  }

  private sandbox(label: string): FunctionSandbox | undefined {
    return [...this.sandboxes.values()].find((w) => w.spec.label === label);
  }

  /** The handler function's logical id in the stack's template. */
  get handlerLogicalId(): string {
    return this.parts.handler.logicalId;
  }

  /** Invokes the handler once with `event` and a client context (what AgentCore Gateway sends), and returns how it ended. */
  invokeHandler(event: unknown, clientContext: unknown): Promise<InvokeOutcome> {
    return this.sandbox('handler')!.invoke(event, { clientContext });
  }

  /** Sends envelopes to the handler: one SQS batch (as the queue's event source mapping would), or one direct invoke each. */
  async send(envelopes: readonly unknown[], options: { direct?: boolean } = {}): Promise<void> {
    if (options.direct) {
      for (const envelope of envelopes) await this.invoke(envelope);
      return;
    }
    const records = envelopes.map((envelope) => {
      this.emit({ type: 'call', envelope: shownEnvelope(envelope), via: 'sqs' });
      const body = typeof envelope === 'string' ? envelope : JSON.stringify(envelope);
      const e = envelope as { run_id?: string; approval_id?: string };
      return this.sqsRecord(body, e?.approval_id ?? e?.run_id ?? 'local');
    });
    await this.deliver(records);
  }

  /** One direct invoke of the handler with `envelope`: its reply, or the error it threw. */
  async invoke(envelope: unknown): Promise<InvokeOutcome> {
    this.emit({ type: 'call', envelope: shownEnvelope(envelope), via: 'direct' });
    const before = this.events.length;
    const outcome = await this.sandbox('handler')!.invoke(envelope);
    // With a reply bus, the handler published the outcome before it returned: that line showed it.
    const shown = this.events.slice(before).some((event) => busCarried(event, outcome)) ? ({ shown: true } as const) : {};
    this.emit(outcome.ok ? { type: 'reply', reply: outcome.result, via: 'direct', ...shown } : { type: 'thrown', error: outcome.error, ...shown });
    return outcome;
  }

  private sqsRecord(body: string, groupId: string, deduplicationId?: string): Record<string, unknown> {
    const messageId = `local-${++this.messages}-${randomUUID().slice(0, 8)}`;
    const fifo = this.queueArn.endsWith('.fifo');
    return {
      messageId,
      receiptHandle: `local-${messageId}`,
      body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: String(Date.now()),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
        ...(fifo ? { MessageGroupId: groupId, MessageDeduplicationId: deduplicationId ?? messageId, SequenceNumber: String(this.messages) } : {}),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: this.queueArn,
      awsRegion: LOCAL_REGION,
    };
  }

  private async deliver(records: Array<Record<string, unknown>>): Promise<void> {
    const outcome: InvokeOutcome = await this.sandbox('handler')!.invoke({ Records: records });
    if (!outcome.ok) {
      this.emit({ type: 'thrown', error: outcome.error });
      return;
    }
    const failures = ((outcome.result as { batchItemFailures?: Array<{ itemIdentifier: string }> })?.batchItemFailures ?? []).map(
      (f) => f.itemIdentifier,
    );
    for (const id of failures) {
      this.emit({ type: 'failed', message_id: id, note: 'reported failed (SQS would deliver it again); see --logs' });
    }
  }

  /** The pipe's stand-in, after the inbox answered a decision of this run's owner (named, or the one it serves). */
  private afterInboxCall(method: string, rawPath: string, rawQueryString: string | undefined, result: unknown): void {
    const match = /^\/api(\/approvals\/[^/]+\/decision)$/.exec(rawPath);
    const owner = new URLSearchParams(rawQueryString ?? '').get('owner');
    if (!match || (owner !== null && owner !== this.owner)) return;
    this.afterApiCall(method, match[1], result);
  }

  /** The pipe's stand-in, after the API answered a decision. */
  private afterApiCall(method: string, rawPath: string, result: unknown): void {
    const match = /^\/approvals\/([^/]+)\/decision$/.exec(rawPath);
    const reply = result as { statusCode?: number; body?: string };
    if (method !== 'POST' || !match || reply?.statusCode !== 200) return;
    let record: { approval_id?: string; status?: string; decided_by?: string } = {};
    try {
      record = JSON.parse(reply.body ?? '{}');
    } catch {
      return;
    }
    const approvalId = record.approval_id ?? decodeURIComponent(match[1]);
    this.emit({ type: 'decision', approval_id: approvalId, status: String(record.status), decided_by: record.decided_by });
    this.track(this.resume(approvalId));
  }

  private async resume(approvalId: string): Promise<void> {
    if (!this.tableName || !this.dynamo) return;
    const key = approvalKeyPrefix(this.owner) + approvalId;
    const found = await this.dynamo.call('GetItem', { TableName: this.tableName, Key: { [this.keyNames[0]]: { S: key } }, ConsistentRead: true });
    const item = found.Item as Record<string, unknown> | undefined;
    if (!item) return;
    const message = resumeMessage(this.pipe, item, this.keyNames, this.resumeRule);
    if ('skipped' in message) {
      this.emit({ type: 'resume', approval_id: approvalId, body: '', via: 'skipped', note: message.skipped });
      return;
    }
    this.emit({ type: 'resume', approval_id: approvalId, body: message.body, via: message.via });
    let envelope: unknown = message.body;
    try {
      envelope = JSON.parse(message.body);
    } catch {
      // sent as is
    }
    this.emit({ type: 'call', envelope, via: 'sqs' });
    await this.deliver([this.sqsRecord(message.body, message.groupId ?? approvalId, message.deduplicationId)]);
  }

  /** One run of the expirer (when the stack has one). */
  async expireOnce(): Promise<void> {
    const expirer = this.sandbox('expirer');
    if (!expirer) return;
    const outcome = await this.track(expirer.invoke(this.parts.expirerInput ?? {}));
    if (!outcome.ok) this.emit({ type: 'info', message: `expirer failed: ${outcome.error.errorType}: ${outcome.error.errorMessage}` });
  }

  /** Restarts a function's sandbox with environment changes (the demo's short approval TTL). */
  async restart(label: Part, overrides: Record<string, string>): Promise<void> {
    await this.sandbox(label)?.restart(overrides);
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.pending.add(promise);
    void promise.finally(() => this.pending.delete(promise)).catch(() => undefined);
    return promise;
  }

  /** Waits until the pipe's stand-in and running expirer calls are done. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  async stop(): Promise<void> {
    if (this.expiring) clearInterval(this.expiring);
    this.stopping = true;
    await this.settled().catch(() => undefined);
    await Promise.all([...this.sandboxes.values()].map((w) => w.stop().catch(() => undefined)));
    await this.url?.close().catch(() => undefined);
    await this.inboxHost?.close().catch(() => undefined);
    await this.oidcIssuer?.close().catch(() => undefined);
    await this.endpoints?.close();
    await this.s3?.close();
    await this.dynamo?.stop();
    this.auditFile?.remove();
  }
}
