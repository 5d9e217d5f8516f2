import type { ChangeType, ChildReplacement, CycleCommit, QuarantineInput, RunCounts, RunInput, StoredSurveyState, SurveyWrite } from "../store/store.ts";
import type { CyclePlan, SurveyPlan } from "./diff.ts";
import type { FetchedChildren } from "./fetch-children.ts";
import { qualificationRecord, quotaRecord, surveyColumns } from "./survey-record.ts";

/** The commit of one cycle, and the states the store holds once it lands. */
export interface BuiltCommit {
  readonly commit: CycleCommit;
  /** Stored states after the commit, for the in-memory index. */
  readonly states: readonly StoredSurveyState[];
}

/**
 * Turns a plan and what the fetches brought back into one commit. The change rules:
 * - `opened`: a survey never seen (its record, qualifications and quotas are all new);
 * - `reopened`: a closed survey back in the live list (everything about it is stored afresh);
 * - `updated`: a live survey whose record changed beyond its two child markers;
 * - `qualifications_changed` / `quotas_changed`: new qualifications (quotas) were stored for a
 *   survey that stayed live: its marker moved, or an earlier failed fetch finally succeeded,
 *   or `Has_Quotas` went false and stored quotas were emptied;
 * - `closed`: a live survey absent from the live list.
 * A fetch that failed leaves the child marker where it was and sets `needsRefetch`, so the next
 * cycle asks again. A survey with nothing new is not written at all.
 */
export function buildCommit(
  plan: CyclePlan,
  fetched: FetchedChildren,
  extra: { readonly quarantine: readonly QuarantineInput[]; readonly run: Omit<RunInput, "counts">; readonly counts: Partial<RunCounts>; readonly at: Date },
): BuiltCommit {
  const surveys: SurveyWrite[] = [];
  const states: StoredSurveyState[] = [];
  const qualifications: ChildReplacement[] = [];
  const quotas: ChildReplacement[] = [];
  const changes: { type: ChangeType; surveyId: number }[] = [];
  const tally = { opened: 0, updated: 0, reopened: 0, qualificationsChanged: 0, quotasChanged: 0 };

  for (const surveyPlan of plan.surveys) {
    const outcome = settle(surveyPlan, fetched);
    if (outcome.qualifications) qualifications.push(outcome.qualifications);
    if (outcome.quotas) quotas.push(outcome.quotas);
    for (const type of outcome.changes) {
      changes.push({ type, surveyId: surveyPlan.survey.SurveyId });
      if (type === "opened") tally.opened += 1;
      else if (type === "reopened") tally.reopened += 1;
      else if (type === "updated") tally.updated += 1;
      else if (type === "qualifications_changed") tally.qualificationsChanged += 1;
      else if (type === "quotas_changed") tally.quotasChanged += 1;
    }
    if (outcome.write) {
      surveys.push(outcome.write);
      states.push(outcome.state);
    }
  }
  for (const id of plan.closedIds) changes.push({ type: "closed", surveyId: id });

  const counts: RunCounts = {
    listed: 0,
    ...extra.counts,
    ...tally,
    closed: plan.closedIds.length,
    qualificationsFetched: fetched.qualifications.size,
    quotasFetched: fetched.quotas.size,
    fetchFailures: fetched.failures.length,
    quarantined: extra.quarantine.length,
    upstreamRequests: extra.counts.upstreamRequests ?? 0,
    changes: changes.length,
  };
  return {
    commit: {
      run: { ...extra.run, counts },
      surveys,
      closedSurveyIds: plan.closedIds,
      qualifications,
      quotas,
      changes,
      quarantine: extra.quarantine,
      at: extra.at,
    },
    states,
  };
}

interface SurveyOutcome {
  readonly write: SurveyWrite | undefined;
  readonly state: StoredSurveyState;
  readonly qualifications: ChildReplacement | undefined;
  readonly quotas: ChildReplacement | undefined;
  readonly changes: readonly ChangeType[];
}

function settle(plan: SurveyPlan, fetched: FetchedChildren): SurveyOutcome {
  const { survey, state } = plan;
  const id = survey.SurveyId;
  const newQualifications = plan.fetchQualifications ? fetched.qualifications.get(id) : undefined;
  const newQuotas = plan.fetchQuotas ? fetched.quotas.get(id) : undefined;
  const qualificationsFailed = plan.fetchQualifications && newQualifications === undefined;
  const quotasFailed = plan.fetchQuotas && newQuotas === undefined;

  const qualificationsMarker = newQualifications ? survey.Qual_LastUpdatedOnUTC : (state?.qualificationsMarker ?? null);
  const quotasMarker = newQuotas ? survey.Quota_LastUpdatedOnUTC : survey.Has_Quotas ? (state?.quotasMarker ?? null) : null;
  const quotaCount = newQuotas ? newQuotas.length : plan.clearQuotas ? 0 : (state?.quotaCount ?? 0);
  const needsRefetch = qualificationsFailed || quotasFailed;

  const qualifications = newQualifications ? { surveyId: id, records: newQualifications.map(qualificationRecord) } : undefined;
  const quotas = newQuotas ? { surveyId: id, records: newQuotas.map(quotaRecord) } : plan.clearQuotas ? { surveyId: id, records: [] } : undefined;

  const changes: ChangeType[] = [];
  if (plan.kind === "opened") changes.push("opened");
  else if (plan.kind === "reopened") changes.push("reopened");
  else {
    if (plan.recordChanged) changes.push("updated");
    if (qualifications) changes.push("qualifications_changed");
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
    : { id, raw: plan.raw, rawHash: plan.rawHash, recordHash: plan.recordHash, columns: surveyColumns(survey), qualificationsMarker, quotasMarker, quotaCount, needsRefetch };
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
