import { Agent, request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChangeRecord, SurveyDetail, SurveySummary } from "../src/inventory-store/store.ts";
import { waitFor } from "./harness.ts";
import { checkMetrics, requirePromtool } from "./promtool.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

const promtool = requirePromtool();
if (promtool.path === undefined) console.warn(`skipping the promtool check of /metrics: ${promtool.reason}`);

/** How many readers long-poll the change feed on `harness` now, by its /metrics gauge. */
async function changeFeedLongPolls(harness: ServiceHarness): Promise<number> {
  const text = await (await harness.request("/metrics")).text();
  return Number(/^sds_sync_long_polls_waiting\{feed="changes"\} (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
}

interface SurveyList {
  surveys: SurveySummary[];
  nextCursor: string | null;
}

describe("the HTTP API", () => {
  let harness: ServiceHarness;
  beforeAll(async () => {
    harness = await startServiceHarness({ surveys: 60 });
  });
  afterAll(async () => {
    await harness.close();
  });
  const getJson = async <T>(path: string, status = 200): Promise<T> => {
    const response = await harness.request(path);
    expect(response.status, `${path} answered ${response.status}`).toBe(status);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    return (await response.json()) as T;
  };

  it("answers the probes: healthy, and ready after the first successful cycle", async () => {
    expect(await getJson("/healthz")).toEqual({ status: "ok" });
    expect(await getJson("/readyz")).toMatchObject({ ready: true, staleAfterSeconds: 3 * 3600 });
  });

  it("lists live surveys in id order, page by page with an opaque cursor", async () => {
    const live = harness.api.listSurveys(1001).map((survey) => survey.SurveyId);
    const seen: number[] = [];
    let path = "/v1/surveys?limit=25";
    for (let page = 0; page < 5; page += 1) {
      const body = await getJson<SurveyList>(path);
      seen.push(...body.surveys.map((survey) => survey.id));
      if (body.nextCursor === null) break;
      path = `/v1/surveys?limit=25&cursor=${encodeURIComponent(body.nextCursor)}`;
    }
    expect(seen).toEqual(live);
    const first = await getJson<SurveyList>("/v1/surveys?limit=1");
    expect(first.surveys[0]).toMatchObject({
      status: "live",
      closedAt: null,
      needsRefetch: false,
      survey: harness.api.getSurvey(live[0] ?? 0)?.survey,
    });
  });

  it("filters by CPI, LOI, language, device and status", async () => {
    const live = harness.api.listSurveys(1001);
    const expectIds = async (query: string, predicate: (survey: (typeof live)[number]) => boolean) => {
      const body = await getJson<SurveyList>(`/v1/surveys?limit=1000&${query}`);
      expect(
        body.surveys.map((survey) => survey.id),
        query,
      ).toEqual(live.filter(predicate).map((survey) => survey.SurveyId));
    };
    await expectIds("minCpi=2&maxCpi=5", (survey) => Number(survey.Cpi) >= 2 && Number(survey.Cpi) <= 5);
    await expectIds("maxLoi=15", (survey) => Number(survey.Loi) <= 15);
    const language = live[0]?.LanguageId ?? 0;
    await expectIds(`language=${language}`, (survey) => survey.LanguageId === language);
    await expectIds("device=mobile,tablet", (survey) => survey.MobileAllowed && survey.TabletAllowed);
    await expectIds("status=closed", () => false);
    await expectIds("status=all&updatedSince=2000-01-01", () => true);
    await expectIds("updatedSince=2999-01-01T00:00:00Z", () => false);
  });

  it.each([
    ["status=open", "status"],
    ["minCpi=cheap", "minCpi"],
    ["minCpi=-1", "minCpi"],
    ["minCpi=5&maxCpi=1", "minCpi"],
    ["maxLoi=1e3", "maxLoi"],
    ["language=en", "language"],
    ["device=watch", "device"],
    ["updatedSince=yesterday", "updatedSince"],
    ["updatedSince=2026-13-45", "updatedSince"],
    ["cursor=not-a-cursor", "cursor"],
    ["limit=0", "limit"],
    ["limit=5000", "limit"],
    ["limit=10&limit=20", "limit"],
    ["colour=red", "colour"],
  ])("answers 400 naming the parameter for /v1/surveys?%s", async (query, param) => {
    const body = await getJson<{ error: { code: string; message: string } }>(`/v1/surveys?${query}`, 400);
    expect(body.error.code).toBe("bad_request");
    expect(body.error.message.startsWith(`${param}:`)).toBe(true);
  });

  it("returns one survey with its qualifications and quotas, 404 for an unknown id and 400 for a malformed one", async () => {
    const withQuotas = harness.api.listSurveys(1001).find((survey) => survey.Has_Quotas);
    const id = withQuotas?.SurveyId ?? 0;
    const detail = await getJson<SurveyDetail>(`/v1/surveys/${id}`);
    const upstream = harness.api.getSurvey(id);
    expect(detail).toMatchObject({
      id,
      status: "live",
      survey: upstream?.survey,
      qualifications: upstream?.qualifications,
      quotas: upstream?.quotas,
    });
    expect((await getJson<{ error: { code: string } }>("/v1/surveys/99999999", 404)).error.code).toBe("not_found");
    expect((await getJson<{ error: { message: string } }>("/v1/surveys/abc", 400)).error.message).toMatch(/^id:/);
    expect((await getJson<{ error: { message: string } }>("/v1/surveys/%E0%A4%A", 400)).error.message).toMatch(/^id:/);
  });

  it("pages through the change feed without gaps and rejects bad feed parameters", async () => {
    const all = await getJson<{ changes: ChangeRecord[]; next: number; hasMore: boolean }>("/v1/changes?limit=1000");
    expect(all.changes.map((change) => change.sequence)).toEqual(Array.from({ length: 60 }, (_, index) => index + 1));
    expect(all.changes.every((change) => change.type === "opened")).toBe(true);
    const page = await getJson<{ changes: ChangeRecord[]; next: number; hasMore: boolean }>(
      "/v1/changes?after=10&limit=5",
    );
    expect(page.changes.map((change) => change.sequence)).toEqual([11, 12, 13, 14, 15]);
    expect(page).toMatchObject({ next: 15, hasMore: true });
    for (const query of ["after=-1", "after=x", "limit=0", "wait=61", "wait=soon", "since=3"]) {
      await getJson(`/v1/changes?${query}`, 400);
    }
  });

  it("long-polls the change feed until a cycle commits a change", async () => {
    const { next } = await getJson<{ next: number }>("/v1/changes?limit=1000");
    const started = Date.now();
    const waiting = getJson<{ changes: ChangeRecord[] }>(`/v1/changes?after=${next}&wait=20`);
    // The change comes once the reader waits (not before: then the answer would not be a long-poll's).
    await waitFor(async () => (await changeFeedLongPolls(harness)) === 1);
    const [target] = harness.api.listSurveys(1001);
    harness.api.closeSurvey(target?.SurveyId ?? 0);
    const run = await harness.request("/v1/sync/run", { method: "POST" });
    expect(run.status).toBe(200);
    expect(await run.json()).toMatchObject({ run: { status: "succeeded", counts: { closed: 1 } } });
    const body = await waiting;
    expect(body.changes).toMatchObject([{ sequence: next + 1, type: "closed", surveyId: target?.SurveyId }]);
    expect(Date.now() - started).toBeLessThan(10_000);
    const closed = await getJson<SurveyList>("/v1/surveys?status=closed");
    expect(closed.surveys.map((survey) => survey.id)).toEqual([target?.SurveyId]);
  });

  it("answers an empty page after the wait when nothing changes", async () => {
    const { next } = await getJson<{ next: number }>("/v1/changes?limit=1000");
    const started = Date.now();
    const body = await getJson<{ changes: ChangeRecord[]; next: number }>(`/v1/changes?after=${next}&wait=1`);
    expect(body).toMatchObject({ changes: [], next });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("reports recent cycles, the store and the reference collections on /v1/sync/status", async () => {
    const status = await getJson<{
      replica: { leader: boolean };
      store: { kind: string; live: number };
      runs: { status: string; counts: { listed: number } }[];
      collections: { name: string }[];
    }>("/v1/sync/status");
    expect(status.replica.leader).toBe(true);
    expect(status.store.kind).toBe("sqlite");
    expect(status.runs.length).toBeGreaterThanOrEqual(1);
    expect(status.runs.at(-1)).toMatchObject({ status: "succeeded", counts: { listed: 60 } });
    expect(status.collections.map((collection) => collection.name)).toContain("languages");
    const collections = await getJson<{ collections: { name: string; body: unknown }[] }>("/v1/collections");
    expect(collections.collections.find((collection) => collection.name === "languages")?.body).toMatchObject({
      Languages: expect.any(Array) as unknown,
    });
  });

  it("exposes Prometheus metrics for cycles, upstream requests, surveys and changes", async () => {
    const response = await harness.request("/metrics");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toMatch(/^sds_sync_cycles_total\{status="succeeded"\} \d+$/m);
    expect(text).toMatch(/^sds_sync_cycle_duration_seconds_count\{status="succeeded"\} \d+$/m);
    expect(text).toMatch(/^sds_sync_upstream_requests_total\{operation="listSurveys",status="200"\} \d+$/m);
    // Qualifications are asked only of the surveys with Has_Qualifications: the count is what the upstream answered.
    const answered = harness.api
      .requestLog()
      .filter((entry) => entry.operationId === "getSurveyQualifications" && entry.status === 200).length;
    expect(answered).toBeGreaterThan(0);
    expect(text).toMatch(
      new RegExp(
        `^sds_sync_upstream_requests_total\\{operation="getSurveyQualifications",status="200"\\} ${answered}$`,
        "m",
      ),
    );
    expect(text).toMatch(/^sds_sync_surveys\{status="live"\} \d+$/m);
    expect(text).toMatch(/^sds_sync_changes_total\{type="opened"\} 60$/m);
    expect(text).toMatch(/^sds_sync_last_success_timestamp_seconds \d+(\.\d+)?$/m);
    expect(text).toMatch(/^sds_sync_leader 1$/m);
    expect(text).toMatch(/^sds_sync_quarantined_items_total 0$/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+$/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  });

  it.skipIf(promtool.path === undefined)(
    `serves /metrics that promtool check metrics accepts${promtool.reason ? ` (skipped: ${promtool.reason})` : ""}`,
    async () => {
      const text = await (await harness.request("/metrics")).text();
      const check = checkMetrics(promtool.path ?? "promtool", text);
      expect(check.output).toBe("");
      expect(check.status).toBe(0);
    },
  );

  it("answers 404 for an unknown path (a trailing slash included, as in the fake) and 405 for a wrong method, as JSON", async () => {
    expect((await getJson<{ error: { code: string } }>("/v2/things", 404)).error.code).toBe("not_found");
    expect((await getJson<{ error: { code: string } }>("/v1/surveys/", 404)).error.code).toBe("not_found");
    expect((await getJson<{ error: { code: string } }>("//v1/surveys", 404)).error.code).toBe("not_found");
    const response = await harness.request("/v1/surveys", { method: "DELETE" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET");
    expect((await harness.request("/v1/sync/run")).status).toBe(405);
    expect((await harness.request("/v1/sync/run?wait=maybe", { method: "POST" })).status).toBe(400);
  });
});

describe("the HTTP API with SYNC_API_TOKEN", () => {
  const token = "s3cret-token-0123456789";
  let harness: ServiceHarness;
  beforeAll(async () => {
    harness = await startServiceHarness({ surveys: 3, config: { apiToken: token } });
  });
  afterAll(async () => {
    await harness.close();
  });

  it("requires the bearer token on every /v1 route and leaves the probes and metrics open", async () => {
    for (const [path, method] of [
      ["/v1/surveys", "GET"],
      ["/v1/surveys/1", "GET"],
      ["/v1/changes", "GET"],
      ["/v1/sync/status", "GET"],
      ["/v1/collections", "GET"],
      ["/v1/sync/run", "POST"],
    ] as const) {
      const anonymous = await harness.request(path, { method });
      expect(anonymous.status, path).toBe(401);
      expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(
        (await harness.request(path, { method, headers: { authorization: `Bearer ${token}x` } })).status,
        path,
      ).toBe(401);
      expect((await harness.request(path, { method, headers: { authorization: token } })).status, path).toBe(401);
    }
    expect((await harness.request("/v1/surveys", { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await harness.request("/v1/surveys", { headers: { authorization: `bearer ${token}` } })).status).toBe(200);
    for (const path of ["/healthz", "/readyz", "/metrics"])
      expect((await harness.request(path)).status, path).toBe(200);
  });
});

describe("readiness during an upstream outage", () => {
  let harness: ServiceHarness;
  beforeAll(async () => {
    harness = await startServiceHarness({ surveys: 5, config: { intervalSeconds: 0.2 } });
  });
  afterAll(async () => {
    await harness.close();
  });

  it("keeps serving the last good data while readiness reports it stale", async () => {
    harness.api.faults.add({ kind: "status", status: 503, operation: "listSurveys" });
    await waitFor(async () => (await harness.request("/readyz")).status === 503, 10_000);
    const readiness = (await (await harness.request("/readyz")).json()) as {
      ready: boolean;
      reason: string;
      ageSeconds: number;
    };
    expect(readiness).toMatchObject({ ready: false, reason: expect.stringMatching(/stale/) as unknown });
    const surveys = (await (await harness.request("/v1/surveys")).json()) as SurveyList;
    expect(surveys.surveys).toHaveLength(5);
    const metrics = await (await harness.request("/metrics")).text();
    expect(metrics).toMatch(/^sds_sync_cycles_total\{status="failed"\} [1-9]\d*$/m);

    harness.api.faults.clear();
    await waitFor(async () => (await harness.request("/readyz")).status === 200, 15_000);
  });
});

describe("the HTTP API when the store fails", () => {
  it("answers 503 store_unavailable with Retry-After, never the driver's message, and 500 only for bugs", async () => {
    const harness = await startServiceHarness({ surveys: 5 });
    try {
      await harness.service.store.close();
      const response = await harness.request("/v1/surveys");
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("5");
      expect(await response.json()).toEqual({
        error: { code: "store_unavailable", message: "the store cannot be read right now; retry shortly" },
      });
      expect((await harness.request("/v1/surveys/1")).status).toBe(503);
      expect((await harness.request("/healthz")).status).toBe(200);
    } finally {
      await harness.close().catch(() => undefined);
    }
  });
});

describe("the HTTP API's protected mode", () => {
  let harness: ServiceHarness;
  beforeAll(async () => {
    harness = await startServiceHarness({
      surveys: 5,
      config: { allowedHosts: ["sync.internal"], allowedOrigins: ["https://panel.example.com"] },
    });
  });
  afterAll(async () => {
    await harness.close();
  });

  /** A raw request, so the Host header can be anything (fetch sets it from the URL). */
  function rawRequest(
    path: string,
    headers: Record<string, string>,
    method = "GET",
  ): Promise<{ status: number; body: string }> {
    const url = new URL(harness.service.url);
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest({ host: url.hostname, port: url.port, path, method, headers }, (response) => {
        let body = "";
        response.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
        response.on("end", () => {
          resolve({ status: response.statusCode ?? 0, body });
        });
      });
      outgoing.on("error", reject);
      outgoing.end();
    });
  }

  it("refuses a Host that names neither this machine nor an allowed host (DNS rebinding), and answers the others", async () => {
    const refused = await rawRequest("/v1/surveys", { host: "attacker.example" });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: "host_not_allowed" } });
    expect((await rawRequest("/v1/sync/status", { host: "attacker.example:80" })).status).toBe(403);
    expect((await rawRequest("/v1/surveys", { host: "localhost" })).status).toBe(200);
    expect((await rawRequest("/v1/surveys", { host: "sync.internal:8080" })).status).toBe(200);
    expect((await rawRequest("/healthz", { host: "10.1.2.3:8787" })).status).toBe(200);
  });

  it("refuses a mutating request from a foreign Origin, and takes its own and the allowed ones", async () => {
    const port = new URL(harness.service.url).port;
    const foreign = await rawRequest(
      "/v1/sync/run?wait=false",
      { host: `127.0.0.1:${port}`, origin: "http://attacker.example" },
      "POST",
    );
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body)).toMatchObject({ error: { code: "origin_not_allowed" } });
    expect(
      (await rawRequest("/v1/sync/run?wait=false", { host: `127.0.0.1:${port}`, origin: "null" }, "POST")).status,
    ).toBe(403);
    for (const origin of [`http://127.0.0.1:${port}`, "https://panel.example.com"]) {
      expect(
        (await rawRequest("/v1/sync/run?wait=false", { host: `127.0.0.1:${port}`, origin }, "POST")).status,
        origin,
      ).not.toBe(403);
    }
  });
});

describe("the HTTP API at shutdown", () => {
  it("closes fast although clients hold keep-alive connections, idle and busy", async () => {
    const harness = await startServiceHarness({ surveys: 5 });
    const agent = new Agent({ keepAlive: true, keepAliveMsecs: 60_000 });
    const get = (path: string) =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const url = new URL(`${harness.service.url}${path}`);
        httpRequest({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, agent }, (response) => {
          response.resume();
          response.on("end", () => {
            resolve({ status: response.statusCode ?? 0, connection: response.headers.connection });
          });
        })
          .on("error", reject)
          .end();
      });
    try {
      // Idle keep-alive sockets, and one busy with a long-poll when shutdown starts.
      await Promise.all([get("/v1/surveys"), get("/v1/changes"), get("/healthz")]);
      const longPoll = get("/v1/changes?after=1000000&wait=30");
      await waitFor(async () => (await changeFeedLongPolls(harness)) === 1);
      const started = performance.now();
      await harness.service.stop();
      const elapsed = performance.now() - started;
      const answer = await longPoll;
      console.info(`shutdown with keep-alive clients took ${elapsed.toFixed(0)} ms`);
      expect(answer.connection).toBe("close");
      // The grace period for busy connections is 3 s and keep-alive idles for 5 s; a fast shutdown
      // takes milliseconds, and stays below the grace period on a loaded machine.
      expect(elapsed).toBeLessThan(3000);
    } finally {
      agent.destroy();
      await harness.close().catch(() => undefined);
    }
  });
});

describe("the polled survey list", () => {
  let polled: ServiceHarness;
  beforeAll(async () => {
    polled = await startServiceHarness({ surveys: 60 });
  });
  afterAll(async () => {
    await polled.close();
  });

  it("answers a polled list with an ETag: 304 while nothing changed, the new page once a cycle committed; gzip or br when asked", async () => {
    const path = "/v1/surveys?limit=50";
    const first = await polled.request(path);
    const etag = first.headers.get("etag") ?? "";
    expect(etag).toMatch(/^W\/".+"$/);
    expect(first.headers.get("sds-sequence")).toBe(String(((await first.json()) as { sequence: number }).sequence));
    expect((await polled.request(path, { headers: { "if-none-match": etag } })).status).toBe(304);
    const compressed = await polled.request(path, { headers: { "accept-encoding": "br" } });
    expect(compressed.headers.get("content-encoding")).toBe("br");
    expect(((await compressed.json()) as SurveyList).surveys).toHaveLength(50);
    const id = polled.api.listSurveys(1001)[0]?.SurveyId ?? 0;
    polled.api.updateSurvey(id, { Cpi: "9.99" });
    await polled.request("/v1/sync/run", { method: "POST" });
    const changed = await polled.request(path, { headers: { "if-none-match": etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect(((await changed.json()) as SurveyList).surveys.find((survey) => survey.id === id)?.survey).toMatchObject({
      Cpi: "9.99",
    });
  });
});
