import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { FakeSupplierApi } from "@sds/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { SyncConfig } from "../src/config/config.ts";
import { waitFor } from "./harness.ts";
import { loopFake, loopSurvey } from "./loop-surveys.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * Scoped tokens over HTTP (issue 32, "one token opens every door"): SYNC_ROUTER_TOKEN opens what a
 * respondent-facing router needs (match, entry links, sessions) and nothing an operator does;
 * SYNC_API_TOKEN opens everything; /metrics needs SYNC_METRICS_TOKEN once that is set.
 * /openapi.json names each route's scope.
 */

const API_TOKEN = "api-token-0123456789abcdef";
const ROUTER_TOKEN = "router-token-0123456789abcdef";
const METRICS_TOKEN = "metrics-token-0123456789abcdef";
const SURVEY = 9801;

interface Call {
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly body?: unknown;
}

/** What a router calls, each with a body its route takes. */
const routerCalls: readonly Call[] = [
  { method: "POST", path: "/v1/match", body: { answers: {}, limit: 5 } },
  { method: "POST", path: "/v1/entry-links", body: { surveyId: SURVEY, token: "scoped-1", uid: "uid-scoped" } },
  { method: "POST", path: "/v1/sessions", body: { uid: "uid-session", languageId: 3 } },
  { method: "GET", path: "/v1/sessions/no-such-session" },
];

/** What only an operator does. */
const operatorCalls: readonly Call[] = [
  {
    method: "POST",
    path: "/v1/outcomes/reconcile",
    body: { outcomes: [{ token: "scoped-1", outcome: "terminate", reason: "quality" }] },
  },
  {
    method: "POST",
    path: "/v1/respondents/history",
    body: { entries: [{ uid: "uid-h", surveyId: SURVEY, enteredAt: new Date().toISOString() }] },
  },
  { method: "POST", path: "/v1/sync/run" },
  { method: "POST", path: "/v1/sync/closures/confirm" },
  { method: "GET", path: "/v1/sync/status" },
  { method: "GET", path: "/v1/outcomes" },
  { method: "GET", path: "/v1/surveys" },
  { method: "GET", path: "/v1/respondents/uid-session/profile" },
];

describe("scoped tokens", () => {
  let harness: ServiceHarness | undefined;
  let api: FakeSupplierApi | undefined;
  afterEach(async () => {
    await harness?.close();
    await api?.close();
    harness = undefined;
    api = undefined;
  });

  async function start(config: Partial<SyncConfig>): Promise<ServiceHarness> {
    api = loopFake([loopSurvey(SURVEY, { Cpi: "2.00" })]);
    harness = await startServiceHarness({ api, config: { maxClosureShare: 1, ...config } });
    return harness;
  }

  const send = (service: ServiceHarness, call: Call, token: string | undefined) =>
    service.request(call.path, {
      method: call.method,
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(call.body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
    });

  it("lets the router token match, link and run sessions, and refuses it every operator route with 403", async () => {
    const service = await start({ apiToken: API_TOKEN, routerToken: ROUTER_TOKEN });
    // The matcher follows the start-up cycle: wait until the survey can be linked.
    await waitFor(async () => {
      const response = await send(service, routerCalls[0] as Call, ROUTER_TOKEN);
      const body = (await response.json()) as { surveys?: { SurveyId: number }[] };
      return body.surveys?.some((survey) => survey.SurveyId === SURVEY) === true;
    }, 20_000);
    const answered: Record<string, number> = {};
    for (const call of routerCalls)
      answered[`${call.method} ${call.path}`] = (await send(service, call, ROUTER_TOKEN)).status;
    expect(answered).toEqual({
      "POST /v1/match": 200,
      "POST /v1/entry-links": 201,
      "POST /v1/sessions": 201,
      "GET /v1/sessions/no-such-session": 404,
    });
    for (const call of operatorCalls) {
      const response = await send(service, call, ROUTER_TOKEN);
      expect(response.status, `${call.method} ${call.path}`).toBe(403);
      expect(await response.json()).toMatchObject({ error: { code: "insufficient_scope" } });
    }
    // Without a token, or with a wrong one, nothing behind a token answers.
    for (const call of [...routerCalls, ...operatorCalls]) {
      expect((await send(service, call, undefined)).status, `${call.method} ${call.path}`).toBe(401);
      expect((await send(service, call, "wrong-token-0123456789")).status, `${call.method} ${call.path}`).toBe(401);
    }
  });

  it("lets the API token do everything", async () => {
    const service = await start({ apiToken: API_TOKEN, routerToken: ROUTER_TOKEN, metricsToken: METRICS_TOKEN });
    for (const call of [...routerCalls, ...operatorCalls, { method: "GET", path: "/metrics" } as const]) {
      const status = (await send(service, call, API_TOKEN)).status;
      expect([401, 403], `${call.method} ${call.path} answered ${status}`).not.toContain(status);
    }
  });

  it("asks /metrics for the metrics token once SYNC_METRICS_TOKEN is set, and for none otherwise", async () => {
    const open = await start({ apiToken: API_TOKEN });
    expect((await open.request("/metrics")).status).toBe(200);
    await open.close();
    await api?.close();
    harness = undefined;

    const guarded = await start({ apiToken: API_TOKEN, metricsToken: METRICS_TOKEN });
    const anonymous = await guarded.request("/metrics");
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await send(guarded, { method: "GET", path: "/metrics" }, ROUTER_TOKEN)).status).toBe(401);
    const scraped = await send(guarded, { method: "GET", path: "/metrics" }, METRICS_TOKEN);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain("sds_sync_");
    // The metrics token opens /metrics only; the probes stay open.
    expect((await send(guarded, routerCalls[0] as Call, METRICS_TOKEN)).status).toBe(403);
    expect((await guarded.request("/healthz")).status).toBe(200);
    expect((await guarded.request("/readyz")).status).not.toBe(401);
  });

  it("warns in /readyz while no SYNC_API_TOKEN guards the API, and not once it is set", async () => {
    const open = await start({});
    const warned = (await (await open.request("/readyz")).json()) as { warnings?: string[] };
    expect(warned.warnings).toContainEqual(expect.stringContaining("SYNC_API_TOKEN is not set"));
    await open.close();
    await api?.close();
    harness = undefined;
    const guarded = await start({ apiToken: API_TOKEN });
    const quiet = (await (await guarded.request("/readyz")).json()) as { warnings?: string[] };
    expect(quiet.warnings ?? []).not.toContainEqual(expect.stringContaining("SYNC_API_TOKEN"));
  });

  it("documents each route's scope in /openapi.json", async () => {
    const service = await start({ apiToken: API_TOKEN, routerToken: ROUTER_TOKEN });
    const document = (await (await service.request("/openapi.json")).json()) as {
      paths: Record<string, Record<string, { security: unknown[] }>>;
      components: { securitySchemes: Record<string, { type: string; scheme: string; description: string }> };
    };
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual([
      "apiToken",
      "metricsToken",
      "routerToken",
    ]);
    expect(document.components.securitySchemes.routerToken?.description).toContain("SYNC_ROUTER_TOKEN");
    const router = [{ routerToken: [] }, { apiToken: [] }];
    const operator = [{ apiToken: [] }];
    expect(document.paths["/v1/match"]?.post?.security).toEqual(router);
    expect(document.paths["/v1/entry-links"]?.post?.security).toEqual(router);
    expect(document.paths["/v1/sessions"]?.post?.security).toEqual(router);
    expect(document.paths["/v1/sessions/{id}/answers"]?.post?.security).toEqual(router);
    expect(document.paths["/v1/outcomes/reconcile"]?.post?.security).toEqual(operator);
    expect(document.paths["/v1/respondents/history"]?.post?.security).toEqual(operator);
    expect(document.paths["/v1/sync/run"]?.post?.security).toEqual(operator);
    expect(document.paths["/metrics"]?.get?.security).toEqual([{ metricsToken: [] }, { apiToken: [] }, {}]);
    expect(document.paths["/healthz"]?.get?.security).toEqual([]);
    expect(document.paths["/v1/outcomes/{outcome}"]?.get?.security).toEqual([]);
  });

  it("is what docs/reference.md lists: the access of every route by token scope", async () => {
    const service = await start({});
    const document = (await (await service.request("/openapi.json")).json()) as {
      paths: Record<string, Record<string, { "x-sds-access": string }>>;
    };
    const served = Object.entries(document.paths)
      .flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method]) => method !== "head")
          .map(([method, operation]) => `| \`${method.toUpperCase()} ${path}\` | ${operation["x-sds-access"]} |`),
      )
      .sort();
    const reference = readFileSync(fileURLToPath(new URL("../docs/reference.md", import.meta.url)), "utf8");
    const section = reference.slice(reference.indexOf("### Access by route"));
    const listed = [...section.matchAll(/^\| `([A-Z]+ [^`]+)` \| ([a-z]+) \|$/gm)].map((match) => match[0]).sort();
    expect(listed, `docs/reference.md's table should read:\n${served.join("\n")}`).toEqual(served);
  });
});
