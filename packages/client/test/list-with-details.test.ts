import { RequestAbortedError, ServerError, type DetailsProgress } from "@sds/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startHarness, transportModes, type Harness } from "./support/harness.ts";

describe.each(transportModes)("surveys.listWithDetails (%s)", (mode) => {
  let harness: Harness;

  beforeEach(async () => {
    harness = await startHarness(
      mode,
      { retry: false },
      { suppliers: [{ supplierId: 1001, apiKey: "fan-out-key", surveys: 12 }] },
    );
  });

  afterEach(async () => {
    await harness.close();
  });

  it("returns every live survey with its qualifications, and quotas where Has_Quotas", async () => {
    const live = harness.api.listSurveys(harness.supplierId);
    expect(live.some((survey) => survey.Has_Quotas)).toBe(true);
    expect(live.some((survey) => !survey.Has_Quotas)).toBe(true);
    const { surveys, failures, invalid } = await harness.sds.surveys.listWithDetails();
    expect(failures).toEqual([]);
    expect(invalid).toEqual([]);
    expect(surveys.map((entry) => entry.survey)).toEqual(live);
    for (const entry of surveys) {
      const record = harness.api.getSurvey(entry.survey.SurveyId);
      expect(entry.qualifications).toEqual(record?.qualifications);
      if (entry.survey.Has_Quotas) expect(entry.quotas).toEqual(record?.quotas);
      else expect(entry).not.toHaveProperty("quotas");
    }
    const quotaRequests = harness.api.requestLog().filter((entry) => entry.operationId === "getSurveyQuotas");
    expect(quotaRequests).toHaveLength(live.filter((survey) => survey.Has_Quotas).length);
  });

  it("fetches quotas for every survey or none when asked", async () => {
    const all = await harness.sds.surveys.listWithDetails({ includeQuotas: true });
    expect(all.surveys.every((entry) => Array.isArray(entry.quotas))).toBe(true);
    const none = await harness.sds.surveys.listWithDetails({ includeQuotas: false });
    expect(none.surveys.every((entry) => entry.quotas === undefined)).toBe(true);
  });

  it("collects a survey's failure instead of failing the whole fan-out", async () => {
    const [first, second] = harness.api.listSurveys(harness.supplierId);
    if (!first || !second) throw new Error("too few surveys");
    harness.api.faults.add({ kind: "status", status: 500, path: `/survey-qualifications/${first.SurveyId}` });
    const { surveys, failures } = await harness.sds.surveys.listWithDetails({ includeQuotas: false });
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      surveyId: first.SurveyId,
      survey: first,
      operation: "getSurveyQualifications",
    });
    expect(failures[0]?.error).toBeInstanceOf(ServerError);
    expect(surveys.map((entry) => entry.survey.SurveyId)).not.toContain(first.SurveyId);
    expect(surveys.map((entry) => entry.survey.SurveyId)).toContain(second.SurveyId);
    expect(surveys).toHaveLength(harness.api.listSurveys(harness.supplierId).length - 1);
  });

  it("reports invalid surveys of the list and fetches details of the valid ones only", async () => {
    const bad = harness.api.addSurvey(harness.supplierId, {
      survey: { Name: 42 as unknown as string },
      allowInvalid: true,
    });
    const { surveys, invalid } = await harness.sds.surveys.listWithDetails();
    expect(invalid.map((item) => (item.item as { SurveyId: number }).SurveyId)).toEqual([bad.SurveyId]);
    expect(surveys.map((entry) => entry.survey.SurveyId)).not.toContain(bad.SurveyId);
  });

  it("reports progress after each survey and keeps to its concurrency", async () => {
    const progress: DetailsProgress[] = [];
    harness.api.faults.add({ kind: "latency", ms: 10 });
    harness.api.faults.add({ kind: "status", status: 503, operation: "getSurveyQuotas" });
    const total = harness.api.listSurveys(harness.supplierId).length;
    const result = await harness.sds.surveys.listWithDetails({
      concurrency: 2,
      onProgress: (step) => progress.push(step),
    });
    expect(progress.map((step) => step.completed)).toEqual(Array.from({ length: total }, (_, index) => index + 1));
    expect(progress.every((step) => step.total === total)).toBe(true);
    expect(progress.at(-1)?.failed).toBe(result.failures.length);
  });

  it("fails as a whole when the list itself fails", async () => {
    harness.api.faults.add({ kind: "status", status: 500, operation: "listSurveys", count: 1 });
    await expect(harness.sds.surveys.listWithDetails()).rejects.toBeInstanceOf(ServerError);
  });

  it("stops at once when the caller aborts", async () => {
    harness.api.faults.add({ kind: "latency", ms: 200, operation: "getSurveyQualifications" });
    const controller = new AbortController();
    const pending = harness.sds.surveys
      .listWithDetails({ signal: controller.signal, concurrency: 1 })
      .catch((caught: unknown) => caught);
    setTimeout(() => {
      controller.abort();
    }, 50);
    expect(await pending).toBeInstanceOf(RequestAbortedError);
  });
});
