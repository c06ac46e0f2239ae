import { Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';

export interface RoleFindings {
  /** The tool handler function: its role may also write X-Ray traces. */
  readonly handler: lambda.IFunction;
  /** The construct's other roles (a role not made here is undefined). */
  readonly otherRoles: Array<iam.IRole | undefined>;
  /** The customer managed keys in play, if any. */
  readonly keys: Array<kms.IKey | undefined>;
  readonly tracing?: lambda.Tracing;
}

const KEY_REASON =
  'kms:GenerateDataKey* and kms:ReEncrypt* are what the CDK grants (grantEncryptDecrypt, grantSendMessages) give ' +
  'a principal that writes an SQS queue or DynamoDB table encrypted with a customer managed key; the resource ' +
  'is the one key, not a wildcard.';

/**
 * AWS Solutions findings on the construct's roles that follow from what it must do, acknowledged
 * where they arise, with the reason. Anything else is left for the user's checks to report.
 */
export function acknowledgeRoleFindings(findings: RoleFindings): void {
  const hasKey = findings.keys.some((key) => key !== undefined);
  const traced = findings.tracing === lambda.Tracing.ACTIVE || findings.tracing === lambda.Tracing.PASS_THROUGH;
  for (const role of [findings.handler.role, ...findings.otherRoles]) {
    const policy = role?.node.tryFindChild('DefaultPolicy');
    if (!policy) continue;
    const acknowledge = (id: string, reason: string) => Validations.of(policy).acknowledge({ id, reason });
    if (hasKey) {
      acknowledge('AwsSolutions-IAM5[Action::kms:GenerateDataKey*]', KEY_REASON);
      acknowledge('AwsSolutions-IAM5[Action::kms:ReEncrypt*]', KEY_REASON);
    }
    if (role === findings.handler.role && traced) {
      acknowledge(
        'AwsSolutions-IAM5[Resource::*]',
        'X-Ray PutTraceSegments and PutTelemetryRecords do not support resource-level permissions.',
      );
    }
  }
}
