/**
 * Stands in for the construct's resume path (docs/approvals.md): the approvals table's stream into one
 * EventBridge pipe per table, whose input template puts `{ approval_id, owner }` on the resume bus,
 * where each handler's rule matches its owner and sends the resume envelope to its queue. After a
 * decision, the decided item is made into the DynamoDB stream record the stream would carry,
 * checked against the pipe's filter, turned into the event the pipe's template and bus parameters
 * would put, matched against the handler's rule, and made into the message its input transformer
 * and SQS parameters would send. (A pipe that targets the queue itself, as earlier versions made,
 * is followed too.)
 */
import { compileEventPattern, type EventMatcher } from './event-pattern';
import { atPath, renderInput, type InputTransformer } from './rule-input';

export interface PipeSpec {
  /** `FilterCriteria.Filters[].Pattern`, parsed and compiled. */
  readonly filters: readonly EventMatcher[];
  readonly inputTemplate?: string;
  readonly messageGroupId?: string;
  readonly deduplicationId?: string;
  /** When the pipe targets an event bus: the events' `source` and `detail-type`. */
  readonly busEvent?: { readonly source: string; readonly detailType: string };
}

/** The handler's rule on the resume bus, and its target's input. */
export interface ResumeRuleSpec {
  /** The rule's `EventPattern`, compiled. */
  readonly matches: EventMatcher;
  readonly input?: InputTransformer;
  readonly messageGroupId?: string;
}

/** The pipe's parts that the stand-in follows; a filter it could not evaluate is refused here (`EventPatternError`). */
export function pipeSpec(properties: Record<string, any> | undefined): PipeSpec | undefined {
  if (!properties) return undefined;
  const filters = (properties.SourceParameters?.FilterCriteria?.Filters ?? []) as Array<{ Pattern?: string }>;
  const patterns = filters.map((f) => (typeof f.Pattern === 'string' ? JSON.parse(f.Pattern) : f.Pattern));
  const compiled = patterns.map((pattern) => compileEventPattern(pattern));
  const sqs = properties.TargetParameters?.SqsQueueParameters ?? {};
  const bus = properties.TargetParameters?.EventBridgeEventBusParameters;
  return {
    filters: compiled,
    inputTemplate: properties.TargetParameters?.InputTemplate,
    messageGroupId: sqs.MessageGroupId,
    deduplicationId: sqs.MessageDeduplicationId,
    ...(bus ? { busEvent: { source: String(bus.Source), detailType: String(bus.DetailType) } } : {}),
  };
}

/** The rule's pattern and the input of its target on the queue; a pattern it could not evaluate is refused here. */
export function resumeRuleSpec(properties: Record<string, any> | undefined, target: Record<string, any> | undefined): ResumeRuleSpec | undefined {
  if (!properties || !target) return undefined;
  const transformer = target.InputTransformer as { InputPathsMap?: Record<string, string>; InputTemplate?: string } | undefined;
  const matches = compileEventPattern(properties.EventPattern ?? {});
  return {
    matches,
    ...(transformer ? { input: { paths: transformer.InputPathsMap ?? {}, template: String(transformer.InputTemplate ?? '') } } : {}),
    messageGroupId: target.SqsParameters?.MessageGroupId,
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

/** Whether `event` passes the pipe's filters: any of them matches (no filter: everything passes). */
export function matchesAny(filters: readonly EventMatcher[], event: unknown): boolean {
  return filters.length === 0 || filters.some((matches) => matches(event));
}

/**
 * The pipe's input template applied to `record`: each `<$.path>` is replaced by the value there (a
 * string inside quotes is inserted as its text, as Pipes does for JSON templates).
 */
export function renderInputTemplate(template: string, record: unknown): string {
  return template.replace(/<(\$[^>]*)>/g, (_, jsonPath: string) => {
    const value = atPath(record, jsonPath);
    if (typeof value === 'string') return JSON.stringify(value).slice(1, -1);
    return JSON.stringify(value ?? null);
  });
}

/** What the resume path would put on the queue for this decision, or why nothing. */
export function resumeMessage(
  spec: PipeSpec | undefined,
  item: Record<string, unknown>,
  keyNames: readonly string[],
  rule?: ResumeRuleSpec,
): { body: string; groupId?: string; deduplicationId?: string; via: 'pipe' | 'fallback' } | { skipped: string } {
  const approvalId = (item.approvalId as { S?: string } | undefined)?.S ?? '';
  if (!spec || !spec.inputTemplate) return { body: JSON.stringify({ approval_id: approvalId }), via: 'fallback' };
  const record = decisionStreamRecord(item, keyNames);
  if (!matchesAny(spec.filters, record)) return { skipped: "the pipe's filter does not match this decision" };
  const rendered = renderInputTemplate(spec.inputTemplate, record);
  if (spec.busEvent) {
    if (!rule) return { skipped: 'no rule of this handler on the resume bus' };
    let detail: unknown;
    try {
      detail = JSON.parse(rendered);
    } catch {
      return { skipped: `the pipe's input template does not make JSON: ${rendered}` };
    }
    const event = { version: '0', id: 'local', 'detail-type': spec.busEvent.detailType, source: spec.busEvent.source, detail };
    if (!rule.matches(event)) return { skipped: "the handler's resume rule does not match this decision (another owner's)" };
    return { body: rule.input ? renderInput(rule.input, event) : JSON.stringify(event), groupId: rule.messageGroupId, via: 'pipe' };
  }
  const at = (p: string | undefined) => (p === undefined ? undefined : String(p.startsWith('$') ? atPath(record, p) : p));
  return { body: rendered, groupId: at(spec.messageGroupId), deduplicationId: at(spec.deduplicationId), via: 'pipe' };
}
