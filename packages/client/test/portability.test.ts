// The client must run wherever fetch runs (Node, Bun, Deno, browsers): no Node built-in may
// reach its bundle, and `process` may only be read through the one guarded helper.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readEnvironmentVariable } from "../src/internal/env.ts";

const packageRoot = fileURLToPath(new URL("..", import.meta.url));

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

const builtins =
  /from\s+["'](node:[^"']+|fs|path|os|http|https|util|crypto|stream|events|net|buffer|url)["']|import\(\s*["']node:/;

describe("portability", () => {
  it("imports no Node built-in anywhere in its sources", () => {
    const offenders = sourceFiles(join(packageRoot, "src")).filter((file) => builtins.test(readFileSync(file, "utf8")));
    expect(offenders.map((file) => relative(packageRoot, file))).toEqual([]);
  });

  it("reads process only through the guarded environment helper", () => {
    const offenders = sourceFiles(join(packageRoot, "src"))
      .filter((file) => !file.endsWith(join("internal", "env.ts")))
      .filter((file) => /\bprocess\s*[.?[]/.test(readFileSync(file, "utf8").replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, "")));
    expect(offenders.map((file) => relative(packageRoot, file))).toEqual([]);
  });

  it("reads the environment as undefined, without throwing, where there is no process", () => {
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, "process");
    if (!descriptor) throw new Error("expected Node to define globalThis.process");
    // Synchronously, so nothing else runs while Node's `process` is hidden.
    Object.defineProperty(globalThis, "process", { value: undefined, configurable: true, writable: true });
    let value: string | undefined;
    try {
      value = readEnvironmentVariable("SDS_API_KEY");
    } finally {
      Object.defineProperty(globalThis, "process", descriptor);
    }
    expect(value).toBeUndefined();
    expect(globalThis.process.env).toBeDefined();
  });
});
