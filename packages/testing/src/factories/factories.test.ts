import {
  EncryptionSettings,
  parseRecontactRespondents,
  parseSurveyGroups,
  parseSurveyStats,
  RecontactRespondentsResponse,
  strict,
  SupplierAccount,
  Survey,
  SurveyQualification,
  SurveyQuota,
  SurveyStatsResponse,
  surveyNumbers,
  UrlSettingsBody,
} from "@sds/schemas";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  buildQualifications,
  buildQuotas,
  buildRecontactRespondents,
  buildSupplierAccount,
  buildSurvey,
  buildSurveyGroups,
  buildSurveys,
  buildSurveyStats,
  buildUrlSettings,
  createSurveyFactory,
  FACTORY_REFERENCE_TIME,
  industries,
  languages,
  qualificationCatalogue,
  RECONTACT_STUDY_TYPE_ID,
  studyTypes,
} from "../index.ts";

const seeds = fc.integer({ min: 0, max: 2 ** 32 - 1 });
const catalogue = new Map(qualificationCatalogue.map((question) => [question.Id, question]));

describe("survey factory", () => {
  it("builds surveys that round-trip through JSON and the strict Survey schema unchanged, for any seed", () => {
    fc.assert(
      fc.property(seeds, fc.integer({ min: 1, max: 40 }), (seed, count) => {
        for (const survey of buildSurveys(count, { seed })) {
          const parsed = strict(Survey).safeParse(JSON.parse(JSON.stringify(survey)));
          expect(parsed.error).toBeUndefined();
          expect(parsed.data).toEqual(survey);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("keeps CPI between 0.50 and 25.00 with two decimals, and IR and LOI plausible", () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        for (const survey of buildSurveys(50, { seed })) {
          expect(survey.Cpi).toMatch(/^\d{1,2}\.\d{2}$/);
          const { cpi, ir, loi } = surveyNumbers(survey);
          expect(cpi).toBeGreaterThanOrEqual(0.5);
          expect(cpi).toBeLessThanOrEqual(25);
          expect(ir).toBeGreaterThanOrEqual(1);
          expect(ir).toBeLessThanOrEqual(100);
          expect(loi).toBeGreaterThanOrEqual(1);
          expect(loi).toBeLessThanOrEqual(60);
          expect(survey.Revenue).toBe(cpi);
          expect(survey.IncidentRate).toBe(ir);
          expect(survey.LengthOfInterview).toBe(loi);
        }
      }),
      { numRuns: 40 },
    );
  });

  it("refers only to languages, study types and industries of the fixtures, and allows at least one device", () => {
    const languageIds = new Set(languages.map((language) => language.Id));
    const studyTypeIds = new Set(studyTypes.map((type) => type.Id));
    const industryIds = new Set(industries.map((industry) => industry.Id));
    for (const survey of buildSurveys(2000, { seed: 11 })) {
      expect(languageIds.has(survey.LanguageId)).toBe(true);
      expect(studyTypeIds.has(survey.StudyTypeId)).toBe(true);
      expect(industryIds.has(survey.IndustryId)).toBe(true);
      expect(survey.DesktopAllowed || survey.MobileAllowed || survey.TabletAllowed).toBe(true);
      expect(survey.Name).toMatch(/\([A-Z]{2}\)$/);
    }
  });

  it("spreads dates around the reference time: updates before it, the end after it, millisecond LastUpdatedOnUTC", () => {
    for (const survey of buildSurveys(500, { seed: 5 })) {
      expect(survey.LastUpdatedOnUTC).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const updated = Date.parse(survey.LastUpdatedOnUTC);
      expect(updated).toBeLessThanOrEqual(FACTORY_REFERENCE_TIME);
      expect(Date.parse(survey.StartDate)).toBeLessThan(FACTORY_REFERENCE_TIME);
      expect(Date.parse(survey.EndDate)).toBeGreaterThan(FACTORY_REFERENCE_TIME);
      expect(Date.parse(survey.Qual_LastUpdatedOnUTC)).toBeLessThanOrEqual(updated);
      expect(Date.parse(survey.Quota_LastUpdatedOnUTC)).toBeLessThanOrEqual(updated);
    }
  });

  it("is deterministic: the first N surveys of a seed do not depend on how many are built", () => {
    fc.assert(
      fc.property(seeds, fc.integer({ min: 1, max: 20 }), (seed, count) => {
        expect(buildSurveys(count, { seed })).toEqual(buildSurveys(count + 15, { seed }).slice(0, count));
      }),
      { numRuns: 30 },
    );
    expect(buildSurveys(5, { seed: 1 })).not.toEqual(buildSurveys(5, { seed: 2 }));
  });

  it("numbers surveys from firstSurveyId and lets overrides win", () => {
    const factory = createSurveyFactory({ seed: 3, firstSurveyId: 500 });
    expect(factory.buildMany(3).map((survey) => survey.SurveyId)).toEqual([500, 501, 502]);
    const survey = buildSurvey({ Cpi: "3.00", MobileAllowed: false, SurveyId: 9 });
    expect(survey).toMatchObject({ Cpi: "3.00", MobileAllowed: false, SurveyId: 9 });
    expect(buildSurvey({ SurveyId: 9 }).Name).toBe(survey.Name);
  });

  it("moves dates with referenceTime", () => {
    const later = FACTORY_REFERENCE_TIME + 365 * 86_400_000;
    const survey = buildSurvey({}, { referenceTime: new Date(later) });
    expect(Date.parse(survey.EndDate)).toBeGreaterThan(later);
  });

  it("refuses a negative count or a non-integer first id", () => {
    expect(() => buildSurveys(-1)).toThrow(RangeError);
    expect(() => createSurveyFactory({ firstSurveyId: 1.5 })).toThrow(RangeError);
    expect(() => createSurveyFactory({ referenceTime: Number.NaN })).toThrow(RangeError);
  });
});

describe("qualification factory", () => {
  it("builds records that parse and that match the catalogue's ids, types, options and codes", () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        for (const survey of buildSurveys(30, { seed })) {
          const records = buildQualifications(survey, { seed });
          if (!survey.Has_Qualifications) expect(records).toEqual([]);
          for (const record of records) {
            expect(strict(SurveyQualification).safeParse(record).error).toBeUndefined();
            expect(record.SurveyId).toBe(survey.SurveyId);
            expect(record.LastUpdatedOnUTC).toBe(survey.Qual_LastUpdatedOnUTC);
            const question = catalogue.get(record.QualificationId);
            expect(question).toBeDefined();
            expect(record.QualificationTypeId).toBe(question?.QualificationTypeId);
            if (question?.Options.length === 0) {
              expect(record.OptionIds).toEqual([]);
              expect(record.OptionCodes.length).toBeGreaterThan(0);
            } else {
              const options = new Map(question?.Options.map((option) => [option.OptionId, option]));
              expect(record.OptionIds.length).toBeGreaterThan(0);
              expect(record.OptionCodes).toEqual(record.OptionIds.map((id) => String(options.get(id)?.OptionCode)));
            }
          }
          expect(new Set(records.map((record) => record.QualificationId)).size).toBe(records.length);
        }
      }),
      { numRuns: 40 },
    );
  });

  it("screens on a contiguous age range and on gender first", () => {
    const survey = buildSurvey({ Has_Qualifications: true });
    const [age, gender] = buildQualifications(survey);
    expect(age?.QualificationId).toBe(42);
    expect(gender?.QualificationId).toBe(43);
    const ages = age?.OptionCodes.map(Number) ?? [];
    expect(ages.length).toBeGreaterThan(10);
    ages.forEach((value, index) => {
      if (index > 0) expect(value).toBe((ages[index - 1] ?? 0) + 1);
    });
  });
});

describe("quota factory", () => {
  it("builds quotas that parse, whose conditions use the survey's own qualification options", () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        for (const survey of buildSurveys(30, { seed })) {
          const qualifications = buildQualifications(survey, { seed });
          const quotas = buildQuotas(survey, { seed, qualifications });
          if (!survey.Has_Quotas) expect(quotas).toEqual([]);
          else expect(quotas[0]?.Name).toBe("Total");
          for (const quota of quotas) {
            expect(SurveyQuota.safeParse(quota).error).toBeUndefined();
            expect(quota.Completes).toBeLessThanOrEqual(quota.TargetCompletes);
            expect(quota.Remaining).toBe(quota.TargetCompletes - quota.Completes);
            for (const condition of quota.Conditions) {
              const record = qualifications.find(
                (qualification) => qualification.QualificationId === condition.QualificationId,
              );
              for (const optionId of condition.OptionIds) expect(record?.OptionIds).toContain(optionId);
            }
          }
          expect(new Set(quotas.map((quota) => quota.QuotaId)).size).toBe(quotas.length);
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe("stats, groups and re-contact factories", () => {
  it("build stats consistent with the survey, that parseSurveyStats reads as the supplier's when there are some", () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        for (const survey of buildSurveys(20, { seed })) {
          const stats = buildSurveyStats(survey, { seed });
          expect(SurveyStatsResponse.safeParse({ SurveyId: survey.SurveyId, Stats: stats }).success).toBe(true);
          expect(stats.Global.Completes).toBe(survey.Completes);
          for (const scope of [stats.Global, stats.Supplier ?? stats.Global]) {
            expect(scope.Completes).toBeLessThanOrEqual(scope.Starts);
            expect(scope.SystemConversion).toBe(
              scope.Starts === 0 ? 0 : Math.round((scope.Completes / scope.Starts) * 10_000) / 100,
            );
            expect(scope.EffectiveEPC).toBeCloseTo((survey.Revenue * scope.SystemConversion) / 100, 2);
          }
          const parsed = parseSurveyStats({ Stats: stats });
          expect(parsed.ok && parsed.stats.scope).toBe(stats.Supplier ? "supplier" : "global");
        }
      }),
      { numRuns: 20 },
    );
  });

  it("group every flagged survey, no other, with the same membership whichever survey is asked about", () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        const surveys = buildSurveys(300, { seed });
        const groups = buildSurveyGroups(surveys, { seed });
        expect(parseSurveyGroups({ SurveyGroups: groups }).ok).toBe(true);
        const grouped = new Set(groups.flatMap((group) => group.SurveyGroupSurveys));
        expect([...grouped].sort()).toEqual(
          surveys
            .filter((survey) => survey.Has_Survey_Groups)
            .map((survey) => survey.SurveyId)
            .sort(),
        );
        expect(new Set(groups.map((group) => group.SurveyGroupID)).size).toBe(groups.length);
        expect(buildSurveyGroups(surveys, { seed })).toEqual(groups);
      }),
      { numRuns: 20 },
    );
    expect(buildSurveyGroups([buildSurvey({ Has_Survey_Groups: false })])).toEqual([]);
    expect(buildSurveyGroups([buildSurvey({ SurveyId: 5, Has_Survey_Groups: true })], { firstGroupId: 90 })).toEqual([
      { SurveyGroupID: 90, SurveyGroupSurveys: [5] },
    ]);
  });

  it("list re-contact respondents, some inactive, only for re-contact studies", () => {
    expect(buildRecontactRespondents(buildSurvey({ StudyTypeId: 1 }))).toEqual([]);
    const all = buildSurveys(60).flatMap((survey) =>
      buildRecontactRespondents({ ...survey, StudyTypeId: RECONTACT_STUDY_TYPE_ID }),
    );
    expect(RecontactRespondentsResponse.safeParse({ Respondents: all }).success).toBe(true);
    expect(new Set(all.map((respondent) => respondent.PID)).size).toBe(all.length);
    const active = all.filter((respondent) => respondent.IsActive).length;
    expect(active / all.length).toBeGreaterThan(0.6);
    expect(active).toBeLessThan(all.length);
    const parsed = parseRecontactRespondents({ Respondents: all });
    expect(parsed.ok && parsed.respondents.length).toBe(all.length);
  });
});

describe("account factory", () => {
  it("builds accounts that parse strictly, with a secret incoming key and unset outgoing encryption", () => {
    fc.assert(
      fc.property(seeds, fc.integer({ min: 1, max: 1_000_000 }), (seed, supplierId) => {
        const account = buildSupplierAccount({ seed, supplierId });
        expect(strict(SupplierAccount).safeParse(account).error).toBeUndefined();
        expect(account.Id).toBe(String(supplierId));
        expect(account.IncomingEncryption.EncryptionKey).toMatch(/^[0-9a-f]{32}$/);
        expect(account.OutgoingEncryption).toEqual(
          EncryptionSettings.parse({ Enabled: false, Algorithm: "SHA256", QueryParameter: null, EncryptionKey: null }),
        );
        expect(UrlSettingsBody.safeParse(account.RedirectUrls).success).toBe(true);
        expect(UrlSettingsBody.safeParse(account.S2SUrls).success).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it("builds valid update bodies and keeps the given Id whatever the overrides say", () => {
    fc.assert(
      fc.property(seeds, fc.boolean(), (seed, enabled) => {
        expect(UrlSettingsBody.safeParse(buildUrlSettings({ Enabled: enabled }, { seed })).success).toBe(true);
      }),
    );
    const account = buildSupplierAccount({ supplierId: 7, overrides: { Name: "Acme Panel", Active: false } });
    expect(account).toMatchObject({ Id: "7", Name: "Acme Panel", Active: false });
  });
});
