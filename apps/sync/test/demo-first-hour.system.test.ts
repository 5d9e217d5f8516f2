import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/*
 * The demo as a newcomer runs it (system tier: the built dist/demo.js, and scripts/demo.sh).
 */

const builtDemo = fileURLToPath(new URL("../dist/demo.js", import.meta.url));
const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url));

function run(program: string, args: readonly string[], cwd?: string) {
  const child = spawn(program, [...args], { stdio: ["ignore", "pipe", "pipe"], ...(cwd === undefined ? {} : { cwd }) });
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (chunk: Buffer) => (output.stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (output.stderr += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => {
    child.on("exit", (code) => {
      resolve(code);
    });
  });
  return { child, output, exited };
}

async function withBusyPort(body: (port: number) => Promise<void>): Promise<void> {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
  try {
    await body((blocker.address() as AddressInfo).port);
  } finally {
    blocker.close();
  }
}

describe("the demo", () => {
  it("prints the status page's URL when it keeps running, and the page answers there", async () => {
    if (!existsSync(builtDemo)) throw new Error("apps/sync/dist/demo.js is missing: build first");
    const demo = run(process.execPath, [builtDemo, "--port", "0", "--surveys", "30", "--respondents", "2"]);
    try {
      await expect
        .poll(() => /^Status page: (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(demo.output.stdout)?.[1], { timeout: 60_000 })
        .toBeDefined();
      const url = /^Status page: (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(demo.output.stdout)?.[1] ?? "";
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("sds-sync");
    } finally {
      demo.child.kill("SIGINT");
    }
    expect(await demo.exited).toBe(0);
  }, 90_000);

  it("scripts/demo.sh finds a taken port before it builds anything", async () => {
    await withBusyPort(async (port) => {
      const demo = run("bash", ["scripts/demo.sh", "--once", "--port", String(port)], repositoryRoot);
      expect(await demo.exited).toBe(1);
      expect(demo.output.stderr).toBe(
        `demo: port ${port} is already in use: stop what listens there, or run the demo with --port N (--port 0 picks a free one)\n`,
      );
      expect(demo.output.stdout).toBe("");
    });
  }, 120_000);
});
