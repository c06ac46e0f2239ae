import * as fs from 'node:fs';
import * as path from 'node:path';
import { Annotations, AssetStaging, Stack } from 'aws-cdk-lib';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { allowlistOf, allowlistProp } from '../allowlist';
import { DEFAULTS } from '../defaults';
import { fail } from '../errors';
import type { ToolManifestEntry } from '../../lambda/construct-contract';
import { readBundleManifest, stubPatterns } from './manifest-reader';
import { ToolHandlerProps } from '../tool-handler-props';

/**
 * Context key that turns the synth-time manifest step off (`true`): no checks of `allowedTools` and
 * `handler` against the module, and `addToGateway` falls back to `{ type: object }` schemas.
 */
export const SKIP_MANIFEST_CONTEXT = 'cdk-tool-handler:skipManifest';

/**
 * Reads the tools manifest from the bundle that `fn` staged, and checks `tools` and `handler`
 * against it: an allowlist name the module does not define, or a `handler` export that is missing or
 * not a `toolHandler`, throws here, at construction. Returns `undefined` (with an info annotation)
 * when there is no bundle to read: bundling skipped for this stack, or the step turned off.
 */
export function readToolManifest(scope: Construct, fn: nodejs.NodejsFunction, props: ToolHandlerProps): ToolManifestEntry[] | undefined {
  const skipped = (why: string) => {
    Annotations.of(scope).addInfo(
      `The tools manifest was not read (${why}): \`tools\` and \`handler\` were not checked against ${props.entry}.`,
    );
    return undefined;
  };
  if (!Stack.of(scope).bundlingRequired) return skipped('bundling is skipped for this stack, aws:cdk:bundling-stacks');
  if (scope.node.tryGetContext(SKIP_MANIFEST_CONTEXT) === true || scope.node.tryGetContext(SKIP_MANIFEST_CONTEXT) === 'true') {
    return skipped(`context ${SKIP_MANIFEST_CONTEXT} is set`);
  }
  const staging = fn.node.tryFindChild('Code')?.node.tryFindChild('Stage');
  if (!(staging instanceof AssetStaging)) return skipped('the function has no staged bundle');
  const bundleFile = path.join(staging.absoluteStagedPath, 'index.js');
  if (!fs.existsSync(bundleFile)) return skipped(`the bundle is not CommonJS (no index.js in ${staging.absoluteStagedPath})`);

  const exportName = props.handler ?? DEFAULTS.handler;
  const outcome = readBundleManifest(bundleFile, exportName, {
    stubbed: stubPatterns(props.bundling?.externalModules),
    cacheKey: staging.assetHash,
  });
  if ('tools' in outcome) {
    checkAllowlist(scope, props, outcome.tools);
    return outcome.tools;
  }
  switch (outcome.problem) {
    case 'missing':
      return fail(
        `\`handler\`: ${props.entry} has no export named ${exportName}, got exports: ` +
          `${outcome.exports.length > 0 ? outcome.exports.join(', ') : 'none'}. It needs ` +
          `\`export const ${exportName} = toolHandler([...])\`, or the \`handler\` prop set to the name of the export that is one.`,
        scope,
      );
    case 'notToolHandler':
      return fail(
        `\`handler\`: the export ${exportName} of ${props.entry} is not a handler built by toolHandler, got: ${outcome.got}. ` +
          `It needs \`export const ${exportName} = toolHandler([...])\` (from 'cdk-tool-handler/lambda').`,
        scope,
      );
    case 'load':
      return fail(
        `\`entry\`: loading ${props.entry} at synth to read its tools failed: ${outcome.message.replace(/\.$/, '')}. The module's top-level ` +
          "code runs at synth, in a plain node process without the function's environment variables or AWS credentials: " +
          'read configuration inside a tool\'s `run` (or lazily, on first use), not at module load.',
        scope,
      );
    default:
      return fail(`\`entry\`: reading the tools of ${props.entry} from its bundle failed: ${outcome.message}`, scope);
  }
}

function checkAllowlist(scope: Construct, props: ToolHandlerProps, tools: readonly ToolManifestEntry[]): void {
  const defined = new Set(tools.map((t) => t.name));
  const unknown = allowlistOf(props).filter((name) => !defined.has(name));
  if (unknown.length === 0) return;
  fail(
    `\`${allowlistProp(props)}\` names tools that ${props.entry} does not define: ${unknown.join(', ')}. ` +
      `It defines: ${[...defined].join(', ') || 'none'}.`,
    scope,
  );
}
