/**
 * `--approve`'s values (local/calls.ts). A module of its own, importing nothing, so that the CLI's
 * argument parsing (cli/local-args.ts) checks them without loading the local run's code.
 */
export const APPROVE_MODES = ['all', 'none'] as const;
export type ApproveMode = (typeof APPROVE_MODES)[number];
