import { ResponseValidationError, createClient } from "@sds/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startHarness, transportModes, type Harness } from "./support/harness.ts";

describe.each(transportModes)("response validation (%s)", (mode) => {
  let harness: Harness;

  beforeEach(async () => {
    harness = await startHarness(
      mode,
      { retry: false },
      { suppliers: [{ supplierId: 1001, apiKey: "validation-key", surveys: 5 }] },
    );
  });

  afterEach(async () => {
    await harness.close();
  });

  it("keeps unknown fields in loose mode (the default)", async () => {
    const added = harness.api.addSurvey(harness.supplierId, { survey: { NewUpstreamField: { tier: "gold" } } });
    const listed = await harness.sds.surveys.list();
    const survey = listed.Surveys.find((candidate) => candidate.SurveyId === added.SurveyId);
    expect(survey?.["NewUpstreamField"]).toEqual({ tier: "gold" });
  });

  it("reports unknown fields in strict mode, with their path", async () => {
    const added = harness.api.addSurvey(harness.supplierId, { survey: { NewUpstreamField: 1 } });
    const index = harness.api.listSurveys(harness.supplierId).findIndex((survey) => survey.SurveyId === added.SurveyId);
    const error = await harness.sds.surveys.list({ validation: "strict" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues).toEqual([
      expect.objectContaining({ code: "unrecognized_keys", path: ["Surveys", index] }),
    ]);
    expect((error as ResponseValidationError).message).toContain("NewUpstreamField");
  });

  it("accepts known fields only in strict mode when the body has no others", async () => {
    await expect(harness.client({ validation: "strict" }).account.get()).resolves.toMatchObject({ hasError: false });
  });

  it("throws ResponseValidationError for one invalid survey, with the issues and the raw body", async () => {
    const bad = harness.api.addSurvey(harness.supplierId, {
      survey: { Cpi: 2.5 as unknown as string },
      allowInvalid: true,
    });
    const index = harness.api.listSurveys(harness.supplierId).findIndex((survey) => survey.SurveyId === bad.SurveyId);
    const error = (await harness.sds.surveys.list().catch((caught: unknown) => caught)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error).toMatchObject({ status: 200, operation: "listSurveys", path: "/surveys" });
    expect(error.issues).toEqual([expect.objectContaining({ path: ["Surveys", index, "Cpi"], code: "invalid_type" })]);
    expect(error.message).toContain("Surveys.");
    expect(error.message).toContain("listItemwise");
    expect((error.body as { Surveys: unknown[] }).Surveys[index]).toMatchObject({ SurveyId: bad.SurveyId, Cpi: 2.5 });
  });

  it("keeps the valid surveys itemwise and reports the invalid one by index", async () => {
    const bad = harness.api.addSurvey(harness.supplierId, {
      survey: { LastUpdatedOnUTC: "yesterday" },
      allowInvalid: true,
    });
    const all = harness.api.listSurveys(harness.supplierId);
    const index = all.findIndex((survey) => survey.SurveyId === bad.SurveyId);
    const { data, invalid } = await harness.sds.surveys.listItemwise();
    expect(data.Surveys.map((survey) => survey.SurveyId)).toEqual(
      all.filter((survey) => survey.SurveyId !== bad.SurveyId).map((survey) => survey.SurveyId),
    );
    expect(invalid).toHaveLength(1);
    expect(invalid[0]).toMatchObject({ index, item: { SurveyId: bad.SurveyId, LastUpdatedOnUTC: "yesterday" } });
    expect(invalid[0]?.issues[0]?.path).toEqual(["LastUpdatedOnUTC"]);
  });

  it("reports unknown fields itemwise in strict mode", async () => {
    const odd = harness.api.addSurvey(harness.supplierId, { survey: { Surprise: true } });
    const { data, invalid } = await harness.sds.surveys.listItemwise({ validation: "strict" });
    expect(invalid.map((item) => (item.item as { SurveyId: number }).SurveyId)).toEqual([odd.SurveyId]);
    expect(data.Surveys).toHaveLength(harness.api.listSurveys(harness.supplierId).length - 1);
  });

  it("returns the body unchecked with validation off, but still honours hasError", async () => {
    harness.api.addSurvey(harness.supplierId, { survey: { Cpi: 2.5 as unknown as string }, allowInvalid: true });
    const sds = harness.client({ validation: "off" });
    const listed = await sds.surveys.list();
    expect(listed.Surveys).toHaveLength(harness.api.listSurveys(harness.supplierId).length);
    const itemwise = await sds.surveys.listItemwise();
    expect(itemwise.invalid).toEqual([]);
    harness.api.faults.add({ kind: "envelope-error", count: 1 });
    await expect(sds.surveys.list()).rejects.toMatchObject({ name: "ApiError", status: 200 });
  });
});

describe("update bodies", () => {
  const urls = {
    Enabled: false,
    CompleteUrl: "https://panel.example/c?rid=[%RID%]",
    TerminateUrl: "https://panel.example/t?rid={rid}",
    OverQuotaUrl: "http://panel.example/o",
    SecurityTerminateUrl: "https://panel.example/s",
  };

  it("go out as JSON with Content-Type application/json and the key header", async () => {
    const seen: Request[] = [];
    const sds = createClient({
      baseUrl: "https://sds.example/api/v1/",
      apiKey: "update-key",
      fetch: (request) => {
        seen.push(request.clone());
        return Promise.resolve(
          Response.json({
            status: "ok",
            hasError: false,
            messages: ["Redirect URL configuration updated."],
            error: { errorCode: "" },
          }),
        );
      },
    });
    await sds.account.updateRedirectUrls("1001", urls);
    const [request] = seen;
    expect(request?.method).toBe("PUT");
    expect(request?.url).toBe("https://sds.example/api/v1/supplier-account/1001/redirect-url");
    expect(request?.headers.get("content-type")).toBe("application/json");
    expect(request?.headers.get("eq-partner-access-key")).toBe("update-key");
    expect(await request?.json()).toEqual(urls);
  });

  it.each([
    ["a missing body", undefined, [[]]],
    ["a missing URL", { ...urls, OverQuotaUrl: undefined }, [["OverQuotaUrl"]]],
    ["a relative URL", { ...urls, TerminateUrl: "/terminate" }, [["TerminateUrl"]]],
    ["a missing Enabled", { ...urls, Enabled: undefined }, [["Enabled"]]],
  ])("are refused before sending for %s", async (_label, body, paths) => {
    let sent = 0;
    const sds = createClient({
      baseUrl: "https://sds.example/api/v1",
      apiKey: "update-key",
      fetch: () => {
        sent++;
        return Promise.resolve(new Response(null, { status: 500 }));
      },
    });
    const error = await sds.account.updateS2SRedirectUrls(1001, body as never).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: "RequestValidationError", operation: "updateS2SRedirectUrls", attempts: 0 });
    expect((error as { issues: { path: unknown }[] }).issues.map((issue) => issue.path)).toEqual(paths);
    expect(sent).toBe(0);
  });

  it("refuses a path parameter that is not an id", async () => {
    const sds = createClient({
      baseUrl: "https://sds.example/api/v1",
      apiKey: "update-key",
      fetch: () => Promise.reject(new Error("must not be called")),
    });
    await expect(sds.surveys.qualifications(Number.NaN)).rejects.toMatchObject({
      name: "RequestValidationError",
      issues: [{ path: ["surveyId"] }],
    });
    await expect(sds.account.updateRedirectUrls(" ", urls)).rejects.toMatchObject({
      name: "RequestValidationError",
      issues: [{ path: ["SupplierId"] }],
    });
  });
});
