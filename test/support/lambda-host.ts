import { type ChildProcess, spawn } from 'node:child_process';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

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
 * Lambda's Invoke API on 127.0.0.1 for a few bundled functions: each runs in a `node` process of its
 * own with its own environment (as in Lambda), and a router here sends
 * `POST /2015-03-31/functions/<name>/invocations` to it. The real `@aws-sdk/client-lambda`, pointed
 * at `endpoint`, reaches them unchanged.
 */
export async function startLambdaHost(functions: Record<string, HostedFunction>, nodePath: string): Promise<LambdaHost> {
  const children: ChildProcess[] = [];
  const ports = new Map<string, number>();
  for (const [name, fn] of Object.entries(functions)) {
    const child = spawn(process.execPath, [path.join(__dirname, 'lambda-host-child.cjs'), fn.bundle], {
      env: { PATH: process.env.PATH, NODE_PATH: nodePath, ...fn.env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    ports.set(name, await firstLinePort(child));
  }
  const invocations = new Map<string, unknown[]>();
  const router = http.createServer((request, response) => {
    const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations/.exec(request.url ?? '');
    const name = match && decodeURIComponent(match[1]).split(':').pop()!;
    const port = name ? ports.get(name) : undefined;
    if (!port) {
      response.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' });
      response.end(JSON.stringify({ Type: 'User', message: `Function not found: ${name}` }));
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      invocations.set(name!, [...(invocations.get(name!) ?? []), JSON.parse(body.toString('utf8') || 'null')]);
      const forward = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'content-type': 'application/json' } }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      forward.on('error', (error) => {
        response.writeHead(502);
        response.end(String(error));
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => router.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(router.address() as AddressInfo).port}`,
    invocations,
    close: async () => {
      for (const child of children) child.kill();
      await new Promise((resolve) => router.close(resolve));
    },
  };
}

function firstLinePort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error('the hosted function did not start within 10 s')), 10_000);
    child.once('exit', (code) => reject(new Error(`the hosted function exited with ${code} before it listened`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolve((JSON.parse(buffered.slice(0, newline)) as { port: number }).port);
      }
    });
  });
}
