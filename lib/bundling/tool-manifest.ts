/**
 * One tool of the tools module, as the construct read it from the bundle at synth.
 */
export interface ToolManifestEntry {
  /** The tool's name. */
  readonly name: string;

  /**
   * The tool's description.
   *
   * @default - the tool has none
   */
  readonly description?: string;

  /** The tool's input JSON Schema (zod 4's `z.toJSONSchema`, input side), as JSON text. */
  readonly inputSchema: string;

  /** Whether a call needs approval: `always`, `never`, or `depends` (a predicate over the args). */
  readonly approval: string;

  /** Whether the tool is read-only (never duplicate-suppressed). */
  readonly readOnly: boolean;
}
