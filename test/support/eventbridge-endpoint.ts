import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';

export interface PutEventsEntry {
  readonly Source: string;
  readonly DetailType: string;
  readonly Detail: string;
  readonly EventBusName: string;
}

export interface EventBridgeEndpoint {
  readonly endpoint: string;
  /** Every entry PutEvents received, in order. */
  readonly received: PutEventsEntry[];
  /** A real EventBridge client pointed at this endpoint. */
  client(): EventBridgeClient;
  close(): Promise<void>;
}

/** EventBridge's PutEvents on 127.0.0.1, answering as EventBridge does and keeping every entry. */
export async function startEventBridgeEndpoint(): Promise<EventBridgeEndpoint> {
  const received: PutEventsEntry[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const entries = (JSON.parse(body) as { Entries: PutEventsEntry[] }).Entries;
      received.push(...entries);
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify({ FailedEntryCount: 0, Entries: entries.map((_, i) => ({ EventId: `e-${received.length + i}` })) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    received,
    client: () => new EventBridgeClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
