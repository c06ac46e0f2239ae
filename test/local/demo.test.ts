/**
 * `cdk-tool-handler local demo` (what `npm run demo` runs) on the sample's synthesized assembly:
 * every step answers as expected and says so; a stack that cannot answer as expected exits 1.
 */
import { editedAssembly, local, logicalId, synthesizeSample, removeMade } from './sample-assembly';

afterAll(removeMade);

let assembly: string;

beforeAll(() => {
  assembly = synthesizeSample();
}, 120_000);

test('runs the whole lifecycle step by step and exits 0', async () => {
  const started = Date.now();
  const result = await local(['local', 'demo', '--assembly', assembly]);
  const seconds = (Date.now() - started) / 1000;
  expect(result.stderr).not.toContain('✗');
  expect(result.code).toBe(0);
  const out = result.stdout;
  const approver = 'arn:aws:sts::000000000000:assumed-role/Approver/alice';
  const inOrder = [
    '[1/8] a plain call',
    '← ok add result 5',
    '  ✓ ok, result 5',
    '[2/8] a call that needs approval',
    '← pending_approval refund apr_',
    '[3/8] the pending approvals, through the approvals API',
    '  pending: apr_',
    `[4/8] approve it through the API as ${approver}`,
    `approved by ${approver}`,
    `  ✓ approved, decided_by ${approver}`,
    '[5/8] the automatic resume',
    '→ resume apr_',
    '← ok refund result {"refunded":"o-100"}',
    '[6/8] a second resume',
    '← already_done refund apr_',
    '  ✓ already_done: it ran once',
    '[7/8] a denied one',
    '← error ApprovalDenied refund apr_',
    '[bus: Tool Call Failed]',
    '  ✓ ApprovalDenied on the reply bus',
    '[8/8] an expired one',
    '  ✓ status expired; approving it now is refused (409 expired)',
    'demo: all 8 steps answered as expected in',
  ];
  let at = 0;
  for (const text of inOrder) {
    const found = out.indexOf(text, at);
    expect({ text, found: found >= 0 }).toEqual({ text, found: true });
    at = found + text.length;
  }
  // The resume is what the pipe would send: exactly {"approval_id": "<id>"}.
  expect(out).toMatch(/^pipe.*: decision on (apr_\S+) → \{"approval_id": ?"\1"\} on the tool queue$/m);
  // It ends with the metrics its functions emitted, per tool, read from their EMF log lines.
  const metrics = out.slice(out.indexOf('metrics this run emitted'));
  expect(metrics).toMatch(/^ {2}tool +Calls +Failed +ApprovalsRequested +DuplicatesSuppressed +Duration p50 \(ms\)$/m);
  expect(metrics).toMatch(/^ {2}add +1 +0 +0 +0 +\d+$/m);
  // refund: 3 requests, the resume that ran, the second resume (already_done), the denied resume (failed).
  expect(metrics).toMatch(/^ {2}refund +6 +1 +3 +0 +\d+$/m);
  expect(metrics).toMatch(/approvals of \S+: ApprovalsDecided 1 approved, 1 denied; ApprovalsExpired 1; PendingApprovals 0 /);
  process.stdout.write(`local demo: ${seconds.toFixed(1)} s after synth\n`);
  expect(seconds).toBeLessThan(30);
}, 60_000);

test('--json: the demo\'s steps and every line as JSON objects', async () => {
  const result = await local(['local', 'demo', '--assembly', assembly, '--json']);
  expect(result.code).toBe(0);
  const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l));
  expect(lines.filter((l) => l.type === 'step' && l.message.startsWith('  ✓'))).toHaveLength(8 + (lines.some((l) => l.type === 'event' && l.detail_type === 'Tool Approval Expired') ? 1 : 0));
  expect(lines).toContainEqual(expect.objectContaining({ type: 'decision', status: 'denied' }));
  expect(lines).toContainEqual(expect.objectContaining({ type: 'reply', reply: expect.objectContaining({ status: 'already_done' }) }));
}, 60_000);

test('exits 1 and names the step when the stack does not answer as expected', async () => {
  // A handler whose allowlist lacks `refund`: the call that needs approval is refused instead.
  const broken = editedAssembly(assembly, (template) => {
    const id = logicalId(template, 'AWS::Lambda::Function', 'ToolsFunction');
    template.Resources[id].Properties.Environment.Variables.TOOL_HANDLER_TOOLS = 'add';
  });
  const result = await local(['local', 'demo', '--assembly', broken]);
  expect(result.code).toBe(1);
  expect(result.stdout).toContain('  ✓ ok, result 5');
  expect(result.stdout).toMatch(/^✗ step 2 failed: expected pending_approval, got .*ToolNotFound/m);
  expect(result.stdout).not.toContain('demo: all 8 steps');
}, 60_000);
