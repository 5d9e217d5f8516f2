import { operations, type UrlSettingsBody } from "@sds/schemas";
import {
  industries,
  languages,
  qualificationCatalogue,
  qualificationCategories,
  qualificationCategoryTypes,
  qualificationDetail,
  qualificationTypes,
  studyTypes,
  surveyStatuses,
} from "@sds/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startHarness, transportModes, type Harness } from "./support/harness.ts";

const newUrls: UrlSettingsBody = {
  Enabled: true,
  CompleteUrl: "https://panel.example/complete?rid=[%RID%]",
  TerminateUrl: "https://panel.example/terminate?rid={rid}",
  OverQuotaUrl: "https://panel.example/overquota?rid=[%RID%]",
  SecurityTerminateUrl: "https://panel.example/security?rid=[%RID%]",
};

describe.each(transportModes)("every operation (%s)", (mode) => {
  let harness: Harness;

  beforeEach(async () => {
    harness = await startHarness(mode);
  });

  afterEach(async () => {
    await harness.close();
  });

  it("reads the supplier account", async () => {
    const account = await harness.sds.account.get();
    expect(account.hasError).toBe(false);
    expect(account.data).toEqual(harness.api.getAccount(harness.supplierId));
  });

  it("replaces the redirect URLs, and the next read shows them", async () => {
    const { sds, supplierId } = harness;
    const { data } = await sds.account.get();
    const result = await sds.account.updateRedirectUrls(data.Id, newUrls);
    expect(result.hasError).toBe(false);
    expect(result.messages).toHaveLength(1);
    expect((await sds.account.get()).data.RedirectUrls).toEqual(newUrls);
    expect(harness.api.getAccount(supplierId).S2SUrls).toEqual(data.S2SUrls);
  });

  it("replaces the S2S redirect URLs, and the next read shows them", async () => {
    const { sds } = harness;
    const { data } = await sds.account.get();
    await sds.account.updateS2SRedirectUrls(data.Id, newUrls);
    const after = (await sds.account.get()).data;
    expect(after.S2SUrls).toEqual(newUrls);
    expect(after.RedirectUrls).toEqual(data.RedirectUrls);
  });

  it("lists exactly the live surveys", async () => {
    const listed = await harness.sds.surveys.list();
    expect(listed.SupplierId).toBe(harness.supplierId);
    expect(listed.Surveys).toEqual(harness.api.listSurveys(harness.supplierId, "live"));
  });

  it("lists surveys itemwise with nothing invalid when all are valid", async () => {
    const { data, invalid } = await harness.sds.surveys.listItemwise();
    expect(invalid).toEqual([]);
    expect(data.Surveys).toEqual(harness.api.listSurveys(harness.supplierId));
  });

  it("reads a survey's qualifications, quotas, stats and groups", async () => {
    const survey = harness.api
      .listSurveys(harness.supplierId)
      .find((candidate) => candidate.Has_Quotas && candidate.Has_Qualifications);
    if (!survey) throw new Error("the seeded fake has no survey with quotas and qualifications");
    const record = harness.api.getSurvey(survey.SurveyId);
    const { sds } = harness;
    const qualifications = await sds.surveys.qualifications(survey.SurveyId);
    expect(qualifications.SurveyId).toBe(survey.SurveyId);
    expect(qualifications.Qualifications).toEqual(record?.qualifications);
    expect((await sds.surveys.quotas(survey.SurveyId)).Quotas).toEqual(record?.quotas);
    expect((await sds.surveys.stats(survey.SurveyId)).SurveyId).toBe(survey.SurveyId);
    expect((await sds.surveys.groups(survey.SurveyId)).SurveyId).toBe(survey.SurveyId);
  });

  it("reads a survey's re-contact respondents", async () => {
    const [survey] = harness.api.listSurveys(harness.supplierId);
    const recontacts = await harness.sds.recontacts.list(survey?.SurveyId ?? 0);
    expect(recontacts.SurveyId).toBe(survey?.SurveyId);
    expect(Array.isArray(recontacts.Respondents)).toBe(true);
  });

  it("reads every reference collection", async () => {
    const { collections } = harness.sds;
    expect((await collections.languages()).Languages).toEqual(languages);
    expect((await collections.industries()).Industries).toEqual(industries);
    expect((await collections.studyTypes()).StudyTypes).toEqual(studyTypes);
    expect((await collections.surveyStatuses()).SurveyStatuses).toEqual(surveyStatuses);
    expect((await collections.qualificationCategories()).QualificationCategories).toEqual(qualificationCategories);
    expect((await collections.qualificationCategoryTypes()).QualificationCategoryTypes).toEqual(
      qualificationCategoryTypes,
    );
    expect((await collections.qualificationTypes()).QualificationTypes).toEqual(qualificationTypes);
    expect((await collections.qualifications()).Qualifications.map((item) => item.Id)).toEqual(
      qualificationCatalogue.map((item) => item.Id),
    );
  });

  it("reads one qualification's detail in one language", async () => {
    const [language] = languages;
    const [qualification] = qualificationCatalogue;
    if (!language || !qualification) throw new Error("fixtures are empty");
    const detail = await harness.sds.collections.qualificationDetail(language.Id, qualification.Id);
    expect(detail.Qualification).toEqual(qualificationDetail(language.Id, qualification.Id));
  });

  it("gives the response info of a call without a second request", async () => {
    harness.api.clearRequestLog();
    const pending = harness.sds.surveys.list();
    const { data, response } = await pending.withResponse();
    expect(await pending).toBe(data);
    expect(response).toMatchObject({
      status: 200,
      attempts: 1,
      operation: "listSurveys",
      method: "GET",
      url: `${harness.baseUrl}/surveys`,
    });
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(response.durationMs).toBeGreaterThanOrEqual(0);
    expect(harness.api.requestLog()).toHaveLength(1);
  });

  it("sends each operation to the path of the operations table", async () => {
    harness.api.clearRequestLog();
    const { sds, supplierId } = harness;
    const [survey] = harness.api.listSurveys(supplierId);
    const surveyId = survey?.SurveyId ?? 0;
    const [qualification] = qualificationCatalogue;
    await sds.account.get();
    await sds.account.updateRedirectUrls(String(supplierId), newUrls);
    await sds.account.updateS2SRedirectUrls(supplierId, newUrls);
    await sds.surveys.list();
    await sds.surveys.qualifications(surveyId);
    await sds.surveys.quotas(surveyId);
    await sds.surveys.stats(surveyId);
    await sds.surveys.groups(surveyId);
    await sds.recontacts.list(surveyId);
    await sds.collections.languages();
    await sds.collections.industries();
    await sds.collections.studyTypes();
    await sds.collections.surveyStatuses();
    await sds.collections.qualificationCategories();
    await sds.collections.qualificationCategoryTypes();
    await sds.collections.qualificationTypes();
    await sds.collections.qualifications();
    await sds.collections.qualificationDetail(3, qualification?.Id ?? 0);
    const routed = harness.api.requestLog().map((entry) => entry.operationId);
    expect(routed).toEqual(Object.keys(operations));
    expect(harness.api.requestLog().every((entry) => entry.status === 200)).toBe(true);
  });
});
