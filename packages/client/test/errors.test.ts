import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConfigurationError,
  ConnectionError,
  createClient,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  RequestAbortedError,
  RequestError,
  RequestValidationError,
  ResponseValidationError,
  SdsError,
  ServerError,
  TimeoutError,
  isApiError,
  isAuthenticationError,
  isConnectionError,
  isRateLimitError,
  isRequestError,
  isSdsError,
  isServerError,
  isTimeoutError,
  type SdsErrorName,
} from "@sds/client";
import { fakeErrorCodes } from "@sds/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startHarness, transportModes, type Harness } from "./support/harness.ts";

/** The rejection of `promise`, which must reject. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

const validUrls = {
  Enabled: true,
  CompleteUrl: "https://panel.example/c",
  TerminateUrl: "https://panel.example/t",
  OverQuotaUrl: "https://panel.example/o",
  SecurityTerminateUrl: "https://panel.example/s",
};

describe.each(transportModes)("each error class from the fake (%s)", (mode) => {
  let harness: Harness;

  beforeEach(async () => {
    harness = await startHarness(mode, { retry: false });
  });

  afterEach(async () => {
    await harness.close();
  });

  it("maps 400 to BadRequestError with the envelope's code and messages", async () => {
    const error = await rejectionOf(harness.sds.collections.qualificationDetail("english", 42));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(SdsError);
    expect(error).toMatchObject({
      name: "BadRequestError",
      status: 400,
      errorCode: fakeErrorCodes.invalidPathParameter,
      operation: "getQualificationDetail",
      method: "GET",
    });
    expect((error as ApiError).messages.length).toBeGreaterThan(0);
    expect((error as ApiError).message).toContain("GET /collection/languages/english/qualifications/42");
  });

  it("maps 401 to AuthenticationError", async () => {
    const error = await rejectionOf(harness.client({ apiKey: "not-a-valid-key" }).surveys.list());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({
      status: 401,
      errorCode: fakeErrorCodes.invalidApiKey,
      path: "/surveys",
      attempts: 1,
    });
  });

  it("maps 403 to PermissionDeniedError", async () => {
    const error = await rejectionOf(harness.sds.account.updateRedirectUrls(harness.supplierId + 1, validUrls));
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error).toMatchObject({ status: 403, errorCode: fakeErrorCodes.supplierMismatch, method: "PUT" });
  });

  it("maps 404 to NotFoundError", async () => {
    const error = await rejectionOf(harness.sds.surveys.qualifications(987_654_321));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({
      status: 404,
      errorCode: fakeErrorCodes.surveyNotFound,
      path: "/survey-qualifications/987654321",
    });
  });

  it("maps 429 to RateLimitError with the Retry-After wait", async () => {
    harness.api.faults.add({ kind: "status", status: 429, retryAfter: 7, count: 1 });
    const error = await rejectionOf(harness.sds.surveys.list());
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, retryAfter: 7000 });
  });

  it("maps 500 and 503 to ServerError, also with a non-JSON body", async () => {
    harness.api.faults.add({ kind: "status", status: 500, count: 1 });
    harness.api.faults.add({ kind: "status", status: 503, body: "text", count: 1 });
    const first = await rejectionOf(harness.sds.surveys.list());
    const second = await rejectionOf(harness.sds.surveys.list());
    expect(first).toBeInstanceOf(ServerError);
    expect(first).toMatchObject({ status: 500, errorCode: fakeErrorCodes.internalError });
    expect(second).toBeInstanceOf(ServerError);
    expect(second).toMatchObject({ status: 503, errorCode: undefined, messages: [] });
    expect(typeof (second as ServerError).body).toBe("string");
  });

  it("treats hasError: true under HTTP 200 as an ApiError", async () => {
    harness.api.faults.add({ kind: "envelope-error", errorCode: "QUOTA_ENGINE_DOWN", message: "Try later.", count: 1 });
    const error = await rejectionOf(harness.sds.surveys.list());
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).name).toBe("ApiError");
    expect(error).toMatchObject({ status: 200, errorCode: "QUOTA_ENGINE_DOWN", messages: ["Try later."] });
    expect((error as ApiError).message).toContain("hasError: true");
  });

  it("maps a reset connection to ConnectionError with the runtime's error as cause", async () => {
    harness.api.faults.add({ kind: "connection-reset", count: 1 });
    const error = await rejectionOf(harness.sds.surveys.list());
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).cause).toBeInstanceOf(TypeError);
    expect((error as ConnectionError).message).toMatch(/^GET \/surveys failed: no response/);
  });

  it("maps a slow response to TimeoutError of the attempt", async () => {
    harness.api.faults.add({ kind: "latency", ms: 2000, count: 1 });
    const error = await rejectionOf(harness.sds.surveys.list({ timeout: 50 }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ phase: "attempt", timeout: 50, attempts: 1 });
  });

  it("maps a body that is not JSON to ResponseValidationError with the raw text", async () => {
    harness.api.faults.add({ kind: "malformed-json", count: 1 });
    const error = await rejectionOf(harness.sds.surveys.list());
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues[0]?.code).toBe("invalid_json");
    expect(typeof (error as ResponseValidationError).body).toBe("string");
  });

  it("refuses an invalid update body with RequestValidationError and sends nothing", async () => {
    harness.api.clearRequestLog();
    const error = await rejectionOf(
      harness.sds.account.updateRedirectUrls(harness.supplierId, { ...validUrls, CompleteUrl: "not a url" }),
    );
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((issue) => issue.path)).toEqual([["CompleteUrl"]]);
    expect(harness.api.requestLog()).toEqual([]);
  });

  it("rejects with RequestAbortedError when the caller aborts", async () => {
    const error = await rejectionOf(harness.sds.surveys.list({ signal: AbortSignal.abort(new Error("user left")) }));
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect((error as RequestAbortedError).cause).toEqual(new Error("user left"));
  });
});

describe("the error family", () => {
  it("throws ConfigurationError naming the missing option", () => {
    let error: unknown;
    try {
      createClient({ baseUrl: "https://sds.example/api/v1", apiKey: "" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ name: "ConfigurationError", option: "apiKey" });
  });

  it("names each class after itself, so `name` narrows", () => {
    const classes: [new (...args: never[]) => SdsError, SdsErrorName][] = [
      [BadRequestError, "BadRequestError"],
      [AuthenticationError, "AuthenticationError"],
      [PermissionDeniedError, "PermissionDeniedError"],
      [NotFoundError, "NotFoundError"],
      [RateLimitError, "RateLimitError"],
      [ServerError, "ServerError"],
    ];
    for (const [ErrorClass, name] of classes) {
      const error = new (ErrorClass as unknown as typeof ApiError)("m", {
        request: { operation: "listSurveys", method: "GET", path: "/surveys", url: "u", attempts: 1 },
        status: 500,
        errorCode: undefined,
        messages: [],
        requestId: undefined,
        retryAfter: undefined,
        headers: new Headers(),
        body: undefined,
      });
      expect(error.name).toBe(name);
      expect(error.stack?.startsWith(`${name}: m`)).toBe(true);
    }
  });

  it("derives every error that belongs to a request from RequestError, with its request context set", () => {
    const request = {
      operation: "listSurveys",
      method: "GET",
      path: "/surveys",
      url: "https://sds.example/api/v1/surveys",
      attempts: 2,
    } as const;
    const errors: SdsError[] = [
      new ServerError("m", {
        request,
        status: 503,
        errorCode: undefined,
        messages: [],
        requestId: undefined,
        retryAfter: undefined,
        headers: new Headers(),
        body: undefined,
      }),
      new ConnectionError("m", request, { cause: new Error("reset") }),
      new TimeoutError("m", { request, phase: "attempt", timeout: 50 }),
      new RequestAbortedError("m", request),
      new ResponseValidationError("m", { request, status: 200, issues: [], body: "{" }),
      new RequestValidationError("m", { request, issues: [] }),
    ];
    for (const error of errors) {
      expect(error, error.name).toBeInstanceOf(RequestError);
      expect(isRequestError(error), error.name).toBe(true);
      expect(error, error.name).toMatchObject(request);
    }
    expect(errors.map((error) => error.name)).toEqual([
      "ServerError",
      "ConnectionError",
      "TimeoutError",
      "RequestAbortedError",
      "ResponseValidationError",
      "RequestValidationError",
    ]);
    expect((errors[1] as ConnectionError).cause).toEqual(new Error("reset"));
    const configuration = new ConfigurationError("no key", "apiKey");
    expect(configuration).not.toBeInstanceOf(RequestError);
    expect(isRequestError(configuration)).toBe(false);
  });

  it("recognises errors from another copy of the package by brand and name", () => {
    const foreign = Object.assign(new Error("limited"), {
      name: "RateLimitError",
      [Symbol.for("@sds/client/error")]: true,
    });
    expect(isRateLimitError(foreign)).toBe(true);
    expect(isApiError(foreign)).toBe(true);
    expect(isRequestError(foreign)).toBe(true);
    expect(isSdsError(foreign)).toBe(true);
    expect(isServerError(foreign)).toBe(false);
    expect(isConnectionError(foreign)).toBe(false);
  });

  it("does not mistake look-alikes for its errors", () => {
    expect(isTimeoutError(Object.assign(new Error("t"), { name: "TimeoutError" }))).toBe(false);
    expect(isSdsError({ name: "SdsError" })).toBe(false);
    expect(
      isRequestError(Object.assign(new Error("r"), { name: "RequestError", [Symbol.for("@sds/client/error")]: true })),
    ).toBe(false);
    expect(isAuthenticationError(null)).toBe(false);
    expect(isSdsError("SdsError")).toBe(false);
  });

  it("describes itself as plain JSON with its context and without the body", async () => {
    const harness = await startHarness("in-process", { retry: false });
    harness.api.faults.add({ kind: "status", status: 503, retryAfter: 2, count: 1 });
    const error = (await rejectionOf(harness.sds.surveys.list())) as ServerError;
    const json = JSON.parse(JSON.stringify(error)) as Record<string, unknown>;
    expect(json).toMatchObject({
      name: "ServerError",
      status: 503,
      operation: "listSurveys",
      method: "GET",
      path: "/surveys",
      attempts: 1,
      retryAfter: 2000,
    });
    expect(json).not.toHaveProperty("body");
    expect(Object.keys(error)).not.toContain("body");
    expect(error.body).toMatchObject({ hasError: true });
  });
});
