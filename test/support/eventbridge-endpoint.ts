import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { startEndpoints, type PutEventsEntry } from '../../local/endpoints';
import { LOCAL_AWS_ACCESS, LOCAL_AWS_CREDENTIALS } from './local-aws';

export interface EventBridgeEndpoint {
  readonly endpoint: string;
  /** Every entry PutEvents received, in order, as sent. */
  readonly received: PutEventsEntry[];
  /** A real EventBridge client pointed at this endpoint, signing with the tests' keys. */
  client(): EventBridgeClient;
  close(): Promise<void>;
}

/** EventBridge's PutEvents as `cdk-tool-handler local` serves it (local/endpoints.ts), keeping every entry. */
export async function startEventBridgeEndpoint(): Promise<EventBridgeEndpoint> {
  const received: PutEventsEntry[] = [];
  const endpoints = await startEndpoints(
    { invoke: () => undefined, onEvent: (event) => received.push(event.entry) },
    LOCAL_AWS_ACCESS,
  );
  return {
    endpoint: endpoints.url,
    received,
    client: () => new EventBridgeClient({ endpoint: endpoints.url, region: LOCAL_AWS_ACCESS.region, credentials: LOCAL_AWS_CREDENTIALS }),
    close: () => endpoints.close(),
  };
}
