import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { natsServerBinary, readStream, startNatsServer } from "./nats-server.ts";

const demoPath = fileURLToPath(new URL("../src/demo.ts", import.meta.url));

function runDemo(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--conditions=@sds/source", demoPath, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("exit", (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

describe.skipIf(natsServerBinary === undefined)("the demo with --nats", () => {
  it("publishes the walk's outcomes to its own stream and prints the consumer's command; a second run starts afresh", async () => {
    const nats = await startNatsServer();
    try {
      const args = ["--once", "--port", "0", "--surveys", "40", "--respondents", "8", "--nats", "--nats-url", nats.url];
      for (const run of [1, 2]) {
        const { code, stdout, stderr } = await runDemo(args);
        expect(stderr, `run ${run}`).toBe("");
        expect(code).toBe(0);
        const published = /Events out: (\d+) outcome and (\d+) change events published/.exec(stdout);
        expect(Number(published?.[1])).toBeGreaterThan(0);
        expect(stdout).toContain(
          `node --experimental-strip-types apps/sync/examples/ledger-consumer.ts ${nats.url} SDS_DEMO sdsdemo`,
        );
        const outcomes = (await readStream(nats.url, "SDS_DEMO")).filter((message) =>
          message.subject.startsWith("sdsdemo.outcomes."),
        );
        // The stream holds this run's outcomes only: the earlier run's stream was deleted first.
        expect(outcomes.map((message) => message.msgId)).toEqual(
          Array.from({ length: Number(published?.[1]) }, (_, index) => `outcome-${index + 1}`),
        );
      }
      const refused = await runDemo([
        "--once",
        "--port",
        "0",
        "--surveys",
        "5",
        "--nats",
        "--nats-url",
        "nats://127.0.0.1:9",
      ]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("no NATS server answers at nats://127.0.0.1:9");
    } finally {
      await nats.close();
    }
  }, 120_000);
});
