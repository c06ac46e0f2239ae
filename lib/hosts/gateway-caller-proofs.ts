import { CfnElement, Duration, RemovalPolicy, Stack, Tags, Validations } from 'aws-cdk-lib';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct, IConstruct } from 'constructs';
import { ENV, INTERCEPTOR_ENV } from '../../lambda/construct-contract';
import { CallerIdentity } from '../options/caller-identity';
import { DEFAULTS, defaultArchitecture, defaultRuntime } from '../defaults';
import { fail } from '../errors';
import { packagedFunctionCode } from '../bundling/packaged-code';
import { wallOffRole } from '../permissions';
import { onlyInterceptorSigns, proofCheckStatement } from '../permissions/caller-proofs';
import { FUNCTION_ROLE, TAG } from '../permissions/tags';

/** The construct id of a gateway's caller proofs, under the gateway. */
const ID = 'CdkToolHandlerCallerProofs';

/** The proofs each handler function checks: one gateway's. */
const proofsCheckedBy = new WeakMap<lambda.IFunction, GatewayCallerProofs>();

/**
 * How one gateway proves its callers to the tool handlers added to it (docs/writing-tools.md, "Who asked"): a
 * REQUEST interceptor (the package's prebuilt function) that verifies each request's bearer token
 * and signs a proof of the caller for each tool call, with a KMS key only it may sign with. A
 * gateway takes one REQUEST interceptor, so the handlers added to it share this one (and its key),
 * and must name the same `callerIdentity`. It lives under the gateway, in the gateway's stack.
 */
export class GatewayCallerProofs extends Construct {
  /**
   * The gateway's caller proofs: made the first time a handler is added with `identity`, the same
   * ones for later handlers with an equal identity; an unequal one is a synth error on `requester`.
   */
  public static of(requester: IConstruct, gateway: agentcore.IGateway, identity: CallerIdentity, owner: string): GatewayCallerProofs {
    if (!(gateway instanceof agentcore.Gateway)) {
      fail(
        '`addToGateway` with `callerIdentity` adds a REQUEST interceptor to the gateway, which needs the Gateway made in this app ' +
          '(agentcore.Gateway); an imported gateway cannot take one. Add the handler to the Gateway construct itself, or leave out `callerIdentity`.',
        requester,
      );
    }
    const existing = gateway.node.tryFindChild(ID);
    if (existing instanceof GatewayCallerProofs) {
      if (!sameIdentity(existing.identity, identity)) {
        fail(
          `\`addToGateway\`: the gateway ${gateway.node.path} already proves its callers with another \`callerIdentity\` ` +
            '(a gateway has one REQUEST interceptor, shared by every handler added to it): give this handler the same ' +
            '`discoveryUrl`, `audience`, `clients` and `claims`.',
          requester,
        );
      }
      return existing;
    }
    return new GatewayCallerProofs(gateway, ID, identity, owner, requester);
  }

  /** The interceptor function. */
  public readonly interceptor: lambda.Function;
  /** The key whose signature proves a caller. */
  public readonly key: kms.Key;
  /** What the interceptor accepts and carries. */
  public readonly identity: CallerIdentity;

  private constructor(gateway: agentcore.Gateway, id: string, identity: CallerIdentity, owner: string, requester: IConstruct) {
    super(gateway, id);
    this.identity = identity;
    const description = 'cdk-tool-handler Gateway interceptor: verifies the bearer token of each request and signs who asked for each tool call.';
    this.key = new kms.Key(this, 'SigningKey', {
      description: `Signs the proofs of AgentCore Gateway ${gateway.node.path}'s callers (cdk-tool-handler); only its interceptor's role may sign.`,
      keySpec: kms.KeySpec.ECC_NIST_P256,
      keyUsage: kms.KeyUsage.SIGN_VERIFY,
      // It signs proofs good for five minutes and encrypts nothing: once the stack is gone, no one needs it.
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    Validations.of(this.key).acknowledge({
      id: 'AwsSolutions-KMS5',
      reason: 'KMS rotates symmetric encryption keys only; this key is an asymmetric (ECC_NIST_P256) signing key, which KMS cannot rotate.',
    });

    const logGroup = new logs.LogGroup(this, 'InterceptorLogGroup', { retention: DEFAULTS.logRetention, removalPolicy: RemovalPolicy.RETAIN });
    const role = new iam.Role(this, 'InterceptorRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `${description} Its log group and kms:Sign with its key, nothing else.`,
    });
    logGroup.grantWrite(role);
    wallOffRole(role, owner);
    onlyInterceptorSigns(this.key, role);

    const stack = Stack.of(this);
    this.interceptor = new lambda.Function(this, 'Interceptor', {
      code: packagedFunctionCode(requester, FUNCTION_ROLE.interceptor),
      handler: 'index.handler',
      runtime: defaultRuntime(),
      architecture: defaultArchitecture(),
      memorySize: 256,
      // Reading the issuer's discovery document and keys (5 s each at most, on a cold start), then KMS.
      timeout: Duration.seconds(15),
      description,
      environment: {
        [INTERCEPTOR_ENV.callerDiscoveryUrl]: identity.discoveryUrl,
        [INTERCEPTOR_ENV.callerAudiences]: stack.toJsonString(identity.audience),
        [INTERCEPTOR_ENV.callerClients]: stack.toJsonString(identity.clients),
        [INTERCEPTOR_ENV.callerClaims]: stack.toJsonString(identity.claims),
        [ENV.callerKey]: this.key.keyArn,
      },
      role,
      logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
    });
    Tags.of(this.interceptor).add(TAG.function, FUNCTION_ROLE.interceptor);
    Tags.of(this.interceptor).add(TAG.owner, owner);
    Validations.of(this.interceptor).acknowledge({
      id: 'AwsSolutions-L1',
      reason: "The package's own functions run on the construct's default runtime, Node.js 22, the one they are built and tested for.",
    });

    try {
      gateway.addInterceptor(agentcore.LambdaInterceptor.forRequest(this.interceptor, { passRequestHeaders: true }));
      acknowledgeGatewayInvoke(gateway, this.interceptor);
    } catch (error) {
      if (!/already has a REQUEST interceptor/.test(String((error as Error).message))) throw error;
      fail(
        `\`addToGateway\` with \`callerIdentity\`: the gateway ${gateway.node.path} already has a REQUEST interceptor, and AgentCore ` +
          'allows one per gateway: remove it, or leave out `callerIdentity`.',
        requester,
      );
    }
  }

  /**
   * Lets `handler` check the proofs: `kms:GetPublicKey` on the key, and the key's ARN in its
   * environment. A handler checks one key's proofs, so one gateway's.
   */
  public checkProofsIn(requester: IConstruct, handler: lambda.IFunction): void {
    if (!(handler instanceof lambda.Function)) {
      fail('`addToGateway` with `callerIdentity` sets the handler function\'s environment, which needs a lambda.Function.', requester);
    }
    const checked = proofsCheckedBy.get(handler);
    if (checked !== undefined && checked !== this) {
      fail(
        `\`addToGateway\` with \`callerIdentity\`: this handler already proves the callers of the gateway ${checked.node.scope?.node.path}, ` +
          "and a handler checks one gateway's proofs: add it to one gateway with `callerIdentity` (to the others without).",
        requester,
      );
    }
    proofsCheckedBy.set(handler, this);
    handler.addToRolePolicy(proofCheckStatement(this.key));
    handler.addEnvironment(ENV.callerKey, this.key.keyArn);
  }
}

/**
 * aws-cdk-lib grants the gateway's role invoke on a target's or interceptor's function and on its
 * versions (`<function ARN>:*`): the one function, not a wildcard over functions.
 */
export function acknowledgeGatewayInvoke(gateway: agentcore.IGateway, fn: lambda.IFunction): void {
  const policy = gateway.role?.node.tryFindChild('DefaultPolicy');
  if (!policy) return;
  const functionId = Stack.of(fn).getLogicalId(fn.node.defaultChild as CfnElement);
  Validations.of(policy).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${functionId}.Arn>:*]`,
    reason:
      "aws-cdk-lib's Gateway grants its role lambda:InvokeFunction on the function it calls and on that function's versions " +
      '(`<function ARN>:*`): one function, not a wildcard over functions.',
  });
}

/** Whether two identities accept the same tokens and carry the same claims. */
function sameIdentity(a: CallerIdentity, b: CallerIdentity): boolean {
  const sameSet = (x: readonly string[], y: readonly string[]) => x.length === y.length && x.every((item) => y.includes(item));
  return a.discoveryUrl === b.discoveryUrl && sameSet(a.audience, b.audience) && sameSet(a.clients, b.clients) && sameSet(a.claims, b.claims);
}
