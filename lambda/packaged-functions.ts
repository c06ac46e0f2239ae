/**
 * The package's own Lambda functions: the one list that the build (scripts/build-functions.mjs), the
 * construct (their prebuilt code and the tag that names each) and the local run (which of them it
 * runs) read. Each is built from `lambda/functions/<name>.ts` into `dist/functions/<name>/index.js`,
 * and its function carries the tag `cdk-tool-handler:function` = `<name>`. Plain constants only:
 * jsii follows this file from `lib/`, and the build script loads it through esbuild.
 */
export const PACKAGED_FUNCTIONS = {
  /** Creates, claims and completes approvals; invoked by the tool handler only. */
  engine: { name: 'approvals-engine', runsLocally: true },
  /** Lists, reads and decides approvals, behind a function URL with AWS_IAM auth. */
  api: { name: 'approvals-api', runsLocally: true },
  /** Marks undecided approvals past their expiry as expired. */
  expirer: { name: 'approvals-expirer', runsLocally: true },
  /** The AgentCore Gateway's REQUEST interceptor that proves callers (`addToGateway` with `callerIdentity`). */
  interceptor: { name: 'gateway-interceptor', runsLocally: false },
  /** The approvals inbox (`ApprovalsInbox`): a page and its API for approvers who sign in with OpenID Connect. */
  inbox: { name: 'approvals-inbox', runsLocally: false },
} as const;

/** Which of the package's functions a function is: a key of `PACKAGED_FUNCTIONS`. */
export type PackagedFunctionRole = keyof typeof PACKAGED_FUNCTIONS;

/** A package function's name: its entry, its `dist/functions` folder and its tag value. */
export type PackagedFunctionName = (typeof PACKAGED_FUNCTIONS)[PackagedFunctionRole]['name'];

/** The package's functions that `cdk-tool-handler local` runs beside the handler. */
export type LocalPackagedRole = {
  [R in PackagedFunctionRole]: (typeof PACKAGED_FUNCTIONS)[R]['runsLocally'] extends true ? R : never;
}[PackagedFunctionRole];
