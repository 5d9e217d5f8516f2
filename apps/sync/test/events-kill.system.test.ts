import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_API_KEY, type FakeServer, type FakeSupplierApi } from "@sds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectExactlyOnceInOrder } from "./event-delivery.ts";
import { defaultSupplierFake, waitFor } from "./harness.ts";
import { natsServerBinary, readStream, startNatsServer, type TestNatsServer } from "./nats-server.ts";
import { spawnService, type ServiceProcess } from "./subprocess.ts";
import {
  hostileAnswers,
  expectHostilityMet,
  startWebhookReceiver,
  TEST_WEBHOOK_SECRET,
  type WebhookReceiver,
} from "./webhook-receiver.ts";

/*
 * System tier: the built sds-sync is SIGKILLed in the middle of a flood of outcomes, twice, and
 * started again on the same store. Every outcome it acknowledged must reach JetStream exactly
 * once (it drops a repeat by Nats-Msg-Id) and an https webhook receiver (trusting a throw-away
 * certificate through NODE_EXTRA_CA_CERTS) that fails, times out and answers slowly, once after
 * de-duplication by webhook-id, both in sequence order: the relay stores its position after the
 * sink acknowledged, never before.
 */

const builtMain = fileURLToPath(new URL("../dist/main.js", import.meta.url));
/**
 * Each round is killed once this many outcomes were acknowledged (a count, not a time: a faster
 * store records more per second, and the hostile webhook, one event per request with its
 * refusals, timeouts and backoffs, must still catch up within the wait below).
 */
const KILL_AFTER_ACKNOWLEDGED = [150, 350] as const;
/** The webhook's timeout in these runs: small, so that the receiver's hangs pass it quickly; its slow answers stay below it. */
const WEBHOOK_TIMEOUT_MS = 400;
const WORKERS = 8;

describe.skipIf(natsServerBinary === undefined)("events out across SIGKILL of the built sds-sync", () => {
  const directory = mkdtempSync(join(tmpdir(), "sds-sync-events-kill-"));
  let nats: TestNatsServer;
  let receiver: WebhookReceiver;
  let api: FakeSupplierApi;
  let fake: FakeServer;
  let certificate: string;

  beforeAll(async () => {
    if (!existsSync(builtMain))
      throw new Error("apps/sync/dist/main.js is missing: build first (pnpm exec turbo run build --filter=@sds/sync)");
    certificate = join(directory, "cert.pem");
    const key = join(directory, "key.pem");
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "1"].concat([
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
      ]),
      { stdio: "ignore" },
    );
    nats = await startNatsServer();
    // 500s, requests left hanging past the timeout, slow answers.
    receiver = await startWebhookReceiver({
      tls: { key: readFileSync(key, "utf8"), cert: readFileSync(certificate, "utf8") },
      answer: hostileAnswers(150),
    });
    api = defaultSupplierFake({ surveys: 5 });
    fake = await api.listen();
  }, 60_000);

  afterAll(async () => {
    await receiver.close();
    await nats.close();
    await fake.close();
    await api.close();
    rmSync(directory, { recursive: true, force: true });
  });

  function start(): ServiceProcess {
    return spawnService(
      {
        SDS_BASE_URL: fake.baseUrl,
        SDS_API_KEY: DEFAULT_API_KEY,
        DATABASE_URL: `sqlite:${join(directory, "sds.db")}`,
        SYNC_NATS_URL: nats.url,
        SYNC_WEBHOOK_URLS: `ledger=${receiver.url}|outcomes.>`,
        SYNC_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
        SYNC_WEBHOOK_ALLOW_PRIVATE: "1",
        SYNC_WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
        NODE_EXTRA_CA_CERTS: certificate,
      },
      [],
      { command: [process.execPath, builtMain] },
    );
  }

  /** Outcome calls for fresh tokens until the process dies; the tokens it acknowledged. */
  async function floodUntilKilled(url: string, round: number, killAfter: number, service: ServiceProcess) {
    const acknowledged: string[] = [];
    let next = 0;
    let killed = false;
    await Promise.all(
      Array.from({ length: WORKERS }, async () => {
        while (!killed) {
          const token = `kill-${round}-${next++}`;
          const response = await fetch(`${url}/v1/outcomes/complete?vq_token=${token}`).catch(() => undefined);
          if (response?.status === 200) acknowledged.push(token);
          // Once, at the count (each acknowledgement adds one).
          if (response?.status === 200 && acknowledged.length === killAfter) {
            // Other workers' calls are in flight: the kill lands amid the flood, not after it.
            killed = true;
            service.child.kill("SIGKILL");
          }
          await response?.body?.cancel();
        }
      }),
    );
    await service.exited;
    return acknowledged;
  }

  it("delivers every acknowledged outcome once, in order, to JetStream and to an https webhook that fails, times out and answers slowly", async () => {
    const acknowledged: string[] = [];
    for (const [round, killAfter] of KILL_AFTER_ACKNOWLEDGED.entries()) {
      const service = start();
      const url = await service.url;
      acknowledged.push(...(await floodUntilKilled(url, round, killAfter, service)));
    }
    const service = start();
    const url = await service.url;
    try {
      const feed: { sequence: number; token: string }[] = [];
      for (let after = 0; ;) {
        const page = (await (await fetch(`${url}/v1/outcomes?after=${after}&limit=1000`)).json()) as {
          outcomes: { sequence: number; token: string }[];
          next: number;
          hasMore: boolean;
        };
        feed.push(...page.outcomes);
        after = page.next;
        if (!page.hasMore) break;
      }
      const recorded = new Set(feed.map((record) => record.token));
      expect(acknowledged.filter((token) => !recorded.has(token))).toEqual([]);
      expect(acknowledged.length).toBeGreaterThan(100);
      const sequences = feed.map((record) => record.sequence);
      let streamIds: (string | undefined)[] = [];
      await waitFor(async () => {
        streamIds = (await readStream(nats.url, "SDS")).map((message) => message.msgId);
        const webhookIds = new Set(receiver.acknowledgedIds());
        return (
          new Set(streamIds.filter((id) => id?.startsWith("outcome-"))).size >= sequences.length &&
          sequences.every((sequence) => webhookIds.has(`outcome-${sequence}`))
        );
      }, 150_000);
      expect(expectExactlyOnceInOrder(streamIds, sequences, "outcome"), "repeats JetStream kept").toBe(0);
      expectExactlyOnceInOrder(receiver.acknowledgedIds(), sequences, "outcome");
      expect(receiver.received.every((entry) => entry.verified)).toBe(true);
      expectHostilityMet(receiver.received);
    } finally {
      service.child.kill("SIGTERM");
      await service.exited;
    }
  }, 300_000);
});
