import { CfnOutput, Duration, Names, RemovalPolicy, Tags, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { API_URL_OUTPUT_SUFFIX, ENV } from '../../lambda/construct-contract';
import { allowlistOf } from '../allowlist';
import { auditLogRetentionOf, logRetentionOf } from '../audit/audit-retention';
import { defaultArchitecture, defaultRuntime } from '../defaults';
import { packagedFunctionCode, PackagedFunction } from '../bundling/packaged-code';
import { apiTableStatements, engineTableStatements, expirerTableStatements, wallOffRole } from '../permissions';
import { FUNCTION_ROLE, TAG } from '../permissions/tags';
import { ToolHandlerProps } from '../tool-handler-props';
import { Settings } from '../validation';

/**
 * The handler's props the service follows: the allowlist (the engine keeps its own copy), the
 * reply bus (where the expirer announces expiries), and the function settings.
 */
export interface ApprovalsServiceOptions
  extends Pick<ToolHandlerProps, 'allowedTools' | 'tools' | 'replyBus' | 'runtime' | 'architecture' | 'logRetention' | 'auditRetention'> {
  readonly table: dynamodb.ITable;
  /** Whose approvals these functions serve: their key space in the table. */
  readonly owner: string;
  /** `approvalTtlSeconds`, and the handler function's timeout: no claim outlives the invocation that took it. */
  readonly settings: Settings;
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The two functions that own approvals, each with a role of its own and code that ships prebuilt
 * in this package: the engine (invoked by the tool handler only) and the approvals API (behind a
 * function URL with AWS_IAM auth).
 */
export class ApprovalsService extends Construct {
  readonly engine: lambda.Function;
  readonly api: lambda.Function;
  readonly apiUrl: lambda.FunctionUrl;
  readonly expirer: lambda.Function;
  /** The service's functions: `engine`, `api`, `expirer`, in that order. */
  readonly functions: lambda.Function[];
  /** The stack output holding `apiUrl`. */
  readonly apiUrlOutput: CfnOutput;

  constructor(scope: Construct, id: string, options: ApprovalsServiceOptions) {
    super(scope, id);
    const shared = { [ENV.approvalsTable]: options.table.tableName, [ENV.owner]: options.owner };
    this.engine = this.packagedFunction('Engine', FUNCTION_ROLE.engine, options, {
      description: 'cdk-tool-handler approvals engine: creates, claims and completes approvals for the tool handler.',
      environment: {
        ...shared,
        [ENV.tools]: allowlistOf(options).join(','),
        [ENV.approvalTtlSeconds]: String(options.settings.approvalTtlSeconds),
        [ENV.claimMaxSeconds]: String(options.settings.functionTimeoutSeconds),
      },
    });
    engineTableStatements(options.table, options.owner).forEach((statement) => this.engine.addToRolePolicy(statement));

    this.api = this.packagedFunction('Api', FUNCTION_ROLE.api, options, {
      description: 'cdk-tool-handler approvals API: lists, reads and decides approvals for IAM-authenticated approvers.',
      environment: shared,
    });
    apiTableStatements(options.table, options.owner).forEach((statement) => this.api.addToRolePolicy(statement));
    this.apiUrl = this.api.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.AWS_IAM });

    this.expirer = this.packagedFunction('Expirer', FUNCTION_ROLE.expirer, options, {
      description: 'cdk-tool-handler approvals expirer: marks undecided approvals past their expiry as expired.',
      environment: { ...shared, ...(options.replyBus ? { [ENV.replyBus]: options.replyBus.eventBusArn } : {}) },
    });
    expirerTableStatements(options.table, options.owner).forEach((statement) => this.expirer.addToRolePolicy(statement));
    this.functions = [this.engine, this.api, this.expirer];

    this.apiUrlOutput = new CfnOutput(this, API_URL_OUTPUT_SUFFIX, {
      value: this.apiUrl.url,
      description: 'The approvals API (cdk-tool-handler approvals --stack <this stack>).',
    });
    this.apiUrlOutput.overrideLogicalId(`${Names.uniqueId(this)}${API_URL_OUTPUT_SUFFIX}`);
  }

  private packagedFunction(
    id: string,
    code: PackagedFunction,
    options: ApprovalsServiceOptions,
    settings: { description: string; environment: { [key: string]: string } },
  ): lambda.Function {
    // The API writes an audit record per decision, the expirer one per expiry; the engine writes none.
    const writesAudit = code === FUNCTION_ROLE.api || code === FUNCTION_ROLE.expirer;
    const logGroup = new logs.LogGroup(this, `${id}LogGroup`, {
      retention: writesAudit ? auditLogRetentionOf(options) : logRetentionOf(options),
      removalPolicy: options.removalPolicy,
    });
    const functionRole = new iam.Role(this, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `${settings.description} Its log group and its table statements, nothing else.`,
    });
    logGroup.grantWrite(functionRole);
    wallOffRole(functionRole, options.owner);
    const fn = new lambda.Function(this, id, {
      code: packagedFunctionCode(this, code),
      handler: 'index.handler',
      runtime: options.runtime ?? defaultRuntime(),
      architecture: options.architecture ?? defaultArchitecture(),
      memorySize: 256,
      timeout: Duration.seconds(10),
      description: settings.description,
      environment: settings.environment,
      role: functionRole,
      logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
    });
    // What the handler role's Denies and the SCP of docs/security.md recognise the function by (`aws:ResourceTag`).
    Tags.of(fn).add(TAG.function, code);
    Tags.of(fn).add(TAG.owner, options.owner);
    if (options.runtime === undefined) {
      Validations.of(fn).acknowledge({
        id: 'AwsSolutions-L1',
        reason:
          "The package's own functions follow the construct's `runtime`; its default, Node.js 22, is the one they are built and tested for.",
      });
    }
    return fn;
  }
}
