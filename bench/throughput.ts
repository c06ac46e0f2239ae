/**
 * Throughput (figure 2): envelopes per second through each handler. Each variant runs in
 * a process of its own (bench/children/throughput.ts), as each would in its own Lambda container:
 * no shared heap, no shared compiled code. The processes take turns a slice of batches at a time,
 * the order rotated every slice, so that all variants see the same machine: this VM's speed swings
 * by up to 2x from one second to the next, and whole runs seconds apart moved the ratios by ±25%. A round's figure
 * for a variant is its calls over the sum of its slices' times; the figure is the median of rounds.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { ROOT } from './lib/paths';
import { median, rotate } from './lib/stats';
import type { ThroughputAnswer, ThroughputHostConfig, ThroughputRequest } from './children/throughput';

export interface ThroughputConfig {
  readonly variants: ReadonlyArray<{ readonly name: string; readonly bundle?: string }>;
  readonly rounds: number;
  readonly warmupRounds: number;
  readonly batches: number;
  readonly batchSize: number;
  /** Passes over each slice for the bare loop. @default 1 */
  readonly barePasses?: number;
  /** Slices per round: how often the variants take turns. @default 10 */
  readonly slices?: number;
}

export interface ThroughputFigure {
  readonly runs: number;
  /** Median envelopes per second. */
  readonly perSecond: number;
  readonly min: number;
  readonly max: number;
}

interface Host {
  readonly name: string;
  readonly calls: number;
  ask(request: ThroughputRequest): Promise<ThroughputAnswer>;
  /** Disconnects, and resolves once the process has exited (and written a `--cpu-prof` profile). */
  close(): Promise<void>;
}

export async function measureThroughput(
  hostScript: string,
  config: ThroughputConfig,
  nodeArgs: readonly string[] = [],
): Promise<Record<string, ThroughputFigure>> {
  const hosts = config.variants.map((variant) =>
    startHost(hostScript, { variant, batches: config.batches, batchSize: config.batchSize, barePasses: config.barePasses }, nodeArgs),
  );
  try {
    const slices = config.slices ?? 10;
    const rates = new Map<string, number[]>(hosts.map((host) => [host.name, []]));
    for (let round = 0; round < config.warmupRounds + config.rounds; round++) {
      await Promise.all(hosts.map((host) => host.ask({ round })));
      const seconds = new Map<string, number>(hosts.map((host) => [host.name, 0]));
      for (let slice = 0; slice < slices; slice++) {
        const from = Math.floor((slice * config.batches) / slices);
        const to = Math.floor(((slice + 1) * config.batches) / slices);
        for (const host of rotate(hosts, round + slice)) {
          const { seconds: taken } = await host.ask({ from, to });
          seconds.set(host.name, seconds.get(host.name)! + taken!);
        }
      }
      if (round < config.warmupRounds) continue;
      for (const host of hosts) rates.get(host.name)!.push(host.calls / seconds.get(host.name)!);
    }
    return Object.fromEntries(
      [...rates].map(([name, runs]) => [name, { runs: runs.length, perSecond: median(runs), min: Math.min(...runs), max: Math.max(...runs) }]),
    );
  } finally {
    await Promise.all(hosts.map((host) => host.close()));
  }
}

function startHost(script: string, config: ThroughputHostConfig, nodeArgs: readonly string[]): Host {
  const child: ChildProcess = fork(script, [JSON.stringify(config)], {
    cwd: ROOT,
    execArgv: [...nodeArgs],
    env: { ...process.env, BENCH_STORE: 'memory', NODE_OPTIONS: '' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let pending: { resolve: (answer: ThroughputAnswer) => void; reject: (error: Error) => void } | undefined;
  const fail = (error: Error) => {
    pending?.reject(error);
    pending = undefined;
  };
  child.on('message', (answer: ThroughputAnswer) => {
    const waiting = pending;
    pending = undefined;
    if (answer.error) waiting?.reject(new Error(`${config.variant.name}: ${answer.error}`));
    else waiting?.resolve(answer);
  });
  child.on('error', fail);
  child.on('exit', (code, signal) => fail(new Error(`${config.variant.name}'s throughput host exited with ${code ?? signal}`)));
  return {
    name: config.variant.name,
    calls: config.batches * config.batchSize * (config.variant.bundle ? 1 : (config.barePasses ?? 1)),
    ask: (request) =>
      new Promise((resolve, reject) => {
        pending = { resolve, reject };
        child.send(request);
      }),
    close: () => {
      if (child.connected) child.disconnect();
      return exited;
    },
  };
}
