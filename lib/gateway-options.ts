/**
 * Options of `ToolHandler.addToGateway`.
 */
export interface AddToGatewayOptions {
  /**
   * The gateway target's name: the `<target>` of the `<target>___<tool>` names that MCP clients see.
   * Valid characters are a-z, A-Z, 0-9, _ and -.
   *
   * @default - the ToolHandler's construct id, with any other character replaced by `-`
   */
  readonly gatewayTargetName?: string;

  /**
   * A description of the gateway target.
   *
   * @default - no description
   */
  readonly description?: string;
}
