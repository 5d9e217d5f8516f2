import { describe, expect, it } from "vitest";
import { buildSurvey } from "@sds/testing";
import type { Survey } from "@sds/schemas";
import type { StoredSurveyState } from "../inventory-store/store.ts";
import { rawHash, recordHash } from "../survey-index/survey-record.ts";
import { planSurvey } from "./diff.ts";
import { settleSurvey } from "./survey-write-plan.ts";

/** The state of `survey` as stored by a cycle that fetched its qualifications at their marker (no quotas). */
function storedFetched(survey: Survey): StoredSurveyState {
  return {
    id: survey.SurveyId,
    status: "live",
    rawHash: rawHash(JSON.stringify(survey)),
    recordHash: recordHash(survey),
    qualUpdated: survey.Qual_LastUpdatedOnUTC,
    quotaUpdated: survey.Quota_LastUpdatedOnUTC,
    qualificationsMarker: survey.Qual_LastUpdatedOnUTC,
    quotasMarker: null,
    needsRefetch: false,
    quotaCount: 0,
  };
}

describe("settleSurvey without Has_Qualifications", () => {
  it("empties the stored qualifications without a request when the flag turns false, and reports them changed", () => {
    const before = buildSurvey({ SurveyId: 7, Has_Qualifications: true, Has_Quotas: false });
    const after = { ...before, Has_Qualifications: false };
    const plan = planSurvey(after, storedFetched(before));
    expect(plan).toMatchObject({ fetchQualifications: false, clearQualifications: true, recordChanged: true });
    const settled = settleSurvey(plan ?? expect.unreachable(), {});
    expect(settled.qualifications).toEqual({ surveyId: 7, records: [] });
    expect(settled.changes).toEqual(["updated", "qualifications_changed"]);
    expect(settled.state).toMatchObject({ qualificationsMarker: null, needsRefetch: false });
  });

  it("empties, once and without a change, a survey stored before the flag was honoured (fetched at its marker although the flag was false)", () => {
    const survey = buildSurvey({ SurveyId: 8, Has_Qualifications: false, Has_Quotas: false });
    const plan = planSurvey(survey, storedFetched(survey));
    const settled = settleSurvey(plan ?? expect.unreachable(), {});
    expect(settled.qualifications).toEqual({ surveyId: 8, records: [] });
    expect(settled.changes).toEqual([]);
    expect(settled.write?.qualificationsMarker).toBeNull();
    // Settled: the next cycle has nothing to do for it.
    expect(planSurvey(survey, settled.state)).toBeUndefined();
  });
});
