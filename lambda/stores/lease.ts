/**
 * The call lease's rules, shared by both stores: until when it holds against other deliveries, and
 * what it answers a delivery that finds it.
 */
import type { BeginInput } from './types';

/** Until when a lease holds against other deliveries (`BeginInput.heldUntil`). */
export function heldUntil(input: BeginInput, itemExpiry: number): number {
  const held = input.heldUntil ?? (input.heldBy !== undefined ? itemExpiry : input.leaseUntil);
  return Math.max(input.leaseUntil, held);
}

/** A lease as the stores keep it. */
export interface Lease {
  readonly leaseUntil: number;
  readonly heldUntil: number;
  /** The holder's SQS message, if any. */
  readonly heldBy?: string;
}

/**
 * A live lease's answer to another delivery: `held` while the lease holds against it (never for a
 * copy of the holder's own SQS message), `in_progress` while the holder's invocation runs,
 * `undefined` once it may be taken over.
 */
export function leaseAnswer(lease: Lease, delivery: BeginInput, now: number): 'held' | 'in_progress' | undefined {
  const sameMessage = lease.heldBy !== undefined && lease.heldBy === delivery.heldBy;
  if (!sameMessage && lease.heldUntil > now && lease.heldUntil > lease.leaseUntil) return 'held';
  return lease.leaseUntil > now ? 'in_progress' : undefined;
}
