/**
 * What `local` prints: short lines for a person, or JSON lines (`--json`) for machines. Every value
 * that comes from a call, a function or a record is escaped as the CLI escapes what it prints
 * (control and format characters written visibly, console/escape.ts).
 */
import { formatAuditRecord, type AuditRecord } from '../console/audit-record';
import { escapeJson, escapeText as t } from '../console/escape';
import { REPLY_SOURCE_ROOT } from '../lambda/construct-contract';
import { REPLY_DETAIL_TYPES } from '../lambda/reply-bus';
import type { BusEvent } from './endpoints';

export type LocalLine =
  | { readonly type: 'info'; readonly message: string }
  /** The demo's progress. */
  | { readonly type: 'step'; readonly message: string }
  | { readonly type: 'ready'; readonly api_url?: string; readonly inbox_url?: string; readonly stack: string; readonly functions: Record<string, string> }
  | { readonly type: 'call'; readonly envelope: unknown; readonly via: 'sqs' | 'direct' }
  /** `shown`: a direct invoke's reply that the reply bus's line already showed (people see it once; --json keeps both). */
  | { readonly type: 'reply'; readonly reply: any; readonly via: 'bus' | 'direct'; readonly detail_type?: string; readonly shown?: true }
  | { readonly type: 'event'; readonly bus: string; readonly source: string; readonly detail_type: string; readonly detail: any }
  | { readonly type: 'failed'; readonly message_id: string; readonly note: string }
  | { readonly type: 'thrown'; readonly error: { errorType: string; errorMessage: string }; readonly shown?: true }
  | { readonly type: 'decision'; readonly approval_id: string; readonly status: string; readonly decided_by?: string }
  | { readonly type: 'resume'; readonly approval_id: string; readonly body: string; readonly via: 'pipe' | 'fallback' | 'skipped'; readonly note?: string }
  | { readonly type: 'log'; readonly function: string; readonly line: string }
  /** An audit record a function wrote (docs/operations.md, "Audit records"), as written. */
  | { readonly type: 'audit'; readonly function: string; readonly record: AuditRecord }
  | { readonly type: 'notification'; readonly topic: string; readonly message: string };

/**
 * An envelope as `local` shows it: a `reply_to`'s task token or callback id is a credential, shown
 * only as hidden (the envelope itself travels unchanged).
 */
export function shownEnvelope(envelope: unknown): unknown {
  if (!envelope || typeof envelope !== 'object' || Array.isArray(envelope)) return envelope;
  const { reply_to: replyTo, ...rest } = envelope as Record<string, unknown>;
  if (replyTo === undefined) return envelope;
  const kind = (replyTo as { kind?: unknown } | null)?.kind;
  return { ...rest, reply_to: { kind: typeof kind === 'string' ? kind : '?', hidden: true } };
}

/** The reply bus's detail types that carry a reply, as the handler publishes them. */
const REPLY_CARRYING = new Set<string>(Object.values(REPLY_DETAIL_TYPES));

export function busLine(event: BusEvent): LocalLine {
  if (event.source.startsWith(`${REPLY_SOURCE_ROOT}.`) && REPLY_CARRYING.has(event.detailType)) {
    return { type: 'reply', reply: event.detail, via: 'bus', detail_type: event.detailType };
  }
  return { type: 'event', bus: event.bus, source: event.source, detail_type: event.detailType, detail: event.detail };
}

/** Whether people need `line`: not a direct reply that the reply bus's line already showed. */
export function isNews(line: LocalLine): boolean {
  return !((line.type === 'reply' || line.type === 'thrown') && line.shown);
}

/**
 * Whether the reply bus's event `event` carried the outcome of a direct invoke: the same reply, or
 * the error reply of the error it threw.
 */
export function busCarried(event: BusEvent, outcome: { ok: true; result: any } | { ok: false; error: { errorType: string; errorMessage: string } }): boolean {
  const line = busLine(event);
  if (line.type !== 'reply') return false;
  const carried = line.reply ?? {};
  if (outcome.ok) {
    const reply = outcome.result ?? {};
    return carried.status === reply.status && carried.run_id === reply.run_id && carried.call_id === reply.call_id;
  }
  return carried.status === 'error' && carried.error?.type === outcome.error.errorType && carried.error?.message === outcome.error.errorMessage;
}

export function formatLine(line: LocalLine): string {
  switch (line.type) {
    case 'info':
    case 'step':
      return line.message;
    case 'ready':
      return `ready: stack ${t(line.stack)}${line.api_url ? `, approvals API ${t(line.api_url)}` : ''}${line.inbox_url ? `, approvals inbox ${t(line.inbox_url)}` : ''}`;
    case 'call': {
      const e = line.envelope as { tool?: string; args?: unknown; approval_id?: string };
      if (e && typeof e === 'object' && typeof e.approval_id === 'string' && e.tool === undefined) return `→ resume ${t(e.approval_id)}`;
      return `→ call ${t(e?.tool ?? '?')} ${json(e?.args ?? {})}${line.via === 'direct' ? ' (direct)' : ''}`;
    }
    case 'reply':
      return `← ${formatReply(line.reply)}${line.detail_type ? `   [bus: ${t(line.detail_type)}]` : ''}`;
    case 'event': {
      const d = line.detail as { approval_id?: string; tool?: string };
      return `bus: ${t(line.detail_type)} ${[d?.approval_id, d?.tool].filter(Boolean).map(t).join(' ')}`.trimEnd();
    }
    case 'failed':
      return `✗ message ${t(line.message_id)} failed: ${t(line.note)}`;
    case 'thrown':
      return `← threw ${t(line.error.errorType)}: ${t(line.error.errorMessage)}`;
    case 'decision':
      return `api: ${t(line.approval_id)} ${t(line.status)}${line.decided_by ? ` by ${t(line.decided_by)}` : ''}`;
    case 'resume':
      if (line.via === 'skipped') return `pipe: no resume for ${t(line.approval_id)}: ${t(line.note)}`;
      return line.via === 'pipe'
        ? `pipe: decision on ${t(line.approval_id)} → ${t(line.body)} on the tool queue`
        : `pipe (stand-in, the stack has no pipe): decision on ${t(line.approval_id)} → ${t(line.body)} on the tool queue`;
    case 'log':
      return `log(${t(line.function)}): ${t(line.line)}`;
    case 'audit':
      return `audit: ${formatAuditRecord(line.record)}`;
    case 'notification':
      return `sns(${t(line.topic)}): ${line.message.split('\n').map(t).join('\n    ')}`;
  }
}

export function formatReply(reply: any): string {
  if (!reply || typeof reply !== 'object') return json(reply);
  const tool = t(reply.tool ?? '?');
  const approval = reply.approval_id === undefined ? undefined : t(reply.approval_id);
  switch (reply.status) {
    case 'ok':
      return `ok ${tool} result ${json(reply.result ?? null)}${approval ? ` (${approval})` : ''}`;
    case 'pending_approval':
      return `pending_approval ${tool} ${approval}${reply.expires_at ? ` (expires ${t(reply.expires_at)})` : ''}${reply.inbox_url ? ` decide at ${t(reply.inbox_url)}` : ''}`;
    case 'already_done':
      return `already_done ${tool} ${approval ?? ''} result ${json(reply.result ?? null)}`.replace('  ', ' ');
    case 'error': {
      const error = reply.error ?? {};
      return `error ${t(error.type ?? '?')} ${tool}${approval ? ` ${approval}` : ''}: ${clip(t(error.message ?? ''))}`;
    }
    default:
      return json(reply);
  }
}

/** JSON of `value`, escaped and clipped. */
function json(value: unknown): string {
  return clip(escapeJson(JSON.stringify(value) ?? 'undefined'));
}

function clip(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
