/**
 * Stands in for the pipe of SPEC §10 (the approvals table's stream into an EventBridge pipe whose
 * input template puts a resume envelope on the tool queue): after a decision, the decided item is
 * made into the DynamoDB stream record the stream would carry, checked against the pipe's filter,
 * and turned into the message the pipe's input template and SQS parameters would send.
 */

export interface PipeSpec {
  /** `FilterCriteria.Filters[].Pattern`, parsed. */
  readonly patterns: unknown[];
  readonly inputTemplate?: string;
  readonly messageGroupId?: string;
  readonly deduplicationId?: string;
}

export function pipeSpec(properties: Record<string, any> | undefined): PipeSpec | undefined {
  if (!properties) return undefined;
  const filters = (properties.SourceParameters?.FilterCriteria?.Filters ?? []) as Array<{ Pattern?: string }>;
  const sqs = properties.TargetParameters?.SqsQueueParameters ?? {};
  return {
    patterns: filters.map((f) => (typeof f.Pattern === 'string' ? JSON.parse(f.Pattern) : f.Pattern)),
    inputTemplate: properties.TargetParameters?.InputTemplate,
    messageGroupId: sqs.MessageGroupId,
    deduplicationId: sqs.MessageDeduplicationId,
  };
}

/** Attributes a decision adds (the old image lacks them). */
const DECISION_ATTRIBUTES = ['decision', 'decidedBy', 'decidedAt', 'reason', 'decidedFingerprint'];

/** The stream record (`NEW_AND_OLD_IMAGES`) of the write that decided `item` (DynamoDB JSON). */
export function decisionStreamRecord(item: Record<string, unknown>, keyNames: readonly string[]): Record<string, unknown> {
  const oldImage = Object.fromEntries(Object.entries(item).filter(([name]) => !DECISION_ATTRIBUTES.includes(name)));
  return {
    eventID: `local-${Date.now()}`,
    eventName: 'MODIFY',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    dynamodb: {
      ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
      Keys: Object.fromEntries(keyNames.map((k) => [k, item[k]])),
      NewImage: item,
      OldImage: oldImage,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}

/** Whether `event` matches any of the patterns (none: everything matches). */
export function matchesAny(patterns: readonly unknown[], event: unknown): boolean {
  return patterns.length === 0 || patterns.some((p) => matches(p, event));
}

/**
 * EventBridge's pattern semantics for what the pipe's filter uses: objects nest, arrays list the
 * accepted values (literals, `prefix`, `exists`, `anything-but` of literals), `exists` tests leaves.
 */
export function matches(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) {
    if (value === undefined) return pattern.some(isExistsFalse);
    return pattern.some((rule) => matchRule(rule, value));
  }
  if (pattern && typeof pattern === 'object') {
    const object = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    return Object.entries(pattern as Record<string, unknown>).every(([key, sub]) => matches(sub, object?.[key]));
  }
  return false;
}

function isExistsFalse(rule: unknown): boolean {
  return !!rule && typeof rule === 'object' && (rule as { exists?: unknown }).exists === false;
}

function matchRule(rule: unknown, value: unknown): boolean {
  const leaves = Array.isArray(value) ? value : [value];
  if (rule && typeof rule === 'object') {
    const r = rule as Record<string, unknown>;
    if ('exists' in r) return r.exists === true ? value !== undefined && (typeof value !== 'object' || value === null) : value === undefined;
    if ('prefix' in r) return leaves.some((v) => typeof v === 'string' && v.startsWith(String(r.prefix)));
    if ('anything-but' in r) {
      const excluded = Array.isArray(r['anything-but']) ? r['anything-but'] : [r['anything-but']];
      return leaves.some((v) => !excluded.includes(v));
    }
    return false;
  }
  return leaves.some((v) => v === rule);
}

/** The value at a `$.a.b.c` path. */
export function atPath(value: unknown, jsonPath: string): unknown {
  const parts = jsonPath.replace(/^\$\.?/, '').split('.').filter(Boolean);
  let current: unknown = value;
  for (const part of parts) current = current && typeof current === 'object' ? (current as Record<string, unknown>)[part] : undefined;
  return current;
}

/**
 * The input template applied to `record`: each `<$.path>` is replaced by the value there (a string
 * inside quotes is inserted as its text, as Pipes does for JSON templates).
 */
export function renderTemplate(template: string, record: unknown): string {
  return template.replace(/<(\$[^>]*)>/g, (_, jsonPath: string) => {
    const value = atPath(record, jsonPath);
    if (typeof value === 'string') return JSON.stringify(value).slice(1, -1);
    return JSON.stringify(value ?? null);
  });
}

/** What the pipe would put on the queue for this decision, or why nothing. */
export function resumeMessage(
  spec: PipeSpec | undefined,
  item: Record<string, unknown>,
  keyNames: readonly string[],
): { body: string; groupId?: string; deduplicationId?: string; via: 'pipe' | 'fallback' } | { skipped: string } {
  const approvalId = (item.approvalId as { S?: string } | undefined)?.S ?? '';
  if (!spec || !spec.inputTemplate) return { body: JSON.stringify({ approval_id: approvalId }), via: 'fallback' };
  const record = decisionStreamRecord(item, keyNames);
  if (!matchesAny(spec.patterns, record)) return { skipped: "the pipe's filter does not match this decision" };
  const at = (p: string | undefined) => (p === undefined ? undefined : String(p.startsWith('$') ? atPath(record, p) : p));
  return {
    body: renderTemplate(spec.inputTemplate, record),
    groupId: at(spec.messageGroupId),
    deduplicationId: at(spec.deduplicationId),
    via: 'pipe',
  };
}
