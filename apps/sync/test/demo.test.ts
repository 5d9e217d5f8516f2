import { spawn } from "node:child_process";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const demoPath = fileURLToPath(new URL("../src/demo.ts", import.meta.url));

function runDemo(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--conditions=@sds/source", demoPath, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("exit", (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

describe("the demo (the README's main job)", () => {
  it("syncs the sandbox once, prints what it synced and where to query it, and exits 0 with --once", async () => {
    const { code, stdout, stderr } = await runDemo(["--once", "--port", "0", "--surveys", "120"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toMatch(/First sync cycle succeeded in [\d.]+ s:/);
    expect(stdout).toContain("120 live surveys listed, 120 stored");
    expect(stdout).toMatch(/curl 'http:\/\/127\.0\.0\.1:\d+\/v1\/surveys\?limit=5'/);
    expect(stdout).toMatch(/\/v1\/changes\?after=120&wait=30/);
  }, 60_000);

  it("says in one line how to fix a port that is taken, without a stack trace", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const { code, stderr } = await runDemo(["--once", "--port", String(port), "--surveys", "5"]);
      expect(code).toBe(1);
      expect(stderr).toBe(`demo: port ${port} is already in use: stop what listens there, or run the demo with --port N (--port 0 picks a free one)\n`);
    } finally {
      blocker.close();
    }
  }, 30_000);

  it("refuses a malformed option with its usage and exit status 64", async () => {
    const { code, stderr } = await runDemo(["--surveys", "many"]);
    expect(code).toBe(64);
    expect(stderr).toMatch(/--surveys must be a whole number/);
    expect(stderr).toContain("Usage:");
  }, 30_000);
});
