import type {
  ChangeType,
  ChildRecordWrite,
  ChildReplacement,
  StoredSurveyState,
  SurveyWrite,
} from "../inventory-store/store.ts";
import type { SurveyPlan } from "./diff.ts";
import { surveyColumns } from "../survey-index/survey-record.ts";

/** What the per-survey fetches brought back for one survey: records ready to store; absent when not fetched or failed. */
export interface FetchedRecords {
  readonly qualifications?: readonly ChildRecordWrite[] | undefined;
  readonly quotas?: readonly ChildRecordWrite[] | undefined;
}

/** What one survey writes this cycle. */
export interface SurveyWritePlan {
  /** The row to write; undefined when nothing about the survey changed after all. */
  readonly write: SurveyWrite | undefined;
  /** The stored state once the cycle commits. */
  readonly state: StoredSurveyState;
  readonly qualifications: ChildReplacement | undefined;
  readonly quotas: ChildReplacement | undefined;
  readonly changes: readonly ChangeType[];
}

/**
 * Settles one planned survey once its fetches are done. The change rules:
 * - `opened`: a survey never seen (its record, qualifications and quotas are all new);
 * - `reopened`: a closed survey back in the live list (everything about it is stored afresh);
 * - `updated`: a live survey whose record changed beyond its timestamps;
 * - `qualifications_changed` / `quotas_changed`: new qualifications (quotas) were stored for a
 *   survey that stayed live: its marker moved, or an earlier failed fetch finally succeeded,
 *   or `Has_Qualifications` (`Has_Quotas`) went false and the stored ones were emptied.
 * A fetch that failed leaves the child marker where it was and sets `needsRefetch`, so the next
 * cycle asks again. A survey with nothing new is not written at all.
 */
export function settleSurvey(plan: SurveyPlan, fetched: FetchedRecords): SurveyWritePlan {
  const { survey, state } = plan;
  const id = survey.SurveyId;
  const newQualifications = plan.fetchQualifications ? fetched.qualifications : undefined;
  const newQuotas = plan.fetchQuotas ? fetched.quotas : undefined;
  const needsRefetch = (plan.fetchQualifications && !newQualifications) || (plan.fetchQuotas && !newQuotas);

  const qualificationsMarker = newQualifications
    ? survey.Qual_LastUpdatedOnUTC
    : survey.Has_Qualifications
      ? (state?.qualificationsMarker ?? null)
      : null;
  const quotasMarker = newQuotas
    ? survey.Quota_LastUpdatedOnUTC
    : survey.Has_Quotas
      ? (state?.quotasMarker ?? null)
      : null;
  const quotaCount = newQuotas ? newQuotas.length : plan.clearQuotas ? 0 : (state?.quotaCount ?? 0);

  const qualifications = newQualifications
    ? { surveyId: id, records: newQualifications }
    : plan.clearQualifications
      ? { surveyId: id, records: [] }
      : undefined;
  const quotas = newQuotas
    ? { surveyId: id, records: newQuotas }
    : plan.clearQuotas
      ? { surveyId: id, records: [] }
      : undefined;

  const changes: ChangeType[] = [];
  if (plan.kind === "opened") changes.push("opened");
  else if (plan.kind === "reopened") changes.push("reopened");
  else {
    if (plan.recordChanged) changes.push("updated");
    // Emptied because the flag turned false this cycle (the record changed with it); a survey stored
    // before the flag was honoured, fetched empty at its marker, is emptied once without a change.
    if (newQualifications || (plan.clearQualifications && plan.recordChanged)) changes.push("qualifications_changed");
    if (newQuotas || (plan.clearQuotas && (state?.quotaCount ?? 0) > 0)) changes.push("quotas_changed");
  }

  const next: StoredSurveyState = {
    id,
    status: "live",
    rawHash: plan.rawHash,
    recordHash: plan.recordHash,
    qualUpdated: survey.Qual_LastUpdatedOnUTC,
    quotaUpdated: survey.Quota_LastUpdatedOnUTC,
    qualificationsMarker,
    quotasMarker,
    needsRefetch,
    quotaCount,
  };
  // A survey whose refetch failed again, with nothing else new, is left exactly as stored.
  const unchanged = state !== undefined && plan.kind === "live" && !qualifications && !quotas && sameState(state, next);
  const write: SurveyWrite | undefined = unchanged
    ? undefined
    : {
        id,
        // Serialised again here rather than kept from the diff: holding every record's JSON through a long first cycle costs memory.
        raw: JSON.stringify(survey),
        rawHash: plan.rawHash,
        recordHash: plan.recordHash,
        columns: surveyColumns(survey),
        qualificationsMarker,
        quotasMarker,
        quotaCount,
        needsRefetch,
      };
  return { write, state: next, qualifications, quotas, changes };
}

function sameState(a: StoredSurveyState, b: StoredSurveyState): boolean {
  return (
    a.status === b.status &&
    a.rawHash === b.rawHash &&
    a.recordHash === b.recordHash &&
    a.qualUpdated === b.qualUpdated &&
    a.quotaUpdated === b.quotaUpdated &&
    a.qualificationsMarker === b.qualificationsMarker &&
    a.quotasMarker === b.quotasMarker &&
    a.needsRefetch === b.needsRefetch &&
    a.quotaCount === b.quotaCount
  );
}
