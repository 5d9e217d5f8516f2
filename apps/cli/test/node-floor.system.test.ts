import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestHome, runSdsWithNode, type TestHome } from "./support/run-sds.ts";

// The machine's own Node (Debian's, 20 on this kind of machine), older than the floor of 22.13.
const systemNode = "/usr/bin/node";
const systemNodeVersion = existsSync(systemNode)
  ? spawnSync(systemNode, ["--version"], { encoding: "utf8" }).stdout.trim()
  : "";
const systemNodeIsOld = /^v(1\d|20|21|22\.([0-9]|1[0-2]))\./.test(systemNodeVersion);

let home: TestHome;
beforeEach(() => {
  home = createTestHome();
});
afterEach(() => {
  home.remove();
});

describe.skipIf(!systemNodeIsOld)(`sds on a Node older than 22.13 (${systemNode} ${systemNodeVersion})`, () => {
  it.each([
    ["--version"],
    ["--help"],
    ["surveys", "list"],
    ["link", "sign", "https://survey.example/s/1?tid=a"],
    ["no-such-command"],
  ])("answers `sds %s` with one line naming the Node it needs, and exit 1", async (...args) => {
    const result = await runSdsWithNode(systemNode, args, home, {
      env: { SDS_BASE_URL: "http://127.0.0.1:9/api/v1", SDS_API_KEY: "unused-key" },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("sds needs Node 22.13 or newer");
    expect(result.stderr).toContain(`this is Node ${systemNodeVersion.slice(1)}`);
    expect(result.stderr).not.toMatch(/\bat .*:\d+:\d+|TypeError/);
  });
});
