import * as s3 from 'aws-cdk-lib/aws-s3';

/**
 * Where the audit archive keeps the audit records (docs/operations.md, "Audit records"): a CloudWatch Logs
 * subscription filter on each log group that holds them sends them through Amazon Data Firehose
 * into S3, one record per line, under `audit/<owner>/yyyy/MM/dd/`; what Firehose could not deliver
 * goes under `audit-errors/<owner>/`.
 */
export interface AuditArchiveOptions {
  /**
   * The bucket to write the archive to. Firehose's role may only list it and write (never delete)
   * objects under its two prefixes; a bucket encrypted with a customer managed key that the bucket
   * object carries gets that key's `kms:GenerateDataKey` and `kms:Decrypt` for the role.
   *
   * @default - a new bucket: encrypted (SSE-S3), TLS only, public access blocked, objects owned by
   * the bucket owner, versioned, and retained when it leaves the stack
   */
  readonly bucket?: s3.IBucket;
}
