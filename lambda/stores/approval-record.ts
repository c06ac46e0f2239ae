/**
 * The approval record, defined once: each field it keeps, the table attribute that holds it and in
 * what form, and the name the approvals API shows it under. A new approval (both stores), the table
 * item (dynamo-items.ts), the engine's wire form (the record itself, as JSON) and the API's view
 * (approvals/api-record.ts) all derive from `APPROVAL_FIELDS`: a new field is an entry here, in the
 * record's type and, when a call sets it, in `CreateApprovalInput`.
 */
import { requesterView } from '../caller';
import { APPROVAL_ATTRIBUTES as A, DECISION_ATTRIBUTES as D, TABLE } from '../names';
import type { ApprovalRecord, CreateApprovalInput } from './types';

/**
 * How a field is held in the table: `text`, `number`, `json` (the value as JSON text) or `seconds`
 * (epoch seconds in the table, epoch ms in the record: `expiresAt` is the table's TTL-style time).
 */
type Form = 'text' | 'number' | 'json' | 'seconds';

export interface FieldSpec {
  readonly attribute: string;
  readonly form: Form;
  /** The API record's name for it (its times as ISO 8601). @default - not shown by the API */
  readonly api?: string;
  /** What the API shows of it. @default - the value itself (a time: ISO 8601) */
  readonly view?: (value: never) => unknown;
  /** Set when the approval is created (from the call); the others come with the decision, the claim or the run. */
  readonly atCreate?: true;
}

/** Fields the table stores; `status` and `hasResult` are derived from them. */
type StoredField = Exclude<keyof ApprovalRecord, 'status' | 'hasResult'>;

export const APPROVAL_FIELDS: Readonly<Record<StoredField, FieldSpec>> = {
  approvalId: { attribute: A.approvalId, form: 'text', api: 'approval_id', atCreate: true },
  tool: { attribute: A.tool, form: 'text', api: 'tool', atCreate: true },
  args: { attribute: A.args, form: 'json', api: 'args', atCreate: true },
  runId: { attribute: A.runId, form: 'text', api: 'run_id', atCreate: true },
  callId: { attribute: A.callId, form: 'text', api: 'call_id', atCreate: true },
  // The API shows its own hash of the stored tool and args, not this one (api-record.ts).
  fingerprint: { attribute: A.fingerprint, form: 'text', atCreate: true },
  owner: { attribute: A.owner, form: 'text', atCreate: true },
  requestedBy: { attribute: A.requestedBy, form: 'json', api: 'requested_by', atCreate: true, view: requesterView },
  createdAt: { attribute: A.createdAt, form: 'number', api: 'created_at', atCreate: true },
  expiresAt: { attribute: TABLE.expiresAttribute, form: 'seconds', api: 'expires_at', atCreate: true },
  decidedBy: { attribute: D.decidedBy, form: 'text', api: 'decided_by' },
  decidedAt: { attribute: D.decidedAt, form: 'number', api: 'decided_at' },
  reason: { attribute: D.reason, form: 'text', api: 'reason' },
  decidedFingerprint: { attribute: D.decidedFingerprint, form: 'text' },
  claimedUntil: { attribute: A.claimedUntil, form: 'number' },
  completedAt: { attribute: A.completedAt, form: 'number' },
  expiredAt: { attribute: A.expiredAt, form: 'number' },
  result: { attribute: A.result, form: 'json' },
};

/** The fields a record has, with their specs, in the order above. */
export function approvalFields(): ReadonlyArray<readonly [StoredField, FieldSpec]> {
  return Object.entries(APPROVAL_FIELDS) as Array<[StoredField, FieldSpec]>;
}

/** A pending approval as both stores create it, from the call's input. */
export function newApprovalRecord(input: CreateApprovalInput, owner: string, createdAt: number, ttlMs: number): ApprovalRecord {
  return {
    approvalId: input.approvalId,
    tool: input.tool,
    args: structuredClone(input.args),
    runId: input.runId,
    callId: input.callId,
    fingerprint: input.fingerprint,
    owner,
    ...(input.requestedBy === undefined ? {} : { requestedBy: input.requestedBy }),
    status: 'pending',
    createdAt,
    expiresAt: createdAt + ttlMs,
    hasResult: false,
  };
}

/** A record field's value as the table holds it. */
export function toAttribute(form: Form, value: unknown): string | number {
  switch (form) {
    case 'json':
      return JSON.stringify(value);
    case 'seconds':
      return Math.ceil((value as number) / 1000);
    case 'number':
      return value as number;
    default:
      return String(value);
  }
}

/** A table attribute's value as the record holds it. */
export function fromAttribute(form: Form, value: unknown): unknown {
  switch (form) {
    case 'json':
      return JSON.parse(String(value)) as unknown;
    case 'seconds':
      return Number(value) * 1000;
    case 'number':
      return Number(value);
    default:
      return String(value);
  }
}
