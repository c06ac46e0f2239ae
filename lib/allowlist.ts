import { fail } from './errors';
import { ToolHandlerProps } from './tool-handler-props';

/** The allowlist of `props`: `allowedTools`, or its old name `tools`; exactly one of them. */
export function allowlistOf(props: Pick<ToolHandlerProps, 'allowedTools' | 'tools'>): string[] {
  if (props.allowedTools !== undefined && props.tools !== undefined) {
    fail('Pass the allowlist as `allowedTools` only: `tools` is its old name, got both.');
  }
  const list = props.allowedTools ?? props.tools;
  if (list === undefined) fail('`allowedTools` must name the tools the function may run, got: none. Add `allowedTools: [\'add\', ...]`.');
  return list;
}

/** The prop the allowlist came in, for the errors about it. */
export function allowlistProp(props: Pick<ToolHandlerProps, 'allowedTools' | 'tools'>): 'allowedTools' | 'tools' {
  return props.allowedTools === undefined && props.tools !== undefined ? 'tools' : 'allowedTools';
}
