/** What `local` prints: short lines for a person, or JSON lines (`--json`) for machines. */
import type { BusEvent } from './endpoints';

export type LocalLine =
  | { readonly type: 'info'; readonly message: string }
  /** The demo's progress. */
  | { readonly type: 'step'; readonly message: string }
  | { readonly type: 'ready'; readonly api_url?: string; readonly stack: string; readonly functions: Record<string, string> }
  | { readonly type: 'call'; readonly envelope: unknown; readonly via: 'sqs' | 'direct' }
  | { readonly type: 'reply'; readonly reply: any; readonly via: 'bus' | 'direct'; readonly detail_type?: string }
  | { readonly type: 'event'; readonly bus: string; readonly source: string; readonly detail_type: string; readonly detail: any }
  | { readonly type: 'failed'; readonly message_id: string; readonly note: string }
  | { readonly type: 'thrown'; readonly error: { errorType: string; errorMessage: string } }
  | { readonly type: 'decision'; readonly approval_id: string; readonly status: string; readonly decided_by?: string }
  | { readonly type: 'resume'; readonly approval_id: string; readonly body: string; readonly via: 'pipe' | 'fallback' | 'skipped'; readonly note?: string }
  | { readonly type: 'log'; readonly function: string; readonly line: string }
  | { readonly type: 'notification'; readonly topic: string; readonly message: string };

/** Reply-bus detail types that carry a reply (SPEC §7). */
export const REPLY_DETAIL_TYPES = new Set(['Tool Call Succeeded', 'Tool Approval Requested', 'Tool Call Already Done', 'Tool Call Failed']);

export function busLine(event: BusEvent): LocalLine {
  if (event.source === 'cdk-tool-handler' && REPLY_DETAIL_TYPES.has(event.detailType)) {
    return { type: 'reply', reply: event.detail, via: 'bus', detail_type: event.detailType };
  }
  return { type: 'event', bus: event.bus, source: event.source, detail_type: event.detailType, detail: event.detail };
}

export function formatLine(line: LocalLine): string {
  switch (line.type) {
    case 'info':
    case 'step':
      return line.message;
    case 'ready':
      return `ready: stack ${line.stack}${line.api_url ? `, approvals API ${line.api_url}` : ''}`;
    case 'call': {
      const e = line.envelope as { tool?: string; args?: unknown; approval_id?: string };
      if (e && typeof e === 'object' && typeof e.approval_id === 'string' && e.tool === undefined) return `→ resume ${e.approval_id}`;
      return `→ call ${e?.tool ?? '?'} ${clip(JSON.stringify(e?.args ?? {}))}${line.via === 'direct' ? ' (direct)' : ''}`;
    }
    case 'reply':
      return `← ${formatReply(line.reply)}${line.detail_type ? `   [bus: ${line.detail_type}]` : ''}`;
    case 'event': {
      const d = line.detail as { approval_id?: string; tool?: string };
      return `bus: ${line.detail_type} ${[d?.approval_id, d?.tool].filter(Boolean).join(' ')}`.trimEnd();
    }
    case 'failed':
      return `✗ message ${line.message_id} failed: ${line.note}`;
    case 'thrown':
      return `← threw ${line.error.errorType}: ${line.error.errorMessage}`;
    case 'decision':
      return `api: ${line.approval_id} ${line.status}${line.decided_by ? ` by ${line.decided_by}` : ''}`;
    case 'resume':
      if (line.via === 'skipped') return `pipe: no resume for ${line.approval_id}: ${line.note}`;
      return line.via === 'pipe'
        ? `pipe: decision on ${line.approval_id} → ${line.body} on the tool queue`
        : `pipe (stand-in, the stack has no pipe): decision on ${line.approval_id} → ${line.body} on the tool queue`;
    case 'log':
      return `log(${line.function}): ${line.line}`;
    case 'notification':
      return `sns(${line.topic}): ${line.message.replace(/\n/g, '\n    ')}`;
  }
}

export function formatReply(reply: any): string {
  if (!reply || typeof reply !== 'object') return JSON.stringify(reply);
  const tool = reply.tool ?? '?';
  switch (reply.status) {
    case 'ok':
      return `ok ${tool} result ${clip(JSON.stringify(reply.result ?? null))}${reply.approval_id ? ` (${reply.approval_id})` : ''}`;
    case 'pending_approval':
      return `pending_approval ${tool} ${reply.approval_id}${reply.expires_at ? ` (expires ${reply.expires_at})` : ''}`;
    case 'already_done':
      return `already_done ${tool} ${reply.approval_id ?? ''} result ${clip(JSON.stringify(reply.result ?? null))}`.replace('  ', ' ');
    case 'error': {
      const error = reply.error ?? {};
      return `error ${error.type ?? '?'} ${tool}${reply.approval_id ? ` ${reply.approval_id}` : ''}: ${clip(String(error.message ?? ''))}`;
    }
    default:
      return clip(JSON.stringify(reply));
  }
}

function clip(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
