/**
 * `resultOffload` in the synthesized stack: a bucket with lifecycle expiry, TLS only and no public
 * access; the handler's environment naming it and the threshold; the handler's role reaching only
 * its owner's prefix; `grantReadResults` giving one owner's results, nothing more; bad props refused.
 */
import { Duration, Size, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { ENV as VARS } from '../../lambda/construct-contract';
import { handlerResource, onlyResource, templateOf, toolStack, unbundledApp } from '../construct/helpers';

const OWNER = 'billing';

describe('with resultOffload: {}', () => {
  const app = unbundledApp();
  const { stack, tools } = toolStack(app, 'Offload', { owner: OWNER, resultOffload: {}, resultOffloadThreshold: Size.kibibytes(100) });
  const reader = new iam.Role(stack, 'Reader', { assumedBy: new iam.AccountRootPrincipal() });
  tools.grantReadResults(reader);
  const template = Template.fromStack(stack);
  const bucket = onlyResource(template, 'AWS::S3::Bucket');

  test('a bucket: encrypted, public access blocked, objects expire after 7 days, TLS only', () => {
    expect(bucket.resource.Properties).toMatchObject({
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LifecycleConfiguration: { Rules: [{ ExpirationInDays: 7, Status: 'Enabled' }] },
    });
    const policy = onlyResource(template, 'AWS::S3::BucketPolicy').resource.Properties.PolicyDocument.Statement;
    expect(policy).toContainEqual(expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
    expect(tools.resultBucket).toBeDefined();
  });

  test("the handler's environment names the bucket, the threshold and the expiry", () => {
    const variables = handlerResource(template, 'AWS::Lambda::Function').resource.Properties.Environment.Variables;
    expect(variables[VARS.resultBucket]).toEqual({ Ref: bucket.id });
    expect(variables[VARS.resultThresholdBytes]).toBe(String(100 * 1024));
    expect(variables[VARS.resultExpiryDays]).toBe('7');
  });

  test("the handler's role and a reader reach only the owner's prefix", () => {
    const resources = (statement: any) => JSON.stringify(statement.Resource);
    const s3Statements = Object.values<any>(template.findResources('AWS::IAM::Policy'))
      .flatMap((p) => p.Properties.PolicyDocument.Statement)
      .filter((s: any) => [s.Action ?? []].flat().some((a: string) => a.startsWith('s3:')));
    expect(s3Statements.length).toBeGreaterThanOrEqual(2);
    for (const statement of s3Statements) {
      expect(resources(statement)).toContain(`/${OWNER}/*`);
      expect([statement.Action].flat()).not.toContain('s3:DeleteObject');
    }
  });
});

test('a given bucket is used, and no bucket is made', () => {
  const template = templateOf({}, (stack: Stack) => {
    const { Bucket } = require('aws-cdk-lib/aws-s3') as typeof import('aws-cdk-lib/aws-s3');
    return { resultOffload: { bucket: Bucket.fromBucketName(stack, 'Given', 'my-results'), expiration: Duration.days(2) } };
  });
  expect(template.findResources('AWS::S3::Bucket')).toEqual({});
  const variables = handlerResource(template, 'AWS::Lambda::Function').resource.Properties.Environment.Variables;
  expect(variables[VARS.resultBucket]).toBe('my-results');
  expect(variables[VARS.resultExpiryDays]).toBe('2');
});

test('without resultOffload: no bucket, no variable; grantReadResults and a threshold alone are refused, naming the fix', () => {
  const { stack, tools } = toolStack(unbundledApp(), 'Plain');
  const template = Template.fromStack(stack);
  expect(template.findResources('AWS::S3::Bucket')).toEqual({});
  expect(handlerResource(template, 'AWS::Lambda::Function').resource.Properties.Environment.Variables[VARS.resultBucket]).toBeUndefined();
  expect(() => tools.grantReadResults(new iam.Role(stack, 'R', { assumedBy: new iam.AccountRootPrincipal() }))).toThrow('`grantReadResults` needs `resultOffload`');
  expect(() => templateOf({ resultOffloadThreshold: Size.kibibytes(1) })).toThrow('`resultOffloadThreshold` needs `resultOffload`');
  expect(() => templateOf({ resultOffload: {}, resultOffloadThreshold: Size.mebibytes(7) })).toThrow('`resultOffloadThreshold` must be 1 byte to 6 MiB');
});
