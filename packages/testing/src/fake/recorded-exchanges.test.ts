import { operations } from "@sds/schemas";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
// Recorded by hand from the spec and public integrations; imported by path because the
// schemas package (which owns them) cannot depend on the fake.
import { recordedExchanges, type RecordedExchange } from "../../../schemas/test/recorded/recorded-exchanges.ts";
import { httpCaller, inProcessCaller, type Caller } from "../../test/http.ts";
import { createFakeSupplierApi, type FakeSupplierApi } from "../index.ts";

const SUPPLIER = { supplierId: 12, apiKey: "recorded-key" };

/**
 * The recorded request line with the ids the fake knows put in place of the recorded ones.
 * Only the fake's catalogue differs from the records (its Gender question is 43, the
 * integration's is 9); every other segment of the recorded path is sent as recorded.
 */
function requestFor(recorded: RecordedExchange): { method: string; path: string } {
  const fakeIds: Readonly<Record<string, string | number>> = { qualificationId: 43 };
  const [method = "", path = ""] = recorded.request.split(" ");
  const segments = path.split("/").map((segment) => {
    const param = Object.entries(recorded.pathParams).find(
      ([name, value]) => String(value) === segment && fakeIds[name] !== undefined,
    );
    return param ? String(fakeIds[param[0]]) : segment;
  });
  return { method, path: segments.join("/") };
}

/** The keys of an object, and of the first item of each array it holds, as `key` and `key[].item`. */
function shapeOf(body: Readonly<Record<string, unknown>>): string[] {
  return Object.entries(body).flatMap(([key, value]) => {
    const [first] = Array.isArray(value) ? (value as unknown[]) : [];
    const items =
      typeof first === "object" && first !== null ? Object.keys(first).map((item) => `${key}[].${item}`) : [];
    const fields =
      !Array.isArray(value) && typeof value === "object" && value !== null
        ? Object.keys(value).map((field) => `${key}.${field}`)
        : [];
    return [key, ...items, ...fields];
  });
}

const transports = [
  ["over HTTP", httpCaller],
  ["in-process", (api: FakeSupplierApi, key?: string) => Promise.resolve(inProcessCaller(api, key))],
] as const;

describe.each(transports)("the fake %s against recorded exchanges", (_name, connect) => {
  let api: FakeSupplierApi;
  let call: Caller;

  beforeEach(async () => {
    api = createFakeSupplierApi({
      seed: 5,
      suppliers: [
        { ...SUPPLIER, surveys: [{ survey: { SurveyId: 1001, Has_Qualifications: true, Has_Quotas: true } }] },
      ],
    });
    call = await connect(api, SUPPLIER.apiKey);
  });
  afterEach(async () => {
    await api.close();
  });

  it.each(recordedExchanges.map((recorded) => [recorded.request, recorded] as const))(
    "answers %s with a body of the recorded shape",
    async (_request, recorded) => {
      const { method, path } = requestFor(recorded);
      const result = await call(path, {
        method,
        ...(recorded.requestBody === undefined ? {} : { body: recorded.requestBody }),
      });
      expect(result.status, result.text).toBe(200);
      expect(operations[recorded.operation].response.safeParse(result.json).error).toBeUndefined();
      if (recorded.body) expect(shapeOf(result.json)).toEqual(expect.arrayContaining(shapeOf(recorded.body)));
    },
  );
});
