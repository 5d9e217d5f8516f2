import type { Survey } from "@sds/schemas";
import type { ChildReplacement, CycleCommit, RunInput, SurveyWrite } from "../src/inventory-store/store.ts";
import { emptyRunCounts } from "../src/inventory-store/store.ts";
import {
  qualificationRecord,
  quotaRecord,
  rawHash,
  recordHash,
  surveyColumns,
} from "../src/survey-index/survey-record.ts";

/** A valid survey record for store tests that need precise control over every field. */
export function sampleSurvey(id: number, overrides: Partial<Survey> = {}): Survey {
  return {
    SurveyId: id,
    Name: `Survey ${id}`,
    Cpi: "2.50",
    Ir: "40",
    Loi: "12",
    StudyTypeId: 1,
    Completes: 0,
    LanguageId: 3,
    SurveyUrl: `https://surveys.example.com/s/${id}`,
    DesktopAllowed: true,
    MobileAllowed: true,
    TabletAllowed: false,
    LastUpdatedOnUTC: "2026-01-01T00:00:00.000Z",
    Has_Qualifications: true,
    Has_Quotas: false,
    Has_Survey_Groups: false,
    IndustryId: 1,
    CollectPii: false,
    BuyerId: 7,
    StartDate: "2026-01-01T00:00:00Z",
    EndDate: "2026-12-31T00:00:00Z",
    Qual_LastUpdatedOnUTC: "2026-01-01T00:00:00Z",
    Quota_LastUpdatedOnUTC: "2026-01-01T00:00:00Z",
    Revenue: 0,
    IncidentRate: 40,
    LengthOfInterview: 12,
    ...overrides,
  };
}

/** The store write of a survey whose children were fetched at its current markers. */
export function surveyWrite(
  survey: Survey,
  options: { readonly quotaCount?: number; readonly needsRefetch?: boolean } = {},
): SurveyWrite {
  const raw = JSON.stringify(survey);
  return {
    id: survey.SurveyId,
    raw,
    rawHash: rawHash(raw),
    recordHash: recordHash(survey),
    columns: surveyColumns(survey),
    qualificationsMarker: options.needsRefetch ? null : survey.Qual_LastUpdatedOnUTC,
    quotasMarker: survey.Has_Quotas ? survey.Quota_LastUpdatedOnUTC : null,
    quotaCount: options.quotaCount ?? 0,
    needsRefetch: options.needsRefetch ?? false,
  };
}

/** Qualification records of a survey, `count` of them. */
export function qualificationsOf(surveyId: number, count: number): ChildReplacement {
  return {
    surveyId,
    records: Array.from({ length: count }, (_, index) =>
      qualificationRecord({
        SurveyId: surveyId,
        LastUpdatedOnUTC: "2026-01-01T00:00:00Z",
        QualificationId: 100 + index,
        QualificationTypeId: 1,
        OptionIds: [index],
        OptionCodes: [String(index)],
      }),
    ),
  };
}

/** Quota records of a survey, `count` of them. */
export function quotasOf(surveyId: number, count: number): ChildReplacement {
  return {
    surveyId,
    records: Array.from({ length: count }, (_, index) => quotaRecord({ QuotaId: 900 + index, Conditions: [] })),
  };
}

/** A succeeded run record at `at`. */
export function runAt(at: Date, overrides: Partial<RunInput> = {}): RunInput {
  return {
    replicaId: "test",
    trigger: "schedule",
    status: "succeeded",
    startedAt: at,
    finishedAt: new Date(at.getTime() + 5),
    counts: emptyRunCounts(),
    error: null,
    ...overrides,
  };
}

/** A commit with nothing in it but the run record; fill what a test needs. */
export function emptyCommit(at: Date, overrides: Partial<CycleCommit> = {}): CycleCommit {
  return {
    run: runAt(at),
    surveys: [],
    closedSurveyIds: [],
    qualifications: [],
    quotas: [],
    changes: [],
    quarantine: [],
    resolvedQuarantineKeys: [],
    at,
    ...overrides,
  };
}
