/** An environment: variable names to values. */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Reads an environment variable from `env` when the caller injected one, else where the runtime
 * has an environment (Node, Bun, Deno with `process`); `undefined` in browsers, and in Deno
 * without `--allow-env` (where reading throws). Empty values count as unset.
 */
export function readEnvironmentVariable(name: string, env?: Environment): string | undefined {
  try {
    // Typed loosely on purpose: Node's types say `process` always exists, browsers disagree.
    const source = env ?? (globalThis as { process?: { env?: Environment } }).process?.env;
    const value = source !== undefined && Object.hasOwn(source, name) ? source[name] : undefined;
    return value === undefined || value === "" ? undefined : value;
  } catch {
    return undefined;
  }
}
