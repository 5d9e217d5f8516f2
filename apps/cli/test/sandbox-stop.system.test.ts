import { once } from "node:events";
import { Agent, get } from "node:http";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createTestHome, startBuiltSds, type TestHome } from "./support/run-sds.ts";

let home: TestHome;
beforeEach(() => {
  home = createTestHome();
});
afterEach(() => {
  home.remove();
});

/** One GET through `agent`, read to its end; resolves with the status. */
function getThrough(agent: Agent, url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent, headers }, (response) => {
      response.resume();
      response.on("end", () => {
        resolve(response.statusCode ?? 0);
      });
    }).on("error", reject);
  });
}

describe("sds sandbox stopping", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`exits within 500 ms of ${signal} while one client holds an idle keep-alive connection and another waits on a slow answer`, async () => {
      const sandbox = startBuiltSds(["sandbox", "--port", "0", "--surveys", "20", "--api-key", "stop-key"], home);
      await sandbox.waitForOutput("}\n");
      const { baseUrl } = JSON.parse(sandbox.stdout()) as { baseUrl: string };
      const agent = new Agent({ keepAlive: true });
      try {
        expect(await getThrough(agent, `${baseUrl}/surveys`, { "eq-partner-access-key": "stop-key" })).toBe(200);
        // The connection stays open, idle, in the agent's pool: what a browser or a client library leaves behind.
        expect(Object.values(agent.freeSockets).flat()).toHaveLength(1);
        // A busy connection: the sandbox answers this one after 5 s (a latency fault), which closing the server alone waits for.
        const { controlUrl } = JSON.parse(sandbox.stdout()) as { controlUrl: string };
        const fault = await fetch(`${controlUrl}/faults`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ kind: "latency", ms: 5000 }),
        });
        expect(fault.status).toBe(201);
        const slow = getThrough(agent, `${baseUrl}/surveys`, { "eq-partner-access-key": "stop-key" }).catch(() => 0);
        // The slow answer is under way once the sandbox applied the fault to it.
        await vi.waitFor(
          async () => {
            const { faults } = (await (await fetch(`${controlUrl}/faults`)).json()) as { faults: { fired: number }[] };
            expect(faults[0]?.fired).toBe(1);
          },
          { timeout: 30_000, interval: 20 },
        );
        const exited = once(sandbox.child, "exit");
        const signalled = performance.now();
        sandbox.child.kill(signal);
        const [code] = (await exited) as [number | null];
        const elapsedMs = performance.now() - signalled;
        expect(code).toBe(0);
        expect(elapsedMs, `${signal} to exit took ${elapsedMs.toFixed(0)} ms`).toBeLessThan(500);
        await sandbox.result;
        expect(await slow).toBe(0);
      } finally {
        agent.destroy();
      }
    });
  }
});
