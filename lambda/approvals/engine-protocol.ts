/**
 * What the handler sends the approvals engine and what comes back: one JSON object each way, over a
 * request-response Lambda invoke. Failures come back as `{ ok: false, error }`, never thrown, so the
 * error and its `retryable` survive the trip.
 */
import * as z from 'zod';
import { TOOL_NAME_PATTERN } from '../construct-contract';
import type { ApprovalRecord } from '../stores/types';
import type { WireError } from './wire-errors';

const id = z.string().min(1).max(1024);

/** Whom the asking call acts for, as the handler's host proved it (the engine stores it as given). */
const caller = z.strictObject({
  id,
  kind: z.enum(['iam', 'user']),
  source: z.string().min(1).max(64),
  verified: z.boolean(),
  issuer: z.string().min(1).max(2048).optional(),
  claims: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
});

export const engineRequestSchema = z.discriminatedUnion('op', [
  z.strictObject({
    op: z.literal('create'),
    tool: z.string().regex(TOOL_NAME_PATTERN),
    args: z.record(z.string(), z.unknown()),
    run_id: id,
    call_id: id,
    requested_by: caller.optional(),
    /** The kind of the flow that waits for the call; its token never travels to the engine. */
    flow: z.enum(['sfn', 'durable']).optional(),
    /** The trace the call continues, as the handler read it (trace.ts). */
    trace: z
      .strictObject({
        traceparent: z.string().regex(/^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/),
        tracestate: z.string().max(512).optional(),
        traceId: z.string().regex(/^[0-9a-f]{32}$/),
      })
      .optional(),
  }),
  z.strictObject({
    op: z.literal('claim'),
    approval_id: id,
    token: z.string().min(1).max(128),
    until: z.number().finite(),
    tools: z.array(z.string().regex(TOOL_NAME_PATTERN)).optional(),
    run_id_prefix: z.string().min(1).max(64).optional(),
    /** Only an approval this caller's call asked for (`null`: one without a caller) may be claimed. */
    requested_by: id.nullable().optional(),
  }),
  z.strictObject({ op: z.literal('release'), approval_id: id, token: z.string().min(1).max(128) }),
  z.strictObject({ op: z.literal('complete'), approval_id: id, token: z.string().min(1).max(128), result: z.unknown() }),
]);

export type EngineRequest = z.infer<typeof engineRequestSchema>;

export type EngineResponse =
  | { readonly ok: true; readonly created?: boolean; readonly claimed?: boolean; readonly record?: ApprovalRecord }
  | { readonly ok: false; readonly error: WireError };
