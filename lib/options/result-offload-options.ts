import { Duration } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';

/**
 * Where results too big for their way back go (docs/tool-contract.md, "Results too big for the way
 * back"): a result above `resultOffloadThreshold` is written to S3 under the owner's prefix and the reply carries
 * `result_ref` instead of `result`.
 */
export interface ResultOffloadOptions {
  /**
   * The bucket to write results to: the handler may put and get objects under `<owner>/` only.
   *
   * @default - a new bucket: encrypted (SSE-S3), TLS only, public access blocked, objects owned by
   * the bucket owner, each object deleted by a lifecycle rule after `expiration`
   */
  readonly bucket?: s3.IBucket;

  /**
   * How long an offloaded result is kept: the created bucket's lifecycle expiry, and the
   * `expires_at` of each `result_ref` (for a given bucket, set its lifecycle to match).
   *
   * @default Duration.days(7)
   */
  readonly expiration?: Duration;
}
