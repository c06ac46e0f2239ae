/**
 * DynamoDB (figure 3): starts dynalite on 127.0.0.1 in this process and runs the
 * measurements in a child process against it.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runChild } from './lib/child';
import { mean, median } from './lib/stats';
import type { DynamoConfig, DynamoResult } from './children/dynamo';

type DynaliteFactory = (options: { createTableMs?: number; deleteTableMs?: number; updateTableMs?: number }) => Server;

export interface DynamoFigure {
  /** Mean round trips per operation (they do not vary; the mean shows it if they did). */
  readonly roundTrips: number;
  readonly medianMs: number;
  readonly samples: number;
}

export async function withDynalite<T>(work: (endpoint: string) => Promise<T>): Promise<T> {
  const dynalite = require('dynalite') as DynaliteFactory;
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  try {
    return await work(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

export async function measureDynamo(
  childScript: string,
  bundles: { ours: string; powertools: string },
  iterations: number,
): Promise<Record<string, DynamoFigure>> {
  return withDynalite(async (endpoint) => {
    const config: DynamoConfig = { endpoint, iterations, ...bundles };
    const { result } = await runChild<DynamoResult>(childScript, [JSON.stringify(config)], {
      env: { BENCH_STORE: '', NODE_OPTIONS: '', AWS_REGION: 'us-east-1' },
    });
    return Object.fromEntries(
      Object.entries(result).map(([key, samples]) => [
        key,
        { roundTrips: mean(samples.roundTrips), medianMs: median(samples.ms), samples: samples.ms.length },
      ]),
    );
  });
}
