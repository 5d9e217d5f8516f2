import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (this file is tooling/release/src/workspace.ts). */
export const repoRoot = resolve(fileURLToPath(new URL("../../..", import.meta.url)));

/** One package of the pnpm workspace that is published to the registry. */
export interface PublicPackage {
  readonly name: string;
  readonly version: string;
  /** Absolute directory. */
  readonly dir: string;
  /** Directory relative to the repository root, with forward slashes (`packages/client`). */
  readonly relativeDir: string;
  /** Whether it ships type declarations (a library) rather than only a binary. */
  readonly hasTypes: boolean;
}

interface WorkspaceListEntry {
  readonly name: string;
  readonly version?: string;
  readonly path: string;
  readonly private: boolean;
}

/**
 * Every public package of the workspace, as pnpm itself lists them: a package added under
 * `packages/`, `apps/` or `tooling/` is picked up with no list to edit.
 */
export function listPublicPackages(root = repoRoot): PublicPackage[] {
  const output = execFileSync("pnpm", ["-r", "ls", "--json", "--depth=-1"], { cwd: root, encoding: "utf8" });
  const entries = JSON.parse(output) as WorkspaceListEntry[];
  return entries
    .filter((entry) => !entry.private && resolve(entry.path) !== resolve(root))
    .map((entry) => {
      const manifest = readManifest(entry.path);
      return {
        name: entry.name,
        version: entry.version ?? "0.0.0",
        dir: entry.path,
        relativeDir: relative(root, entry.path).split("\\").join("/"),
        hasTypes: typeof manifest["types"] === "string",
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** A parsed package.json. */
export type Manifest = Record<string, unknown>;

/** Reads `dir/package.json`. */
export function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(resolve(dir, "package.json"), "utf8")) as Manifest;
}
