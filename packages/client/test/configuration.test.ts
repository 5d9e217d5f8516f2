import { ConfigurationError, createClient, type ClientOptions } from "@sds/client";
import { createFakeSupplierApi } from "@sds/testing";
import { afterEach, describe, expect, it, vi } from "vitest";

const baseUrl = "https://sds.example/api/v1";

function configurationErrorOf(options: ClientOptions): ConfigurationError {
  try {
    createClient(options);
  } catch (error) {
    if (error instanceof ConfigurationError) return error;
    throw error;
  }
  throw new Error("expected a ConfigurationError");
}

describe("createClient", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("falls back to SDS_BASE_URL and SDS_API_KEY", async () => {
    const api = createFakeSupplierApi();
    const [key] = api.keys;
    vi.stubEnv("SDS_BASE_URL", "http://env.test/api/v1");
    vi.stubEnv("SDS_API_KEY", key?.apiKey ?? "");
    const sds = createClient({ fetch: api.fetch });
    expect(sds.baseUrl).toBe("http://env.test/api/v1");
    await expect(sds.account.get()).resolves.toMatchObject({ hasError: false });
  });

  it("reads SDS_BASE_URL and SDS_API_KEY from an injected env, never from process.env then", async () => {
    const api = createFakeSupplierApi();
    const [key] = api.keys;
    vi.stubEnv("SDS_BASE_URL", "http://process.test/api/v1");
    vi.stubEnv("SDS_API_KEY", "process-key");
    const sds = createClient({
      fetch: api.fetch,
      env: { SDS_BASE_URL: "http://injected.test/api/v1", SDS_API_KEY: key?.apiKey },
    });
    expect(sds.baseUrl).toBe("http://injected.test/api/v1");
    await expect(sds.account.get()).resolves.toMatchObject({ hasError: false });
    expect(configurationErrorOf({ env: {} }).option).toBe("apiKey");
    expect(configurationErrorOf({ apiKey: "k-123456", env: {} }).option).toBe("baseUrl");
  });

  it("prefers options over the environment", () => {
    vi.stubEnv("SDS_BASE_URL", "http://env.test/api/v1");
    vi.stubEnv("SDS_API_KEY", "env-key");
    expect(createClient({ baseUrl, apiKey: "option-key" }).baseUrl).toBe(baseUrl);
  });

  it("fails at construction without an API key, naming the fix", () => {
    vi.stubEnv("SDS_API_KEY", "");
    const error = configurationErrorOf({ baseUrl });
    expect(error.option).toBe("apiKey");
    expect(error.message).toContain("SDS_API_KEY");
  });

  it("fails at construction without a base URL, naming the fix", () => {
    vi.stubEnv("SDS_BASE_URL", "");
    const error = configurationErrorOf({ apiKey: "k-123456" });
    expect(error.option).toBe("baseUrl");
    expect(error.message).toContain("SDS_BASE_URL");
  });

  it.each([
    ["a relative base URL", { baseUrl: "/api/v1" }, "baseUrl"],
    ["a base URL of another scheme", { baseUrl: "ftp://sds.example/api/v1" }, "baseUrl"],
    ["a base URL with credentials", { baseUrl: "https://user:pw@sds.example/api/v1" }, "baseUrl"],
    ["a base URL with dot segments", { baseUrl: "https://sds.example/api/v1/../../__sandbox" }, "baseUrl"],
    ["a base URL with encoded dot segments", { baseUrl: "https://sds.example/api/v1/%2E%2e/admin" }, "baseUrl"],
    ["a negative timeout", { timeout: -1 }, "timeout"],
    ["a deadline beyond what timers allow", { deadline: 3_000_000_000 }, "deadline"],
    ["a fractional retry limit", { retry: 1.5 }, "retry"],
    ["a negative backoff", { retry: { initialDelay: -5 } }, "retry.initialDelay"],
    ["an unknown validation mode", { validation: "lenient" as never }, "validation"],
    ["a concurrency of 0", { maxConcurrency: 0 }, "maxConcurrency"],
    ["a rate of 0", { rateLimit: { requestsPerSecond: 0 } }, "rateLimit.requestsPerSecond"],
    ["a burst of 0", { rateLimit: { requestsPerSecond: 1, burst: 0 } }, "rateLimit.burst"],
    ["a path without its placeholder", { paths: { getSurveyStats: "/stats" } }, "paths.getSurveyStats"],
    ["a path with a foreign placeholder", { paths: { listLanguages: "/languages/{id}" } }, "paths.listLanguages"],
    ["a relative path", { paths: { getSurveyGroups: "survey-groups/{surveyId}" } }, "paths.getSurveyGroups"],
    ["an unknown operation", { paths: { getEverything: "/everything" } as never }, "paths.getEverything"],
    ["a path with a query", { paths: { getSurveyGroups: "/groups?id={surveyId}" } }, "paths.getSurveyGroups"],
    ["a path with dot segments", { paths: { getSurveyGroups: "/../groups/{surveyId}" } }, "paths.getSurveyGroups"],
    ["a header value fetch refuses", { headers: { "X-Team": "line\nbreak" } }, "headers"],
  ])("refuses %s", (_label, options, option) => {
    expect(configurationErrorOf({ baseUrl, apiKey: "k-123456", ...options }).option).toBe(option);
  });

  it("refuses an invalid option of one call", async () => {
    const sds = createClient({
      baseUrl,
      apiKey: "k-123456",
      fetch: () => Promise.reject(new Error("must not be called")),
    });
    await expect(sds.surveys.list({ timeout: 0 })).rejects.toBeInstanceOf(ConfigurationError);
    await expect(sds.surveys.list({ headers: { "Bad Name": "x" } })).rejects.toMatchObject({
      name: "ConfigurationError",
      option: "headers",
    });
    await expect(sds.surveys.listWithDetails({ concurrency: 0 })).rejects.toMatchObject({
      name: "ConfigurationError",
      option: "concurrency",
    });
  });

  it("sends requests to an overridden path, placeholders filled in", async () => {
    const api = createFakeSupplierApi();
    const [key] = api.keys;
    const sds = createClient({
      baseUrl: "http://fake.test/api/v1",
      apiKey: key?.apiKey,
      fetch: api.fetch,
      retry: false,
      paths: { getSurveyStats: "/stats/{surveyId}" },
    });
    await expect(sds.surveys.stats(77)).rejects.toMatchObject({ name: "NotFoundError", path: "/stats/77" });
    expect(api.requestLog().map((entry) => entry.path)).toEqual(["/api/v1/stats/77"]);
  });

  it("sends its User-Agent, extra headers and per-call headers", async () => {
    const seen: Headers[] = [];
    const fetch = (request: Request): Promise<Response> => {
      seen.push(request.headers);
      return Promise.resolve(
        Response.json({ status: "ok", hasError: false, messages: [], error: { errorCode: "" }, Languages: [] }),
      );
    };
    const sds = createClient({ baseUrl, apiKey: "k-123456", fetch, headers: { "X-Team": "panel" } });
    await sds.collections.languages({ headers: { "X-Trace": "t-1" } });
    await createClient({ baseUrl, apiKey: "k-123456", fetch, userAgent: "panel-sync/2.0" }).collections.languages();
    expect(seen[0]?.get("user-agent")).toMatch(/^@sds\/client\/\d+\.\d+\.\d+/);
    expect(seen[0]?.get("x-team")).toBe("panel");
    expect(seen[0]?.get("x-trace")).toBe("t-1");
    expect(seen[0]?.get("accept")).toBe("application/json");
    expect(seen[1]?.get("user-agent")).toBe("panel-sync/2.0");
  });

  it("drops a trailing slash from the base URL", () => {
    expect(createClient({ baseUrl: `${baseUrl}//`, apiKey: "k-123456" }).baseUrl).toBe(baseUrl);
  });
});
