import type { Survey } from "@sds/schemas";
import type { StoredSurveyState } from "../store/store.ts";
import { rawHash, recordHash } from "./survey-record.ts";

/** What one live survey needs this cycle. Surveys that need nothing are not planned at all. */
export interface SurveyPlan {
  readonly survey: Survey;
  readonly rawHash: string;
  readonly recordHash: string;
  /** The stored state, undefined for a survey never seen. */
  readonly state: StoredSurveyState | undefined;
  /** `opened`: never seen; `reopened`: stored as closed; `live`: stored as live. */
  readonly kind: "opened" | "reopened" | "live";
  /** The record changed beyond its two child markers. */
  readonly recordChanged: boolean;
  readonly fetchQualifications: boolean;
  readonly fetchQuotas: boolean;
  /** `Has_Quotas` went false while quotas are stored: empty them, no request needed. */
  readonly clearQuotas: boolean;
}

/** The diff of the live list against the store. */
export interface CyclePlan {
  readonly surveys: readonly SurveyPlan[];
  /** Stored live surveys absent from the live list: to close, in id order. */
  readonly closedIds: readonly number[];
  /** Live surveys with nothing to do. */
  readonly unchanged: number;
}

/**
 * Diffs the live list against the stored states. Qualifications are fetched for new surveys and
 * whenever `Qual_LastUpdatedOnUTC` differs from the marker the stored ones were fetched at
 * (which also retries a failed fetch, whose marker was never advanced); quotas likewise, and
 * only where `Has_Quotas`. Ids in `present` (malformed items that still named their survey)
 * are neither changed nor closed: an unreadable record is not evidence the survey ended.
 */
export function planCycle(live: readonly Survey[], states: ReadonlyMap<number, StoredSurveyState>, present: ReadonlySet<number>): CyclePlan {
  const surveys: SurveyPlan[] = [];
  const seen = new Set<number>();
  let unchanged = 0;

  for (const survey of live) {
    seen.add(survey.SurveyId);
    const state = states.get(survey.SurveyId);
    const hash = rawHash(JSON.stringify(survey));
    if (!state) {
      surveys.push({ survey, rawHash: hash, recordHash: recordHash(survey), state, kind: "opened", recordChanged: true, fetchQualifications: true, fetchQuotas: survey.Has_Quotas, clearQuotas: false });
      continue;
    }
    const fetchQualifications = state.qualificationsMarker !== survey.Qual_LastUpdatedOnUTC;
    const fetchQuotas = survey.Has_Quotas && state.quotasMarker !== survey.Quota_LastUpdatedOnUTC;
    const clearQuotas = !survey.Has_Quotas && (state.quotaCount > 0 || state.quotasMarker !== null);
    const kind = state.status === "closed" ? "reopened" : "live";
    if (kind === "live" && state.rawHash === hash && !fetchQualifications && !fetchQuotas && !clearQuotas) {
      unchanged += 1;
      continue;
    }
    // The content hash costs a second serialisation: only surveys whose raw record moved pay it.
    const content = state.rawHash === hash ? state.recordHash : recordHash(survey);
    surveys.push({ survey, rawHash: hash, recordHash: content, state, kind, recordChanged: content !== state.recordHash, fetchQualifications, fetchQuotas, clearQuotas });
  }

  const closedIds: number[] = [];
  for (const state of states.values()) {
    if (state.status === "live" && !seen.has(state.id) && !present.has(state.id)) closedIds.push(state.id);
  }
  closedIds.sort((a, b) => a - b);
  return { surveys, closedIds, unchanged };
}
