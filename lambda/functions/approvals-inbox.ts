/**
 * Entry of the approvals inbox function (`ApprovalsInbox`): the page and its `/api/` routes,
 * configured by the construct's environment.
 */
import { approvalsInbox } from '../inbox/inbox';
import { inboxSettings } from '../inbox/settings';
import { metricsNamespace } from '../metrics/emf';
import { DynamoApprovalStore } from '../stores/dynamo';

const settings = inboxSettings();
const tables = new Map(settings.handlers.map((h) => [h.owner, h.table]));

export const handler = approvalsInbox({
  settings,
  storeOf: (owner) => new DynamoApprovalStore({ tableName: tables.get(owner)!, owner }),
  metricsNamespace: metricsNamespace(),
});
