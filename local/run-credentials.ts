/**
 * The keys of one local run, made at its start and known to no other run: the functions sign their
 * AWS calls with theirs (the handler with its own, the only keys that may invoke the approvals
 * engine), and the approver signs the function URL's requests with theirs.
 */
import { randomBytes } from 'node:crypto';

export interface AccessKey {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

export interface RunCredentials {
  readonly handler: AccessKey;
  /** The engine's, the API's and the expirer's. */
  readonly functions: AccessKey;
  /** What `approvals --local` signs with (the state file holds them). */
  readonly approver: AccessKey;
  /** What `local call` signs with (the state file holds them): it may invoke the tool handler, nothing else. */
  readonly caller: AccessKey;
}

export function newRunCredentials(): RunCredentials {
  return { handler: newAccessKey(), functions: newAccessKey(), approver: newAccessKey(), caller: newAccessKey() };
}

/** Shaped like IAM's: `AKIA` and 16 upper-case characters, a 40-character secret. */
function newAccessKey(): AccessKey {
  return {
    accessKeyId: `AKIA${randomBytes(8).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(30).toString('base64'),
  };
}
