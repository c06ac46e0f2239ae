import { IConstruct } from 'constructs';

/**
 * Synth errors, one style for all of them: the path of the construct they concern, then what is
 * wrong (`Stack/Tools: \`margin\` must be shorter than \`timeout\`, got: ...`). The message names
 * the prop, says what it got and what it needs.
 *
 * `ValidationError` of aws-cdk-lib is internal (its constructor takes a branded literal), so these
 * are plain `Error`s that name `scope.node.path` themselves, as the AWS CDK guidelines ask of a
 * third-party construct.
 */

/** `message` as a synth error names it: after the path of its construct. */
export function messageAt(path: string, message: string): string {
  return `${path}: ${message}`;
}

/** Throws `message` for the construct at `path` (one that may not exist yet). */
export function failAt(path: string, message: string): never {
  throw new Error(messageAt(path, message));
}

/**
 * Throws `message` for `scope`. Without a scope (a check that does not know its construct), the
 * error gets its path from the nearest `atPath` around it.
 */
export function fail(message: string, scope?: IConstruct): never {
  if (scope) failAt(scope.node.path, message);
  throw new PropsError(message);
}

/** Runs checks that do not know their construct; an error they `fail` with gets the construct's path in front. */
export function atPath<T>(scope: IConstruct, checks: () => T): T {
  try {
    return checks();
  } catch (error) {
    if (error instanceof PropsError) fail(error.message, scope);
    throw error;
  }
}

/** A failed check not yet named by its construct path (see `atPath`). */
class PropsError extends Error {}
