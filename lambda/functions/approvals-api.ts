/**
 * Entry of the approvals API function, behind a function URL with AWS_IAM auth; configured by
 * the construct's environment.
 */
import { approvalsApi } from '../approvals/api';
import { ownerFrom } from '../config';
import { configError } from '../errors';
import { metricsNamespace } from '../metrics/emf';
import { ENV } from '../construct-contract';
import { DynamoApprovalStore } from '../stores/dynamo';

const tableName = process.env[ENV.approvalsTable]?.trim();
if (!tableName) throw configError(`the approvals API needs ${ENV.approvalsTable} to be set.`);

const owner = ownerFrom();

export const handler = approvalsApi({
  store: new DynamoApprovalStore({ tableName, owner }),
  metrics: { owner, namespace: metricsNamespace() },
});
