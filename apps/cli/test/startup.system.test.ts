import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commandCatalog } from "../src/commands/registry.ts";
import { createTestHome, sdsBinary, type TestHome } from "./support/run-sds.ts";

const tracer = fileURLToPath(new URL("support/trace-module-loads.ts", import.meta.url));

/** What only running a command needs, each recognised by a string its bundled code contains. */
const runOnlyCode = {
  zod: "$ZodType",
  "the HTTP client": "EQ-PARTNER-ACCESS-KEY",
  "string-width": "RGI_Emoji",
} as const;

let home: TestHome;
beforeEach(() => {
  home = createTestHome();
});
afterEach(() => {
  home.remove();
});

/** The run-only code that `sds ARGS` loaded, by name. */
function runOnlyCodeLoaded(args: readonly string[], env: Readonly<Record<string, string>> = {}): string[] {
  const result = spawnSync(process.execPath, ["--import", tracer, sdsBinary, ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: home.path, XDG_CONFIG_HOME: home.configPath, ...env },
  });
  const files = result.stderr
    .split("\n")
    .filter((line) => line.startsWith("module-load file:"))
    .map((line) => fileURLToPath(line.slice("module-load ".length)));
  const sources = [...new Set(files)].map((file) => readFileSync(file, "utf8"));
  return Object.entries(runOnlyCode)
    .filter(([, marker]) => sources.some((source) => source.includes(marker)))
    .map(([name]) => name);
}

describe("start-up", () => {
  it("loads neither zod, the HTTP client nor string-width for the help of any command", () => {
    for (const entry of commandCatalog.entries) {
      expect(runOnlyCodeLoaded(["help", ...entry.path]), entry.path.join(" ")).toEqual([]);
      expect(runOnlyCodeLoaded([...entry.path, "--help"]), entry.path.join(" ")).toEqual([]);
    }
    expect(runOnlyCodeLoaded(["--help"])).toEqual([]);
    expect(runOnlyCodeLoaded(["--version"])).toEqual([]);
  }, 120_000);

  it("does load them when a command runs (so the check above can fail)", () => {
    const loaded = runOnlyCodeLoaded(["account", "show", "-o", "table", "--timeout", "1"], {
      SDS_BASE_URL: "http://127.0.0.1:9/api/v1",
      SDS_API_KEY: "unused",
    });
    expect(loaded).toEqual(expect.arrayContaining(["zod", "the HTTP client"]));
  });
});
