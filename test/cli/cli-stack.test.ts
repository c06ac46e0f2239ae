/** `--stack NAME [--output KEY]`: the URL from the stack's outputs through CloudFormation `DescribeStacks`. */
import { startFunctionUrlHost, type FunctionUrlHost } from '../../local/function-url';
import { startCloudFormationStub, type CloudFormationStub } from './cloudformation-stub';
import { ALICE } from './cli-contract';
import { credentialsEnv, runCli } from './harness';
import { memoryApprovalsApi } from './memory-approvals-api';

let host: FunctionUrlHost;
let other: FunctionUrlHost;
let cfn: CloudFormationStub;
let approvalId: string;

beforeAll(async () => {
  const api = memoryApprovalsApi();
  approvalId = await api.seed({ tool: 'send_email', args: { to: 'bob@example.com' } });
  const credentials = { [ALICE.accessKeyId]: { secretAccessKey: ALICE.secretAccessKey, userArn: ALICE.userArn } };
  host = await startFunctionUrlHost({ handler: api.handler, credentials, region: 'eu-west-1' });
  other = await startFunctionUrlHost({ handler: memoryApprovalsApi().handler, credentials, region: 'eu-west-1' });
  cfn = await startCloudFormationStub({
    One: { outputs: [{ key: 'SomethingElse', value: 'x' }, { key: 'ToolsApprovals1A2B3C4DApprovalsApiUrl', value: host.url }] },
    Two: {
      outputs: [
        { key: 'FirstApprovalsApiUrl', value: other.url },
        { key: 'SecondApprovalsApiUrl', value: host.url },
      ],
    },
    None: { outputs: [{ key: 'HandlerArn', value: 'arn:aws:lambda:us-east-1:123456789012:function:h' }] },
  });
});
afterAll(async () => {
  await Promise.all([host?.close(), other?.close(), cfn?.close()]);
});

const env = () => ({ ...credentialsEnv(ALICE.accessKeyId, ALICE.secretAccessKey, 'eu-west-1'), AWS_ENDPOINT_URL_CLOUDFORMATION: cfn.endpoint });

test('reads the URL from the output whose key ends in ApprovalsApiUrl', async () => {
  const run = await runCli(['approvals', 'list', '--stack', 'One', '--json'], { env: env() });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(JSON.parse(run.stdout).approvals.map((r: { approval_id: string }) => r.approval_id)).toEqual([approvalId]);
  expect(cfn.requests.at(-1)).toMatchObject({ Action: 'DescribeStacks', StackName: 'One' });
});

test('several approvals APIs need --output, which picks one', async () => {
  const ambiguous = await runCli(['approvals', 'list', '--stack', 'Two'], { env: env() });
  expect(ambiguous.code).toBe(1);
  expect(ambiguous.stderr).toContain('Stack Two has several approvals APIs: pass --output with one of FirstApprovalsApiUrl, SecondApprovalsApiUrl.');

  const picked = await runCli(['approvals', 'show', approvalId, '--stack', 'Two', '--output', 'SecondApprovalsApiUrl'], { env: env() });
  expect(picked.code).toBe(0);
  expect(picked.stdout).toContain(`Approval:    ${approvalId}`);

  const wrong = await runCli(['approvals', 'list', '--stack', 'Two', '--output', 'Nope'], { env: env() });
  expect(wrong.code).toBe(1);
  expect(wrong.stderr).toContain('Stack Two has no output Nope ending in ApprovalsApiUrl; it has: FirstApprovalsApiUrl, SecondApprovalsApiUrl.');
});

test('a stack without the output, and a missing stack, say so', async () => {
  const none = await runCli(['approvals', 'list', '--stack', 'None'], { env: env() });
  expect(none.code).toBe(1);
  expect(none.stderr).toContain('Stack None has no output whose key ends in ApprovalsApiUrl');

  const missing = await runCli(['approvals', 'list', '--stack', 'Ghost'], { env: env() });
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain('Stack Ghost was not found: Stack with id Ghost does not exist');
});

test('--region is the region CloudFormation is asked in, and of signing for a URL that names none', async () => {
  const run = await runCli(['approvals', 'list', '--stack', 'One', '--region', 'eu-west-1'], {
    env: { ...env(), AWS_REGION: 'us-west-2' },
  });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(cfn.authorizations.at(-1)).toMatch(/Credential=AKIDALICE0000000\/\d{8}\/eu-west-1\/cloudformation\/aws4_request/);
});

test('without any region CloudFormation cannot be asked, and the message says how to give one', async () => {
  const noRegion: Record<string, string> = { ...env() };
  delete noRegion.AWS_REGION;
  const run = await runCli(['approvals', 'list', '--stack', 'One'], { env: noRegion });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('No region for CloudFormation: pass --region or set AWS_REGION');
});
