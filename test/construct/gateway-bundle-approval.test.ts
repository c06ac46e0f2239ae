/**
 * A Gateway call that needs approval, through the REAL bundle (see gateway-bundle.test.ts): pending,
 * then decided (DynamoApprovalStore.decide, as the approvals API does) and resumed with
 * `{"approval_id": ...}` through the approvals engine's bundle, after which the same Gateway call
 * answers already_done with the result.
 */
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { testDocumentClient } from '../support/dynamo';
import { gatewayCall, returned, startGatewayBundle, type GatewayBundle } from '../support/gateway-bundle';

let gateway: GatewayBundle;
let store: DynamoApprovalStore;

beforeAll(async () => {
  gateway = await startGatewayBundle();
  store = new DynamoApprovalStore({ tableName: gateway.tableName, client: testDocumentClient(), owner: gateway.owner });
}, 120_000);

afterAll(() => gateway?.host.close());

const runs = () => gateway.runs();
const one = (step: Parameters<GatewayBundle['one']>[0]) => gateway.one(step);

test('a call that needs approval is pending; once decided and resumed, the same call is already_done with the result', async () => {
  const call = gatewayCall('billing___refund', { orderId: 'o-gw' }, 'session-4');
  const pending = await one(call);
  expect(pending).toMatchObject({ status: 'pending_approval', tool: 'refund' });
  expect(runs()).toEqual([]);

  await store.decide(pending.approval_id, { approved: true, by: 'alice', reason: 'checked' });
  const [resumed] = await gateway.invoke([{ event: { approval_id: pending.approval_id }, requestId: 'resume-1' }]);
  expect(returned(resumed)).toMatchObject({ status: 'ok', approval_id: pending.approval_id, result: { refunded: 'o-gw' } });

  const again = await one(call);
  expect(again).toMatchObject({
    status: 'already_done',
    tool: 'refund',
    run_id: pending.run_id,
    call_id: pending.call_id,
    approval_id: pending.approval_id,
    result: { refunded: 'o-gw' },
  });
  expect(runs()).toEqual(['refund:o-gw']);
});
