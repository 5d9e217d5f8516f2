import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createFakeSupplierApi, DEFAULT_API_KEY, DEFAULT_SUPPLIER_ID } from "@sds/testing";
import { describe, expect, it } from "vitest";
import { allSettings } from "../src/config/config.ts";
import { isSupportedNode, VERSION } from "../src/common/version.ts";
import { waitFor } from "./harness.ts";
import { spawnService, type ServiceProcess } from "./subprocess.ts";

/** The entry an operator runs: the build, not the sources. */
const builtMain = fileURLToPath(new URL("../dist/main.js", import.meta.url));

/** Starts the built `sds-sync` with `env` (added to a minimal one). */
function spawnBuilt(env: Readonly<Record<string, string>>): ServiceProcess {
  if (!existsSync(builtMain))
    throw new Error("apps/sync/dist/main.js is missing: build first (pnpm exec turbo run build --filter=@sds/sync)");
  return spawnService(env, [], { command: [process.execPath, builtMain] });
}

/** The JSON log lines of a service's output (stderr's plain lines are left out). */
function logLines(service: ServiceProcess): { readonly level: number; readonly msg: string; readonly raw: string }[] {
  return service.output
    .filter((line) => line.startsWith("{"))
    .map((raw) => ({ ...(JSON.parse(raw) as { level: number; msg: string }), raw }));
}

/** A Node.js older than sds-sync supports, when the machine has one (Debian's is 20). */
const SYSTEM_NODE = "/usr/bin/node";
const oldNode = ((): string | undefined => {
  if (!existsSync(SYSTEM_NODE)) return undefined;
  const version = spawnSync(SYSTEM_NODE, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.trim();
  return version !== "" && !isSupportedNode(version) ? version : undefined;
})();
if (oldNode === undefined) console.warn(`skipping the old-Node test: ${SYSTEM_NODE} is missing or supported`);

describe("the sds-sync process", () => {
  it("answers --version and --help without any configuration, listing every setting", async () => {
    const version = spawnService({}, ["--version"]);
    expect((await version.exited).code).toBe(0);
    expect(version.output).toEqual([VERSION]);
    const help = spawnService({}, ["--help"]);
    expect((await help.exited).code).toBe(0);
    const text = help.output.join("\n");
    for (const { setting } of allSettings()) expect(text).toContain(`  ${setting.variable}  (`);
    expect(text).toContain("SYNC_INTERVAL  (default: 60)");
    // Every command the bin takes is listed, the offline replay included.
    expect(text).toMatch(/^ {2}sds-sync replay \[--policy earnings\|yield\]/m);
  });

  it.skipIf(oldNode === undefined)(
    `refuses to run on Node.js before 22.13 with one line, even configured for PostgreSQL (system ${oldNode ?? "node"})`,
    () => {
      // The built entry, as an operator runs it: the version check must come before any import that Node 20 cannot load.
      const result = spawnSync(SYSTEM_NODE, [fileURLToPath(new URL("../dist/main.js", import.meta.url))], {
        env: {
          PATH: process.env.PATH ?? "",
          SDS_BASE_URL: "http://127.0.0.1:9/api/v1",
          SDS_API_KEY: "key",
          DATABASE_URL: "postgres://postgres@127.0.0.1:5432/test",
        },
        encoding: "utf8",
      });
      expect(result.status).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(
        `sds-sync: needs Node.js 22.13.0 or later, this is Node.js ${oldNode ?? ""}; install Node.js 24 (LTS) and start it again\n`,
      );
      const version = spawnSync(
        SYSTEM_NODE,
        [fileURLToPath(new URL("../dist/main.js", import.meta.url)), "--version"],
        { encoding: "utf8" },
      );
      expect(version.stdout).toBe(`${VERSION}\n`);
    },
  );

  it.skipIf(process.platform !== "linux")(
    "re-executes itself in place with its heap flags and malloc arena cap, each unless the operator set their own, and still exits 0 on SIGTERM",
    async () => {
      const fake = await createFakeSupplierApi({
        suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY, surveys: 3 }],
      }).listen();
      try {
        const sourceMain = fileURLToPath(new URL("../src/main.ts", import.meta.url));
        for (const { nodeOptions, commandFlags, arenas, expected, absent, expectedArenas } of [
          {
            nodeOptions: "--max-old-space-size=1024",
            commandFlags: [],
            arenas: undefined,
            expected: ["--max-semi-space-size=4", "--heap-growing-percent=20"],
            absent: [],
            expectedArenas: "2",
          },
          {
            nodeOptions: "--max-semi-space-size=32",
            commandFlags: [],
            arenas: "4",
            expected: ["--heap-growing-percent=20"],
            absent: ["--max-semi-space-size=4"],
            expectedArenas: "4",
          },
          // Every heap flag given (Node refuses --heap-growing-percent in NODE_OPTIONS): the re-exec is for the arena cap alone.
          {
            nodeOptions: "",
            commandFlags: ["--max-semi-space-size=32", "--heap-growing-percent=50"],
            arenas: undefined,
            expected: ["--heap-growing-percent=50"],
            absent: ["--max-semi-space-size=4", "--heap-growing-percent=20"],
            expectedArenas: "2",
          },
        ]) {
          const service = spawnService(
            {
              SDS_BASE_URL: fake.baseUrl,
              SDS_API_KEY: DEFAULT_API_KEY,
              DATABASE_URL: "sqlite::memory:",
              NODE_OPTIONS: nodeOptions,
              ...(arenas === undefined ? {} : { MALLOC_ARENA_MAX: arenas }),
            },
            [],
            { command: [process.execPath, ...commandFlags, "--conditions=@sds/source", sourceMain] },
          );
          const url = await service.url;
          // A signal before the start-up cycle settles is another test's business (crash.system.test.ts).
          await waitFor(async () => (await fetch(`${url}/readyz`)).ok, 20_000);
          // The same PID now runs with the flags: no parent left to forward signals or to orphan a child.
          const commandLine = readFileSync(`/proc/${service.child.pid ?? 0}/cmdline`, "utf8").split("\0");
          for (const flag of expected) expect(commandLine).toContain(flag);
          for (const flag of absent) expect(commandLine).not.toContain(flag);
          const environment = readFileSync(`/proc/${service.child.pid ?? 0}/environ`, "utf8").split("\0");
          expect(environment.filter((entry) => entry.startsWith("MALLOC_ARENA_MAX="))).toEqual([
            `MALLOC_ARENA_MAX=${expectedArenas}`,
          ]);
          service.child.kill("SIGTERM");
          const exited = await service.exited;
          expect(exited, `NODE_OPTIONS=${nodeOptions}:\n${service.output.join("\n")}`).toEqual({
            code: 0,
            signal: null,
          });
        }
      } finally {
        await fake.close();
      }
    },
  );

  it("refuses an unknown argument with exit status 64, before reading any configuration", async () => {
    const service = spawnService({}, ["--port", "9000"]);
    expect((await service.exited).code).toBe(64);
    expect(service.output.join("\n")).toMatch(/unknown argument "--port".*sds-sync --help/);
  });

  it("refuses to start on invalid configuration, naming every variable at fault, with exit status 78", async () => {
    const service = spawnService({
      SDS_BASE_URL: "ftp://sds.example.com",
      SYNC_CONCURRENCY: "0",
      DATABASE_URL: "mysql://root:hunter2@db/x",
    });
    const { code } = await service.exited;
    expect(code).toBe(78);
    const output = service.output.join("\n");
    for (const variable of ["SDS_BASE_URL", "SDS_API_KEY", "SYNC_CONCURRENCY", "DATABASE_URL"])
      expect(output).toContain(`${variable}:`);
    expect(output).not.toContain("hunter2");
  });

  it.each(["https://sds.example/api/v1/../admin", "https://sds.example/api/v1?x=1", "https://sds.example/api/v1#f"])(
    "refuses the base URL %s in the configuration check: one line naming SDS_BASE_URL, exit status 78, no stack trace",
    async (baseUrl) => {
      const service = spawnService({ SDS_BASE_URL: baseUrl, SDS_API_KEY: "key-123" });
      const { code } = await service.exited;
      const output = service.output.join("\n");
      expect(code).toBe(78);
      expect(output).toMatch(/SDS_BASE_URL: .*(path segments|query or a fragment)/);
      expect(output).not.toMatch(/\n\s+at /);
    },
  );

  it.each([
    [
      "getGroups=/groups/{surveyId}",
      /SDS_OPERATION_PATHS: there is no operation "getGroups"; known: .*getSurveyGroups/,
    ],
    ["getSurveyGroups=/groups/{id}", /SDS_OPERATION_PATHS: the path of getSurveyGroups must contain \{surveyId\}/],
    ["getSurveyGroups/groups/{surveyId}", /SDS_OPERATION_PATHS: must be a comma list of operationId=\/path/],
  ])(
    "the built entry refuses SDS_OPERATION_PATHS=%s: one line naming the variable and the item, exit status 78",
    async (value, message) => {
      const service = spawnBuilt({
        SDS_BASE_URL: "http://127.0.0.1:9/api/v1",
        SDS_API_KEY: "key-123",
        SDS_OPERATION_PATHS: value,
      });
      const { code } = await service.exited;
      const output = service.output.join("\n");
      expect(code).toBe(78);
      expect(output).toMatch(message);
      expect(output).toContain(JSON.stringify(value));
      expect(output).not.toMatch(/\n\s+at /);
    },
  );

  it("never writes the API key or the token to its logs, even when a request with the key fails", async () => {
    const apiKey = "canary-key-3b9f1c";
    const token = "canary-token-8d2e4a0f";
    const api = createFakeSupplierApi({ suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey, surveys: 5 }] });
    const fake = await api.listen();
    const directory = mkdtempSync(join(tmpdir(), "sds-sync-main-"));
    try {
      // A wrong key first: the failure is logged, with the request's details, and must still not show the key.
      const service = spawnService({
        SDS_BASE_URL: fake.baseUrl,
        SDS_API_KEY: `${apiKey}-wrong`,
        SYNC_API_TOKEN: token,
        DATABASE_URL: `sqlite:${join(directory, "sds.db")}`,
        LOG_LEVEL: "debug",
      });
      await service.url;
      await waitFor(() => service.output.some((line) => line.includes("sync cycle failed")), 20_000);
      service.child.kill("SIGTERM");
      expect((await service.exited).code).toBe(0);
      const output = service.output.join("\n");
      expect(output).toMatch(/401/);
      expect(output).not.toContain(apiKey);
      expect(output).not.toContain(token);
    } finally {
      await fake.close();
      await api.close();
      rmSync(directory, { recursive: true, force: true });
    }
  }, 30_000);
});

describe("sds-sync's secrets (canary test)", () => {
  it("never shows the API key or the token in any log level, error, metric or status route", async () => {
    const apiKey = "CANARY-sds-key-5e1f9a7c";
    const token = "CANARY-sync-token-0c4b8d2e";
    const api = createFakeSupplierApi({ suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey, surveys: 5 }] });
    const fake = await api.listen();
    const directory = mkdtempSync(join(tmpdir(), "sds-sync-canary-"));
    try {
      const service = spawnService({
        SDS_BASE_URL: fake.baseUrl,
        SDS_API_KEY: apiKey,
        SYNC_API_TOKEN: token,
        DATABASE_URL: `sqlite:${join(directory, "sds.db")}`,
        LOG_LEVEL: "trace",
      });
      const url = await service.url;
      await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, 20_000);
      // An upstream failure (the key is revoked), so the error paths log and count too.
      api.faults.add({ kind: "status", status: 401, operation: "listSurveys" });
      const authorized = { authorization: `Bearer ${token}` };
      expect((await fetch(`${url}/v1/sync/run`, { method: "POST", headers: authorized })).status).toBe(502);
      const seen: string[] = [...service.output];
      for (const [path, headers] of [
        ["/healthz", {}],
        ["/readyz", {}],
        ["/metrics", {}],
        ["/v1/sync/status", authorized],
        ["/v1/surveys?limit=5", authorized],
        ["/v1/changes", authorized],
        ["/v1/collections", authorized],
        ["/v1/surveys?limit=0", authorized],
        ["/v1/surveys", {}],
        ["/v1/surveys", { authorization: `Bearer ${apiKey}` }],
        ["/nowhere", authorized],
      ] as const) {
        const response = await fetch(`${url}${path}`, { headers });
        seen.push(`${path} ${response.status} ${JSON.stringify([...response.headers])} ${await response.text()}`);
      }
      service.child.kill("SIGTERM");
      expect((await service.exited).code).toBe(0);
      seen.push(...service.output);
      const everything = seen.join("\n");
      // LOG_LEVEL=trace lets every line through; the revoked key produced error lines too.
      expect(everything).toContain('"level":50');
      expect(everything).toMatch(/sds_sync_upstream_requests_total\{operation="listSurveys",status="401"\} 1/);
      for (const secret of [apiKey, token, "CANARY"]) expect(everything).not.toContain(secret);
    } finally {
      await fake.close();
      await api.close();
      rmSync(directory, { recursive: true, force: true });
    }
  }, 40_000);
});

describe("the built sds-sync (dist/main.js) on its first day", () => {
  it("with a wrong API key on a fresh start, says once per failure that the upstream refused SDS_API_KEY and that no data has been synced yet, without a stack", async () => {
    const api = createFakeSupplierApi({
      suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY, surveys: 5 }],
    });
    const fake = await api.listen();
    const directory = mkdtempSync(join(tmpdir(), "sds-sync-wrong-key-"));
    try {
      const service = spawnBuilt({
        SDS_BASE_URL: fake.baseUrl,
        SDS_API_KEY: "not-the-key",
        DATABASE_URL: `sqlite:${join(directory, "sds.db")}`,
        SYNC_INTERVAL: "1",
      });
      await service.url;
      const failed = () => logLines(service).filter((line) => line.msg.startsWith("sync cycle failed"));
      await waitFor(() => failed().length >= 2, 20_000);
      service.child.kill("SIGTERM");
      expect((await service.exited).code).toBe(0);

      for (const line of failed()) {
        expect(line.level).toBe(50);
        expect(line.msg).toMatch(
          /^sync cycle failed: the upstream refused the API key \(SDS_API_KEY\): GET \/surveys failed with HTTP 401 \(INVALID_API_KEY\): The API key is not valid; no data has been synced yet$/,
        );
      }
      const account = logLines(service).filter((line) => line.msg.startsWith("the account could not be read"));
      expect(account.length).toBeGreaterThanOrEqual(1);
      for (const line of account) {
        expect(line.level).toBe(40);
        expect(line.msg).toMatch(
          /^the account could not be read: the upstream refused the API key \(SDS_API_KEY\): GET \/supplier-account failed with HTTP 401 /,
        );
      }
      const output = service.output.join("\n");
      expect(output).not.toContain("the last good data is still served");
      expect(output).not.toContain('"stack"');
      // The collections are asked for once, not again on every cycle against a key already refused.
      expect(
        logLines(service).filter((line) => line.msg.includes("reference collections could not be refreshed")),
      ).toHaveLength(1);
    } finally {
      await fake.close();
      await api.close();
      rmSync(directory, { recursive: true, force: true });
    }
  }, 30_000);

  it("when the upstream starts refusing the key (403) after a good sync, says so and that the last good data is still served", async () => {
    const api = createFakeSupplierApi({
      suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY, surveys: 5 }],
    });
    const fake = await api.listen();
    const directory = mkdtempSync(join(tmpdir(), "sds-sync-refused-key-"));
    try {
      const service = spawnBuilt({
        SDS_BASE_URL: fake.baseUrl,
        SDS_API_KEY: DEFAULT_API_KEY,
        DATABASE_URL: `sqlite:${join(directory, "sds.db")}`,
        SYNC_INTERVAL: "1",
      });
      await service.url;
      await waitFor(() => logLines(service).some((line) => line.msg === "sync cycle succeeded"), 20_000);
      api.faults.add({ kind: "status", status: 403, operation: "listSurveys" });
      await waitFor(() => logLines(service).some((line) => line.msg.startsWith("sync cycle failed")), 20_000);
      service.child.kill("SIGTERM");
      expect((await service.exited).code).toBe(0);
      const failed = logLines(service).find((line) => line.msg.startsWith("sync cycle failed"));
      expect(failed?.msg).toMatch(
        /^sync cycle failed: the upstream refused the API key \(SDS_API_KEY\): GET \/surveys failed with HTTP 403 .*; the last good data is still served$/,
      );
      expect(
        logLines(service).filter((line) => line.msg === "this replica leads: it runs the sync cycles"),
      ).toHaveLength(1);
    } finally {
      await fake.close();
      await api.close();
      rmSync(directory, { recursive: true, force: true });
    }
  }, 30_000);

  it("exits within 500 ms of SIGTERM on SQLite while a client holds a keep-alive connection and another long-polls", async () => {
    const api = createFakeSupplierApi({
      suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY, surveys: 25 }],
    });
    const fake = await api.listen();
    const directory = mkdtempSync(join(tmpdir(), "sds-sync-exit-"));
    const agent = new Agent({ keepAlive: true });
    try {
      const service = spawnBuilt({
        SDS_BASE_URL: fake.baseUrl,
        SDS_API_KEY: DEFAULT_API_KEY,
        DATABASE_URL: `sqlite:${join(directory, "sds.db")}`,
      });
      const url = await service.url;
      await waitFor(async () => (await fetch(`${url}/readyz`)).ok, 20_000);
      const status = await new Promise<number>((resolve, reject) => {
        get(`${url}/healthz`, { agent }, (response) => {
          response.resume();
          response.on("end", () => {
            resolve(response.statusCode ?? 0);
          });
        }).on("error", reject);
      });
      expect(status).toBe(200);
      expect(Object.values(agent.freeSockets).flat()).toHaveLength(1);
      get(`${url}/v1/changes?after=1000000&wait=30`, { agent }, (response) => response.resume()).on(
        "error",
        () => undefined,
      );
      await waitFor(
        async () =>
          /^sds_sync_long_polls_waiting\{feed="changes"\} 1$/m.test(await (await fetch(`${url}/metrics`)).text()),
        5_000,
      );

      const signalled = performance.now();
      service.child.kill("SIGTERM");
      const exited = await service.exited;
      const elapsedMs = performance.now() - signalled;
      expect(exited).toEqual({ code: 0, signal: null });
      expect(elapsedMs, `SIGTERM to exit took ${elapsedMs.toFixed(0)} ms`).toBeLessThan(500);
      expect(logLines(service).at(-1)?.msg).toBe("stopped");
    } finally {
      agent.destroy();
      await fake.close();
      await api.close();
      rmSync(directory, { recursive: true, force: true });
    }
  }, 30_000);
});
