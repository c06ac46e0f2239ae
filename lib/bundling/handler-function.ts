import { RemovalPolicy, Tags } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as destinations from 'aws-cdk-lib/aws-lambda-destinations';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Duration } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { ENV, foldedConstants } from '../../lambda/construct-contract';
import { auditLogRetentionOf } from '../audit/audit-retention';
import { allowlistOf } from '../allowlist';
import { DEFAULTS, defaultArchitecture, defaultRuntime } from '../defaults';
import { wallOffRole } from '../permissions';
import { FUNCTION_ROLE, TAG } from '../permissions/tags';
import { ToolHandlerProps } from '../tool-handler-props';
import { Settings } from '../validation';

export interface HandlerFunctionOptions {
  readonly settings: Settings;
  /** The approvals table (`TOOL_HANDLER_APPROVALS_TABLE`). */
  readonly table: dynamodb.ITable;
  /** The approvals engine the function calls (`TOOL_HANDLER_APPROVALS_ENGINE`). */
  readonly engine: lambda.IFunction;
  readonly owner: string;
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
    // Every call's log line is its audit record.
    retention: auditLogRetentionOf(props),
    removalPolicy: options.removalPolicy,
  });
  const role = new iam.Role(scope, 'ServiceRole', {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: 'Runs the tool handler: its log group, its queue, its approvals table and nothing else.',
  });
  logGroup.grantWrite(role);
  wallOffRole(role, options.owner);

  // Constants esbuild folds: without `resultOffload` the bundle leaves the offload code out, and it
  // always leaves out the table's approval writes (the handler reaches approvals through its engine).
  const folded = foldedConstants({ resultOffload: props.resultOffload !== undefined });
  const given: nodejs.BundlingOptions = { minify: true, sourceMap: true, ...props.bundling, define: { ...folded, ...props.bundling?.define } };
  const sourceMaps = given.sourceMap === true || given.sourceMapMode !== undefined;
  const bundling: nodejs.BundlingOptions = sourceMaps ? { ...given, commandHooks: withStableSourceMaps(given.commandHooks) } : given;

  const fn = new nodejs.NodejsFunction(scope, 'Function', {
    entry: props.entry,
    handler: props.handler ?? DEFAULTS.handler,
    depsLockFilePath: props.depsLockFilePath,
    projectRoot: props.projectRoot,
    runtime: props.runtime ?? defaultRuntime(),
    architecture: props.architecture ?? defaultArchitecture(),
    memorySize: props.memorySize ?? DEFAULTS.memorySize,
    timeout: Duration.seconds(options.settings.functionTimeoutSeconds),
    bundling,
    environment: {
      ...(sourceMaps ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
      ...props.environment,
      ...toolEnvironment(props, options),
    },
    role,
    logGroup,
    loggingFormat: lambda.LoggingFormat.JSON,
    tracing: props.tracing,
    retryAttempts: props.retryAttempts ?? DEFAULTS.asyncRetryAttempts,
    maxEventAge: props.maxEventAge ?? DEFAULTS.asyncMaxEventAge,
    onFailure: new destinations.SqsDestination(options.onFailureQueue),
  });
  // What every role's walls and the SCP of docs/security.md recognise it by (`aws:ResourceTag`): another
  // owner's code must not run this owner's tools, resume its approvals or read its kept replies.
  // On the function itself (its event source mapping is not invoked).
  const cfn = fn.node.defaultChild as lambda.CfnFunction;
  Tags.of(cfn).add(TAG.function, FUNCTION_ROLE.handler);
  Tags.of(cfn).add(TAG.owner, options.owner);
  return fn;
}

/** The construct's `TOOL_HANDLER_*` variables. */
function toolEnvironment(props: ToolHandlerProps, options: HandlerFunctionOptions): { [key: string]: string } {
  const { settings } = options;
  return {
    [ENV.tools]: allowlistOf(props).join(','),
    [ENV.timeoutSeconds]: String(settings.timeoutSeconds),
    [ENV.marginSeconds]: String(settings.marginSeconds),
    [ENV.approvalsTable]: options.table.tableName,
    [ENV.approvalsEngine]: options.engine.functionName,
    [ENV.owner]: options.owner,
    ...(props.notifyWithArgs && props.approvalNotifications ? { [ENV.notifyWithArgs]: 'true' } : {}),
    [ENV.approvalTtlSeconds]: String(settings.approvalTtlSeconds),
    ...(props.replyBus ? { [ENV.replyBus]: props.replyBus.eventBusArn } : {}),
    ...maxReceiveEnvironment(props),
  };
}

/**
 * The tool queue's `maxReceiveCount`, when known: a record on its last receive that fails goes to the
 * dead-letter queue, so a flow waiting for it is told then (docs/flows.md).
 */
function maxReceiveEnvironment(props: ToolHandlerProps): { [key: string]: string } {
  const count = props.queue
    ? props.queue instanceof sqs.Queue
      ? props.queue.deadLetterQueue?.maxReceiveCount
      : undefined
    : (props.maxReceiveCount ?? DEFAULTS.maxReceiveCount);
  return count === undefined ? {} : { [ENV.maxReceiveCount]: String(count) };
}

/**
 * esbuild writes each source map's `sources` relative to the bundling output folder, which is a
 * temporary folder (jest's default `new App()`, Docker's /asset-output): the same app checked out in
 * two places then bundles to maps, and so asset hashes, that differ. After bundling, this rewrites
 * the `.map` files so their sources are relative to the project root (`tools.ts`,
 * `node_modules/zod/...`); esbuild embeds the sources' text, so the maps still resolve. Runs `node`
 * (there wherever NodejsFunction bundles); the user's own hooks run first.
 */
function withStableSourceMaps(hooks: nodejs.ICommandHooks | undefined): nodejs.ICommandHooks {
  return {
    beforeBundling: (inputDir, outputDir) => hooks?.beforeBundling(inputDir, outputDir) ?? [],
    beforeInstall: (inputDir, outputDir) => hooks?.beforeInstall(inputDir, outputDir) ?? [],
    afterBundling: (inputDir, outputDir) => [
      ...(hooks?.afterBundling(inputDir, outputDir) ?? []),
      `node -e "${STABLE_SOURCE_MAPS_SCRIPT}" "${outputDir}" "${inputDir}"`,
    ],
  };
}

/** Inside double quotes in bash and cmd alike: no double quotes, `$`, backticks or backslashes. */
const STABLE_SOURCE_MAPS_SCRIPT = [
  "const fs = require('fs'), path = require('path');",
  'const [out, root] = process.argv.slice(1);',
  "for (const file of fs.readdirSync(out).filter((f) => f.endsWith('.map'))) {",
  "  const map = JSON.parse(fs.readFileSync(path.join(out, file), 'utf8'));",
  "  map.sources = map.sources.map((s) => path.relative(root, path.resolve(out, s)).split(path.sep).join('/'));",
  '  delete map.sourceRoot;',
  '  fs.writeFileSync(path.join(out, file), JSON.stringify(map));',
  '}',
].join(' ');
