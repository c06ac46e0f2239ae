/**
 * The audit trail in the template: the retention of the log groups that hold audit records
 * (`auditRetention` against `logRetention`), the archive (`auditArchive`: the bucket, the Firehose
 * stream with its processors and prefixes, a subscription filter per log group with the audit
 * pattern), who may do what in it, tried as attacks against the synthesized policies
 * (iam-evaluation.ts), `grantReadAudit`, and cdk-nag's AWS Solutions checks. No bundling.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { AUDIT_FILTER_PATTERN } from '../../lambda/audit';
import { AuditArchiveOptions, ToolHandler } from '../../lib';
import { ENV, onlyResource, props, statementsOfRole, templateOf, toolStack, unbundledApp } from './helpers';
import { coversAction, decide, wildcard } from './iam-evaluation';

/** The archive template's resource types, by logical id (render). */
let types: Record<string, string> | undefined;

/** Logical id prefixes of the four functions' log groups. */
const LOG_GROUPS = { handler: 'ToolsLogGroup', engine: 'ToolsApprovalsEngineLogGroup', api: 'ToolsApprovalsApiLogGroup', expirer: 'ToolsApprovalsExpirerLogGroup' };

/** Days each log group keeps its logs; `never` for `RetentionDays.INFINITE`, which the template shows as no retention. */
function retentions(template: Template): Record<keyof typeof LOG_GROUPS, number | 'never'> {
  const groups = template.findResources('AWS::Logs::LogGroup');
  const of = (prefix: string) => {
    const ids = Object.keys(groups).filter((id) => id.startsWith(prefix) && !id.startsWith(`${prefix}Approvals`) && /^[A-Za-z]+[0-9A-F]{8}$/.test(id));
    if (ids.length !== 1) throw new Error(`expected one log group ${prefix}*, found ${ids.join(', ')}`);
    return (groups[ids[0]].Properties?.RetentionInDays as number | undefined) ?? 'never';
  };
  return { handler: of(LOG_GROUPS.handler), engine: of(LOG_GROUPS.engine), api: of(LOG_GROUPS.api), expirer: of(LOG_GROUPS.expirer) };
}

describe('retention of the log groups that hold audit records', () => {
  test('by default every log group keeps two years', () => {
    expect(retentions(templateOf())).toEqual({ handler: 731, engine: 731, api: 731, expirer: 731 });
  });

  test('a longer auditRetention applies to the handler, the API and the expirer; the engine keeps logRetention', () => {
    expect(retentions(templateOf({ auditRetention: logs.RetentionDays.FIVE_YEARS }))).toEqual({ handler: 1827, engine: 731, api: 1827, expirer: 1827 });
    expect(retentions(templateOf({ logRetention: logs.RetentionDays.ONE_MONTH, auditRetention: logs.RetentionDays.INFINITE }))).toEqual({
      handler: 'never',
      engine: 30,
      api: 'never',
      expirer: 'never',
    });
  });

  test('a shorter auditRetention changes nothing: one log group has one retention, and the longer wins', () => {
    expect(retentions(templateOf({ auditRetention: logs.RetentionDays.ONE_MONTH }))).toEqual({ handler: 731, engine: 731, api: 731, expirer: 731 });
    expect(retentions(templateOf({ logRetention: logs.RetentionDays.ONE_YEAR, auditRetention: logs.RetentionDays.ONE_WEEK }))).toEqual({
      handler: 365,
      engine: 365,
      api: 365,
      expirer: 365,
    });
  });

  test('without auditRetention the audit log groups follow logRetention', () => {
    expect(retentions(templateOf({ logRetention: logs.RetentionDays.THREE_MONTHS }))).toEqual({ handler: 90, engine: 90, api: 90, expirer: 90 });
  });

  test('auditLogGroups are the handler\'s, the API\'s and the expirer\'s log groups, in that order', () => {
    const { stack, tools } = toolStack(unbundledApp(), 'Groups');
    const ids = tools.auditLogGroups.map((g) => stack.resolve(g.logGroupName).Ref);
    expect(ids.map((id: string) => id.replace(/[0-9A-F]{8}$/, ''))).toEqual(['ToolsLogGroup', 'ToolsApprovalsApiLogGroup', 'ToolsApprovalsExpirerLogGroup']);
  });
});

describe('the archive', () => {
  test('is not made by default', () => {
    const template = templateOf();
    for (const type of ['AWS::Logs::SubscriptionFilter', 'AWS::KinesisFirehose::DeliveryStream', 'AWS::S3::Bucket']) template.resourceCountIs(type, 0);
  });

  const template = templateOf({ auditArchive: {}, owner: 'shop' });
  const resources = template.toJSON().Resources as Record<string, any>;
  const stream = onlyResource(template, 'AWS::KinesisFirehose::DeliveryStream');
  const bucket = onlyResource(template, 'AWS::S3::Bucket');
  const idOf = (prefix: string) => Object.keys(resources).find((id) => id.startsWith(prefix) && /[0-9A-F]{8}$/.test(id) && resources[id].Type.startsWith('AWS::IAM::Role'))!;
  const deliveryRole = idOf('ToolsAuditArchiveDeliveryRole');
  const subscriptionRole = idOf('ToolsAuditArchiveSubscriptionRole');

  test('a created bucket: encrypted, TLS only, public access blocked, owner-enforced, versioned, retained', () => {
    expect(bucket.resource.Properties).toEqual({
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      VersioningConfiguration: { Status: 'Enabled' },
    });
    expect(bucket.resource.DeletionPolicy).toBe('Retain');
    const policy = onlyResource(template, 'AWS::S3::BucketPolicy').resource.Properties.PolicyDocument.Statement;
    expect(policy).toEqual([
      expect.objectContaining({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } }, Principal: { AWS: '*' } }),
    ]);
  });

  test('the stream decompresses, keeps each message, ends each record with a newline, and writes under the owner and the day', () => {
    const config = stream.resource.Properties.ExtendedS3DestinationConfiguration;
    expect(config.ProcessingConfiguration).toEqual({
      Enabled: true,
      Processors: [
        { Type: 'Decompression', Parameters: [{ ParameterName: 'CompressionFormat', ParameterValue: 'GZIP' }] },
        { Type: 'CloudWatchLogProcessing', Parameters: [{ ParameterName: 'DataMessageExtraction', ParameterValue: 'true' }] },
        { Type: 'AppendDelimiterToRecord' },
      ],
    });
    expect(config.Prefix).toBe('audit/shop/!{timestamp:yyyy/MM/dd}/');
    expect(config.ErrorOutputPrefix).toBe('audit-errors/shop/!{firehose:error-output-type}/!{timestamp:yyyy/MM/dd}/');
    expect(config.CompressionFormat).toBe('UNCOMPRESSED');
    expect(config.BucketARN).toEqual({ 'Fn::GetAtt': [bucket.id, 'Arn'] });
    expect(config.RoleARN).toEqual({ 'Fn::GetAtt': [deliveryRole, 'Arn'] });
    expect(config.CloudWatchLoggingOptions.Enabled).toBe(true);
    expect(stream.resource.Properties.DeliveryStreamType).toBe('DirectPut');
    expect(stream.resource.Properties.DeliveryStreamEncryptionConfigurationInput).toEqual({ KeyType: 'AWS_OWNED_CMK' });
  });

  test('one subscription filter per log group that holds audit records, with the audit pattern, none on the engine\'s', () => {
    const filters = Object.values(template.findResources('AWS::Logs::SubscriptionFilter')) as any[];
    expect(filters.map((f) => f.Properties.LogGroupName.Ref.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual(
      ['ToolsApprovalsApiLogGroup', 'ToolsApprovalsExpirerLogGroup', 'ToolsLogGroup'].sort(),
    );
    for (const filter of filters) {
      expect(filter.Properties.FilterPattern).toBe(AUDIT_FILTER_PATTERN);
      expect(filter.Properties.DestinationArn).toEqual({ 'Fn::GetAtt': [stream.id, 'Arn'] });
      expect(filter.Properties.RoleArn).toEqual({ 'Fn::GetAtt': [subscriptionRole, 'Arn'] });
      // CloudWatch Logs checks it may put on the stream when the filter is made.
      expect(filter.DependsOn).toEqual([expect.stringMatching(/^ToolsAuditArchiveSubscriptionRoleDefaultPolicy/)]);
    }
  });

  test('only Firehose, for this account, assumes the delivery role; only CloudWatch Logs of this account the subscription role', () => {
    expect(resources[deliveryRole].Properties.AssumeRolePolicyDocument.Statement).toEqual([
      { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'firehose.amazonaws.com' }, Condition: { StringEquals: { 'aws:SourceAccount': ENV.account } } },
    ]);
    const trust = resources[subscriptionRole].Properties.AssumeRolePolicyDocument.Statement;
    expect(trust).toEqual([
      expect.objectContaining({ Principal: { Service: 'logs.amazonaws.com' }, Condition: { StringLike: { 'aws:SourceArn': expect.anything() } } }),
    ]);
    expect(render(trust[0].Condition.StringLike['aws:SourceArn'])).toBe(`arn:aws:logs:${ENV.region}:${ENV.account}:*`);
  });

  // Attacks: each role tries what it must not do, against its synthesized policy.
  const bucketArn = render({ 'Fn::GetAtt': [bucket.id, 'Arn'] });
  const streamArn = render({ 'Fn::GetAtt': [stream.id, 'Arn'] });
  const can = (roleId: string, action: string, resource: string) => allows(statementsOfRole(template, roleId), action, resource);

  test.each([
    ['s3:DeleteObject', `${bucketArn}/audit/shop/2026/12/05/part-1`],
    ['s3:DeleteObjectVersion', `${bucketArn}/audit/shop/2026/12/05/part-1`],
    ['s3:PutObject', `${bucketArn}/audit/other-owner/2026/12/05/part-1`],
    ['s3:PutObject', `${bucketArn}/elsewhere`],
    ['s3:GetObject', `${bucketArn}/audit/other-owner/2026/12/05/part-1`],
    ['s3:PutBucketPolicy', bucketArn],
    ['s3:PutLifecycleConfiguration', bucketArn],
    ['s3:PutObjectRetention', `${bucketArn}/audit/shop/2026/12/05/part-1`],
  ])('Firehose\'s role cannot %s %s', (action, resource) => {
    expect(can(deliveryRole, action, resource)).toBe(false);
  });

  test('Firehose\'s role writes its objects and errors under its prefixes (the grants the attacks are measured against)', () => {
    expect(can(deliveryRole, 's3:PutObject', `${bucketArn}/audit/shop/2026/12/05/part-1`)).toBe(true);
    expect(can(deliveryRole, 's3:PutObject', `${bucketArn}/audit-errors/shop/processing-failed/2026/12/05/part-1`)).toBe(true);
    expect(can(deliveryRole, 's3:ListBucket', bucketArn)).toBe(true);
  });

  test.each([
    ['firehose:PutRecord', 'arn:aws:firehose:us-east-1:123456789012:deliverystream/another'],
    ['firehose:DeleteDeliveryStream', ''],
    ['s3:PutObject', ''],
    ['logs:PutLogEvents', ''],
  ])('the subscription role cannot %s %s', (action, resource) => {
    expect(can(subscriptionRole, action, resource || streamArn)).toBe(false);
  });

  test('the subscription role puts records on the archive\'s stream', () => {
    expect(can(subscriptionRole, 'firehose:PutRecordBatch', streamArn)).toBe(true);
  });

  test('the roles carry the owner\'s walls', () => {
    for (const role of [deliveryRole, subscriptionRole]) {
      expect(resources[role].Properties.Tags).toEqual([{ Key: 'cdk-tool-handler:owner', Value: 'shop' }]);
      expect(statementsOfRole(template, role).map((s) => s.Sid)).toEqual(expect.arrayContaining(['CdkToolHandlerNoOtherOwnersFunctions', 'CdkToolHandlerNoOtherOwnersReplies']));
    }
  });

  test('a given bucket is used, none is made; its customer managed key is granted to Firehose\'s role', () => {
    const { stack, tools } = toolStack(unbundledApp(), 'Given', {}, (s) => {
      const key = new kms.Key(s, 'ArchiveKey', { enableKeyRotation: true });
      return { auditArchive: { bucket: new s3.Bucket(s, 'Archive', { encryptionKey: key, enforceSSL: true }) } };
    });
    const given = Template.fromStack(stack);
    const buckets = Object.keys(given.findResources('AWS::S3::Bucket'));
    expect(buckets).toEqual([expect.stringMatching(/^Archive/)]);
    expect(stack.resolve(tools.auditArchiveBucket!.bucketArn)).toEqual({ 'Fn::GetAtt': [buckets[0], 'Arn'] });
    const role = Object.keys(given.findResources('AWS::IAM::Role')).find((id) => id.startsWith('ToolsAuditArchiveDeliveryRole'))!;
    const kmsStatement = statementsOfRole(given, role).find((s) => [].concat(s.Action).some((a: string) => a.startsWith('kms:')));
    expect(kmsStatement).toEqual(expect.objectContaining({ Action: ['kms:GenerateDataKey', 'kms:Decrypt'], Resource: { 'Fn::GetAtt': [expect.stringMatching(/^ArchiveKey/), 'Arn'] } }));
  });

  test('auditArchiveBucket is the created bucket, and undefined without an archive', () => {
    const { stack, tools } = toolStack(unbundledApp(), 'Created', { auditArchive: {} });
    expect(stack.resolve(tools.auditArchiveBucket!.bucketArn)).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^ToolsAuditArchiveBucket/), 'Arn'] });
    expect(toolStack(unbundledApp(), 'None').tools.auditArchiveBucket).toBeUndefined();
  });

  test('a bucket from another stack: both stacks synthesize, with no dependency cycle', () => {
    const app = unbundledApp();
    const storage = new Stack(app, 'Storage', { env: ENV });
    const archive = new s3.Bucket(storage, 'Archive', { enforceSSL: true });
    const { stack, tools } = toolStack(app, 'Tools', { auditArchive: { bucket: archive } });
    const audit = new Stack(app, 'Audit', { env: ENV });
    tools.grantReadAudit(new iam.Role(audit, 'Auditor', { assumedBy: new iam.AccountRootPrincipal() }));
    expect(() => app.synth()).not.toThrow();
    expect(stack.dependencies.map((s) => s.stackName)).toEqual(['Storage']);
    expect(audit.dependencies.map((s) => s.stackName)).toEqual(['Tools']);
  });
});

describe('grantReadAudit', () => {
  const { stack, tools } = toolStack(unbundledApp(), 'Reader');
  const auditor = new iam.Role(stack, 'Auditor', { assumedBy: new iam.AccountRootPrincipal() });
  tools.grantReadAudit(auditor);
  const template = Template.fromStack(stack);
  const statements = statementsOfRole(template, stack.getLogicalId(auditor.node.defaultChild as iam.CfnRole));
  const group = (prefix: string) => {
    const id = Object.keys(template.findResources('AWS::Logs::LogGroup')).find((k) => k.startsWith(prefix) && /^[A-Za-z]+[0-9A-F]{8}$/.test(k))!;
    return `arn:aws:logs:${ENV.region}:${ENV.account}:log-group:name-of-${id}`;
  };

  test('reads the three audit log groups and finds them in the stack', () => {
    for (const prefix of [LOG_GROUPS.handler, LOG_GROUPS.api, LOG_GROUPS.expirer]) {
      expect(allows(statements, 'logs:FilterLogEvents', group(prefix))).toBe(true);
      expect(allows(statements, 'logs:GetLogEvents', `${group(prefix)}:log-stream:2026/12/05/[$LATEST]abc`)).toBe(true);
    }
    expect(allows(statements, 'cloudformation:GetTemplate', render({ Ref: 'AWS::StackId' }))).toBe(true);
    expect(allows(statements, 'cloudformation:ListStackResources', render({ Ref: 'AWS::StackId' }))).toBe(true);
  });

  test.each([
    ['logs:FilterLogEvents', () => group(LOG_GROUPS.engine)],
    ['logs:FilterLogEvents', () => `arn:aws:logs:${ENV.region}:${ENV.account}:log-group:/aws/lambda/other`],
    ['logs:PutLogEvents', () => `${group(LOG_GROUPS.handler)}:log-stream:forged`],
    ['logs:DeleteLogGroup', () => group(LOG_GROUPS.handler)],
    ['logs:PutRetentionPolicy', () => group(LOG_GROUPS.handler)],
    ['logs:DeleteSubscriptionFilter', () => group(LOG_GROUPS.handler)],
    ['cloudformation:GetTemplate', () => `arn:aws:cloudformation:${ENV.region}:${ENV.account}:stack/Other/guid`],
    ['cloudformation:UpdateStack', () => render({ Ref: 'AWS::StackId' })],
  ])('the reader cannot %s', (action, resource) => {
    expect(allows(statements, action, resource())).toBe(false);
  });
});

describe('cdk-nag', () => {
  function nagApp(): App {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'nag-audit-'));
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    return app;
  }
  const acknowledged = (app: App) =>
    app.node.findAll().flatMap((c) =>
      c.node.metadata
        .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((m) => Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({ path: c.node.path, id: id.replace(/^annotation::/i, ''), reason }))),
    );

  test.each<[string, (stack: Stack) => AuditArchiveOptions]>([
    ['a created bucket', () => ({})],
    ['a given bucket with its own key', (stack: Stack) => ({ bucket: new s3.Bucket(stack, 'Archive', { encryptionKey: new kms.Key(stack, 'Key', { enableKeyRotation: true }), enforceSSL: true, serverAccessLogsPrefix: 'access/' }) })],
  ])('the archive passes the AWS Solutions checks with %s, each acknowledgement with its reason', (_what, archive) => {
    const app = nagApp();
    const stack = new Stack(app, 'Nag', { env: ENV });
    const auditArchive: AuditArchiveOptions = archive(stack);
    const tools = new ToolHandler(stack, 'Tools', props({ owner: 'shop', auditArchive, auditRetention: logs.RetentionDays.TEN_YEARS }));
    Validations.of(tools.lambdaFunction).acknowledge({ id: 'AwsSolutions-L1', reason: 'The handler runs on the construct\'s default runtime in this test.' });
    tools.grantReadAudit(new iam.Role(stack, 'Auditor', { assumedBy: new iam.AccountRootPrincipal() }));
    expect(() => app.synth()).not.toThrow();
    const archiveAcks = acknowledged(app).filter((a) => a.path.includes('AuditArchive'));
    expect(archiveAcks.map((a) => `${a.path} ${a.id.replace(/<[^>]+>/, '<bucket>')}`).sort()).toEqual(
      [
        ...(auditArchive.bucket ? [] : ['Nag/Tools/AuditArchive/Bucket AwsSolutions-S1']),
        'Nag/Tools/AuditArchive/DeliveryRole/DefaultPolicy AwsSolutions-IAM5[Resource::<bucket>/audit-errors/shop/*]',
        'Nag/Tools/AuditArchive/DeliveryRole/DefaultPolicy AwsSolutions-IAM5[Resource::<bucket>/audit/shop/*]',
      ].sort(),
    );
    for (const ack of archiveAcks) expect(ack.reason.length).toBeGreaterThan(60);
  });
});

/**
 * A resolved template value as the ARN it stands for: a `Ref` is the resource's physical name
 * (`name-of-<id>`), an `Arn` attribute its ARN by type; pseudo parameters this test's account.
 */
function render(value: unknown): string {
  const types = archiveTypes();
  const visit = (node: any): string => {
    if (typeof node === 'string') return node;
    if (node['Fn::Join']) return (node['Fn::Join'][1] as unknown[]).map(visit).join(node['Fn::Join'][0]);
    if (node.Ref === 'AWS::Partition') return 'aws';
    if (node.Ref === 'AWS::Region') return ENV.region;
    if (node.Ref === 'AWS::AccountId') return ENV.account;
    if (node.Ref === 'AWS::StackId') return `arn:aws:cloudformation:${ENV.region}:${ENV.account}:stack/Test/guid`;
    if (node.Ref) return `name-of-${node.Ref}`;
    const [id, attribute] = node['Fn::GetAtt'] ?? [];
    if (attribute === 'Arn') {
      const type = types[id] ?? (id.includes('LogGroup') ? 'AWS::Logs::LogGroup' : '');
      if (type === 'AWS::S3::Bucket') return `arn:aws:s3:::name-of-${id}`;
      if (type === 'AWS::KinesisFirehose::DeliveryStream') return `arn:aws:firehose:${ENV.region}:${ENV.account}:deliverystream/name-of-${id}`;
      if (type === 'AWS::Logs::LogGroup') return `arn:aws:logs:${ENV.region}:${ENV.account}:log-group:name-of-${id}:*`;
    }
    throw new Error(`cannot render ${JSON.stringify(node)}`);
  };
  return visit(value);
}

/** Whether the statements allow `action` on `resource` (no request context: the construct's allows here carry no condition). */
function allows(statements: readonly any[], action: string, resource: string): boolean {
  const applying = statements.filter((s) => coversAction(s, action) && ([] as unknown[]).concat(s.Resource ?? []).some((r) => wildcard(render(r), resource)));
  return decide(applying, (s) => s.Condition === undefined || s.Effect === 'Deny') === 'allowed';
}

/** The resource types of the archive's template, by logical id. */
function archiveTypes(): Record<string, string> {
  types ??= Object.fromEntries(
    Object.entries(templateOf({ auditArchive: {}, owner: 'shop' }).toJSON().Resources as Record<string, any>).map(([id, r]) => [id, r.Type]),
  );
  return types;
}
