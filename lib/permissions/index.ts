/**
 * Who may do what, in one place: every hand-written IAM statement of the construct is made here,
 * one file per principal. Every grant on the approvals table reaches one owner's items only: item
 * keys carry the owner (`call#<owner>#...`, `approval#<owner>#...`) and index reads are Queries of
 * the owner's partition, so `dynamodb:LeadingKeys` walls owners off from each other
 * (`conditions.ts`).
 *
 * - The tool handler (`handler.ts`; whose role every user tool runs with) writes its owner's call
 *   items and nothing else: no approval item, no index, no stream, no other owner's call, and no
 *   invoke of any approvals API, expirer, or another owner's engine. Explicit Denies keep that true
 *   even if the role is later given the whole table or `lambda:InvokeFunction` on `*`. It invokes
 *   its own engine, consumes its queue, encrypts and decrypts with the table's key, and puts its
 *   replies on the reply bus (`reply-bus.ts`).
 * - The approvals engine (`engine.ts`) reads and writes its owner's approval items only.
 * - The approvals API (`api.ts`) reads its owner's approval items and indexes, and writes decisions.
 * - The expirer (`expirer.ts`) reads its owner's pending index, marks expiries, and puts
 *   `Tool Approval Expired` on the reply bus.
 * - Every role of an owner (`walls.ts`) carries the owner's tag and may neither invoke another
 *   owner's functions (its handler, its engine, its API, its expirer) nor put another owner's reply
 *   events, even after it is given `lambda:*` or `events:*` on `*`.
 * - The reply bus (`reply-bus.ts`, its resource policy): nobody but the handler's and the expirer's
 *   roles (by their tag) may put events with a reply source (`cdk-tool-handler.<owner>`), and each
 *   only with its own owner's.
 * - The resume pipe's role (`resume-pipe.ts`) reads the table's stream, puts on the resume bus and
 *   on its dead-letter queue; the resume bus takes events from that role only.
 * - The expiry schedule's role invokes the expirer (`callers.ts`, `invokeFunctionStatement`).
 * - EventBridge (`event-bridge.ts`) may send to the construct's queues, and use a customer managed
 *   key of this app for them, for the construct's own rules only (`aws:SourceArn`).
 * - Callers (`callers.ts`, `grantInvoke`) invoke the handler function itself; senders
 *   (`grantSendToolCalls`) send to its queue; approvers (`grantApprove`) reach the approvals API
 *   through its function URL only (aws-cdk-lib's `grantInvokeUrl`).
 * - Readers (`readers.ts`, `grantReadApprovals`) read the owner's approval items and indexes:
 *   read-only.
 * - A gateway's caller proofs (`caller-proofs.ts`): only its interceptor's role signs with the key
 *   (the key's own policy denies `kms:Sign` to every other principal); each handler added with
 *   `callerIdentity` reads the key's public half and nothing else of it.
 * - The audit archive (`audit.ts`): Firehose's role writes objects under the owner's archive
 *   prefixes and deletes nothing; CloudWatch Logs' role puts records on the archive's stream only;
 *   audit readers (`grantReadAudit`) read the audit log groups and find them in the stack: read-only.
 *
 * Each function's role also writes its own log group, and each role of a function that reads or
 * writes encrypted data gets that key, through aws-cdk-lib's one-line grants where the log group,
 * queue or key meets the function.
 */
export * from './api';
export * from './callers';
export * from './engine';
export * from './event-bridge';
export * from './expirer';
export * from './handler';
export { grantReadApprovals } from './readers';
export * from './reply-bus';
export * from './resume-pipe';
export * from './walls';
