/**
 * CloudWatch Logs' `FilterLogEvents` on 127.0.0.1 (the JSON 1.1 protocol, `X-Amz-Target:
 * Logs_20140328.FilterLogEvents`), over log groups the test fills: the real `@aws-sdk/client-cloudwatch-logs`,
 * pointed at it with `AWS_ENDPOINT_URL_CLOUDWATCH_LOGS`, reaches it unchanged. It selects events as
 * the service documents: within `startTime`..`endTime` (epoch ms, both inclusive) and matching
 * `filterPattern` (test/support/filter-pattern.ts); pages of `pageSize` events with a `nextToken`.
 * An unknown log group is the service's `ResourceNotFoundException`; a group named in `denied`,
 * its `AccessDeniedException`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { matchesFilterPattern } from './filter-pattern';

export interface StoredEvent {
  readonly timestamp: number;
  readonly message: string;
}

export interface CloudWatchLogsStandIn {
  /** For `AWS_ENDPOINT_URL_CLOUDWATCH_LOGS`. */
  readonly endpoint: string;
  /** Every request body received, parsed, with its target. */
  readonly requests: Array<{ target: string; body: Record<string, any>; authorization: string }>;
  close(): Promise<void>;
}

export async function startCloudWatchLogsStandIn(
  groups: ReadonlyMap<string, readonly StoredEvent[]>,
  options: { readonly pageSize?: number; readonly denied?: ReadonlySet<string> } = {},
): Promise<CloudWatchLogsStandIn> {
  const pageSize = options.pageSize ?? 5;
  const requests: CloudWatchLogsStandIn['requests'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      let body: Record<string, any> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        // answered below as a bad request
      }
      requests.push({ target, body, authorization: String(req.headers.authorization ?? '') });
      const reply = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': `req-${requests.length}` });
        res.end(JSON.stringify(payload));
      };
      if (target !== 'Logs_20140328.FilterLogEvents') {
        return reply(400, { __type: 'UnknownOperationException', message: `Unsupported operation ${target}` });
      }
      const name = String(body.logGroupName ?? '');
      if (options.denied?.has(name)) {
        return reply(400, { __type: 'AccessDeniedException', message: `User is not authorized to perform: logs:FilterLogEvents on ${name}` });
      }
      const events = groups.get(name);
      if (!events) return reply(400, { __type: 'ResourceNotFoundException', message: 'The specified log group does not exist.' });
      const from = typeof body.startTime === 'number' ? body.startTime : -Infinity;
      const to = typeof body.endTime === 'number' ? body.endTime : Infinity;
      const pattern = typeof body.filterPattern === 'string' ? body.filterPattern : '';
      const selected = events
        .map((e, i) => ({ ...e, eventId: String(i) }))
        .filter((e) => e.timestamp >= from && e.timestamp <= to && matchesFilterPattern(pattern, e.message))
        .sort((a, b) => a.timestamp - b.timestamp);
      const start = Number(body.nextToken ?? 0);
      const page = selected.slice(start, start + pageSize);
      const next = start + pageSize < selected.length ? String(start + pageSize) : undefined;
      return reply(200, {
        events: page.map((e) => ({ logStreamName: 'stream', timestamp: e.timestamp, message: e.message, ingestionTime: e.timestamp, eventId: e.eventId })),
        searchedLogStreams: [],
        ...(next ? { nextToken: next } : {}),
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
