import type { Survey } from "@sds/schemas";
import type { StoredSurveyState } from "../inventory-store/store.ts";
import { rawHash, recordHash } from "../survey-index/survey-record.ts";
import type { SurveyStates } from "../survey-index/survey-states.ts";

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
  /** `Has_Qualifications` went false while qualifications are stored: empty them, no request needed. */
  readonly clearQualifications: boolean;
  /** `Has_Quotas` went false while quotas are stored: empty them, no request needed. */
  readonly clearQuotas: boolean;
}

/**
 * Diffs one live survey (`raw`: its JSON as received, when the caller has it; `hash`: its
 * `rawHash`, when already taken) against its stored state; `undefined` when it needs nothing
 * this cycle (`SurveyStates.isCurrent` answers the same without building the state).
 * Qualifications are fetched for new surveys and whenever `Qual_LastUpdatedOnUTC` differs from
 * the marker the stored ones were fetched at (which also retries a failed fetch, whose marker
 * was never advanced), and only where `Has_Qualifications`; quotas likewise, and only where
 * `Has_Quotas`. A survey without either stores an empty list for it, asked of nobody, with no
 * marker; a marker is left only by a fetch, so a survey whose flag turns true again is fetched
 * even when its timestamp did not move.
 */
export function planSurvey(
  survey: Survey,
  state: StoredSurveyState | undefined,
  raw = JSON.stringify(survey),
  hash = rawHash(raw),
): SurveyPlan | undefined {
  if (!state) {
    return {
      survey,
      rawHash: hash,
      recordHash: recordHash(survey),
      state,
      kind: "opened",
      recordChanged: true,
      fetchQualifications: survey.Has_Qualifications,
      fetchQuotas: survey.Has_Quotas,
      clearQualifications: false,
      clearQuotas: false,
    };
  }
  const fetchQualifications = survey.Has_Qualifications && state.qualificationsMarker !== survey.Qual_LastUpdatedOnUTC;
  const fetchQuotas = survey.Has_Quotas && state.quotasMarker !== survey.Quota_LastUpdatedOnUTC;
  // Qualifications are stored only by a fetch, which sets the marker: no marker, none stored.
  const clearQualifications = !survey.Has_Qualifications && state.qualificationsMarker !== null;
  const clearQuotas = !survey.Has_Quotas && (state.quotaCount > 0 || state.quotasMarker !== null);
  const kind = state.status === "closed" ? "reopened" : "live";
  if (
    kind === "live" &&
    state.rawHash === hash &&
    !fetchQualifications &&
    !fetchQuotas &&
    !clearQualifications &&
    !clearQuotas
  )
    return undefined;
  // The content hash costs a second serialisation: only surveys whose raw record moved pay it.
  const content = state.rawHash === hash ? state.recordHash : recordHash(survey);
  return {
    survey,
    rawHash: hash,
    recordHash: content,
    state,
    kind,
    recordChanged: content !== state.recordHash,
    fetchQualifications,
    fetchQuotas,
    clearQualifications,
    clearQuotas,
  };
}

/**
 * Stored live surveys absent from the live list, in id order: to close. Ids in `present`
 * (malformed items that still named their survey) are not closed: an unreadable record is not
 * evidence the survey ended.
 */
export function closedSurveyIds(
  states: SurveyStates,
  listed: ReadonlySet<number>,
  present: ReadonlySet<number>,
): number[] {
  const closed: number[] = [];
  for (const id of states.liveIds()) {
    if (!listed.has(id) && !present.has(id)) closed.push(id);
  }
  return closed.sort((a, b) => a - b);
}
