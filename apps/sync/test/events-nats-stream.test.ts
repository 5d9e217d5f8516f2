import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { connect, credsAuthenticator, type ConnectionOptions } from "@nats-io/transport-node";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { SyncConfig } from "../src/config/config.ts";
import { waitFor } from "./harness.ts";
import { receiveOutcome } from "./loop-traffic.ts";
import { natsCredentials } from "./nats-credentials.ts";
import { natsServerBinary, startNatsServer, type TestNatsServer } from "./nats-server.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * The stream sds-sync creates (limits retention, SYNC_NATS_MAX_AGE_SECONDS, SYNC_NATS_REPLICAS),
 * an existing stream left as it is, and NATS servers that ask for credentials: a user and
 * password in SYNC_NATS_URL, a .creds file in SYNC_NATS_CREDS (operator mode); no log line shows
 * the secret.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function nats(config?: string): Promise<TestNatsServer> {
  const server = await startNatsServer(config === undefined ? {} : { config });
  cleanups.push(() => server.close());
  return server;
}

async function service(config: Partial<SyncConfig>, logger?: pino.Logger): Promise<ServiceHarness> {
  const harness = await startServiceHarness({ config, ...(logger === undefined ? {} : { logger }) });
  cleanups.push(() => harness.close());
  return harness;
}

/** The stream's configuration and message count, read on a connection of the test's own. */
async function streamInfo(url: string, stream: string, auth: Partial<ConnectionOptions> = {}) {
  const connection = await connect({ servers: url, ...auth });
  try {
    return await (await jetstreamManager(connection)).streams.info(stream);
  } finally {
    await connection.close();
  }
}

/** A logger writing every line (debug and up) into `lines`, with no scrubbing: a secret must never reach it. */
function capturingLogger(lines: string[]): pino.Logger {
  const capture = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString("utf8"));
      done();
    },
  });
  return pino({ level: "debug" }, capture);
}

/** Where the NATS sink stands, as GET /v1/events says. */
async function natsStatus(harness: ServiceHarness) {
  const body = (await (await harness.request("/v1/events")).json()) as {
    sinks: { sink: string; feed: string; position: number | null; lastError: string | null }[];
  };
  return body.sinks.find((entry) => entry.sink === "nats" && entry.feed === "outcomes");
}

const SECONDS = 1_000_000_000;

describe.skipIf(natsServerBinary === undefined)("the JetStream stream of events out", () => {
  it("is created with limits retention, max age SYNC_NATS_MAX_AGE_SECONDS and SYNC_NATS_REPLICAS replicas, for <prefix>.>", async () => {
    const server = await nats();
    const harness = await service({
      natsUrl: new URL(server.url),
      natsStream: "EVENTS",
      natsSubjectPrefix: "acme.sds",
      natsMaxAgeSeconds: 5400,
      natsReplicas: 1,
    });
    await receiveOutcome(harness, "complete", "stream-1");
    await waitFor(async () => (await natsStatus(harness))?.position === 1, 20_000);
    const info = await streamInfo(server.url, "EVENTS");
    expect(info.config).toMatchObject({
      subjects: ["acme.sds.>"],
      retention: RetentionPolicy.Limits,
      max_age: 5400 * SECONDS,
      num_replicas: 1,
    });
    expect(info.state.messages).toBeGreaterThanOrEqual(1);
  });

  it("asks for SYNC_NATS_REPLICAS replicas: a single server refuses three, and the sink says why", async () => {
    const server = await nats();
    const harness = await service({ natsUrl: new URL(server.url), natsReplicas: 3 });
    await receiveOutcome(harness, "complete", "replicas-1");
    let lastError: string | null | undefined;
    await waitFor(async () => {
      lastError = (await natsStatus(harness))?.lastError;
      return lastError !== null && lastError !== undefined;
    }, 20_000);
    expect(lastError).toMatch(/replicas/i);
  });

  it("leaves an existing stream's configuration as it is", async () => {
    const server = await nats();
    const connection = await connect({ servers: server.url });
    const manager = await jetstreamManager(connection);
    const existing = await manager.streams.add({
      name: "SDS",
      subjects: ["sds.>", "other.>"],
      retention: RetentionPolicy.Limits,
      storage: StorageType.Memory,
      max_age: 90 * SECONDS,
      max_msgs: 5000,
      duplicate_window: 30 * SECONDS,
    });
    await connection.close();
    const harness = await service({ natsUrl: new URL(server.url), natsMaxAgeSeconds: 86_400 });
    await receiveOutcome(harness, "complete", "existing-1");
    await waitFor(async () => (await natsStatus(harness))?.position === 1, 20_000);
    const info = await streamInfo(server.url, "SDS");
    expect(info.config).toEqual(existing.config);
    expect(info.state.messages).toBeGreaterThanOrEqual(1);
  });

  it("connects with the user and password of SYNC_NATS_URL, and no log line shows the password", async () => {
    const password = "s3cr@t-nats-pass-0123";
    const server = await nats(`authorization {\n  user: sync\n  password: ${JSON.stringify(password)}\n}\n`);
    const lines: string[] = [];
    const logger = capturingLogger(lines);
    const refused = await startServiceHarness({
      config: { natsUrl: new URL(`nats://sync:wrong-password-0123@127.0.0.1:${server.port}`) },
      logger,
    });
    await receiveOutcome(refused, "complete", "auth-1");
    let lastError: string | null | undefined;
    await waitFor(async () => {
      lastError = (await natsStatus(refused))?.lastError;
      return lastError !== null && lastError !== undefined;
    }, 20_000);
    expect(lastError).toMatch(/authorization/i);
    await refused.close();
    const harness = await service(
      { natsUrl: new URL(`nats://sync:${encodeURIComponent(password)}@127.0.0.1:${server.port}`) },
      logger,
    );
    await receiveOutcome(harness, "complete", "auth-2");
    await waitFor(async () => (await natsStatus(harness))?.position === 1, 20_000);
    const info = await streamInfo(server.url, "SDS", { user: "sync", pass: password });
    expect(info.state.messages).toBeGreaterThanOrEqual(1);
    const logged = lines.join("");
    expect(logged).toContain("connected to NATS");
    for (const secret of [password, encodeURIComponent(password), "wrong-password-0123"])
      expect(logged).not.toContain(secret);
  });

  it("connects with the .creds file of SYNC_NATS_CREDS (user JWT and NKey seed) to a server in operator mode, and no log line shows the seed", async () => {
    const credentials = natsCredentials();
    const server = await nats(credentials.serverConfig);
    const directory = mkdtempSync(join(tmpdir(), "sds-sync-nats-creds-"));
    cleanups.push(() => {
      rmSync(directory, { recursive: true, force: true });
      return Promise.resolve();
    });
    const credsFile = join(directory, "sds-sync.creds");
    writeFileSync(credsFile, credentials.creds, { mode: 0o600 });
    const lines: string[] = [];
    const harness = await service({ natsUrl: new URL(server.url), natsCredsFile: credsFile }, capturingLogger(lines));
    await receiveOutcome(harness, "complete", "creds-1");
    await waitFor(async () => (await natsStatus(harness))?.position === 1, 20_000);
    const info = await streamInfo(server.url, "SDS", { authenticator: credsAuthenticator(readFileSync(credsFile)) });
    expect(info.state.messages).toBeGreaterThanOrEqual(1);
    // Without the file the server refuses: the credentials were what let sds-sync in.
    await expect(connect({ servers: server.url, reconnect: false })).rejects.toThrow(/authorization/i);
    const logged = lines.join("");
    expect(logged).toContain("connected to NATS");
    expect(logged).not.toContain(credentials.userSeed);
  });
});
