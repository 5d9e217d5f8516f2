import { describe, expect, it } from "vitest";
import type { StoredSurveyState } from "../inventory-store/store.ts";
import { buildSurvey } from "@sds/testing";
import { planSurvey } from "./diff.ts";
import { rawHash, recordHash } from "../survey-index/survey-record.ts";
import { SurveyStates } from "../survey-index/survey-states.ts";

const stored: StoredSurveyState = {
  id: 7,
  status: "live",
  rawHash: rawHash('{"SurveyId":7}'),
  recordHash: rawHash('{"SurveyId":7,"Cpi":"1.50"}'),
  qualUpdated: "2026-11-23T13:40:06.123Z",
  quotaUpdated: "2026-11-23T13:40:06Z",
  qualificationsMarker: "2026-11-23T13:40:06.123Z",
  quotasMarker: null,
  needsRefetch: true,
  quotaCount: 3,
};

describe("SurveyStates.isCurrent", () => {
  it("answers exactly as planSurvey does (needs nothing), over every combination of the fields it reads", () => {
    const other = "2020-01-01T00:00:00Z";
    const answers: boolean[] = [];
    for (const [hasQualifications, hasQuotas] of [
      [true, true],
      [true, false],
      [false, true],
      [false, false],
    ] as const) {
      const survey = buildSurvey({ SurveyId: 7, Has_Qualifications: hasQualifications, Has_Quotas: hasQuotas });
      const raw = JSON.stringify(survey);
      const hash = rawHash(raw);
      for (const status of ["live", "closed"] as const)
        for (const sameRaw of [true, false])
          for (const qualificationsMarker of [survey.Qual_LastUpdatedOnUTC, other, null])
            for (const quotasMarker of [survey.Quota_LastUpdatedOnUTC, other, null])
              for (const quotaCount of [0, 2])
                for (const needsRefetch of [false, true]) {
                  const state: StoredSurveyState = {
                    id: 7,
                    status,
                    rawHash: sameRaw ? hash : rawHash(`${raw} `),
                    recordHash: recordHash(survey),
                    qualUpdated: survey.Qual_LastUpdatedOnUTC,
                    quotaUpdated: survey.Quota_LastUpdatedOnUTC,
                    qualificationsMarker,
                    quotasMarker,
                    needsRefetch,
                    quotaCount,
                  };
                  const states = SurveyStates.from([state]);
                  const label = JSON.stringify({ hasQualifications, hasQuotas, ...state });
                  const current = states.isCurrent(7, hash, hasQualifications, hasQuotas);
                  expect(current, label).toBe(planSurvey(survey, states.get(7), raw) === undefined);
                  answers.push(current);
                }
    }
    expect(answers).toHaveLength(4 * 2 * 2 * 3 * 3 * 2 * 2);
    // Both answers occur: the comparison is not one-sided.
    expect(answers.filter(Boolean).length).toBeGreaterThan(0);
    expect(answers.filter((answer) => !answer).length).toBeGreaterThan(0);
    // A survey never stored is never current.
    expect(SurveyStates.from([stored]).isCurrent(9, stored.rawHash, false, false)).toBe(false);
  });
});
