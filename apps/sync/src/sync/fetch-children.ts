import type { SurveyQualification, SurveyQuota } from "@sds/schemas";
import type { QuarantineInput } from "../store/store.ts";
import { forEachWithConcurrency } from "./concurrency.ts";
import type { SurveyPlan } from "./diff.ts";
import { quarantineOfResponse } from "./quarantine.ts";
import type { Upstream } from "./upstream.ts";

/** One per-survey fetch that failed: the survey is marked for refetch. */
export interface FetchFailure {
  readonly surveyId: number;
  readonly kind: "qualifications" | "quotas";
  readonly error: unknown;
}

/** What the per-survey fetches of one cycle brought back. */
export interface FetchedChildren {
  readonly qualifications: Map<number, readonly SurveyQualification[]>;
  readonly quotas: Map<number, readonly SurveyQuota[]>;
  readonly failures: FetchFailure[];
  /** Responses that arrived but did not match the schema. */
  readonly quarantine: QuarantineInput[];
}

/**
 * Fetches the qualifications and quotas the plan asks for, every request its own task in one
 * pool of `concurrency`, so the slowest survey never holds up a free slot. A failure is recorded,
 * never thrown: the survey is marked for refetch and the cycle carries on. Stops starting new
 * requests when `signal` aborts (shutdown); the caller then abandons the cycle.
 */
export async function fetchChildren(plans: readonly SurveyPlan[], upstream: Upstream, concurrency: number, signal: AbortSignal): Promise<FetchedChildren> {
  const result: FetchedChildren = { qualifications: new Map(), quotas: new Map(), failures: [], quarantine: [] };
  const tasks: { readonly surveyId: number; readonly kind: "qualifications" | "quotas" }[] = [];
  for (const plan of plans) {
    if (plan.fetchQualifications) tasks.push({ surveyId: plan.survey.SurveyId, kind: "qualifications" });
    if (plan.fetchQuotas) tasks.push({ surveyId: plan.survey.SurveyId, kind: "quotas" });
  }
  await forEachWithConcurrency(
    tasks,
    concurrency,
    async ({ surveyId, kind }) => {
      try {
        if (kind === "qualifications") {
          const qualifications = await upstream.qualifications(surveyId, signal);
          const foreign = qualifications.filter((record) => record.SurveyId !== surveyId);
          // Rule 2: the records must be those of the survey asked for; storing another survey's would mistarget respondents.
          if (foreign.length > 0) {
            result.failures.push({ surveyId, kind, error: new Error(`qualifications of survey ${surveyId} named survey ${foreign[0]?.SurveyId}`) });
            result.quarantine.push({
              key: `${kind}:${surveyId}`,
              surveyId,
              source: kind,
              item: JSON.stringify(qualifications),
              issues: JSON.stringify([{ path: ["SurveyId"], message: `expected ${surveyId} in every record`, code: "foreign_survey" }]),
            });
            return;
          }
          result.qualifications.set(surveyId, qualifications);
        } else {
          result.quotas.set(surveyId, await upstream.quotas(surveyId, signal));
        }
      } catch (error) {
        if (signal.aborted) return;
        result.failures.push({ surveyId, kind, error });
        const quarantined = quarantineOfResponse(error, kind, surveyId);
        if (quarantined) result.quarantine.push(quarantined);
      }
    },
    signal,
  );
  return result;
}
