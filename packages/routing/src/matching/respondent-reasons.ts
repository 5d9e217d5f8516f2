import type { HistoryVerdict } from "../respondent/history-rules.ts";
import type { EntryOutcome, RecontactList } from "../respondent/respondent-types.ts";
import type { ExclusionReason } from "./match-types.ts";

function outcomeText(outcome: EntryOutcome | null): string {
  return outcome === null ? "still pending" : `ended as ${outcome}`;
}

function when(epochMs: number): string {
  return Number.isFinite(epochMs) && Math.abs(epochMs) <= 8.64e15 ? new Date(epochMs).toISOString() : String(epochMs);
}

/** The reason a survey marked unroutable is out. */
export function unroutableReason(reason: string): ExclusionReason {
  return { kind: "unusable-survey-url", reason, message: `the service cannot route to it: ${reason}` };
}

/** The reason a re-contact study is out for this respondent, or `undefined` when it admits them. */
export function recontactReason(list: RecontactList, uid: string | undefined): ExclusionReason | undefined {
  if (list === "unreadable")
    return {
      kind: "recontact",
      unreadable: true,
      message: "it is a re-contact study whose list of active uids could not be read: out for everyone",
    };
  if (uid === undefined)
    return {
      kind: "recontact",
      unreadable: false,
      message: "it is a re-contact study and the request names no respondent",
    };
  if (list.has(uid)) return undefined;
  return {
    kind: "recontact",
    unreadable: false,
    message: "it is a re-contact study and the respondent is not on its list of active uids",
  };
}

/** The reasons the respondent's history gives, in the order of the rules: already entered, groups, caps. */
export function historyReasons(verdict: HistoryVerdict): ExclusionReason[] {
  const reasons: ExclusionReason[] = [];
  const { reentry } = verdict;
  if (reentry !== undefined) {
    reasons.push({
      kind: "already-entered",
      enteredAt: reentry.enteredAt,
      outcome: reentry.outcome,
      message: `the respondent entered it at ${when(reentry.enteredAt)} and that entry ${outcomeText(reentry.outcome)}, after which the policy allows no re-entry`,
    });
  }
  for (const { groupId, entry } of verdict.groups) {
    reasons.push({
      kind: "survey-group",
      groupId,
      surveyId: entry.surveyId,
      enteredAt: entry.enteredAt,
      outcome: entry.outcome,
      message: `the respondent entered survey ${entry.surveyId} of its group ${groupId} at ${when(entry.enteredAt)} (${outcomeText(entry.outcome)})`,
    });
  }
  for (const { cap, count, limit } of verdict.caps) {
    reasons.push({
      kind: "respondent-cap",
      cap,
      count,
      limit,
      message: `the respondent has ${count} ${cap} in the last 24 hours, at the cap of ${limit}: no survey until older ones leave the window`,
    });
  }
  return reasons;
}
