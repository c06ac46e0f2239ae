/**
 * Reads a V8 CPU profile (`node --cpu-prof`) of a bench child and says where the time went, mapped
 * back to source files through the bundle's source map:
 * - self time by origin: a file under lambda/ or bench/, a package (zod, @aws-lambda-powertools/*),
 *   node internals, GC;
 * - time by the nearest frame of `focus` (e.g. lambda/): each sample is charged to the innermost
 *   frame under `focus` on its stack, so a lambda/ function carries what it calls in zod, node:crypto,
 *   structuredClone and the like.
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, relative as relativePath, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { originOf } from './bundle';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
  readonly columnNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: number[];
}
interface CpuProfile {
  readonly nodes: ProfileNode[];
  readonly samples: number[];
  readonly timeDeltas: number[];
  readonly startTime: number;
  readonly endTime: number;
}

export interface ProfileSummary {
  readonly totalMs: number;
  /** [origin, ms], largest first. */
  readonly selfByOrigin: Array<[string, number]>;
  /** [function @ file:line, ms], largest first: time charged to the innermost `focus` frame. */
  readonly byFocusFunction: Array<[string, number]>;
  /** [file, ms] for the same charge, summed per file. */
  readonly byFocusFile: Array<[string, number]>;
  /** [function @ origin, ms] self time, largest first. */
  readonly selfByFunction: Array<[string, number]>;
}

interface Located {
  readonly origin: string;
  readonly file: string | undefined;
  readonly label: string;
}

export function summarizeProfile(profilePath: string, focus = 'lambda/', root = process.cwd()): ProfileSummary {
  const profile = JSON.parse(readFileSync(profilePath, 'utf8')) as CpuProfile;
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  // Time of each sample: its delta to the next (the last one gets the mean).
  const selfMs = new Map<number, number>();
  const totalUs = profile.endTime - profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const us = i + 1 < profile.timeDeltas.length ? profile.timeDeltas[i + 1] : totalUs / profile.samples.length;
    selfMs.set(profile.samples[i], (selfMs.get(profile.samples[i]) ?? 0) + Math.max(0, us) / 1000);
  }

  const maps = new Map<string, SourceMap | undefined>();
  const located = new Map<number, Located>();
  const locate = (node: ProfileNode): Located => {
    const known = located.get(node.id);
    if (known) return known;
    const { url, functionName, lineNumber, columnNumber } = node.callFrame;
    const name = functionName || '(anonymous)';
    let result: Located;
    if (!url) {
      result = { origin: name.startsWith('(') ? name : 'node (native)', file: undefined, label: name };
    } else if (url.startsWith('node:')) {
      result = { origin: 'node internals', file: url, label: `${name} @ ${url}` };
    } else {
      const file = url.startsWith('file:') ? fileURLToPath(url) : url;
      const map = sourceMapOf(maps, file);
      const entry = map?.findEntry(lineNumber, columnNumber) as { originalSource?: string; originalLine?: number } | undefined;
      const source = relative(entry?.originalSource ?? file, dirname(file), root);
      result = {
        origin: originOf(source),
        file: source,
        label: `${name} @ ${source}${entry?.originalLine !== undefined ? `:${entry.originalLine + 1}` : ''}`,
      };
    }
    located.set(node.id, result);
    return result;
  };

  const selfByOrigin = new Map<string, number>();
  const selfByFunction = new Map<string, number>();
  const byFocusFunction = new Map<string, number>();
  const byFocusFile = new Map<string, number>();
  for (const [id, ms] of selfMs) {
    const node = byId.get(id)!;
    const here = locate(node);
    add(selfByOrigin, here.origin === 'lambda/' || here.origin === 'bench/' ? here.file ?? here.origin : here.origin, ms);
    add(selfByFunction, here.label, ms);
    let cursor: number | undefined = id;
    let charged = false;
    while (cursor !== undefined) {
      const frame = locate(byId.get(cursor)!);
      if (frame.file?.startsWith(focus)) {
        add(byFocusFunction, frame.label, ms);
        add(byFocusFile, frame.file, ms);
        charged = true;
        break;
      }
      cursor = parent.get(cursor);
    }
    if (!charged) {
      add(byFocusFunction, `(outside ${focus}) ${here.origin}`, ms);
      add(byFocusFile, `(outside ${focus}) ${here.origin}`, ms);
    }
  }
  return {
    totalMs: totalUs / 1000,
    selfByOrigin: sorted(selfByOrigin),
    byFocusFunction: sorted(byFocusFunction),
    byFocusFile: sorted(byFocusFile),
    selfByFunction: sorted(selfByFunction),
  };
}

function sourceMapOf(cache: Map<string, SourceMap | undefined>, file: string): SourceMap | undefined {
  if (!cache.has(file)) {
    let map: SourceMap | undefined;
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
    } catch {
      map = undefined;
    }
    cache.set(file, map);
  }
  return cache.get(file);
}

/** A source as a path relative to the repository (esbuild writes them relative to the map). */
function relative(source: string, mapDir: string, root: string): string {
  const absolute = source.startsWith('file:') ? fileURLToPath(source) : resolve(mapDir, source);
  return relativePath(root, absolute).split(sep).join('/');
}

function add(map: Map<string, number>, key: string, ms: number): void {
  map.set(key, (map.get(key) ?? 0) + ms);
}

function sorted(map: Map<string, number>): Array<[string, number]> {
  return [...map.entries()].sort((a, b) => b[1] - a[1]);
}
