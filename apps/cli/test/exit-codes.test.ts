import { createServer, type AddressInfo } from "node:net";
import type { FaultSpec } from "@sds/testing";
import { describe, expect, it } from "vitest";
import { canaryApiKey } from "./support/fake-service.ts";
import { startProxy } from "./support/proxy.ts";
import { runSds } from "./support/run-sds.ts";
import { useCliTestbed } from "./support/testbed.ts";

const testbed = useCliTestbed();

const noStack = (stderr: string) => {
  expect(stderr).not.toMatch(/\n\s+at /);
};

describe("every failure of the service maps to its exit code, in one line", () => {
  const cases: readonly {
    readonly name: string;
    readonly fault: FaultSpec;
    readonly code: number;
    readonly message: RegExp;
  }[] = [
    {
      name: "HTTP 500 (after retries)",
      fault: { kind: "status", status: 500 },
      code: 1,
      message: /^error: GET \/supplier-account failed with HTTP 500 \(INTERNAL_ERROR\)/,
    },
    {
      name: "hasError: true under HTTP 200",
      fault: { kind: "envelope-error", errorCode: "BUSY", message: "Try later." },
      code: 1,
      message:
        /^error: GET \/supplier-account reported an error \(hasError: true\) under HTTP 200 \(BUSY\): Try later\./,
    },
    {
      name: "HTTP 400",
      fault: { kind: "status", status: 400 },
      code: 1,
      message: /^error: GET \/supplier-account failed with HTTP 400/,
    },
    {
      name: "HTTP 401",
      fault: { kind: "status", status: 401 },
      code: 3,
      message: /^error: GET \/supplier-account failed with HTTP 401.*\. Check the API key/,
    },
    {
      name: "HTTP 403",
      fault: { kind: "status", status: 403 },
      code: 3,
      message: /^error: GET \/supplier-account failed with HTTP 403/,
    },
    {
      name: "HTTP 404",
      fault: { kind: "status", status: 404 },
      code: 4,
      message: /^error: GET \/supplier-account failed with HTTP 404/,
    },
    {
      name: "a reset connection (after retries)",
      fault: { kind: "connection-reset" },
      code: 5,
      message: /^error: GET \/supplier-account failed: .*\. Check the base URL and the network/,
    },
    {
      name: "malformed JSON",
      fault: { kind: "malformed-json" },
      code: 6,
      message:
        /^error: .*GET \/supplier-account.*\. The service sent data this version of sds does not understand; run with --debug to see the issues\./,
    },
    { name: "truncated JSON", fault: { kind: "truncated-json" }, code: 6, message: /^error: .*GET \/supplier-account/ },
  ];

  for (const { name, fault, code, message } of cases) {
    it(`${name} → exit ${code}`, async () => {
      testbed.fake.api.faults.add(fault);
      const result = await runSds(["account", "show"], testbed.home, { env: testbed.fake.env });
      expect(result.code).toBe(code);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
      noStack(result.stderr);
      expect(result.stderr).not.toContain(canaryApiKey);
    });
  }

  it("a response slower than --timeout → exit 5, suggesting a longer --timeout", async () => {
    testbed.fake.api.faults.add({ kind: "latency", ms: 3000 });
    const result = await runSds(["account", "show", "--timeout", "0.2"], testbed.home, { env: testbed.fake.env });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(
      /^error: .*GET \/supplier-account.*\. The service did not answer in time: raise --timeout/,
    );
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  it("a refused connection → exit 5, pointing at the URL and the service, not at --timeout", async () => {
    // A port that was just free: nothing listens on it.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const baseUrl = `http://127.0.0.1:${port}/api/v1`;
    const result = await runSds(["account", "show"], testbed.home, {
      env: { ...testbed.fake.env, SDS_BASE_URL: baseUrl },
    });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(
      /ECONNREFUSED.*\. Nothing accepted the connection: check the host and port of the base URL and that the service is running/,
    );
    expect(result.stderr).not.toContain("--timeout");
  });

  it("a 404 from a base URL without /api/v1 → exit 4, saying the base URL must end in /api/v1 rather than to check an id", async () => {
    const baseUrl = testbed.fake.baseUrl.replace(/\/api\/v1$/, "");
    const result = await runSds(["surveys", "list"], testbed.home, {
      env: { ...testbed.fake.env, SDS_BASE_URL: baseUrl },
    });
    expect(result.code).toBe(4);
    expect(result.stderr).toBe(
      `error: GET /surveys failed with HTTP 404 (ROUTE_NOT_FOUND): No operation at GET /surveys. The base URL must end in /api/v1 (this request went to ${baseUrl}/surveys); pass --base-url https://HOST/api/v1.\n`,
    );
    const unknownSurvey = await runSds(["surveys", "qualifications", "999999"], testbed.home, {
      env: testbed.fake.env,
    });
    expect(unknownSurvey.code).toBe(4);
    expect(unknownSurvey.stderr).toMatch(/\. Check the id; `sds surveys list` shows the live surveys\.\n$/);
  });

  it("a response that does not match the schema → exit 6, with the issues under --debug", async () => {
    const proxy = await startProxy(testbed.fake.api, {
      body: (path, body) =>
        path === "/supplier-account"
          ? { ...(body as object), data: { ...(body as { data: object }).data, Active: "yes" } }
          : body,
    });
    try {
      const env = { ...testbed.fake.env, SDS_BASE_URL: proxy.baseUrl };
      const plain = await runSds(["account", "show"], testbed.home, { env });
      expect(plain.code).toBe(6);
      expect(plain.stderr).toMatch(/^error: .*GET \/supplier-account.*run with --debug to see the issues\.\n$/);
      const debug = await runSds(["account", "show", "--debug"], testbed.home, { env });
      expect(debug.code).toBe(6);
      expect(debug.stderr).toMatch(/issue: data\.Active: /);
      noStack(debug.stderr);
    } finally {
      await proxy.close();
    }
  });
});

describe("--debug", () => {
  it("adds the request trace with the key redacted, and the cause of a failure", async () => {
    testbed.fake.api.faults.add({ kind: "status", status: 503, count: 1 });
    const result = await runSds(["account", "show", "--debug"], testbed.home, { env: testbed.fake.env });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /debug: → GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/supplier-account \(attempt 1\) \[.*EQ-PARTNER-ACCESS-KEY: \[REDACTED\]/i,
    );
    expect(result.stderr).toMatch(/debug: ← 503 GET .*supplier-account in \d+ ms/);
    expect(result.stderr).toMatch(/debug: ↻ retrying GET .*supplier-account in \d+ ms/);
    expect(result.stderr).toMatch(/debug: ← 200 GET /);
    expect(result.stderr).not.toContain(canaryApiKey);
  });

  it("adds the server's error code and messages to a failure", async () => {
    testbed.fake.api.faults.add({ kind: "status", status: 404, errorCode: "NOPE" });
    const result = await runSds(["account", "show", "--debug"], testbed.home, { env: testbed.fake.env });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain("  status: 404");
    expect(result.stderr).toContain("  errorCode: NOPE");
  });
});
