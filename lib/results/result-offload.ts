import { Duration, RemovalPolicy, Size, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { DEFAULT_RESULT_EXPIRY_DAYS, DEFAULT_RESULT_THRESHOLD_BYTES, ENV } from '../../lambda/construct-contract';
import { fail } from '../errors';
import type { ResultOffloadOptions } from '../options/result-offload-options';

/** The largest threshold that still lets a result travel: a synchronous response's 6 MB. */
const MAX_THRESHOLD = Size.mebibytes(6);

/**
 * The offload bucket of a handler: created (or given), the handler's environment pointing at it,
 * and its role allowed to put and get objects under the owner's prefix, nothing else of the bucket.
 */
export class ResultOffload extends Construct {
  readonly bucket: s3.IBucket;
  private readonly prefix: string;

  constructor(scope: Construct, id: string, props: ResultOffloadOptions & { readonly threshold?: Size; readonly owner: string; readonly handler: lambda.Function }) {
    super(scope, id);
    const expiration = props.expiration ?? Duration.days(DEFAULT_RESULT_EXPIRY_DAYS);
    const days = expiration.toDays();
    if (!Number.isInteger(days) || days < 1) fail(`\`resultOffload.expiration\` must be a whole number of days of at least 1, got: ${expiration.toHumanString()}.`, scope);
    const threshold = (props.threshold ?? Size.bytes(DEFAULT_RESULT_THRESHOLD_BYTES)).toBytes();
    if (!Number.isInteger(threshold) || threshold < 1 || threshold > MAX_THRESHOLD.toBytes()) {
      fail(`\`resultOffloadThreshold\` must be 1 byte to 6 MiB, got: ${threshold} bytes.`, scope);
    }
    this.bucket = props.bucket ?? this.createBucket(days);
    this.prefix = `${props.owner}/`;
    props.handler.addEnvironment(ENV.resultBucket, this.bucket.bucketName);
    props.handler.addEnvironment(ENV.resultThresholdBytes, String(threshold));
    props.handler.addEnvironment(ENV.resultExpiryDays, String(days));
    // Put to offload, get so that the URLs it presigns work; only under its owner's prefix.
    this.bucket.grantPut(props.handler, `${this.prefix}*`);
    this.bucket.grantRead(props.handler, `${this.prefix}*`);
  }

  /** Reads this owner's offloaded results (and nothing else of the bucket). */
  grantRead(grantee: iam.IGrantable): iam.Grant {
    return this.bucket.grantRead(grantee, `${this.prefix}*`);
  }

  private createBucket(days: number): s3.Bucket {
    const bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(days) }],
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: false,
    });
    Validations.of(bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Offloaded results live for days and are read through presigned URLs the handler makes; server access logs need a second ' +
        'bucket: pass your own `resultOffload.bucket` with them (or CloudTrail data events) where policy asks for a record of reads.',
    });
    return bucket;
  }
}
