// The client must run wherever fetch runs (Node, Bun, Deno, browsers): the built bundle, what
// users install, holds no Node built-in import (test/portability.test.ts checks the sources).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const packageRoot = fileURLToPath(new URL("..", import.meta.url));

describe("portability of the build", () => {
  it("builds a bundle with no Node built-in import", () => {
    const bundle = readFileSync(join(packageRoot, "dist", "index.js"), "utf8");
    expect(bundle).not.toMatch(/from\s*["']node:|require\(["']node:/);
  });
});
