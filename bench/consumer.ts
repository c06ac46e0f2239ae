/**
 * The user's path: `npm pack` this package, install the tarball in a consumer app in a
 * temporary folder (with zod from the registry, at the repository's version), write the README's
 * tools module there, synthesize a `ToolHandler` over it with the packed construct, and measure the
 * bundle NodejsFunction produced. aws-cdk-lib, constructs and esbuild are linked from this
 * repository's node_modules after the install (they only run the synth; none reaches the bundle),
 * and npm never runs again in that folder (it would prune the links, following them).
 *
 * Before the synth the module is type-checked against the installed package (nodenext and node10);
 * after it the bundle is run once. For the ratio, the same module is bundled inside the repository with the construct's esbuild
 * options, `cdk-tool-handler/lambda` resolving to `lambda/index.ts`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { CONSTRUCT_ESBUILD_OPTIONS } from './bundle';
import { OUT, ROOT } from './lib/paths';

export interface ConsumerBundle {
  /** Minified bytes of the asset's index.js. */
  readonly bytes: number;
  readonly gzipBytes: number;
  /** Bytes per origin (package, or the app's own files), from the asset's source map. */
  readonly zodCopies: number;
  readonly runtimeSources: number;
  /** The same module bundled in the repository. */
  readonly repoBytes: number;
  readonly repoGzipBytes: number;
  /** `npm pack` figures. */
  readonly packedBytes: number;
  readonly unpackedBytes: number;
  readonly packFiles: number;
  readonly installMs: number;
  readonly synthMs: number;
}

/** The README's tools module: the first TypeScript block under "A first tool" that starts `// tools.ts`. */
export function readmeToolsModule(): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const block = /```(?:ts|TypeScript)\n(\/\/ tools\.ts\n[\s\S]*?)```/.exec(readme.slice(readme.indexOf('## A first tool')));
  if (!block) throw new Error('README.md has no ```ts block starting `// tools.ts` under "## A first tool"');
  return block[1];
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  return execFileSync(command, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

const APP = `
const path = require('node:path');
const { App, Duration, Stack } = require('aws-cdk-lib');
const { ToolHandler } = require('cdk-tool-handler');
const app = new App({ outdir: process.argv[2] });
const stack = new Stack(app, 'Consumer');
new ToolHandler(stack, 'Tools', { entry: path.join(__dirname, 'tools.ts'), tools: ['add', 'refund'], timeout: Duration.seconds(30) });
app.synth();
`;

export async function measureConsumerBundle(options: { build: boolean }): Promise<ConsumerBundle> {
  if (options.build) run('npm', ['run', 'build'], ROOT);
  const work = mkdtempSync(path.join(os.tmpdir(), 'cdk-tool-handler-consumer-'));
  try {
    const [pack] = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT)) as Array<{
      filename: string;
      size: number;
      unpackedSize: number;
      entryCount: number;
    }>;
    const app = path.join(work, 'app');
    mkdirSync(app);
    const zod = (JSON.parse(readFileSync(path.join(ROOT, 'node_modules', 'zod', 'package.json'), 'utf8')) as { version: string }).version;
    writeFileSync(path.join(app, 'package.json'), `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }, null, 2)}\n`);
    const installStarted = performance.now();
    // --legacy-peer-deps: aws-cdk-lib and constructs (the peers) are linked below instead of downloaded.
    run('npm', ['install', '--no-audit', '--no-fund', '--legacy-peer-deps', path.join(work, pack.filename), `zod@${zod}`], app);
    const installMs = performance.now() - installStarted;
    for (const name of ['aws-cdk-lib', 'constructs', 'esbuild']) {
      symlinkSync(path.join(ROOT, 'node_modules', name), path.join(app, 'node_modules', name), 'dir');
    }
    mkdirSync(path.join(app, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules', 'esbuild', 'bin', 'esbuild'), path.join(app, 'node_modules', '.bin', 'esbuild'));
    writeFileSync(path.join(app, 'tools.ts'), readmeToolsModule());
    writeFileSync(path.join(app, 'app.js'), APP);
    typeCheck(app);

    const outdir = path.join(work, 'cdk.out');
    const synthStarted = performance.now();
    run(process.execPath, ['app.js', outdir], app, { CDK_VALIDATION: 'false', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
    const synthMs = performance.now() - synthStarted;
    const assets = JSON.parse(readFileSync(path.join(outdir, 'Consumer.assets.json'), 'utf8')) as {
      files: Record<string, { source: { path: string; packaging: string } }>;
    };
    // The handler's asset is the one NodejsFunction bundled (with a source map); the package's own
    // prebuilt functions (approvals engine, API, expirer) ship as they are.
    const zips = Object.values(assets.files).filter(
      (f) => f.source.packaging === 'zip' && existsSync(path.join(outdir, f.source.path, 'index.js.map')),
    );
    if (zips.length !== 1) throw new Error(`expected one bundled handler asset in the consumer's synth, got ${zips.length}`);
    const assetDir = path.join(outdir, zips[0].source.path);
    const code = readFileSync(path.join(assetDir, 'index.js'));
    const map = JSON.parse(readFileSync(path.join(assetDir, 'index.js.map'), 'utf8')) as { sources: string[] };
    const zodRoots = new Set(map.sources.map((s) => /^(.*node_modules\/zod)\//.exec(s)?.[1]).filter(Boolean));
    checkBundleRuns(assetDir, work);

    const repo = await bundleInRepo(readmeToolsModule());
    return {
      bytes: code.length,
      gzipBytes: gzipSync(code).length,
      zodCopies: zodRoots.size,
      runtimeSources: map.sources.filter((s) => s.includes('node_modules/cdk-tool-handler/')).length,
      repoBytes: repo.length,
      repoGzipBytes: gzipSync(repo).length,
      packedBytes: pack.size,
      unpackedBytes: pack.unpackedSize,
      packFiles: pack.entryCount,
      installMs,
      synthMs,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The README's module type-checks against the installed package as a user's compiler sees it
 * (no skipLibCheck), under `nodenext` and under `node10` (which needs `typesVersions`). The SDK
 * clients are the dev dependencies the README tells users to install.
 */
function typeCheck(app: string): void {
  for (const name of ['typescript', '@types/node', '@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/client-eventbridge']) {
    mkdirSync(path.dirname(path.join(app, 'node_modules', name)), { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules', name), path.join(app, 'node_modules', name), 'dir');
  }
  const tsc = path.join(app, 'node_modules', 'typescript', 'bin', 'tsc');
  const common = ['--noEmit', '--strict', '--skipLibCheck', 'false', '--types', 'node', '--target', 'es2022', 'tools.ts'];
  for (const resolution of [['--module', 'nodenext', '--moduleResolution', 'nodenext'], ['--module', 'commonjs', '--moduleResolution', 'node10', '--ignoreDeprecations', '6.0']]) {
    try {
      run(process.execPath, [tsc, ...resolution, ...common], app);
    } catch (error) {
      throw new Error(`the README's tools module does not type-check in the consumer (${resolution.join(' ')}):\n${(error as { stdout?: string }).stdout ?? error}`);
    }
  }
}

/**
 * The bundle works as Lambda runs it: a child `node` in the asset folder (outside the repository),
 * only the SDK on NODE_PATH (as the runtime provides it), one direct invoke of `add`.
 */
function checkBundleRuns(assetDir: string, work: string): void {
  const runtimeModules = path.join(work, 'lambda-runtime', 'node_modules');
  mkdirSync(runtimeModules, { recursive: true });
  symlinkSync(path.join(ROOT, 'node_modules', '@aws-sdk'), path.join(runtimeModules, '@aws-sdk'), 'dir');
  const script = `require('./index.js').handler({ tool: 'add', args: { a: 1, b: 2 } }, { awsRequestId: 'consumer-1', getRemainingTimeInMillis: () => 5000 })
    .then((reply) => { process.stderr.write(JSON.stringify(reply)); process.exit(reply.status === 'ok' && reply.result === 3 ? 0 : 1); });`;
  execFileSync(process.execPath, ['-e', script], {
    cwd: assetDir,
    env: { PATH: process.env.PATH, NODE_PATH: runtimeModules, AWS_REGION: 'us-east-1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

/** The same module bundled in this repository, as bench/bundle.ts bundles the handlers. */
async function bundleInRepo(source: string): Promise<Buffer> {
  const dir = path.join(OUT, 'size', 'readme-tools');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'tools.ts'), source);
  const outfile = path.join(dir, 'index.js');
  await build({
    ...CONSTRUCT_ESBUILD_OPTIONS,
    absWorkingDir: ROOT,
    entryPoints: [path.join(dir, 'tools.ts')],
    outfile,
    alias: { 'cdk-tool-handler/lambda': path.join(ROOT, 'lambda', 'index.ts') },
  });
  return readFileSync(outfile);
}
