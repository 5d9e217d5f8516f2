import { UrlSettingsBody, urlSettingsUrlFields } from "@sds/schemas";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { httpCaller, inProcessCaller, validUrlSettings, type Caller } from "../../test/http.ts";
import { createFakeSupplierApi, DEFAULT_MAX_BODY_BYTES, fakeErrorCodes, type FakeSupplierApi } from "../index.ts";

const updatePaths = ["/supplier-account/1001/redirect-url", "/supplier-account/1001/s2s-redirect-url"] as const;

function errorCode(json: Record<string, unknown>): string {
  return (json.error as { errorCode: string }).errorCode;
}

describe("update bodies over HTTP", () => {
  let api: FakeSupplierApi;
  let call: Caller;
  beforeEach(async () => {
    api = createFakeSupplierApi({ seed: 2 });
    call = await httpCaller(api);
  });
  afterEach(async () => {
    await api.close();
  });

  const refusals: readonly (readonly [string, Parameters<Caller>[1], string])[] = [
    [
      "a body that is not JSON",
      { body: "{Enabled: true", headers: { "content-type": "application/json" } },
      fakeErrorCodes.invalidJson,
    ],
    ["a JSON array", { body: [validUrlSettings] }, fakeErrorCodes.validationFailed],
    ["a JSON string", { body: '"https://x.example"' }, fakeErrorCodes.validationFailed],
    ["JSON null", { body: "null" }, fakeErrorCodes.validationFailed],
    ["a missing field", { body: { ...validUrlSettings, OverQuotaUrl: undefined } }, fakeErrorCodes.validationFailed],
    ["Enabled as a string", { body: { ...validUrlSettings, Enabled: "true" } }, fakeErrorCodes.validationFailed],
    ["a URL as a number", { body: { ...validUrlSettings, CompleteUrl: 42 } }, fakeErrorCodes.validationFailed],
    ["a relative URL", { body: { ...validUrlSettings, CompleteUrl: "/complete" } }, fakeErrorCodes.validationFailed],
    [
      "an ftp URL",
      { body: { ...validUrlSettings, TerminateUrl: "ftp://x.example/t" } },
      fakeErrorCodes.validationFailed,
    ],
    [
      "a URL with spaces",
      { body: { ...validUrlSettings, TerminateUrl: "https://x.example/a b" } },
      fakeErrorCodes.validationFailed,
    ],
    [
      "a URL over 2048 characters",
      { body: { ...validUrlSettings, CompleteUrl: `https://x.example/${"a".repeat(2100)}` } },
      fakeErrorCodes.validationFailed,
    ],
    ["an empty body", { body: "" }, fakeErrorCodes.missingBody],
    ["no body at all", { headers: { "content-type": "application/json" } }, fakeErrorCodes.missingBody],
    [
      "Content-Type text/plain",
      { body: JSON.stringify(validUrlSettings), headers: { "content-type": "text/plain" } },
      fakeErrorCodes.unsupportedContentType,
    ],
    [
      "a body over 64 KiB",
      { body: { ...validUrlSettings, Padding: "x".repeat(DEFAULT_MAX_BODY_BYTES) } },
      fakeErrorCodes.bodyTooLarge,
    ],
  ];

  it.each(refusals)("refuses %s with 400, the error envelope, and no change", async (_name, options, code) => {
    const before = api.getAccount(1001);
    for (const path of updatePaths) {
      const result = await call(path, { method: "PUT", ...options });
      expect(result.status).toBe(400);
      expect(result.json).toMatchObject({ status: "error", hasError: true });
      expect(errorCode(result.json)).toBe(code);
      expect((result.json.messages as string[]).length).toBeGreaterThan(0);
    }
    expect(api.getAccount(1001)).toEqual(before);
  });

  it("refuses a JSON body sent without Content-Type with 400 and no change", async () => {
    const before = api.getAccount(1001);
    const server = await api.listen();
    const response = await fetch(`${server.baseUrl}${updatePaths[0]}`, {
      method: "PUT",
      headers: { "EQ-PARTNER-ACCESS-KEY": api.keys[0]?.apiKey ?? "" },
      // Bytes, unlike a string, make fetch send no Content-Type of its own.
      body: new TextEncoder().encode(JSON.stringify(validUrlSettings)),
    });
    expect(response.status).toBe(400);
    expect(errorCode((await response.json()) as Record<string, unknown>)).toBe(fakeErrorCodes.unsupportedContentType);
    expect(api.getAccount(1001)).toEqual(before);
  });

  it("names each invalid field in messages", async () => {
    const result = await call(updatePaths[0], {
      method: "PUT",
      body: {
        Enabled: 1,
        CompleteUrl: "nope",
        TerminateUrl: validUrlSettings.TerminateUrl,
        OverQuotaUrl: validUrlSettings.OverQuotaUrl,
      },
    });
    const messages = (result.json.messages as string[]).join("\n");
    expect(messages).toMatch(/^Enabled: /m);
    expect(messages).toMatch(/^CompleteUrl: /m);
    expect(messages).toMatch(/^SecurityTerminateUrl: /m);
  });

  it("accepts JSON content types in any case and with parameters", async () => {
    for (const contentType of [
      "application/json; charset=utf-8",
      "APPLICATION/JSON",
      "application/json;charset=UTF-8",
    ]) {
      const result = await call(updatePaths[0], {
        method: "PUT",
        body: validUrlSettings,
        headers: { "content-type": contentType },
      });
      expect(result.status, contentType).toBe(200);
    }
  });

  it("refuses bytes that are not UTF-8 as invalid JSON", async () => {
    const server = await api.listen();
    const response = await fetch(`${server.baseUrl}${updatePaths[0]}`, {
      method: "PUT",
      headers: { "EQ-PARTNER-ACCESS-KEY": api.keys[0]?.apiKey ?? "", "content-type": "application/json" },
      body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
    });
    expect(response.status).toBe(400);
    expect(errorCode((await response.json()) as Record<string, unknown>)).toBe(fakeErrorCodes.invalidJson);
  });

  it("keeps the connection usable after refusing a 1 MB body", async () => {
    const huge = await call(updatePaths[0], { method: "PUT", body: { Padding: "x".repeat(1_000_000) } });
    expect(huge.status).toBe(400);
    expect((await call(updatePaths[0], { method: "PUT", body: validUrlSettings })).status).toBe(200);
  });

  it("honours a smaller maxBodyBytes", async () => {
    const small = createFakeSupplierApi({ maxBodyBytes: 100 });
    const smallCall = await httpCaller(small);
    try {
      const result = await smallCall(updatePaths[0], { method: "PUT", body: validUrlSettings });
      expect(errorCode(result.json)).toBe(fakeErrorCodes.bodyTooLarge);
    } finally {
      await small.close();
    }
  });
});

const urlArbitrary = fc
  .tuple(
    fc.constantFrom("http", "https"),
    fc.domain(),
    fc.webPath(),
    fc.constantFrom("", "?rid=[%RID%]", "?rid={rid}&x=1"),
  )
  .map(([scheme, domain, path, query]) => `${scheme}://${domain}${path}${query}`)
  .filter((url) => UrlSettingsBody.shape.CompleteUrl.safeParse(url).success);

const validBody = fc.record({
  Enabled: fc.boolean(),
  CompleteUrl: urlArbitrary,
  TerminateUrl: urlArbitrary,
  OverQuotaUrl: urlArbitrary,
  SecurityTerminateUrl: urlArbitrary,
});

const wrongValue = fc.oneof(
  fc.integer(),
  fc.constant(null),
  fc.boolean(),
  fc.string({ maxLength: 20 }),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.constant({}),
);
const fields = ["Enabled", ...urlSettingsUrlFields] as const;

/** A valid body broken in one of the ways a client can break it. */
const invalidBody = fc
  .oneof(
    fc
      .tuple(validBody, fc.constantFrom(...fields))
      .map(([body, missing]) => Object.fromEntries(Object.entries(body).filter(([field]) => field !== missing))),
    fc
      .tuple(validBody, fc.constantFrom(...fields), wrongValue)
      .map(([body, field, value]) => ({ ...body, [field]: value })),
    fc.jsonValue(),
  )
  .filter((body) => !UrlSettingsBody.safeParse(body).success);

describe("update bodies, property-based (in-process)", () => {
  let api: FakeSupplierApi;
  let call: Caller;
  beforeEach(() => {
    api = createFakeSupplierApi({ seed: 4 });
    call = inProcessCaller(api);
  });

  it("answers 400 and changes nothing for every invalid body", async () => {
    const before = api.getAccount(1001);
    await fc.assert(
      fc.asyncProperty(invalidBody, fc.constantFrom(...updatePaths), async (body, path) => {
        const result = await call(path, { method: "PUT", body: JSON.stringify(body) });
        expect(result.status).toBe(400);
        expect(result.json.hasError).toBe(true);
        expect(api.getAccount(1001)).toEqual(before);
      }),
      { numRuns: 300 },
    );
  });

  it("answers 400 and changes nothing for arbitrary text sent as JSON", async () => {
    const before = api.getAccount(1001);
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), async (text) => {
        fc.pre(!UrlSettingsBody.safeParse(safeJson(text)).success);
        const result = await call(updatePaths[0], {
          method: "PUT",
          body: text,
          headers: { "content-type": "application/json" },
        });
        expect(result.status).toBe(400);
        expect(api.getAccount(1001)).toEqual(before);
      }),
      { numRuns: 200 },
    );
  });

  it("stores every valid body exactly and shows it on the next Get Supplier Details", async () => {
    await fc.assert(
      fc.asyncProperty(validBody, fc.constantFrom(...updatePaths), async (body, path) => {
        const result = await call(path, { method: "PUT", body });
        expect(result.status).toBe(200);
        expect(result.json.messages).toHaveLength(1);
        const account = (await call("/supplier-account")).json.data as Record<string, unknown>;
        expect(account[path.endsWith("s2s-redirect-url") ? "S2SUrls" : "RedirectUrls"]).toEqual(body);
      }),
      { numRuns: 100 },
    );
  });
});

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
