import type { EndpointAccess } from '../../local/endpoint-access';

/** What an SDK client needs to talk to a local endpoint: a region and the tests' keys, and no maintenance banner. */
export const LOCAL_AWS_ENV = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE: '1',
};

/** The tests' keys, as an SDK client takes them. */
export const LOCAL_AWS_CREDENTIALS = { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY };

/**
 * Who may call the tests' local AWS endpoints (local/endpoints.ts, closed as the local run's are):
 * requests signed by the tests' keys, with a loopback `Host`. Any function may be invoked directly
 * (the tests call the engine and the API themselves).
 */
export const LOCAL_AWS_ACCESS: EndpointAccess = {
  region: LOCAL_AWS_ENV.AWS_REGION,
  keys: new Map([[LOCAL_AWS_CREDENTIALS.accessKeyId, LOCAL_AWS_CREDENTIALS.secretAccessKey]]),
  urlOnly: new Set(),
  invokedOnlyBy: new Map(),
};
