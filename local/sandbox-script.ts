/**
 * The code that runs inside a function's sandbox (local/function-sandbox.ts), the same in a worker
 * thread and in a child process: it loads the bundle's handler, says it is ready, then runs each
 * invocation it is sent with a Lambda-shaped context and sends back the result or the error. Kept as
 * text, run with `eval` or `node -e`, so that the CLI stays one file.
 */

/** What the sandbox is started with (a thread's `workerData`; a process's first argument, as JSON). */
export interface SandboxData {
  /** The handler's file and export (`index.handler` in the code's folder → `<dir>/index`, `handler`). */
  readonly file: string;
  readonly exportName: string;
  readonly name: string;
  readonly arn: string;
  readonly memoryMb: number;
  /** Where the bundle's external modules (the AWS SDK) resolve from. */
  readonly nodePath: string;
}

export const SANDBOX_SCRIPT = `
const threads = require('node:worker_threads');
const inThread = !threads.isMainThread;
const data = inThread ? threads.workerData : JSON.parse(process.argv[1]);
const post = inThread ? (message) => threads.parentPort.postMessage(message) : (message) => process.send(message);
const parent = inThread ? threads.parentPort : process;
if (!inThread) process.on('disconnect', () => process.exit(0));
process.env.NODE_PATH = data.nodePath;
require('node:module')._initPaths();
// As Lambda's JSON log format does (the construct's functions use it): what code prints with
// console.* is one JSON line with the text under message, so a tool's output never reads as a line
// the runtime wrote itself (an audit record, a metric) to stdout.
const format = require('node:util').format;
let requestId;
for (const [method, level] of [['log', 'INFO'], ['info', 'INFO'], ['warn', 'WARN'], ['error', 'ERROR'], ['debug', 'DEBUG'], ['trace', 'TRACE']]) {
  console[method] = (...args) => {
    process.stdout.write(JSON.stringify({ timestamp: new Date().toISOString(), level, requestId, message: format(...args) }) + '\\n');
  };
}
const mod = require(data.file);
const handler = mod[data.exportName];
if (typeof handler !== 'function') throw new Error(data.file + ' exports no function ' + data.exportName);
parent.on('message', async ({ id, event, requestId: invocationId, timeoutMs, clientContext }) => {
  requestId = invocationId;
  const end = Date.now() + timeoutMs;
  const context = {
    awsRequestId: invocationId,
    functionName: data.name,
    functionVersion: '$LATEST',
    invokedFunctionArn: data.arn,
    memoryLimitInMB: String(data.memoryMb),
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, end - Date.now()),
    ...(clientContext === undefined ? {} : { clientContext }),
  };
  try {
    const result = await handler(event, context);
    post({ id, ok: true, result: result === undefined ? null : JSON.parse(JSON.stringify(result)) });
  } catch (error) {
    post({ id, ok: false, error: { errorType: (error && error.name) || 'Error', errorMessage: (error && error.message) || String(error), retryable: error && error.retryable } });
  }
});
post({ ready: true });
`;
