import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createFakeSupplierApi, DEFAULT_SUPPLIER_ID } from "@sds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "./harness.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "./postgres.ts";
import { spawnService } from "./subprocess.ts";

const pgAvailable = await postgresAvailable();

/*
 * The operator's commands of the built `sds-sync` (dist/main.js, as installed): check-config,
 * migrate, and the start that waits for an unreachable database. System tier: build first
 * (pnpm exec turbo run build --filter=@sds/sync).
 */

const builtMain = fileURLToPath(new URL("../dist/main.js", import.meta.url));

async function runBuilt(env: Readonly<Record<string, string>>, args: readonly string[]) {
  if (!existsSync(builtMain))
    throw new Error("apps/sync/dist/main.js is missing: build first (pnpm exec turbo run build --filter=@sds/sync)");
  const run = spawnService(env, args, { command: [process.execPath, builtMain] });
  const { code } = await run.exited;
  return { code, output: run.output.join("\n"), lines: run.output };
}

/** A port nothing listens on (taken, then freed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  return port;
}

const apiKey = "canary-key-0c7e51d2";
const api = createFakeSupplierApi({ suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey, surveys: 5 }] });
let fake: Awaited<ReturnType<typeof api.listen>>;
let directory: string;
beforeAll(async () => {
  fake = await api.listen();
  directory = mkdtempSync(join(tmpdir(), "sds-sync-commands-"));
});
afterAll(async () => {
  await fake.close();
  await api.close();
  rmSync(directory, { recursive: true, force: true });
});

describe("sds-sync --help", () => {
  it("lists the operator's commands and the routes that stay open without the token", async () => {
    const { code, output } = await runBuilt({}, ["--help"]);
    expect(code).toBe(0);
    expect(output).toMatch(/^ {2}sds-sync check-config /m);
    expect(output).toMatch(/^ {2}sds-sync migrate /m);
    expect(output).toMatch(
      /Open routes \(no token even when SYNC_API_TOKEN is set\): \/healthz, \/readyz, \/openapi\.json\s/,
    );
    expect(output).toMatch(
      /\/metrics until SYNC_METRICS_TOKEN is set\. SYNC_ROUTER_TOKEN opens match, entry links and\s+sessions only/,
    );
    expect(output).toContain("SYNC_DATABASE_START_TIMEOUT_SECONDS  (default: 60)");
  }, 30_000);
});

describe("sds-sync check-config", () => {
  it("exits 0 with a line per check when all is well, reading the account without listing surveys or creating the store", async () => {
    const path = join(directory, "checked", "sds.db");
    const { code, output } = await runBuilt(
      { SDS_BASE_URL: fake.baseUrl, SDS_API_KEY: apiKey, DATABASE_URL: `sqlite:${path}` },
      ["check-config"],
    );
    expect(code, output).toBe(0);
    expect(output).toContain("configuration: valid");
    expect(output).toMatch(/database: sqlite:.*checked\/sds\.db: no tables yet/);
    expect(output).toMatch(new RegExp(`upstream: ${fake.baseUrl}: the key reads account ${DEFAULT_SUPPLIER_ID}`));
    expect(output).not.toContain(apiKey);
    expect(existsSync(path)).toBe(false);
    const operations = api.requestLog().map((entry) => entry.operationId);
    expect(operations).toContain("getSupplierAccount");
    expect(operations).not.toContain("listSurveys");
  }, 30_000);

  it("exits 78 for an invalid setting, naming it", async () => {
    const { code, output } = await runBuilt({ SDS_API_KEY: apiKey, SYNC_INTERVAL: "soon" }, ["check-config"]);
    expect(code).toBe(78);
    expect(output).toContain("SDS_BASE_URL: is required");
    expect(output).toContain("SYNC_INTERVAL:");
  }, 30_000);

  it("exits 75 when the upstream refuses the key or the database cannot be reached, never printing the key", async () => {
    const refused = await runBuilt(
      { SDS_BASE_URL: fake.baseUrl, SDS_API_KEY: `${apiKey}-wrong`, DATABASE_URL: `sqlite:${join(directory, "x.db")}` },
      ["check-config"],
    );
    expect(refused.code, refused.output).toBe(75);
    expect(refused.output).toContain("the upstream refused the API key (SDS_API_KEY)");
    expect(refused.output).not.toContain(apiKey);

    const port = await closedPort();
    const unreachable = await runBuilt(
      {
        SDS_BASE_URL: fake.baseUrl,
        SDS_API_KEY: apiKey,
        DATABASE_URL: `postgres://sync:hunter2-secret@127.0.0.1:${port}/sds`,
      },
      ["check-config"],
    );
    expect(unreachable.code, unreachable.output).toBe(75);
    expect(unreachable.output).toMatch(/database postgres:\/\/sync:\*\*\*\*@127\.0\.0\.1:\d+\/sds .*cannot be reached/);
    expect(unreachable.output).toContain("upstream: ");
    expect(unreachable.output).not.toContain("hunter2-secret");
  }, 30_000);

  it("exits 75 when nothing accepts a connection at the upstream's address, naming it", async () => {
    const port = await closedPort();
    const upstream = `http://127.0.0.1:${port}/api/v1`;
    const { code, output } = await runBuilt(
      { SDS_BASE_URL: upstream, SDS_API_KEY: apiKey, DATABASE_URL: `sqlite:${join(directory, "refused.db")}` },
      ["check-config"],
    );
    expect(code, output).toBe(75);
    expect(output).toContain("configuration: valid");
    expect(output).toContain(`upstream ${upstream}: GET /supplier-account failed: no response`);
    expect(output).toContain("ECONNREFUSED");
    expect(output).not.toContain(apiKey);
  }, 60_000);
});

describe.skipIf(!pgAvailable)("sds-sync check-config and migrate on PostgreSQL", () => {
  it("finds a fresh schema reachable and empty, migrates it, then finds it up to date", async () => {
    const schema = freshSchemaName("sds_sync_check");
    const url = new URL(testDatabaseUrl);
    url.searchParams.set("schema", schema);
    const env = { SDS_BASE_URL: fake.baseUrl, SDS_API_KEY: apiKey, DATABASE_URL: url.toString() };
    try {
      const before = await runBuilt(env, ["check-config"]);
      expect(before.code, before.output).toBe(0);
      expect(before.output).toContain(`reachable (schema ${schema}); no tables yet`);
      const migrated = await runBuilt({ DATABASE_URL: url.toString() }, ["migrate"]);
      expect(migrated.code, migrated.output).toBe(0);
      const after = await runBuilt(env, ["check-config"]);
      expect(after.output).toMatch(/schema at migration (\d+) of \1, up to date/);
    } finally {
      await dropSchema(schema);
    }
  }, 60_000);
});

describe("sds-sync migrate", () => {
  it("creates and migrates the store with only DATABASE_URL set, then exits 0; check-config then finds it up to date", async () => {
    const path = join(directory, "migrated", "sds.db");
    const migrated = await runBuilt({ DATABASE_URL: `sqlite:${path}` }, ["migrate"]);
    expect(migrated.code, migrated.output).toBe(0);
    expect(migrated.output).toMatch(
      /^migrated sqlite:.*sds\.db: sync tables at migration \d+, respondent loop tables at migration \d+$/m,
    );
    expect(existsSync(path)).toBe(true);
    const checked = await runBuilt(
      { SDS_BASE_URL: fake.baseUrl, SDS_API_KEY: apiKey, DATABASE_URL: `sqlite:${path}` },
      ["check-config"],
    );
    expect(checked.code, checked.output).toBe(0);
    expect(checked.output).toMatch(/schema at migration (\d+) of \1, up to date/);
  }, 30_000);
});

describe("the start of sds-sync with its database unreachable", () => {
  it("retries with a log line per attempt for SYNC_DATABASE_START_TIMEOUT_SECONDS, then exits 75", async () => {
    const port = await closedPort();
    const { code, lines, output } = await runBuilt(
      {
        SDS_BASE_URL: fake.baseUrl,
        SDS_API_KEY: apiKey,
        DATABASE_URL: `postgres://sync@127.0.0.1:${port}/sds`,
        SYNC_DATABASE_START_TIMEOUT_SECONDS: "2",
      },
      [],
    );
    expect(code, output).toBe(75);
    const attempts = lines.filter((line) => line.includes("the database cannot be reached (attempt"));
    // 1 s, then the 1 s left: attempts at 0, 1 and 2 s.
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(output).toMatch(/could not be reached \(\d+ attempts in 2 s, SYNC_DATABASE_START_TIMEOUT_SECONDS\)/);
  }, 30_000);
});

describe("a stop while sds-sync waits for its database", () => {
  it("ends the wait at once and exits 0", async () => {
    if (!existsSync(builtMain)) throw new Error("apps/sync/dist/main.js is missing: build first");
    const port = await closedPort();
    const service = spawnService(
      {
        SDS_BASE_URL: fake.baseUrl,
        SDS_API_KEY: apiKey,
        DATABASE_URL: `postgres://sync@127.0.0.1:${port}/sds`,
        SYNC_DATABASE_START_TIMEOUT_SECONDS: "600",
      },
      [],
      { command: [process.execPath, builtMain] },
    );
    await waitFor(
      () => service.output.some((line) => line.includes("the database cannot be reached (attempt 1)")),
      20_000,
    );
    service.child.kill("SIGTERM");
    const { code } = await service.exited;
    expect(code, service.output.join("\n")).toBe(0);
    expect(service.output.join("\n")).toContain("stopped while waiting for the database");
  }, 30_000);
});
