/*
 * The fake's real traffic, over HTTP, validated against the published OpenAPI document
 * (`@sds/schemas/openapi.json`, the committed file) with a JSON Schema 2020-12 validator that
 * checks formats, as a proxy such as Prism would: every operation's success, every error status
 * the client tells apart, and the request bodies sent. When the fake or the schemas change so
 * that the two disagree, this fails.
 */
import openApiDocument from "@sds/schemas/openapi.json" with { type: "json" };
import { expandPath, operationIds, operations, type OperationDefinition, type OperationId } from "@sds/schemas";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeSupplierApi, type FakeServer, type FakeSupplierApi } from "../index.ts";

const ALICE = { supplierId: 1001, apiKey: "alice-key" };
const BOB = { supplierId: 2002, apiKey: "bob-key" };
const DOCUMENT_ID = "sds-openapi.json";

const placeholderUrls = {
  Enabled: true,
  CompleteUrl: "https://panel.example/complete?rid=[%RID%]&tid=[#vq_tid#]",
  TerminateUrl: "https://panel.example/terminate?rid={rid}",
  OverQuotaUrl: "https://panel.example/overquota?rid=[%RID%]",
  SecurityTerminateUrl: "http://panel.example/security?rid=[%RID%]",
};

interface OperationObject {
  readonly operationId: string;
  readonly requestBody?: unknown;
  readonly responses: Readonly<Record<string, unknown>>;
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(openApiDocument, DOCUMENT_ID);

const pointerEscape = (segment: string) => segment.replaceAll("~", "~0").replaceAll("/", "~1");

function documentOperation(id: OperationId): OperationObject {
  const { path, method } = operations[id];
  const paths = openApiDocument.paths as unknown as Record<string, Record<string, OperationObject>>;
  const operation = paths[path]?.[method.toLowerCase()];
  if (!operation) throw new Error(`${id}: ${method} ${path} is not in the document`);
  return operation;
}

/** The documented response for `status`: the exact code, then its range (`5XX`), then `default`. */
function documentedResponseKey(id: OperationId, status: number): string | undefined {
  const { responses } = documentOperation(id);
  return [String(status), `${String(status)[0]}XX`, "default"].find((key) => key in responses);
}

/** Validation errors of `value` against the schema at `pointer` (inside the document), or `[]`. */
function errorsAgainst(pointer: string, value: unknown): string[] {
  const validate = ajv.getSchema(`${DOCUMENT_ID}#${pointer}`);
  if (!validate) throw new Error(`no schema at ${pointer}`);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message ?? "is invalid"}`);
}

/** Resolves a `$ref` to `#/components/responses/…` into its JSON pointer. */
function responsePointer(id: OperationId, key: string): string {
  const { path, method } = operations[id];
  const response = documentOperation(id).responses[key] as { $ref?: string };
  const base = response.$ref
    ? response.$ref.slice(1)
    : `/paths/${pointerEscape(path)}/${method.toLowerCase()}/responses/${pointerEscape(key)}`;
  return `${base}/content/application~1json/schema`;
}

interface Exchange {
  readonly status: number;
  readonly contentType: string | null;
  readonly body: unknown;
}

/** Asserts that the document describes this real answer of operation `id`, body included. */
function expectDescribed(id: OperationId, exchange: Exchange): void {
  const key = documentedResponseKey(id, exchange.status);
  expect(key, `${id}: HTTP ${exchange.status} is not in the document`).toBeDefined();
  expect(exchange.contentType, `${id}: HTTP ${exchange.status}`).toMatch(/^application\/json/);
  expect(errorsAgainst(responsePointer(id, key ?? ""), exchange.body), `${id}: HTTP ${exchange.status} body`).toEqual(
    [],
  );
}

describe("the fake's real traffic, validated against the published OpenAPI document", () => {
  let api: FakeSupplierApi;
  let server: FakeServer;

  beforeAll(async () => {
    api = createFakeSupplierApi({
      seed: 11,
      suppliers: [
        { ...ALICE, surveys: 4, closedSurveys: 1 },
        { ...BOB, surveys: 2 },
      ],
    });
    server = await api.listen();
    api.addSurvey(ALICE.supplierId, { survey: { SurveyUrl: "https://survey.example/s/1?tid=[#vq_tid#]&rid=[%RID%]" } });
  });
  afterAll(async () => {
    await api.close();
  });

  /** Path params that name something Alice owns, or, with `missing`, something nobody has. */
  function pathOf(id: OperationId, missing = false): string {
    const surveyId = missing ? 999_999_999 : (api.listSurveys(ALICE.supplierId)[0]?.SurveyId ?? 0);
    const languageId = missing ? 999 : 3;
    return expandPath(operations[id].path, { SupplierId: ALICE.supplierId, surveyId, languageId, qualificationId: 43 });
  }

  async function send(
    path: string,
    init: { method?: string; key?: string | null; body?: unknown } = {},
  ): Promise<Exchange> {
    const headers: Record<string, string> = {};
    if (init.key !== null) headers["EQ-PARTNER-ACCESS-KEY"] = init.key ?? ALICE.apiKey;
    if (init.body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(`${server.baseUrl}${path}`, {
      method: init.method ?? "GET",
      headers,
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      contentType: response.headers.get("content-type"),
      body: text === "" ? undefined : (JSON.parse(text) as unknown),
    };
  }

  const hasBody = (id: OperationId) => (operations[id] as OperationDefinition).body !== undefined;
  const requestBodyOf = (id: OperationId) => (hasBody(id) ? placeholderUrls : undefined);

  it("describes the success answer of every operation, placeholders in URLs included", async () => {
    for (const id of operationIds) {
      const body = requestBodyOf(id);
      if (body !== undefined) {
        const { path, method } = operations[id];
        const pointer = `/paths/${pointerEscape(path)}/${method.toLowerCase()}/requestBody/content/application~1json/schema`;
        expect(errorsAgainst(pointer, body), `${id}: request body`).toEqual([]);
      }
      const exchange = await send(pathOf(id), { method: operations[id].method, body });
      expect(exchange.status, id).toBe(200);
      expectDescribed(id, exchange);
    }
  });

  it("describes 401 for every operation when the key is missing or unknown", async () => {
    for (const id of operationIds) {
      for (const key of [null, "nobody-key"]) {
        const exchange = await send(pathOf(id), { method: operations[id].method, key, body: requestBodyOf(id) });
        expect(exchange.status, id).toBe(401);
        expectDescribed(id, exchange);
      }
    }
  });

  it("describes 400 for an invalid path parameter or body, and 403 for another supplier's id", async () => {
    const withPathParameter = operationIds.filter((id) =>
      operations[id].pathParams.some((name) => name !== "SupplierId"),
    );
    for (const id of withPathParameter) {
      const path = expandPath(operations[id].path, { surveyId: "abc", languageId: "x", qualificationId: 43 });
      const exchange = await send(path);
      expect(exchange.status, id).toBe(400);
      expectDescribed(id, exchange);
    }
    for (const id of operationIds.filter(hasBody)) {
      const invalid = await send(pathOf(id), { method: "PUT", body: { ...placeholderUrls, CompleteUrl: "not a url" } });
      expect(invalid.status, id).toBe(400);
      expectDescribed(id, invalid);
      const foreign = expandPath(operations[id].path, { SupplierId: BOB.supplierId });
      const forbidden = await send(foreign, { method: "PUT", body: placeholderUrls });
      expect(forbidden.status, id).toBe(403);
      expectDescribed(id, forbidden);
    }
  });

  it("describes 404 for every operation that names a survey, language or qualification nobody has", async () => {
    const withId = operationIds.filter((id) => operations[id].pathParams.some((name) => name !== "SupplierId"));
    expect(withId).toContain("getSurveyQualifications");
    for (const id of withId) {
      const exchange = await send(pathOf(id, true));
      expect(exchange.status, id).toBe(404);
      expectDescribed(id, exchange);
    }
  });

  it("describes 405 for every operation's path called with another method", async () => {
    for (const id of operationIds) {
      const exchange = await send(pathOf(id), { method: operations[id].method === "GET" ? "PUT" : "GET" });
      expect(exchange.status, id).toBe(405);
      expectDescribed(id, exchange);
    }
  });

  it.each([429, 500, 502, 503, 504])("describes an injected %i for every operation", async (status) => {
    for (const id of operationIds) {
      const fault = api.faults.add({ kind: "status", status, operation: id, retryAfter: 1 });
      try {
        const exchange = await send(pathOf(id), { method: operations[id].method, body: requestBodyOf(id) });
        expect(exchange.status, id).toBe(status);
        expectDescribed(id, exchange);
      } finally {
        api.faults.remove(fault.id);
      }
    }
  });
});

describe("the validator used above", () => {
  it("rejects a URL field declared format uri holding a placeholder, so the checks have teeth", () => {
    const strictAjv = new Ajv2020({ strict: false });
    addFormats.default(strictAjv);
    const validate = strictAjv.compile({ type: "string", format: "uri" });
    expect(validate("https://panel.example/complete?rid=[%RID%]")).toBe(false);
    expect(validate("https://panel.example/complete?rid=42")).toBe(true);
  });
});
