/**
 * The approval record, defined once: each field it keeps (the table item's attribute of the same
 * name), in what form the table holds it, whether it is set at creation, and whether the approvals
 * API shows it (under its snake_case name). A new approval (both stores), the table item
 * (dynamo-items.ts), the engine's wire form (the record itself, as JSON) and the API's view
 * (approvals/api-record.ts) all derive from it (`approvalFields`): a new field is an entry here, in
 * the record's type and, when a call sets it, in `CreateApprovalInput`.
 */
import { requesterView } from '../caller';
import type { ApprovalRecord, CreateApprovalInput } from './types';

/**
 * How a field is held in the table: `text`, `number`, `json` (the value as JSON text) or `seconds`
 * (epoch seconds in the table, epoch ms in the record: `expiresAt` is the table's TTL-style time).
 */
type Form = 'text' | 'number' | 'json' | 'seconds';

export interface FieldSpec {
  readonly form: Form;
  /** The approvals API shows it, under its snake_case name (a time as ISO 8601). @default false */
  readonly api?: true;
  /** What the API shows of it. @default - the value itself */
  readonly view?: (value: never) => unknown;
  /** Set when the approval is created (from the call); the others come with the decision, the claim or the run. */
  readonly atCreate?: true;
}

/** Fields the table stores; `status` and `hasResult` are derived from them. */
type StoredField = Exclude<keyof ApprovalRecord, 'status' | 'hasResult'>;

/** Each name is the table attribute's too (construct-contract.ts spells the attributes for IAM's conditions; a test holds them equal). */
const APPROVAL_FIELDS: Readonly<Record<StoredField, FieldSpec>> = {
  approvalId: { form: 'text', api: true, atCreate: true },
  tool: { form: 'text', api: true, atCreate: true },
  args: { form: 'json', api: true, atCreate: true },
  runId: { form: 'text', api: true, atCreate: true },
  callId: { form: 'text', api: true, atCreate: true },
  // The API shows its own hash of the stored tool and args, not this one (api-record.ts).
  fingerprint: { form: 'text', atCreate: true },
  owner: { form: 'text', atCreate: true },
  requestedBy: { form: 'json', api: true, atCreate: true, view: requesterView },
  // Only the kind: the token is kept apart (stores/dynamo-flows.ts), where approvers never read.
  flow: { form: 'text', atCreate: true },
  trace: { form: 'json', atCreate: true },
  createdAt: { form: 'number', api: true, atCreate: true },
  expiresAt: { form: 'seconds', api: true, atCreate: true },
  decidedBy: { form: 'text', api: true },
  decidedAt: { form: 'number', api: true },
  reason: { form: 'text', api: true },
  decidedFingerprint: { form: 'text' },
  claimedUntil: { form: 'number' },
  completedAt: { form: 'number' },
  expiredAt: { form: 'number' },
  result: { form: 'json' },
};

/** The fields a record has, with their specs, in the order above (the API's). */
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
    ...(input.flow === undefined ? {} : { flow: input.flow }),
    ...(input.trace === undefined ? {} : { trace: input.trace }),
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
