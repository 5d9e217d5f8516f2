import type { QuarantineInput } from "../inventory-store/store.ts";
import type { SurveyPlan } from "./diff.ts";
import { quarantineOfResponse } from "./quarantine.ts";
import type { FetchedRecords } from "./survey-write-plan.ts";
import { qualificationRecord, quotaRecord } from "../survey-index/survey-record.ts";
import type { Upstream } from "../upstream/upstream.ts";

/** One per-survey fetch that failed: the survey is marked for refetch. */
export interface FetchFailure {
  readonly surveyId: number;
  readonly kind: "qualifications" | "quotas";
  readonly error: unknown;
}

/** What the fetches of one survey brought back. */
export interface SurveyFetchResult extends FetchedRecords {
  readonly failures: readonly FetchFailure[];
  /** Responses that arrived but did not match their schema. */
  readonly quarantine: readonly QuarantineInput[];
}

/**
 * Fetches what the plan asks for one survey: its qualifications, then its quotas. Records are
 * turned into their stored form at once, so a long first cycle holds strings, not object
 * graphs. A failure is returned, never thrown: the survey is then marked for refetch.
 */
export async function fetchSurveyChildren(
  plan: SurveyPlan,
  upstream: Upstream,
  signal: AbortSignal,
): Promise<SurveyFetchResult> {
  const surveyId = plan.survey.SurveyId;
  const failures: FetchFailure[] = [];
  const quarantine: QuarantineInput[] = [];
  const fail = (kind: FetchFailure["kind"], error: unknown) => {
    failures.push({ surveyId, kind, error });
    const entry = quarantineOfResponse(error, kind, surveyId);
    if (entry) quarantine.push(entry);
  };

  let qualifications: FetchedRecords["qualifications"];
  if (plan.fetchQualifications) {
    try {
      const records = await upstream.qualifications(surveyId, signal);
      const foreign = records.find((record) => record.SurveyId !== surveyId);
      if (foreign) {
        // Rule 2: the records must be those of the survey asked for; storing another survey's would mistarget respondents.
        failures.push({
          surveyId,
          kind: "qualifications",
          error: new Error(`qualifications of survey ${surveyId} named survey ${foreign.SurveyId}`),
        });
        quarantine.push({
          key: `qualifications:${surveyId}`,
          surveyId,
          source: "qualifications",
          item: JSON.stringify(records),
          issues: JSON.stringify([
            { path: ["SurveyId"], message: `expected ${surveyId} in every record`, code: "foreign_survey" },
          ]),
        });
      } else {
        qualifications = records.map(qualificationRecord);
      }
    } catch (error) {
      if (signal.aborted) throw error;
      fail("qualifications", error);
    }
  }

  let quotas: FetchedRecords["quotas"];
  if (plan.fetchQuotas) {
    try {
      quotas = (await upstream.quotas(surveyId, signal)).map(quotaRecord);
    } catch (error) {
      if (signal.aborted) throw error;
      fail("quotas", error);
    }
  }
  return { qualifications, quotas, failures, quarantine };
}
