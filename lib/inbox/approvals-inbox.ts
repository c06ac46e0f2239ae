import { Annotations, CfnOutput, Duration, Names, RemovalPolicy, Stack, Tags, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ENV, INBOX_ENV, INBOX_METADATA_TYPE, INBOX_URL_OUTPUT_SUFFIX, type InboxParts } from '../../lambda/construct-contract';
import { PACKAGED_FUNCTIONS } from '../../lambda/packaged-functions';
import { ApprovalNotifications } from '../approvals/notifications';
import { packagedFunctionCode } from '../bundling/packaged-code';
import { defaultArchitecture, defaultRuntime } from '../defaults';
import { fail } from '../errors';
import { apiTableStatements } from '../permissions/api';
import { TAG } from '../permissions/tags';
import { wallOffSharedRole } from '../permissions/walls';
import { ToolHandler } from '../tool-handler';
import { IToolHandler } from '../tool-handler-ref';
import { InboxSignIn, InboxSignInConfig } from './inbox-sign-in';

/** Which groups' members may decide which handlers' approvals. */
export interface InboxApprovers {
  /** Groups, as the sign-in's groups claim names them (`cognito:groups` for Cognito): a member of any of them may decide. */
  readonly groups: string[];

  /** The handlers whose approvals those members may see and decide (each one of the inbox's `handlers`). */
  readonly handlers: IToolHandler[];
}

export interface ApprovalsInboxProps {
  /** The handlers whose approvals the inbox serves (each its owner's). */
  readonly handlers: ToolHandler[];

  /**
   * How approvers sign in.
   *
   * @default InboxSignIn.cognito()
   */
  readonly signIn?: InboxSignIn;

  /**
   * Which groups may decide which handlers' approvals. A handler that no entry names may be
   * decided by every signed-in user; one that an entry names, only by members of the groups that
   * name it.
   *
   * @default - every signed-in user may decide every handler's approvals
   */
  readonly approvers?: InboxApprovers[];

  /**
   * What happens to the inbox's log group (and a user pool it makes) when it leaves the stack.
   *
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/** The most characters of a tool's description the page is given (the function's environment is small). */
const DESCRIPTION_LIMIT = 160;

/** The most characters of descriptions in all (Lambda's environment holds 4 KB, and the rest needs room). */
const DESCRIPTIONS_BUDGET = 2000;

/**
 * An approvals inbox: one web page where people who are not engineers sign in (Cognito, or an
 * existing OpenID Connect provider) and decide the approvals of one or more handlers. A function of
 * this package serves the page and its API behind an HTTP API; it verifies every request's token
 * itself, and decides through the same rules as the approvals API (the fingerprint shown, each
 * owner's key space), recording `oidc:<issuer>#<sub>` as the decider. Nothing decides on GET.
 *
 * @example
 * import { ApprovalsInbox, InboxSignIn } from 'cdk-tool-handler';
 *
 * const inbox = new ApprovalsInbox(this, 'Inbox', {
 *   handlers: [tools],
 *   signIn: InboxSignIn.cognito(),
 *   approvers: [{ groups: ['support-leads'], handlers: [tools] }],
 * });
 */
export class ApprovalsInbox extends Construct {
  /** The inbox's URL (`https://<api>.execute-api.<region>.amazonaws.com/`); also a stack output. */
  public readonly url: string;

  /** The function that serves the page and its API. */
  public readonly lambdaFunction: lambda.IFunction;

  /** The HTTP API in front of it. */
  public readonly httpApi: apigw.HttpApi;

  /**
   * The Cognito user pool of `InboxSignIn.cognito()`.
   *
   * @default - undefined with `InboxSignIn.oidc`
   */
  public readonly userPool?: cognito.IUserPool;

  constructor(scope: Construct, id: string, props: ApprovalsInboxProps) {
    super(scope, id);
    if (props.handlers.length === 0) fail('ApprovalsInbox: `handlers` must name at least one ToolHandler.', this);
    const owners = new Map<string, ToolHandler>();
    for (const handler of props.handlers) {
      if (Stack.of(handler) !== Stack.of(this)) {
        // The handler's function learns the inbox's URL, and the inbox reads the handler's table: across stacks, each would depend on the other.
        fail(`ApprovalsInbox: the handler ${handler.node.path} is in another stack; put the inbox in the stack of the handlers it serves.`, this);
      }
      if (owners.has(handler.owner)) fail(`ApprovalsInbox: two handlers share the owner ${handler.owner}; give each handler once.`, this);
      owners.set(handler.owner, handler);
    }
    const approvers: Record<string, string[]> = {};
    for (const entry of props.approvers ?? []) {
      if (entry.groups.length === 0) fail('ApprovalsInbox: an `approvers` entry has no `groups`; name at least one group.', this);
      for (const group of entry.groups) {
        if (!/^[^\s"]{1,128}$/.test(group)) fail('ApprovalsInbox: an `approvers` group must be 1 to 128 characters without spaces or quotes.', this);
      }
      for (const named of entry.handlers) {
        const handler = props.handlers.find((h) => h === named);
        if (!handler) fail(`ApprovalsInbox: \`approvers\` names a handler (${named.node.path}) that is not among \`handlers\`.`, this);
        approvers[handler.owner] = [...new Set([...(approvers[handler.owner] ?? []), ...entry.groups])];
      }
    }
    const groups = [...new Set((props.approvers ?? []).flatMap((a) => a.groups))];
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;

    // An HTTP API, not a function URL: its endpoint exists before the function, so the app client's
    // callback URL can name it while the function is given the client's id, without a cycle.
    this.httpApi = new apigw.HttpApi(this, 'Api', { description: 'cdk-tool-handler approvals inbox', createDefaultStage: false });
    const accessLogs = new logs.LogGroup(this, 'AccessLogs', { retention: logs.RetentionDays.TWO_YEARS, removalPolicy });
    new apigw.HttpStage(this, 'Stage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      accessLogSettings: { destination: new apigw.LogGroupLogDestination(accessLogs) },
      // People click; nothing needs more.
      throttle: { rateLimit: 20, burstLimit: 40 },
    });
    const origin = this.httpApi.apiEndpoint;
    this.url = `${origin}/`;
    const signIn: InboxSignInConfig = (props.signIn ?? InboxSignIn.cognito({ removalPolicy })).bind(this, this.url, groups);
    this.userPool = signIn.userPool;

    const logGroup = new logs.LogGroup(this, 'LogGroup', { retention: logs.RetentionDays.TWO_YEARS, removalPolicy });
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'cdk-tool-handler approvals inbox: reads and decides the approvals of the handlers it serves, nothing else.',
    });
    logGroup.grantWrite(role);
    wallOffSharedRole(role);
    for (const [owner, handler] of owners) {
      // A policy per owner: each holds that owner's statements, with the approvals API's sids.
      new iam.Policy(this, `Owner${[...owners.keys()].indexOf(owner) + 1}Policy`, {
        roles: [role],
        statements: apiTableStatements(handler.approvalsTable, owner),
      });
      handler.approvalsTable.encryptionKey?.grantEncryptDecrypt(role);
    }

    const stack = Stack.of(this);
    // Lambda keeps all of a function's variables within 4 KB: descriptions go first when they crowd it.
    const descriptionChars = [...owners.values()].flatMap((h) => h.toolManifest ?? []).reduce((n, t) => n + Math.min(t.description?.length ?? 0, DESCRIPTION_LIMIT), 0);
    const withDescriptions = descriptionChars <= DESCRIPTIONS_BUDGET;
    if (!withDescriptions) {
      Annotations.of(this).addWarningV2(
        'cdk-tool-handler:inboxDescriptions',
        `The tools' descriptions (${descriptionChars} characters) do not fit the inbox function's environment: the page shows tool names only.`,
      );
    }
    const handlers = [...owners].map(([owner, handler]) => ({
      owner,
      table: handler.approvalsTable.tableName,
      tools: (handler.toolManifest ?? []).map((tool) => ({
        name: tool.name,
        ...(tool.description && withDescriptions ? { description: tool.description.slice(0, DESCRIPTION_LIMIT) } : {}),
      })),
    }));
    const fn = new lambda.Function(this, 'Function', {
      code: packagedFunctionCode(this, PACKAGED_FUNCTIONS.inbox.name),
      handler: 'index.handler',
      runtime: defaultRuntime(),
      architecture: defaultArchitecture(),
      memorySize: 256,
      // Reading the issuer's discovery document and keys on a cold start (5 s each at most), then DynamoDB.
      timeout: Duration.seconds(15),
      description: 'cdk-tool-handler approvals inbox: the page where approvers sign in and decide, and its API.',
      environment: {
        [INBOX_ENV.issuer]: signIn.issuer,
        [INBOX_ENV.clientId]: signIn.clientId,
        [INBOX_ENV.audience]: signIn.audience,
        [INBOX_ENV.scopes]: signIn.scopes.join(' '),
        [INBOX_ENV.groupsClaim]: signIn.groupsClaim,
        [INBOX_ENV.origin]: origin,
        [INBOX_ENV.handlers]: stack.toJsonString(handlers),
        [INBOX_ENV.approvers]: JSON.stringify(approvers),
        ...(signIn.authorizationEndpoint ? { [INBOX_ENV.authorizationEndpoint]: signIn.authorizationEndpoint } : {}),
        ...(signIn.tokenEndpoint ? { [INBOX_ENV.tokenEndpoint]: signIn.tokenEndpoint } : {}),
        ...(signIn.endSessionEndpoint ? { [INBOX_ENV.endSessionEndpoint]: signIn.endSessionEndpoint } : {}),
      },
      role,
      logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
    });
    Tags.of(fn).add(TAG.function, PACKAGED_FUNCTIONS.inbox.name);
    this.lambdaFunction = fn;

    const integration = new HttpLambdaIntegration('Page', fn);
    this.httpApi.addRoutes({ path: '/', methods: [apigw.HttpMethod.GET], integration });
    this.httpApi.addRoutes({
      path: '/api/{proxy+}',
      methods: [apigw.HttpMethod.GET, apigw.HttpMethod.POST],
      integration,
      // In front of the function's own check: a request without a valid token never reaches it.
      authorizer: new HttpJwtAuthorizer('Token', signIn.issuer, {
        jwtAudience: signIn.audience === signIn.clientId ? [signIn.clientId] : [signIn.clientId, signIn.audience],
      }),
    });

    // Links in notifications and `pending_approval` replies open the approval in the inbox.
    for (const [owner, handler] of owners) {
      (handler.lambdaFunction as lambda.Function).addEnvironment(ENV.inboxUrl, `${origin}/#/o/${owner}/a/`);
      const notifications = handler.node.tryFindChild('ApprovalNotifications');
      if (notifications instanceof ApprovalNotifications) notifications.linkInbox();
    }

    const output = new CfnOutput(this, INBOX_URL_OUTPUT_SUFFIX, { value: this.url, description: 'The approvals inbox: open it and sign in.' });
    output.overrideLogicalId(`${Names.uniqueId(this)}${INBOX_URL_OUTPUT_SUFFIX}`);

    // What the local run serves (lambda/construct-contract.ts, `InboxParts`).
    const described: InboxParts = { version: 1, function: (fn.node.defaultChild as lambda.CfnFunction).logicalId, owners: [...owners.keys()] };
    this.node.addMetadata(INBOX_METADATA_TYPE, described);

    const page = this.httpApi.node.tryFindChild('GET--');
    if (page) {
      Validations.of(page).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason: 'GET / is the sign-in page itself, public by design and holding no data; every /api/ route has the JWT authorizer, and the function verifies the token again.',
      });
    }
    Validations.of(fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason: "The package's own functions run on the construct's default runtime, Node.js 22, the one they are built and tested for.",
    });
  }
}
