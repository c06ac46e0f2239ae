/**
 * Signs a proof's payload with the interceptor's KMS key (ECC_NIST_P256, `ECDSA_SHA_256` over the
 * RAW message: KMS hashes it), as lambda/caller-proof.ts checks it. Only the interceptor's role may
 * use the key to sign. The client is made on first use and honours `AWS_ENDPOINT_URL_KMS`.
 */
import { KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { resolveRegion } from '../config';

/** Signs `payload`'s bytes; the DER-encoded signature. */
export type PayloadSigner = (payload: string) => Promise<Uint8Array>;

export function kmsSigner(keyId: string): PayloadSigner {
  let client: KMSClient | undefined;
  return async (payload) => {
    client ??= new KMSClient({ region: resolveRegion() });
    const { Signature } = await client.send(
      new SignCommand({ KeyId: keyId, Message: Buffer.from(payload), MessageType: 'RAW', SigningAlgorithm: 'ECDSA_SHA_256' }),
    );
    if (!Signature) throw new Error('KMS returned no signature');
    return Signature;
  };
}
