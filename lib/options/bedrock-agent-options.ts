/**
 * Options of `ToolHandler.addToBedrockAgent`.
 */
export interface AddToBedrockAgentOptions {
  /**
   * The action group's name. Bedrock accepts `([0-9a-zA-Z][_-]?){1,100}`: letters and digits, each
   * followed by at most one `_` or `-`.
   *
   * @default - the ToolHandler's construct id, with every run of other characters replaced by `_`
   */
  readonly actionGroupName?: string;

  /**
   * A description of the action group, which the agent's model reads.
   *
   * @default - no description
   */
  readonly description?: string;

  /**
   * The session attribute that names the end user: `ctx.caller` of each call is
   * `{ id: sessionAttributes[callerAttribute], kind: 'user', source: 'bedrock-agent', verified: false }`.
   * Not verified: the application that calls `InvokeAgent` sets the session attributes, so a tool
   * that needs a verified caller (`requiresCaller`) refuses these calls (docs/writing-tools.md, "Who asked").
   *
   * @default - no caller: Bedrock Agents calls reach the tools with `ctx.caller` undefined
   */
  readonly callerAttribute?: string;
}
