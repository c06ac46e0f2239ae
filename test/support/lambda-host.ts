import * as path from 'node:path';
import { startEndpoints } from '../../local/endpoints';
import { FunctionSandbox } from '../../local/function-sandbox';
import { LOCAL_AWS_ACCESS } from './local-aws';

export interface HostedFunction {
  /** The bundled handler (`index.js` exporting `handler`). */
  readonly bundle: string;
  /** The function's environment (its own process gets exactly this, plus PATH and NODE_PATH). */
  readonly env: Record<string, string>;
}

export interface LambdaHost {
  /** For `AWS_ENDPOINT_URL_LAMBDA`. */
  readonly endpoint: string;
  /** Invocations served, per function name. */
  readonly invocations: Map<string, unknown[]>;
  close(): Promise<void>;
}

/**
 * Lambda's Invoke API on 127.0.0.1 for a few bundled functions, as `cdk-tool-handler local` serves it
 * (local/endpoints.ts, signed by the tests' keys), each function in a `node` process of its own with
 * its own environment (local/function-sandbox.ts), as in Lambda. The real `@aws-sdk/client-lambda`,
 * pointed at `endpoint`, reaches them unchanged.
 */
export async function startLambdaHost(functions: Record<string, HostedFunction>, nodePath: string): Promise<LambdaHost> {
  const sandboxes = new Map(
    Object.entries(functions).map(([name, fn]) => {
      const spec = {
        name,
        label: name,
        codeDir: path.dirname(fn.bundle),
        handler: `${path.basename(fn.bundle, '.js')}.handler`,
        env: fn.env,
        timeoutSeconds: 10,
        memoryMb: 128,
      };
      return [name, new FunctionSandbox(spec, { nodePath, isolation: 'process' })] as const;
    }),
  );
  const invocations = new Map<string, unknown[]>();
  try {
    await Promise.all([...sandboxes.values()].map((sandbox) => sandbox.ready()));
  } catch (error) {
    await Promise.all([...sandboxes.values()].map((sandbox) => sandbox.stop()));
    throw error;
  }
  const endpoints = await startEndpoints(
    {
      invoke: (name, event) => {
        const sandbox = sandboxes.get(name);
        if (sandbox) invocations.set(name, [...(invocations.get(name) ?? []), event]);
        return sandbox?.invoke(event);
      },
      onEvent: () => undefined,
    },
    LOCAL_AWS_ACCESS,
  );
  return {
    endpoint: endpoints.url,
    invocations,
    close: async () => {
      await Promise.all([...sandboxes.values()].map((sandbox) => sandbox.stop()));
      await endpoints.close();
    },
  };
}
