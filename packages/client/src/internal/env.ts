/**
 * Reads an environment variable where the runtime has an environment (Node, Bun, Deno with
 * `process`); `undefined` in browsers, and in Deno without `--allow-env` (where reading throws).
 * Empty values count as unset.
 */
export function readEnvironmentVariable(name: string): string | undefined {
  try {
    // Typed loosely on purpose: Node's types say `process` always exists, browsers disagree.
    const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
    return value === undefined || value === "" ? undefined : value;
  } catch {
    return undefined;
  }
}
