/**
 * Offloaded results in S3 (`resultOffload`): each under its owner's prefix, keyed by a hash of its
 * call's ids, deleted by the bucket's lifecycle. The S3 client and the presigner are loaded on the
 * first offloaded result, so a handler whose results all fit never loads them. The clients honour
 * `AWS_ENDPOINT_URL_S3` (a local run's stand-in, path-style there).
 */
import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { resolveRegion } from './config';
import type { ResultOffload, ResultRef } from './result-offload';

/** A presigned URL's longest life: SigV4's 7 days. */
const MAX_PRESIGN_S = 7 * 24 * 3600;
/** Kept back from the credentials' expiry, so that a URL never outlives the keys that signed it. */
const CREDENTIALS_MARGIN_S = 60;

export interface S3ResultOffloadProps {
  readonly bucket: string;
  /** Results above this many bytes are offloaded. */
  readonly threshold: number;
  /** Days after which the bucket's lifecycle deletes a result. */
  readonly expiryDays: number;
  /** @default - one client per container, made on first use */
  readonly client?: S3Client;
}

function s3Sdk(): typeof import('@aws-sdk/client-s3') {
  return require('@aws-sdk/client-s3') as typeof import('@aws-sdk/client-s3');
}

function presigner(): typeof import('@aws-sdk/s3-request-presigner') {
  return require('@aws-sdk/s3-request-presigner') as typeof import('@aws-sdk/s3-request-presigner');
}

export class S3ResultOffload implements ResultOffload {
  readonly threshold: number;
  private client: S3Client | undefined;

  constructor(private readonly props: S3ResultOffloadProps) {
    this.threshold = props.threshold;
    this.client = props.client;
  }

  async put(json: string, bytes: number, call: { owner: string; runId: string; callId: string }): Promise<ResultRef> {
    const { PutObjectCommand } = s3Sdk();
    const key = `${call.owner}/${createHash('sha256').update(JSON.stringify([call.runId, call.callId])).digest('base64url')}.json`;
    const sha256 = createHash('sha256').update(json, 'utf8').digest('hex');
    await this.s3().send(
      new PutObjectCommand({ Bucket: this.props.bucket, Key: key, Body: json, ContentType: 'application/json', ChecksumSHA256: Buffer.from(sha256, 'hex').toString('base64') }),
    );
    return {
      uri: `s3://${this.props.bucket}/${key}`,
      bytes,
      sha256,
      expires_at: new Date(Date.now() + this.props.expiryDays * 86_400_000).toISOString(),
    };
  }

  async presign(ref: ResultRef): Promise<string> {
    const { GetObjectCommand } = s3Sdk();
    const client = this.s3();
    const credentials = await client.config.credentials();
    const left = credentials.expiration ? Math.floor((credentials.expiration.getTime() - Date.now()) / 1000) - CREDENTIALS_MARGIN_S : MAX_PRESIGN_S;
    const key = ref.uri.slice(`s3://${this.props.bucket}/`.length);
    return presigner().getSignedUrl(client, new GetObjectCommand({ Bucket: this.props.bucket, Key: key }), {
      expiresIn: Math.max(1, Math.min(MAX_PRESIGN_S, left)),
    });
  }

  private s3(): S3Client {
    const { S3Client } = s3Sdk();
    this.client ??= new S3Client({ region: resolveRegion(), forcePathStyle: Boolean(process.env.AWS_ENDPOINT_URL_S3) });
    return this.client;
  }
}
