/** Options every command takes (`parseArgs` definitions). */
export const COMMON_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  stack: { type: 'string' },
  json: { type: 'boolean' },
} as const;
