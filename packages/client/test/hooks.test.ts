import type { RequestErrorEvent, RequestEvent, ResponseEvent, RetryEvent } from "@sds/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "./support/manual-clock.ts";
import { startHarness, type Harness } from "./support/harness.ts";

type Recorded =
  ["request", RequestEvent] | ["response", ResponseEvent] | ["retry", RetryEvent] | ["error", RequestErrorEvent];

describe("hooks and logger", () => {
  let harness: Harness;
  let events: Recorded[];
  let lines: { level: string; message: string; fields: Record<string, unknown> }[];

  beforeEach(async () => {
    events = [];
    lines = [];
    const log = (level: string) => (fields: Record<string, unknown>, message: string) =>
      lines.push({ level, message, fields });
    harness = await startHarness("in-process", {
      clock: new ManualClock({ autoAdvance: true }),
      retry: { jitter: false },
      hooks: {
        onRequest: (event) => events.push(["request", event]),
        onResponse: (event) => events.push(["response", event]),
        onRetry: (event) => events.push(["retry", event]),
        onError: (event) => events.push(["error", event]),
      },
      logger: { debug: log("debug"), warn: log("warn"), error: log("error") },
    });
  });

  afterEach(async () => {
    await harness.close();
  });

  it("reports each attempt, its response and the retry between them, in order", async () => {
    harness.api.faults.add({ kind: "status", status: 503, count: 1 });
    await harness.sds.surveys.list();
    expect(events.map(([kind, event]) => `${kind}:${event.attempt}`)).toEqual([
      "request:1",
      "response:1",
      "retry:1",
      "request:2",
      "response:2",
    ]);
    const [, request] = events[0] as ["request", RequestEvent];
    expect(request).toMatchObject({ operation: "listSurveys", method: "GET", url: `${harness.baseUrl}/surveys` });
    expect(request.headers["eq-partner-access-key"]).toBe("[REDACTED]");
    expect(request.headers["accept"]).toBe("application/json");
    const statuses = events.filter(([kind]) => kind === "response").map(([, event]) => (event as ResponseEvent).status);
    expect(statuses).toEqual([503, 200]);
    expect((events[2] as ["retry", RetryEvent])[1]).toMatchObject({ delayMs: 500, fromRetryAfter: false });
  });

  it("reports a call that fails for good once, with the error it rejects with", async () => {
    harness.api.faults.add({ kind: "status", status: 404 });
    const error = await harness.sds.surveys.list().catch((caught: unknown) => caught);
    const failures = events.filter(([kind]) => kind === "error").map(([, event]) => event as RequestErrorEvent);
    expect(failures).toHaveLength(1);
    expect(failures[0]?.error).toBe(error);
  });

  it("logs requests and responses at debug, retries at warn, failures at error", async () => {
    harness.api.faults.add({ kind: "status", status: 500 });
    await harness.sds.surveys.list().catch(() => undefined);
    expect(lines.map((line) => line.level)).toEqual([
      "debug",
      "debug",
      "warn",
      "debug",
      "debug",
      "warn",
      "debug",
      "debug",
      "error",
    ]);
    expect(lines.at(-1)?.fields["error"]).toMatchObject({ name: "ServerError", status: 500, attempts: 3 });
    expect(lines.at(-1)?.message).toContain("GET /surveys failed with HTTP 500");
  });

  it("keeps a request alive when a hook throws", async () => {
    const sds = harness.client({
      hooks: {
        onRequest: () => {
          throw new Error("broken logger");
        },
      },
    });
    await expect(sds.account.get()).resolves.toMatchObject({ hasError: false });
  });
});
