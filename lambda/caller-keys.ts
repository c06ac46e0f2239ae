/**
 * The public halves of the keys that sign Gateway callers' proofs (caller-proof.ts), fetched from
 * KMS (`GetPublicKey`) the first time a proof arrives, and kept for the container: a warm
 * invocation checks a proof with no network call. The KMS client is loaded on that first use, so a
 * handler that never sees a proof never loads it.
 */
import type { KeyObject } from 'node:crypto';
import type { KMSClient } from '@aws-sdk/client-kms';
import { publicKeyOf } from './caller-proof';
import { resolveRegion } from './config';

const keys = new Map<string, Promise<KeyObject>>();
let sharedClient: KMSClient | undefined;

function kmsSdk(): typeof import('@aws-sdk/client-kms') {
  return require('@aws-sdk/client-kms') as typeof import('@aws-sdk/client-kms');
}

/** The public key of `keyId`; a failed fetch is forgotten, so the next proof tries again. */
export function callerPublicKey(keyId: string): Promise<KeyObject> {
  let key = keys.get(keyId);
  if (!key) {
    key = fetchPublicKey(keyId);
    keys.set(keyId, key);
    key.catch(() => keys.delete(keyId));
  }
  return key;
}

async function fetchPublicKey(keyId: string): Promise<KeyObject> {
  const { GetPublicKeyCommand, KMSClient } = kmsSdk();
  const client = (sharedClient ??= new KMSClient({ region: resolveRegion() }));
  const { PublicKey } = await client.send(new GetPublicKeyCommand({ KeyId: keyId }));
  if (!PublicKey) throw new Error(`KMS returned no public key for ${keyId}`);
  return publicKeyOf(PublicKey);
}
