/**
 * `npm run bench`: measures this library against the handlers users would write instead,
 * each figure against its baseline in the same run, interleaved; prints a table and writes
 * bench/results.json (one number per key of the issue).
 *
 *   npm run bench                 full counts (a few minutes)
 *   npm run bench -- --quick      small counts (well under a minute; what CI runs; asserts nothing)
 *   npm run bench -- --profile    also CPU-profiles the throughput children and says what costs what
 *   npm run bench -- --no-build   use dist/ as it is (CI has just built it) for the consumer's path
 */
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { bundleChildren, bundleHandler, type BundleInfo, bytesByOrigin, bytesUnder, filesUnder, type HandlerName } from './bundle';
import { measureColdStart } from './cold-start';
import { measureApprovalInvokes } from './approvals';
import { measureApprovalScale } from './approvals-scale';
import { measureCallerVerify } from './caller';
import { measureDecisionRoundTrips } from './inbox-decision';
import { measureInboxPage } from './inbox-page';
import { measureConsumerBundle } from './consumer';
import { measureDynamo } from './dynamo';
import { measureFlowCompletionRoundTrips } from './flows';
import { OUT, RESULTS_FILE } from './lib/paths';
import { round } from './lib/stats';
import { formatTable, kb, ms, num, perSecond, type Row, section, x } from './lib/table';
import { measureParallel } from './parallel';
import { summarizeProfile } from './profile';
import { measureManifestSynth, measureSynth } from './synth';
import { measureThroughput } from './throughput';

const FULL = {
  coldStartProcesses: 25,
  throughput: { rounds: 15, warmupRounds: 2, batches: 2000 },
  dynamoIterations: 30,
  parallelRounds: 7,
  synthRounds: 3,
  synthWithValidation: true,
  manifestSynthRounds: 7,
  approvalHistory: 2000,
};
const QUICK = {
  coldStartProcesses: 5,
  throughput: { rounds: 3, warmupRounds: 1, batches: 500 },
  dynamoIterations: 5,
  parallelRounds: 2,
  synthRounds: 1,
  synthWithValidation: false,
  manifestSynthRounds: 1,
  approvalHistory: 200,
};

/** The benchmark's keys, in their order: results.json holds exactly these. */
const RESULT_KEYS = [
  'bundle_bytes',
  'consumer_bundle_bytes',
  'consumer_bundle_ratio_vs_repo',
  'bundle_ratio_vs_powertools',
  'runtime_own_bytes',
  'init_ratio_vs_empty',
  'init_ratio_vs_floor',
  'init_ratio_vs_powertools',
  'throughput_ratio_vs_powertools',
  'throughput_ratio_vs_bare',
  'call_round_trips',
  'resume_round_trips',
  'repeat_round_trips',
  'batch_parallel_ratio',
  'synth_ratio_10_vs_1',
  'approval_create_invokes',
  'resume_invokes',
  'readonly_round_trips',
  'synth_manifest_ratio',
  'list_pending_items_read',
  'expire_items_read',
  'list_first_page_items_read',
  'caller_verify_cpu_ms',
  'caller_verify_network_calls_warm',
  'inbox_page_bytes',
  'inbox_decision_round_trips',
  'cli_decision_round_trips',
  'rate_limit_round_trips',
  'flow_completion_round_trips',
] as const;
type Results = Record<(typeof RESULT_KEYS)[number], number>;

const CHILDREN = [
  'bench/children/cold-start.ts',
  'bench/children/throughput.ts',
  'bench/children/dynamo.ts',
  'bench/children/parallel.ts',
  'bench/synth-app.ts',
];

function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

async function main(): Promise<void> {
  const args = new Set(process.argv.slice(2));
  const quick = args.has('--quick');
  const counts = quick ? QUICK : FULL;
  const started = performance.now();
  const machine = {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
  };
  progress(`${quick ? 'quick' : 'full'} run on ${machine.cpus} CPUs (${machine.cpuModel}), node ${machine.node}`);

  // 1. Bundles. First the user's: the packed package installed in an app of its own.
  progress(`consumer path: ${args.has('--no-build') ? '' : 'npm run build, '}npm pack, install the tarball in a temporary app, synth the README's tools module`);
  const consumer = await measureConsumerBundle({ build: !args.has('--no-build') });
  progress('bundling the handlers with the construct\'s esbuild options');
  mkdirSync(OUT, { recursive: true });
  const sizeNames: HandlerName[] = ['ours', 'powertools', 'powertools_sqs_schema', 'empty', 'floor', 'sample'];
  const runNames: HandlerName[] = ['ours', 'powertools', 'powertools_sqs_schema', 'empty', 'floor'];
  const size = Object.fromEntries(
    await Promise.all(sizeNames.map(async (name) => [name, await bundleHandler(name, 'size')] as const)),
  ) as Record<HandlerName, BundleInfo>;
  const run = Object.fromEntries(
    await Promise.all(runNames.map(async (name) => [name, await bundleHandler(name, 'run')] as const)),
  ) as Record<HandlerName, BundleInfo>;
  const children = await bundleChildren(CHILDREN);

  // 1b. Cold start.
  progress(`cold start: ${counts.coldStartProcesses} fresh processes per variant`);
  const cold = await measureColdStart(
    children['cold-start'],
    runNames.map((name) => ({ name, bundle: run[name].file })),
    counts.coldStartProcesses,
  );

  // 2. Throughput.
  progress('throughput: batches of 10 no-op calls');
  const throughputVariants = [
    { name: 'ours', bundle: run.ours.file },
    { name: 'powertools', bundle: run.powertools.file },
    { name: 'powertools_sqs_schema', bundle: run.powertools_sqs_schema.file },
    { name: 'bare' },
  ];
  const throughput = await measureThroughput(children.throughput, {
    variants: throughputVariants,
    batchSize: 10,
    barePasses: 10,
    ...counts.throughput,
  });

  // 3. DynamoDB.
  progress('dynamodb: round trips against dynalite');
  progress('approvals engine invokes');
  const approvalInvokes = await measureApprovalInvokes(counts.dynamoIterations);
  progress(`approvals at scale: two owners, ${counts.approvalHistory} decided approvals each`);
  const scale = await measureApprovalScale(counts.approvalHistory);
  const dynamo = await measureDynamo(children.dynamo, { ours: run.ours.file, powertools: run.powertools.file }, counts.dynamoIterations);
  progress('a Gateway caller\'s proof: warm checks and KMS calls');
  const callerVerify = await measureCallerVerify(counts.dynamoIterations * 10);
  progress('the approvals inbox: the first load of its page, from the real bundle');
  const inboxPage = await measureInboxPage();
  progress('the approvals inbox: DynamoDB requests of one decision, in the inbox and as the CLI makes it (real bundles)');
  const decisions = await measureDecisionRoundTrips(counts.dynamoIterations);
  progress('flows: what a call with reply_to adds (its completion\'s record and the completion)');
  const flows = await measureFlowCompletionRoundTrips(counts.dynamoIterations);

  // 4. Batch parallelism.
  progress('batch parallelism: 10 tools of 100 ms');
  const parallel = await measureParallel(children.parallel, {
    variants: [
      { name: 'ours', bundle: run.ours.file },
      { name: 'powertools', bundle: run.powertools.file },
    ],
    rounds: counts.parallelRounds,
    toolMs: 100,
    batchSize: 10,
  });

  // 5. Synth.
  progress('synth: 10 ToolHandlers over one entry against 1 (CDK_VALIDATION=false)');
  const synth = await measureSynth(children['synth-app'], [1, 10], counts.synthRounds, { CDK_VALIDATION: 'false' });
  let synthValidated: Awaited<ReturnType<typeof measureSynth>> | undefined;
  if (counts.synthWithValidation) {
    progress('synth: the same with aws-cdk-lib\'s built-in template validation on (its default)');
    synthValidated = await measureSynth(children['synth-app'], [1, 10], 1, {});
  }

  progress('synth: the sample with and without the tools manifest step (CDK_VALIDATION=false)');
  const manifestSynth = await measureManifestSynth(children['synth-app'], counts.manifestSynthRounds, { CDK_VALIDATION: 'false' });

  // Profiles (on request).
  let profiles: Record<string, ReturnType<typeof summarizeProfile>> | undefined;
  if (args.has('--profile')) {
    profiles = {};
    for (const [name, focus] of [
      ['ours', 'lambda/'],
      ['powertools', 'node_modules/@aws-lambda-powertools/'],
    ] as const) {
      progress(`profiling the throughput child: ${name}`);
      const dir = path.join(OUT, 'profiles', name);
      rmSync(dir, { recursive: true, force: true });
      await measureThroughput(
        children.throughput,
        { variants: [{ name, bundle: run[name].file }], batchSize: 10, rounds: 3, warmupRounds: 1, batches: 1000 },
        ['--cpu-prof', `--cpu-prof-dir=${dir}`],
      );
      const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
      profiles[name] = summarizeProfile(path.join(dir, file), focus);
    }
  }

  // Figures.
  const ratio = (a: number, b: number) => a / b;
  const results: Results = {
    bundle_bytes: size.ours.bytes,
    consumer_bundle_bytes: consumer.bytes,
    consumer_bundle_ratio_vs_repo: round(ratio(consumer.bytes, consumer.repoBytes), 4),
    bundle_ratio_vs_powertools: round(ratio(consumer.bytes, size.powertools.bytes)),
    runtime_own_bytes: bytesUnder(size.ours, 'lambda/'),
    init_ratio_vs_empty: round(ratio(cold.ours.totalMs, cold.empty.totalMs)),
    init_ratio_vs_floor: round(ratio(cold.ours.totalMs, cold.floor.totalMs)),
    init_ratio_vs_powertools: round(ratio(cold.ours.totalMs, cold.powertools.totalMs)),
    throughput_ratio_vs_powertools: round(ratio(throughput.ours.perSecond, throughput.powertools.perSecond)),
    throughput_ratio_vs_bare: round(ratio(throughput.ours.perSecond, throughput.bare.perSecond), 4),
    call_round_trips: round(dynamo['ours.call'].roundTrips),
    resume_round_trips: round(dynamo['ours.resume'].roundTrips),
    repeat_round_trips: round(dynamo['ours.repeat'].roundTrips),
    batch_parallel_ratio: round(parallel.ours),
    synth_ratio_10_vs_1: round(ratio(synth[10].synthMs, synth[1].synthMs)),
    approval_create_invokes: round(approvalInvokes.create),
    resume_invokes: round(approvalInvokes.resume),
    readonly_round_trips: round(dynamo['ours.readonly'].roundTrips),
    synth_manifest_ratio: round(ratio(manifestSynth.withManifestMs, manifestSynth.withoutManifestMs)),
    list_pending_items_read: scale.listPendingItemsRead,
    expire_items_read: scale.expireItemsRead,
    list_first_page_items_read: scale.listFirstPageItemsRead,
    caller_verify_cpu_ms: round(callerVerify.cpuMsP50, 4),
    caller_verify_network_calls_warm: callerVerify.networkCallsWarm,
    inbox_page_bytes: inboxPage.bytes,
    inbox_decision_round_trips: round(decisions.inbox),
    cli_decision_round_trips: round(decisions.cli),
    rate_limit_round_trips: round(dynamo['ours.limited'].roundTrips - dynamo['ours.call'].roundTrips),
    flow_completion_round_trips: round(flows.callWithReplyToDynamo - flows.callDynamo + flows.callCompletions),
  };

  const rows: Row[] = [
    section('1. bundle (esbuild as the construct: node22, cjs, minify, source map, @aws-sdk/* external)'),
    {
      figure: 'consumer: README tools.ts vs powertools [e]',
      ours: kb(consumer.bytes),
      baseline: kb(size.powertools.bytes),
      ratio: x(results.bundle_ratio_vs_powertools),
      target: '<= 0.6x',
      met: results.bundle_ratio_vs_powertools <= 0.6,
    },
    {
      figure: 'consumer vs the same module in this repository',
      ours: kb(consumer.bytes),
      baseline: kb(consumer.repoBytes),
      ratio: x(results.consumer_bundle_ratio_vs_repo),
      target: '<= 1.05x',
      met: results.consumer_bundle_ratio_vs_repo <= 1.05,
    },
    { figure: 'consumer gzip vs powertools', ours: kb(consumer.gzipBytes), baseline: kb(size.powertools.gzipBytes), ratio: x(consumer.gzipBytes / size.powertools.gzipBytes) },
    { figure: 'zod copies in the consumer bundle', ours: num(consumer.zodCopies), baseline: '1', ratio: '', target: '1', met: consumer.zodCopies === 1 },
    { figure: 'package: packed (unpacked)', ours: `${kb(consumer.packedBytes)} (${kb(consumer.unpackedBytes)})`, baseline: '', ratio: '' },
    { figure: 'repo handler (bench/handlers/ours.ts) vs powertools', ours: kb(size.ours.bytes), baseline: kb(size.powertools.bytes), ratio: x(size.ours.bytes / size.powertools.bytes) },
    { figure: 'gzip bytes vs powertools', ours: kb(size.ours.gzipBytes), baseline: kb(size.powertools.gzipBytes), ratio: x(size.ours.gzipBytes / size.powertools.gzipBytes) },
    {
      figure: 'own code: lambda/ vs @aws-lambda-powertools/*',
      ours: kb(results.runtime_own_bytes),
      baseline: kb(bytesUnder(size.powertools, 'node_modules/@aws-lambda-powertools/')),
      ratio: x(results.runtime_own_bytes / bytesUnder(size.powertools, 'node_modules/@aws-lambda-powertools/')),
      target: '<= 20 KB',
      met: results.runtime_own_bytes <= 20 * 1024,
    },
    { figure: 'zod in the bundle', ours: kb(bytesUnder(size.ours, 'node_modules/zod/')), baseline: kb(bytesUnder(size.powertools, 'node_modules/zod/')), ratio: '' },
    {
      figure: 'minified bytes vs powertools via SqsRecordSchema [a]',
      ours: kb(size.ours.bytes),
      baseline: kb(size.powertools_sqs_schema.bytes),
      ratio: x(size.ours.bytes / size.powertools_sqs_schema.bytes),
    },
    { figure: 'bin/tools.ts (the sample) vs empty handler', ours: kb(size.sample.bytes), baseline: kb(size.empty.bytes), ratio: '' },
    section(`1b. cold start, process start to first batch handled (median of ${counts.coldStartProcesses} processes)`),
    {
      figure: 'vs empty handler',
      ours: ms(cold.ours.totalMs),
      baseline: ms(cold.empty.totalMs),
      ratio: x(results.init_ratio_vs_empty),
    },
    {
      figure: 'vs the floor (same SDK modules and schemas, no library) [f]',
      ours: ms(cold.ours.totalMs),
      baseline: ms(cold.floor.totalMs),
      ratio: x(results.init_ratio_vs_floor),
    },
    {
      figure: 'vs powertools',
      ours: ms(cold.ours.totalMs),
      baseline: ms(cold.powertools.totalMs),
      ratio: x(results.init_ratio_vs_powertools),
      target: '<= 0.7x',
      met: results.init_ratio_vs_powertools <= 0.7,
    },
    {
      figure: 'require + first batch only',
      ours: ms(cold.ours.handlerMs),
      baseline: ms(cold.powertools.handlerMs),
      ratio: x(cold.ours.handlerMs / cold.powertools.handlerMs),
    },
    { figure: '  of which require()', ours: ms(cold.ours.loadMs), baseline: ms(cold.powertools.loadMs), ratio: x(cold.ours.loadMs / cold.powertools.loadMs) },
    {
      figure: '  of which first batch',
      ours: ms(cold.ours.firstBatchMs),
      baseline: ms(cold.powertools.firstBatchMs),
      ratio: x(cold.ours.firstBatchMs / cold.powertools.firstBatchMs),
    },
    {
      figure: 'vs powertools via SqsRecordSchema [a]',
      ours: ms(cold.ours.totalMs),
      baseline: ms(cold.powertools_sqs_schema.totalMs),
      ratio: x(cold.ours.totalMs / cold.powertools_sqs_schema.totalMs),
    },
    section(`2. throughput, batches of 10 no-op calls, logging on (median of ${counts.throughput.rounds} rounds of ${counts.throughput.batches * 10} calls; a process per handler, taking turns in slices)`),
    {
      figure: 'vs powertools',
      ours: perSecond(throughput.ours.perSecond),
      baseline: perSecond(throughput.powertools.perSecond),
      ratio: x(results.throughput_ratio_vs_powertools),
      target: '>= 1.5x',
      met: results.throughput_ratio_vs_powertools >= 1.5,
    },
    {
      figure: 'vs bare loop (JSON.parse + call)',
      ours: perSecond(throughput.ours.perSecond),
      baseline: perSecond(throughput.bare.perSecond),
      ratio: x(results.throughput_ratio_vs_bare),
      target: '>= 0.33x',
      met: results.throughput_ratio_vs_bare >= 1 / 3,
    },
    {
      figure: 'vs powertools via SqsRecordSchema [a]',
      ours: perSecond(throughput.ours.perSecond),
      baseline: perSecond(throughput.powertools_sqs_schema.perSecond),
      ratio: x(throughput.ours.perSecond / throughput.powertools_sqs_schema.perSecond),
    },
    section(`3. DynamoDB on dynalite (round trips per operation; median wall time of ${counts.dynamoIterations})`),
    ...(['call', 'resume', 'repeat'] as const).map((op): Row => {
      const target = op === 'repeat' ? 1 : 2;
      const ours = dynamo[`ours.${op}`];
      const pt = dynamo[`powertools.${op}`];
      return {
        figure: `round trips per ${op === 'repeat' ? 'repeated delivery [c]' : op === 'resume' ? 'resume [b]' : op}`,
        ours: num(ours.roundTrips),
        baseline: num(pt.roundTrips),
        ratio: x(ours.roundTrips / pt.roundTrips),
        target: `<= ${target}`,
        met: ours.roundTrips <= target,
      };
    }),
    ...(['call', 'resume', 'repeat'] as const).map(
      (op): Row => ({
        figure: `wall time per ${op === 'repeat' ? 'repeated delivery' : op}`,
        ours: ms(dynamo[`ours.${op}`].medianMs),
        baseline: ms(dynamo[`powertools.${op}`].medianMs),
        ratio: x(dynamo[`ours.${op}`].medianMs / dynamo[`powertools.${op}`].medianMs),
      }),
    ),
    { figure: 'round trips per approval request', ours: num(dynamo['ours.request'].roundTrips), baseline: 'n/a', ratio: '' },
    {
      figure: 'round trips per read-only call',
      ours: num(results.readonly_round_trips),
      baseline: 'n/a',
      ratio: '',
      target: '0',
      met: results.readonly_round_trips === 0,
    },
    {
      figure: 'round trips a rate limit adds to a call',
      ours: num(results.rate_limit_round_trips),
      baseline: 'n/a',
      ratio: '',
      target: '1',
      met: results.rate_limit_round_trips === 1,
    },
    {
      figure: 'requests a waiting flow adds to a call: DynamoDB + completion (approval request / resume)',
      ours: `${num(results.flow_completion_round_trips)} (${num(flows.requestExtraDynamo)} / ${num(flows.resumeExtraDynamo + flows.resumeCompletions)})`,
      baseline: 'n/a',
      ratio: '',
      target: '2',
      met: results.flow_completion_round_trips === 2,
    },
    section('3b. approvals engine invokes per operation (the handler reaches approvals only through the engine)'),
    { figure: 'call that needs approval', ours: num(approvalInvokes.create), baseline: 'n/a', ratio: '', target: '<= 1', met: approvalInvokes.create <= 1 },
    { figure: 'resume (claim + complete)', ours: num(approvalInvokes.resume), baseline: 'n/a', ratio: '', target: '<= 2', met: approvalInvokes.resume <= 2 },
    {
      figure: 'resume that cannot run',
      ours: num(approvalInvokes.refusedResume),
      baseline: 'n/a',
      ratio: '',
      target: '<= 1',
      met: approvalInvokes.refusedResume <= 1,
    },
    section(`3c. items read to list and expire one owner's approvals (two owners, ${counts.approvalHistory} decided each, A 10 pending)`),
    { figure: "A's pending list, every page", ours: num(scale.listPendingItemsRead), baseline: 'n/a', ratio: '', target: '<= 20', met: scale.listPendingItemsRead <= 20 },
    { figure: "one expirer run of A", ours: num(scale.expireItemsRead), baseline: 'n/a', ratio: '', target: '<= 15', met: scale.expireItemsRead <= 15 },
    { figure: "first page (50) of A's list", ours: num(scale.listFirstPageItemsRead), baseline: 'n/a', ratio: '', target: '<= 60', met: scale.listFirstPageItemsRead <= 60 },
    section('3d. a Gateway caller\'s proof, checked by the handler (the real runtime, the local KMS)'),
    {
      figure: 'CPU of a warm check (p50)',
      ours: ms(results.caller_verify_cpu_ms),
      baseline: 'n/a',
      ratio: '',
      target: '< 1 ms',
      met: results.caller_verify_cpu_ms < 1,
    },
    {
      figure: 'KMS calls per warm invocation (cold: the key, once)',
      ours: `${num(results.caller_verify_network_calls_warm)} (${num(callerVerify.networkCallsCold)})`,
      baseline: 'n/a',
      ratio: '',
      target: '0',
      met: results.caller_verify_network_calls_warm === 0,
    },
    section('3e. the approvals inbox'),
    {
      figure: 'first load of the page (HTML, inlined script and style; gzip)',
      ours: `${kb(results.inbox_page_bytes)} (${kb(inboxPage.gzipBytes)})`,
      baseline: 'n/a',
      ratio: '',
      target: '< 60 KB',
      met: results.inbox_page_bytes < 60 * 1024,
    },
    {
      figure: 'DynamoDB requests of one decision: in the inbox (one POST) vs as the CLI makes it',
      ours: num(results.inbox_decision_round_trips),
      baseline: num(results.cli_decision_round_trips),
      ratio: '',
      target: '= the CLI\'s',
      met: results.inbox_decision_round_trips === results.cli_decision_round_trips,
    },
    section(`4. batch parallelism: 10 tools of 100 ms, wall / 100 ms (median of ${counts.parallelRounds})`),
    {
      figure: 'wall / 100 ms vs powertools',
      ours: x(parallel.ours),
      baseline: x(parallel.powertools),
      ratio: x(parallel.ours / parallel.powertools),
      target: '<= 1.3',
      met: results.batch_parallel_ratio <= 1.3,
    },
    section(`5. synth, 10 ToolHandlers over one entry vs 1 (median of ${counts.synthRounds}, new App() to app.synth() in a fresh process)`),
    {
      figure: '10 vs 1, CDK_VALIDATION=false [d]',
      ours: ms(synth[10].synthMs),
      baseline: ms(synth[1].synthMs),
      ratio: x(results.synth_ratio_10_vs_1),
      target: '<= 2',
      met: results.synth_ratio_10_vs_1 <= 2,
    },
    {
      figure: '  whole process (spawn to exit)',
      ours: ms(synth[10].processMs),
      baseline: ms(synth[1].processMs),
      ratio: x(synth[10].processMs / synth[1].processMs),
    },
    ...(synthValidated
      ? [
          {
            figure: '10 vs 1, built-in validation on (its default)',
            ours: ms(synthValidated[10].synthMs),
            baseline: ms(synthValidated[1].synthMs),
            ratio: x(synthValidated[10].synthMs / synthValidated[1].synthMs),
          },
        ]
      : []),
    section(`6. synth of the sample with the tools manifest step vs without (fastest of ${manifestSynth.runs}, CDK_VALIDATION=false)`),
    {
      figure: 'with vs without the manifest step',
      ours: ms(manifestSynth.withManifestMs),
      baseline: ms(manifestSynth.withoutManifestMs),
      ratio: x(results.synth_manifest_ratio),
      target: '<= 1.3',
      met: results.synth_manifest_ratio <= 1.3,
    },
    {
      figure: '  medians (shared machine: other load moves them)',
      ours: ms(manifestSynth.medianWithMs),
      baseline: ms(manifestSynth.medianWithoutMs),
      ratio: x(manifestSynth.medianWithMs / manifestSynth.medianWithoutMs),
    },
  ];

  const elapsedS = (performance.now() - started) / 1000;
  const out: string[] = [];
  out.push(`cdk-tool-handler bench (${quick ? 'quick' : 'full'}), ${new Date().toISOString()}`);
  out.push(`machine: ${machine.cpus} CPUs, ${machine.cpuModel}, ${machine.memoryGiB} GiB, node ${machine.node}, ${machine.platform}`);
  if (quick) out.push('quick mode: small counts, so the figures are indicative only (CI runs it so that the bench cannot rot).');
  out.push('');
  out.push(formatTable(rows));
  out.push('');
  out.push(...NOTES);
  out.push('');
  out.push(`lambda/ in the bundle, largest: ${filesUnder(size.ours, 'lambda/').slice(0, 6).map(([f, b]) => `${f.slice('lambda/'.length)} ${kb(b)}`).join(', ')}`);
  out.push(`bundle by origin (ours): ${bytesByOrigin(size.ours).map(([o, b]) => `${o} ${kb(b)}`).join(', ')}`);
  out.push(`bundle by origin (powertools): ${bytesByOrigin(size.powertools).map(([o, b]) => `${o} ${kb(b)}`).join(', ')}`);
  if (profiles) out.push('', ...profileReport(profiles));
  out.push('', `results: ${path.relative(process.cwd(), RESULTS_FILE)} (${elapsedS.toFixed(1)} s)`);
  process.stdout.write(`${out.join('\n')}\n`);

  // results.json: exactly the issue's keys, written whole or not at all.
  const ordered = Object.fromEntries(RESULT_KEYS.map((key) => [key, results[key]]));
  writeFileSync(`${RESULTS_FILE}.tmp`, `${JSON.stringify(ordered, null, 2)}\n`);
  renameSync(`${RESULTS_FILE}.tmp`, RESULTS_FILE);
  // Everything else, for the README and for comparing runs (not committed).
  writeFileSync(
    path.join(OUT, 'results.detail.json'),
    `${JSON.stringify({ quick, machine, elapsedS, results, size: sizesOf(size), cold, throughput, dynamo, callerVerify, parallel, synth, synthValidated, manifestSynth, consumer }, null, 2)}\n`,
  );
}

const NOTES = [
  'baseline: the Powertools handler (batch + parser `parse` + idempotency, the same zod schemas); "empty" and "bare" where named.',
  '[a] the same handler with the batch utility\'s parser integration (SqsRecordSchema + JSONStringified): those schemas import',
  '    `{ z } from "zod"`, which pulls all of zod into the bundle; shown for reference, never the baseline.',
  '[b] Powertools has no approvals: its row is a consistent GetItem of the decision plus an idempotent run (Put + Update).',
  '[c] Powertools asks for the existing item with ReturnValuesOnConditionCheckFailure, which dynalite ignores: on DynamoDB',
  '    its repeated delivery takes 1 round trip, on dynalite 2 (a GetItem after the refused Put).',
  '[d] aws-cdk-lib 2.276 validates templates in WebAssembly at synth, a fixed ~4-5 s here; the key figure turns it off',
  '    (CDK_VALIDATION=false) so that the ratio shows what the construct adds per handler.',
  '[e] the user\'s path: npm pack, the tarball installed in a temporary app (zod from the registry), the README\'s tools',
  '    module, the bundle NodejsFunction produced at synth. The Powertools handler has the same schemas plus two tools.',
  '[f] bench/handlers/floor.ts: requires the DynamoDB client and document client as ours does at init, the same zod',
  '    schemas, a hand-written loop over the batch (parse, validate, run); no ids, no state, no logs.',
];

function sizesOf(bundles: Record<string, BundleInfo>) {
  return Object.fromEntries(
    Object.entries(bundles).map(([name, info]) => [name, { bytes: info.bytes, gzipBytes: info.gzipBytes, byOrigin: Object.fromEntries(bytesByOrigin(info)) }]),
  );
}

function profileReport(profiles: Record<string, ReturnType<typeof summarizeProfile>>): string[] {
  const lines: string[] = [];
  const pct = (value: number, total: number) => `${((100 * value) / total).toFixed(1).padStart(5)}%`;
  for (const [name, summary] of Object.entries(profiles)) {
    lines.push(`profile of the throughput child, ${name} (${summary.totalMs.toFixed(0)} ms sampled):`);
    lines.push('  self time by origin:');
    for (const [origin, value] of summary.selfByOrigin.slice(0, 12)) lines.push(`    ${pct(value, summary.totalMs)}  ${origin}`);
    lines.push('  time charged to the innermost frame of the handler code (with what it calls):');
    for (const [fn, value] of summary.byFocusFunction.slice(0, 15)) lines.push(`    ${pct(value, summary.totalMs)}  ${fn}`);
    lines.push('  self time by function:');
    for (const [fn, value] of summary.selfByFunction.slice(0, 12)) lines.push(`    ${pct(value, summary.totalMs)}  ${fn}`);
  }
  return lines;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
