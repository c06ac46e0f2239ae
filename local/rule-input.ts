/**
 * What an EventBridge input transformer makes of an event: each `<name>` of `InputTemplate` replaced
 * by the value at `InputPathsMap[name]`. Inside a JSON string of the template a string value goes in
 * as its text; outside one, as JSON (a string gets its quotes), as EventBridge documents
 * ("Amazon EventBridge input transformation"). A template that is one JSON string
 * (aws-cdk-lib's `RuleTargetInput.fromText`) delivers that string.
 */

export interface InputTransformer {
  readonly paths: Record<string, string>;
  readonly template: string;
}

export function renderInput(transformer: InputTransformer, event: unknown): string {
  let out = '';
  let inString = false;
  const { template } = transformer;
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c === '<') {
      const end = template.indexOf('>', i);
      const name = end > i ? template.slice(i + 1, end) : '';
      if (name in transformer.paths) {
        out += insert(atPath(event, transformer.paths[name]), inString);
        i = end;
        continue;
      }
    }
    if (c === '\\' && inString) {
      out += c + (template[i + 1] ?? '');
      i++;
      continue;
    }
    if (c === '"') inString = !inString;
    out += c;
  }
  try {
    const parsed = JSON.parse(out);
    if (typeof parsed === 'string') return parsed;
  } catch {
    // not JSON: delivered as is
  }
  return out;
}

function insert(value: unknown, inString: boolean): string {
  if (inString) return typeof value === 'string' ? JSON.stringify(value).slice(1, -1) : JSON.stringify(value ?? null);
  return JSON.stringify(value ?? null);
}

/** The value at a `$.a.b.c` path. */
export function atPath(value: unknown, jsonPath: string): unknown {
  const parts = jsonPath.replace(/^\$\.?/, '').split('.').filter(Boolean);
  let current: unknown = value;
  for (const part of parts) current = current && typeof current === 'object' ? (current as Record<string, unknown>)[part] : undefined;
  return current;
}

