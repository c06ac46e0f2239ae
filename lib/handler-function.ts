import { RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as destinations from 'aws-cdk-lib/aws-lambda-destinations';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Duration } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { DEFAULTS, defaultArchitecture, defaultRuntime } from './defaults';
import { ToolHandlerProps } from './tool-handler-props';

export interface HandlerFunctionOptions {
  readonly functionTimeoutSeconds: number;
  /** The construct's `TOOL_HANDLER_*` variables. */
  readonly toolEnvironment: { [key: string]: string };
  readonly removalPolicy: RemovalPolicy;
  /** The on-failure destination of asynchronous invocations. */
  readonly onFailureQueue: sqs.IQueue;
}

/**
 * The NodejsFunction over the user's tools module, with its own log group (JSON logs) and a role
 * that starts with nothing but writing to that log group: no AWS managed policy.
 */
export function createHandlerFunction(
  scope: Construct,
  props: ToolHandlerProps,
  options: HandlerFunctionOptions,
): nodejs.NodejsFunction {
  const logGroup = new logs.LogGroup(scope, 'LogGroup', {
    retention: props.logRetention ?? DEFAULTS.logRetention,
    removalPolicy: options.removalPolicy,
  });
  const role = new iam.Role(scope, 'ServiceRole', {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: 'Runs the tool handler: its log group, its queue, its approvals table and nothing else.',
  });
  logGroup.grantWrite(role);

  const bundling: nodejs.BundlingOptions = { minify: true, sourceMap: true, ...props.bundling };
  const sourceMaps = bundling.sourceMap === true || bundling.sourceMapMode !== undefined;

  return new nodejs.NodejsFunction(scope, 'Function', {
    entry: props.entry,
    handler: props.handler ?? DEFAULTS.handler,
    depsLockFilePath: props.depsLockFilePath,
    projectRoot: props.projectRoot,
    runtime: props.runtime ?? defaultRuntime(),
    architecture: props.architecture ?? defaultArchitecture(),
    memorySize: props.memorySize ?? DEFAULTS.memorySize,
    timeout: Duration.seconds(options.functionTimeoutSeconds),
    bundling,
    environment: {
      ...(sourceMaps ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
      ...props.environment,
      ...options.toolEnvironment,
    },
    role,
    logGroup,
    loggingFormat: lambda.LoggingFormat.JSON,
    tracing: props.tracing,
    retryAttempts: props.retryAttempts ?? DEFAULTS.asyncRetryAttempts,
    maxEventAge: props.maxEventAge ?? DEFAULTS.asyncMaxEventAge,
    onFailure: new destinations.SqsDestination(options.onFailureQueue),
  });
}
