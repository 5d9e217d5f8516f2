import { inspect } from "node:util";
import { createClient, isSdsError, type ClientOptions, type SdsClient } from "@sds/client";
import type { FaultSpec } from "@sds/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startHarness, transportModes, type Harness } from "./support/harness.ts";

const canary = `sk-canary-${crypto.randomUUID()}`;

/** Every rendering of an error a user or a log pipeline might see. */
function renderings(error: unknown): string[] {
  const all = [
    String(error),
    JSON.stringify(error),
    inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
    inspect(error),
  ];
  if (error instanceof Error)
    all.push(
      error.message,
      error.stack ?? "",
      inspect(error.cause, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
    );
  return all;
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    if (!isSdsError(error)) throw error;
    return error;
  }
  throw new Error("expected the call to fail");
}

describe.each(transportModes)("the API key never leaks (%s)", (mode) => {
  let harness: Harness;
  let lines: string[];
  let sds: SdsClient;

  beforeEach(async () => {
    lines = [];
    const record = (fields: Record<string, unknown>, message: string): void => {
      lines.push(`${message} ${JSON.stringify(fields)}`);
    };
    const options: ClientOptions = {
      retry: { limit: 1, initialDelay: 1 },
      logger: { debug: record, warn: record, error: record },
      hooks: {
        onRequest: (event) => lines.push(inspect(event, { depth: Number.POSITIVE_INFINITY })),
        onResponse: (event) => lines.push(inspect(event, { depth: Number.POSITIVE_INFINITY })),
        onRetry: (event) => lines.push(inspect(event, { depth: Number.POSITIVE_INFINITY })),
        onError: (event) => lines.push(inspect(event, { depth: Number.POSITIVE_INFINITY })),
      },
    };
    harness = await startHarness(mode, options, { suppliers: [{ supplierId: 1001, apiKey: canary, surveys: 3 }] });
    sds = harness.sds;
  });

  afterEach(async () => {
    await harness.close();
  });

  const faults: [string, FaultSpec][] = [
    ["500", { kind: "status", status: 500 }],
    ["429", { kind: "status", status: 429, retryAfter: 0 }],
    ["503 with a text body", { kind: "status", status: 503, body: "text" }],
    ["hasError under 200", { kind: "envelope-error" }],
    ["a reset connection", { kind: "connection-reset" }],
    ["malformed JSON", { kind: "malformed-json" }],
  ];

  it.each(faults)("keeps it out of the error and the logs of %s", async (_label, fault) => {
    harness.api.faults.add(fault);
    const error = await failureOf(sds.surveys.list());
    for (const text of [...renderings(error), ...lines]) expect(text).not.toContain(canary);
    expect(lines.some((line) => line.includes("[REDACTED]"))).toBe(true);
  });

  it("keeps it out of a timeout, an abort and a rejected body", async () => {
    harness.api.faults.add({ kind: "latency", ms: 2000 });
    const errors = [
      await failureOf(sds.surveys.list({ timeout: 20, retry: false })),
      await failureOf(sds.surveys.list({ deadline: 20 })),
      await failureOf(sds.surveys.list({ signal: AbortSignal.abort() })),
      await failureOf(sds.account.updateRedirectUrls(1001, { Enabled: true } as never)),
    ];
    for (const text of [...errors.flatMap(renderings), ...lines]) expect(text).not.toContain(canary);
  });

  it("keeps a wrong key out of the 401 it causes", async () => {
    const wrong = `${canary}-wrong`;
    const error = await failureOf(harness.client({ apiKey: wrong }).surveys.list());
    expect(error).toMatchObject({ status: 401 });
    for (const text of [...renderings(error), ...lines]) expect(text).not.toContain(wrong);
  });

  it("keeps it out of a successful call's logs and the client itself", async () => {
    await sds.surveys.list();
    expect(lines.length).toBeGreaterThan(0);
    for (const text of lines) expect(text).not.toContain(canary);
    expect(inspect(sds, { depth: Number.POSITIVE_INFINITY, showHidden: true })).not.toContain(canary);
    expect(JSON.stringify(sds)).not.toContain(canary);
  });
});

describe("a server that echoes the key back", () => {
  it("has the key scrubbed from the messages the client passes on", async () => {
    const echoing = (request: Request): Promise<Response> => {
      const key = request.headers.get("eq-partner-access-key") ?? "";
      return Promise.resolve(
        Response.json(
          {
            status: "error",
            hasError: true,
            messages: [`Key ${key} is not valid here`],
            error: { errorCode: `BAD_KEY_${key}` },
          },
          { status: 400 },
        ),
      );
    };
    const sds = createClient({ baseUrl: "https://sds.example/api/v1", apiKey: canary, fetch: echoing });
    const error = await failureOf(sds.surveys.list());
    for (const text of renderings(error)) expect(text).not.toContain(canary);
    expect(error).toMatchObject({ messages: ["Key [REDACTED] is not valid here"], errorCode: "BAD_KEY_[REDACTED]" });
  });
});

describe("a key that enters once", () => {
  it("keeps a key from the injected env and another tenant's key of one call out of errors, logs and inspect", async () => {
    const tenantKey = `sk-tenant-${crypto.randomUUID()}`;
    const lines: string[] = [];
    const record = (fields: Record<string, unknown>, message: string): void => {
      lines.push(`${message} ${JSON.stringify(fields)}`);
    };
    // The server echoes whichever key it got, and fails with it in its messages.
    const echoing = (request: Request): Promise<Response> => {
      const key = request.headers.get("eq-partner-access-key") ?? "";
      return Promise.resolve(
        Response.json(
          { status: "error", hasError: true, messages: [`Key ${key} rejected`], error: { errorCode: `BAD_${key}` } },
          { status: 503 },
        ),
      );
    };
    const sds = createClient({
      env: { SDS_BASE_URL: "https://sds.example/api/v1", SDS_API_KEY: canary },
      fetch: echoing,
      retry: { limit: 1, initialDelay: 1 },
      logger: { debug: record, warn: record, error: record },
    });
    const errors = [
      await failureOf(sds.surveys.list()),
      await failureOf(sds.surveys.list({ headers: { "EQ-PARTNER-ACCESS-KEY": tenantKey } })),
    ];
    expect(errors[1]).toMatchObject({ messages: ["Key [REDACTED] rejected"], errorCode: "BAD_[REDACTED]" });
    const texts = [
      ...errors.flatMap(renderings),
      ...lines,
      inspect(sds, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
    ];
    for (const text of texts) {
      expect(text).not.toContain(canary);
      expect(text).not.toContain(tenantKey);
    }
    expect(lines.some((line) => line.includes("[REDACTED]"))).toBe(true);
  });
});
