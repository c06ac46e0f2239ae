/**
 * Entry of the expirer function, run by an EventBridge Scheduler schedule; configured by the
 * construct's environment.
 */
import { approvalsExpirer } from '../approvals/expirer';
import { ownerFrom } from '../config';
import { configError } from '../errors';
import { metricsNamespace } from '../metrics/emf';
import { ENV } from '../construct-contract';
import { EventBridgeReplyPublisher } from '../reply-bus';
import { DynamoApprovalStore } from '../stores/dynamo';
import { flowTarget } from '../results/flow-target';

const tableName = process.env[ENV.approvalsTable]?.trim();
if (!tableName) throw configError(`the approvals expirer needs ${ENV.approvalsTable} to be set.`);
const busName = process.env[ENV.replyBus]?.trim();

const owner = ownerFrom();

const store = new DynamoApprovalStore({ tableName, owner });

export const handler = approvalsExpirer({
  store,
  // A flow waiting for an approval that expired fails with ToolHandler.ApprovalExpired.
  targets: [flowTarget(store.flows)],
  bus: busName ? new EventBridgeReplyPublisher({ busName, owner }) : undefined,
  metrics: { owner, namespace: metricsNamespace() },
});
