/*
 * sds-sync's `/openapi.json`, fetched from a running service, validated as OpenAPI 3.1, then used
 * to check real answers of every route: each status must be documented for its operation (no
 * `default` fallback) and each JSON body must match the documented schema (Ajv, draft 2020-12,
 * with formats). An undocumented status or a body that drifted from the zod schemas fails.
 */
import { encryptionSigning, signStartLink, signUrl } from "@sds/routing";
import type { EncryptionSettings } from "@sds/schemas";
import { Validator } from "@seriousme/openapi-schema-validator";
import * as syncClient from "@sds/sync-client";
import { createFakeSupplierApi, DEFAULT_API_KEY, DEFAULT_SUPPLIER_ID, type FakeSupplierApi } from "@sds/testing";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZodType } from "zod";
import type { DatabaseConfig } from "../src/config/config.ts";
import { parseWebhookEndpoints } from "../src/events/event-settings.ts";
import { Pruner } from "../src/retention/pruner.ts";
import { waitFor } from "./harness.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "./postgres.ts";
import { startServiceHarness, TEST_SESSION_SECRET, type ServiceHarness } from "./service-harness.ts";

const TOKEN = "openapi-test-token";
const DOCUMENT_ID = "sds-sync-openapi.json";
const METHODS = ["get", "head", "post", "delete"] as const;
/** The account's S2S signing: outcome calls must be signed, so a bad signature is a 403. */
const OUTGOING: EncryptionSettings = {
  Enabled: true,
  Algorithm: "SHA256",
  QueryParameter: "sig",
  EncryptionKey: "openapi-s2s-key-01",
};
const pgAvailable = await postgresAvailable();

interface OperationObject {
  readonly operationId: string;
  readonly security: readonly unknown[];
  readonly "x-sds-access": string;
  readonly responses: Readonly<Record<string, { $ref?: string; content?: Record<string, unknown> }>>;
}
interface OpenApiDocument {
  readonly paths: Readonly<Record<string, Partial<Record<(typeof METHODS)[number], OperationObject>>>>;
  readonly components: { readonly responses: Readonly<Record<string, { content?: Record<string, unknown> }>> };
}

const pointerEscape = (segment: string) => segment.replaceAll("~", "~0").replaceAll("/", "~1");

describe("the OpenAPI document of sds-sync", () => {
  let api: FakeSupplierApi;
  let harness: ServiceHarness;
  let document: OpenApiDocument;
  let ajv: Ajv2020;
  /** operationId → statuses seen, to show every route was exercised. */
  const seen = new Map<string, Set<number>>();

  beforeAll(async () => {
    api = createFakeSupplierApi({
      suppliers: [
        {
          supplierId: DEFAULT_SUPPLIER_ID,
          apiKey: DEFAULT_API_KEY,
          surveys: 8,
          account: { OutgoingEncryption: OUTGOING },
        },
      ],
    });
    harness = await startServiceHarness({
      api,
      config: {
        apiToken: TOKEN,
        maxClosureShare: 1,
        // A webhook nothing listens at: its routes answer, its deliveries fail and are retried.
        webhookEndpoints: parseWebhookEndpoints("ledger=http://127.0.0.1:9/hooks"),
        webhookSecret: `whsec_${Buffer.from("an openapi secret of 32 bytes!!!").toString("base64")}`,
        webhookAllowPrivate: true,
      },
    });
    const response = await harness.request("/openapi.json");
    expect(response.status).toBe(200);
    document = (await response.json()) as OpenApiDocument;
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(document, DOCUMENT_ID);
  });
  afterAll(async () => {
    await harness.close();
    await api.close();
  });

  /** An outcome call as the marketplace signs it: path and query, with the signature appended. */
  function signed(path: string): string {
    const signing = encryptionSigning(OUTGOING);
    if (!signing) throw new Error("outgoing encryption is enabled");
    return signUrl(`${harness.service.outcomesUrl}${path}`, signing.key, signing.scheme).slice(
      harness.service.outcomesUrl.length,
    );
  }

  /** The operation serving `method path`, by matching the document's path templates. */
  function operationFor(method: string, path: string): { operation: OperationObject; template: string } {
    const pathname = new URL(path, "http://x").pathname;
    for (const [template, item] of Object.entries(document.paths)) {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`);
      const operation = item[method.toLowerCase() as (typeof METHODS)[number]];
      if (pattern.test(pathname) && operation) return { operation, template };
    }
    throw new Error(`${method} ${pathname} is not in the document`);
  }

  /** Sends a request and asserts the document describes its answer; returns the body. */
  async function call(
    method: string,
    path: string,
    expectedStatus: number,
    init: {
      token?: string | null;
      body?: string;
      headers?: Record<string, string>;
      documentedAs?: string;
      target?: ServiceHarness;
    } = {},
  ): Promise<unknown> {
    const headers: Record<string, string> = { ...init.headers };
    if (init.token !== null) headers.authorization = `Bearer ${init.token ?? TOKEN}`;
    if (init.body !== undefined) headers["content-type"] ??= "application/json";
    const response = await (init.target ?? harness).request(path, {
      method,
      headers,
      // The respondent page answers 303s: documented as they are, never followed.
      redirect: "manual",
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    const text = await response.text();
    expect(response.status, `${method} ${path}: ${text.slice(0, 300)}`).toBe(expectedStatus);
    const { operation, template } = operationFor(init.documentedAs ?? method, path);
    const statuses = seen.get(operation.operationId) ?? new Set<number>();
    statuses.add(response.status);
    seen.set(operation.operationId, statuses);
    const key = String(response.status);
    const documented = operation.responses[key];
    expect(documented, `${method} ${path}: HTTP ${key} is not documented for ${operation.operationId}`).toBeDefined();
    const pointer = documented?.$ref
      ? documented.$ref.slice(1)
      : `/paths/${pointerEscape(template)}/${(init.documentedAs ?? method).toLowerCase()}/responses/${key}`;
    const content = documented?.$ref
      ? document.components.responses[documented.$ref.split("/").at(-1) ?? ""]?.content
      : documented?.content;
    if (content === undefined) {
      expect(text, `${method} ${path}: HTTP ${key} is documented without a body`).toBe("");
      return undefined;
    }
    const contentType = response.headers.get("content-type") ?? "";
    const [mediaType] = Object.keys(content);
    expect(
      contentType.startsWith(mediaType ?? "?"),
      `${method} ${path}: content type ${contentType}, documented ${mediaType}`,
    ).toBe(true);
    if (mediaType !== "application/json") return text;
    const body: unknown = JSON.parse(text);
    const schemaPointer = `${pointer}/content/application~1json/schema`;
    const validate = ajv.getSchema(`${DOCUMENT_ID}#${schemaPointer}`);
    if (!validate) throw new Error(`no schema at ${schemaPointer}`);
    const errors = validate(body)
      ? []
      : (validate.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message ?? "is invalid"}`);
    expect(errors, `${method} ${path}: HTTP ${key} body ${text.slice(0, 300)}`).toEqual([]);
    return body;
  }

  it("is a valid OpenAPI 3.1 document with one operation per route", async () => {
    const validator = new Validator();
    const result = await validator.validate(document as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    expect(Object.keys(document.paths).sort()).toEqual(
      [
        "/",
        "/status.js",
        "/status.css",
        "/openapi.json",
        "/healthz",
        "/readyz",
        "/metrics",
        "/v1/surveys",
        "/v1/surveys/{id}",
        "/v1/changes",
        "/v1/collections",
        "/v1/sync/status",
        "/v1/sync/run",
        "/v1/sync/closures/confirm",
        "/v1/match",
        "/v1/entry-links",
        "/v1/outcomes",
        "/v1/outcomes/{outcome}",
        "/v1/outcomes/reconcile",
        "/v1/respondents/history",
        "/v1/events",
        "/v1/webhooks/{name}/resume",
        "/v1/sessions",
        "/v1/sessions/{id}",
        "/v1/sessions/{id}/answers",
        "/v1/sessions/{id}/end",
        "/v1/return/{outcome}",
        "/s/{id}",
        "/s/start",
        "/s/fingerprint.js",
        "/s/{id}/answers",
        "/s/{id}/go",
        "/v1/respondents/{uid}/profile",
      ].sort(),
    );
  });

  it("takes every body it documents from @sds/sync-client, the contract's one owner", () => {
    const { schemas } = (document as unknown as { components: { schemas: Readonly<Record<string, unknown>> } })
      .components;
    // The document's own outline is the one schema that is not a route's body.
    const named = Object.keys(schemas).filter((name) => name !== "OpenApiDocument");
    expect(named.length).toBeGreaterThan(20);
    const contract: Readonly<Record<string, unknown>> = syncClient;
    expect(named.filter((name) => !(contract[name] instanceof ZodType))).toEqual([]);
  });

  it("documents the status payload field by field, the respondent loop's section included", () => {
    interface JsonSchema {
      readonly type?: string;
      readonly properties?: Readonly<Record<string, JsonSchema>>;
      readonly items?: JsonSchema;
    }
    const { schemas } = (document as unknown as { components: { schemas: Readonly<Record<string, JsonSchema>> } })
      .components;
    const status = schemas["SyncStatus"];
    expect(Object.keys(status?.properties ?? {}).sort()).toEqual(
      [
        "closures",
        "currency",
        "collections",
        "intervalSeconds",
        "languages",
        "loop",
        "quarantine",
        "replica",
        "runs",
        "store",
      ].sort(),
    );
    const loop = status?.properties?.["loop"];
    expect(Object.keys(loop?.properties ?? {}).sort()).toEqual(
      [
        "account",
        "gate",
        "inventoryData",
        "matcher",
        "orphans",
        "outcomes",
        "refused",
        "surveyCount",
        "surveys",
        "totals",
        "warnings",
      ].sort(),
    );
    const lastWeek = loop?.properties?.["totals"]?.properties?.["last7d"];
    expect(lastWeek?.properties?.["earnings"]?.type).toBe("number");
    expect(lastWeek?.properties?.["pending"]?.type).toBe("integer");
    expect(Object.keys(loop?.properties?.["surveys"]?.items?.properties ?? {}).sort()).toEqual(
      ["last24h", "last7d", "lifetime", "surveyId"].sort(),
    );
  });

  it("describes the answers of the open routes, and 405 on every path", async () => {
    for (const path of ["/", "/status.js", "/status.css", "/openapi.json", "/healthz", "/readyz", "/metrics"])
      await call("GET", path, 200, { token: null });
    for (const template of Object.keys(document.paths)) {
      const path = template.replace("{id}", "1").replace("{outcome}", "complete");
      const [method] = Object.keys(document.paths[template] ?? {});
      await call("PUT", path, 405, { documentedAs: method ?? "get" });
    }
  });

  it("describes 401 for every route behind the token", async () => {
    for (const [template, item] of Object.entries(document.paths)) {
      for (const method of METHODS) {
        const access = item[method]?.["x-sds-access"];
        if (access !== "router" && access !== "operator") continue;
        await call(method.toUpperCase(), template.replace("{id}", "1"), 401, {
          token: null,
          ...(method === "post" ? { body: "{}" } : {}),
        });
      }
    }
  });

  it("describes the read routes' answers and their 400, 404 and 304", async () => {
    const page = (await call(
      "GET",
      "/v1/surveys?limit=3&status=all&device=mobile,desktop&language=1,2,3&minCpi=0",
      200,
    )) as { surveys: { id: number }[] };
    const firstPage = (await call("GET", "/v1/surveys", 200)) as { surveys: { id: number }[] };
    const etag = (await harness.request("/v1/surveys", { headers: { authorization: `Bearer ${TOKEN}` } })).headers.get(
      "etag",
    );
    expect(etag).not.toBeNull();
    await call("GET", "/v1/surveys", 304, { headers: { "if-none-match": etag ?? "" } });
    await call("GET", "/v1/surveys?limit=0", 400);
    await call("GET", "/v1/surveys?color=red", 400);
    await call("GET", `/v1/surveys/${firstPage.surveys[0]?.id ?? 0}`, 200);
    await call("GET", "/v1/surveys/999999999", 404);
    await call("GET", "/v1/surveys/abc", 400);
    await call("GET", "/v1/surveys/%zz", 400);
    await call("GET", "/v1/changes?after=0&limit=5", 200);
    await call("GET", "/v1/changes?wait=61", 400);
    await call("GET", "/v1/collections", 200);
    await call("GET", "/v1/sync/status", 200);
    expect(page.surveys.length).toBeGreaterThan(0);
  });

  it("describes the respondent loop's answers and refusals", async () => {
    const [survey] = harness.api.listSurveys(1001);
    const surveyId = survey?.SurveyId ?? 0;
    await call("POST", "/v1/match", 200, { body: JSON.stringify({ answers: {}, explain: surveyId }) });
    await call("POST", "/v1/match", 400, { body: "{not json" });
    await call("POST", "/v1/match", 415, { body: "answers", headers: { "content-type": "text/plain" } });
    await call("POST", "/v1/match", 413, { body: JSON.stringify({ answers: {} }).padEnd(70_000, " ") });
    const entry = JSON.stringify({ surveyId, token: "openapi-1", uid: "r1" });
    await call("POST", "/v1/entry-links", 201, { body: entry });
    await call("POST", "/v1/entry-links", 200, { body: entry });
    const [, other] = harness.api.listSurveys(1001);
    await call("POST", "/v1/entry-links", 409, {
      body: JSON.stringify({ surveyId: other?.SurveyId ?? 0, token: "openapi-1" }),
    });
    await call("POST", "/v1/entry-links", 404, { body: JSON.stringify({ surveyId: 999_999_999, token: "openapi-2" }) });
    await call("POST", "/v1/entry-links", 400, { body: JSON.stringify({ surveyId }) });
    await call("GET", signed("/v1/outcomes/complete?vq_token=openapi-1"), 200, { token: null });
    await call("POST", signed("/v1/outcomes/terminate?vq_token=openapi-1"), 200, { token: null });
    await call("GET", signed("/v1/outcomes/finished?vq_token=openapi-1"), 404, { token: null });
    await call("GET", "/v1/outcomes/complete", 400, { token: null });
    // The receiver is authenticated by signature: none, or one over another call, is a 403.
    await call("GET", "/v1/outcomes/complete?vq_token=openapi-1", 403, { token: null });
    await call("POST", signed("/v1/outcomes/complete?vq_token=openapi-1").replace("openapi-1", "openapi-9"), 403, {
      token: null,
    });
    // A survey whose entry URL carries a placeholder sds-sync cannot fill makes no entry link: 422.
    const unusable = harness.api.addSurvey(DEFAULT_SUPPLIER_ID, {
      survey: { SurveyUrl: "https://survey.example.com/s?tid=[#vq_tid#]&panel=[#panel_secret#]" },
    });
    await call("POST", "/v1/sync/run", 200);
    await waitFor(
      async () => (await harness.service.loop.liveMatcher.liveSurvey(unusable.SurveyId)) !== undefined,
      20_000,
    );
    await call("POST", "/v1/entry-links", 422, {
      body: JSON.stringify({ surveyId: unusable.SurveyId, token: "openapi-3" }),
    });
    await call("GET", "/v1/outcomes?after=0", 200);
    await call("GET", "/v1/outcomes?after=0&wait=1", 200);
    await call("GET", "/v1/outcomes?wait=61", 400);
    await call("POST", "/v1/respondents/history", 200, {
      body: JSON.stringify({ entries: [{ uid: "openapi-r", surveyId, enteredAt: "2026-01-01T00:00:00Z" }] }),
    });
    await call("POST", "/v1/respondents/history", 400, { body: JSON.stringify({ entries: [] }) });
    await call("POST", "/v1/outcomes/reconcile", 200, {
      body: JSON.stringify({
        outcomes: [
          { token: "openapi-1", outcome: "security", reason: "quality" },
          { token: "never-issued", outcome: "complete" },
        ],
      }),
    });
    await call("POST", "/v1/outcomes/reconcile", 400, {
      body: JSON.stringify({ outcomes: [{ token: "openapi-1", outcome: "finished" }] }),
    });
  });

  it("describes the respondent's session, its return and profiles", async () => {
    const [survey] = harness.api.listSurveys(DEFAULT_SUPPLIER_ID);
    const languageId = survey?.LanguageId ?? 3;
    const session = (await call("POST", "/v1/sessions", 201, {
      body: JSON.stringify({ uid: "openapi-session", languageId, answers: { "43": ["1"] } }),
    })) as { id: string };
    await call("GET", `/v1/sessions/${session.id}?explain=1`, 200);
    await call("GET", "/v1/sessions/no-such-session", 404);
    await call("POST", `/v1/sessions/${session.id}/answers`, 200, { body: JSON.stringify({ answers: {} }) });
    await call("POST", `/v1/sessions/${session.id}/answers`, 400, { body: JSON.stringify({ answers: { x: 1 } }) });
    await call("POST", `/v1/sessions/${session.id}/end`, 200, { body: "{}" });
    await call("GET", `/s/${session.id}`, 200, { token: null });
    await call("GET", `/s/start?${signStartLink({ uid: "openapi-page", languageId }, TEST_SESSION_SECRET)}`, 303, {
      token: null,
    });
    await call("GET", `/s/start?${signStartLink({ uid: "openapi-page", languageId }, "x".repeat(32))}`, 403, {
      token: null,
    });
    await call("GET", "/s/fingerprint.js", 200, { token: null });
    await call("HEAD", "/s/fingerprint.js", 200, { token: null });
    const checked = `/s/start?${signStartLink({ uid: "openapi-head", languageId }, TEST_SESSION_SECRET)}`;
    await call("HEAD", checked, 200, { token: null });
    // The HEAD started nothing: the link's first GET starts its session.
    await call("GET", checked, 303, { token: null });
    const form = { "content-type": "application/x-www-form-urlencoded" };
    await call("POST", `/s/${session.id}/answers`, 303, { token: null, headers: form, body: "question=43&answer=1" });
    await call("POST", `/s/${session.id}/go`, 303, { token: null, headers: form, body: "fingerprint=" });
    await call("GET", "/v1/respondents/openapi-session/profile", 200);
    await call("DELETE", "/v1/respondents/openapi-session/profile", 200);
    // A token issued outside any session: the signed return answers the minimal page.
    await call("GET", signed("/v1/return/complete?vq_token=openapi-1"), 200, { token: null });
    await call("GET", "/v1/return/complete?vq_token=openapi-1", 403, { token: null });
    await call("GET", signed("/v1/return/complete?vq_token=never-issued"), 404, { token: null });
    // HEAD answers as GET does and changes nothing (the session has ended; a HEAD return records no return).
    await call("HEAD", `/v1/sessions/${session.id}`, 200);
    await call("HEAD", `/s/${session.id}`, 200, { token: null });
    await call("HEAD", "/v1/respondents/openapi-session/profile", 200);
    await call("HEAD", signed("/v1/return/terminate?vq_token=openapi-1"), 200, { token: null });
  });

  it("describes HEAD wherever GET is answered: GET's status and headers, no body, no state changed", async () => {
    const [survey] = harness.api.listSurveys(DEFAULT_SUPPLIER_ID);
    const heads: [string, number][] = [
      ["/", 200],
      ["/status.js", 200],
      ["/status.css", 200],
      ["/openapi.json", 200],
      ["/healthz", 200],
      ["/readyz", 200],
      ["/metrics", 200],
      ["/v1/surveys?limit=2", 200],
      [`/v1/surveys/${survey?.SurveyId ?? 0}`, 200],
      ["/v1/surveys/999999999", 404],
      ["/v1/surveys?limit=0", 400],
      ["/v1/changes?after=0", 200],
      ["/v1/collections", 200],
      ["/v1/sync/status", 200],
      ["/v1/outcomes?after=0", 200],
      ["/v1/events", 200],
    ];
    for (const [path, status] of heads) await call("HEAD", path, status);
    const outcomesBefore = (await call("GET", "/v1/outcomes?after=0", 200)) as { outcomes: unknown[] };
    await call("HEAD", signed("/v1/outcomes/security?vq_token=openapi-head"), 200, { token: null });
    await call("HEAD", "/v1/outcomes/security?vq_token=openapi-head", 403, { token: null });
    await call("HEAD", signed("/v1/outcomes/finished?vq_token=openapi-head"), 404, { token: null });
    const outcomesAfter = (await call("GET", "/v1/outcomes?after=0", 200)) as { outcomes: unknown[] };
    expect(outcomesAfter.outcomes, "a HEAD records no outcome").toEqual(outcomesBefore.outcomes);
  });

  it("describes the operator routes: runs, refusals, closures and a foreign Origin", async () => {
    await call("POST", "/v1/sync/run", 200);
    await call("POST", "/v1/sync/run?wait=false", 202);
    await call("POST", "/v1/sync/run?wait=maybe", 400);
    await call("POST", "/v1/sync/closures/confirm", 202);
    await call("POST", "/v1/sync/closures/confirm", 403, { headers: { origin: "https://elsewhere.example" } });
    await call("GET", "/v1/events", 200);
    await call("POST", "/v1/webhooks/ledger/resume", 202);
    await call("POST", "/v1/webhooks/nobody/resume", 404);
    // An upstream 429 fails the cycle (502 with the run) and holds manual runs back (429), once
    // the cycles asked for above are over: a run waited for joins them or follows them.
    await call("POST", "/v1/sync/run", 200);
    const fault = harness.api.faults.add({ kind: "status", status: 429, operation: "listSurveys", retryAfter: 60 });
    try {
      await call("POST", "/v1/sync/run", 502);
      await call("POST", "/v1/sync/run", 429);
    } finally {
      harness.api.faults.remove(fault.id);
    }
  });

  it("describes 410 behind the feed's horizon", async () => {
    // A pruner of its own with its clock a minute ahead: the service's own keeps the default
    // horizon, so no earlier test's read of the whole feed can meet a 410 by timing.
    const pruner = new Pruner({
      store: harness.service.store,
      retentionMs: 1000,
      now: () => Date.now() + 60_000,
      logger: pino({ level: "silent" }),
    });
    const pass = await pruner.pruneOnce();
    expect(pass.ran).toBe(true);
    expect(await harness.service.store.feedHorizon()).toBeGreaterThan(0);
    await call("GET", "/v1/changes?after=0", 410);
  });

  it("describes 503 on every route that reads a store, once it is gone", async () => {
    await harness.service.store.close();
    for (const path of [
      "/readyz",
      "/v1/surveys",
      "/v1/surveys/1",
      "/v1/changes",
      "/v1/collections",
      "/v1/sync/status",
    ]) {
      await call("GET", path, 503, path === "/readyz" ? { token: null } : {});
    }
    // The respondent loop's records live in a store of their own.
    await harness.service.loop.store.close();
    const [survey] = harness.api.listSurveys(DEFAULT_SUPPLIER_ID);
    await call("GET", "/v1/outcomes?after=0", 503);
    await call("HEAD", "/v1/outcomes?after=0", 503);
    await call("POST", "/v1/entry-links", 503, {
      body: JSON.stringify({ surveyId: survey?.SurveyId ?? 0, token: "openapi-503" }),
    });
    await call("GET", signed("/v1/outcomes/complete?vq_token=openapi-503"), 503, { token: null });
  });

  it.skipIf(!pgAvailable)("describes 409 not_leader on a replica that does not lead (PostgreSQL)", async () => {
    const database: DatabaseConfig = {
      kind: "postgres",
      connectionString: testDatabaseUrl,
      schema: freshSchemaName("sds_sync_openapi"),
    };
    const leader = await startServiceHarness({
      api,
      database,
      replicaId: "openapi-leader",
      config: { apiToken: TOKEN },
    });
    const follower = await startServiceHarness({
      api,
      database,
      replicaId: "openapi-follower",
      config: {
        apiToken: TOKEN,
        webhookEndpoints: parseWebhookEndpoints("ledger=http://127.0.0.1:9/hooks"),
        webhookSecret: `whsec_${Buffer.from("an openapi secret of 32 bytes!!!").toString("base64")}`,
        webhookAllowPrivate: true,
      },
    });
    try {
      expect(follower.service.engine.status().leader).toBe(false);
      await call("POST", "/v1/sync/run", 409, { target: follower });
      await call("POST", "/v1/sync/run?wait=false", 409, { target: follower });
      await call("POST", "/v1/sync/closures/confirm", 409, { target: follower });
      await call("POST", "/v1/webhooks/ledger/resume", 409, { target: follower });
    } finally {
      await follower.close();
      await leader.close();
      await dropSchema(database.schema);
    }
  });

  it("exercised every operation of the document", () => {
    const operationIds = Object.values(document.paths).flatMap((item) =>
      METHODS.flatMap((method) => item[method]?.operationId ?? []),
    );
    const untried = operationIds.filter((id) => ![...(seen.get(id) ?? [])].some((status) => status < 400));
    expect(untried).toEqual([]);
  });
});
