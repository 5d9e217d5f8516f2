import type { PastEntry, Respondent } from "./respondent-types.ts";
import {
  blocksGroup,
  blocksReentry,
  CapCounter,
  checkPastEntry,
  type ReachedCap,
  type ResolvedRoutingPolicy,
} from "./routing-policy.ts";
import type { SurveyGroups } from "./survey-groups.ts";

/** Marks a group entered through two or more distinct surveys (then every member is out). */
const SEVERAL = -0.5;

/**
 * Checks the respondent of a request.
 *
 * @throws TypeError when the uid is empty or not a string, or the history is not an array.
 */
export function checkRespondent(respondent: Respondent): void {
  if (typeof respondent.uid !== "string" || respondent.uid.length === 0)
    throw new TypeError("respondent.uid must be a non-empty string");
  if (!Array.isArray(respondent.history)) throw new TypeError("respondent.history must be an array of past entries");
  const counted = respondent.last24h;
  if (
    counted !== undefined &&
    !(isCount(counted.entries) && isCount(counted.completes) && counted.completes <= counted.entries)
  )
    throw new TypeError("respondent.last24h must be { entries, completes }: whole numbers, completes at most entries");
}

const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * Walks the history once and calls `exclude` with every survey id it keeps out (rules a and b;
 * an id may come more than once, and ids of surveys not held are included). Returns the caps
 * reached (rule d): when any is, every survey is out and `exclude` is not called for groups.
 *
 * Cost: one step per entry, plus one per member of each group that an entry blocks (each group
 * expanded once), never a scan of the inventory.
 *
 * @throws TypeError when an entry is malformed.
 */
export function excludeByHistory(
  respondent: Respondent,
  policy: ResolvedRoutingPolicy,
  groups: SurveyGroups,
  now: number,
  exclude: (surveyId: number) => void,
): ReachedCap[] {
  const { history } = respondent;
  const caps = new CapCounter(now, respondent.last24h);
  // Group → the one survey through which it was entered, or SEVERAL.
  const enteredGroups = new Map<number, number>();
  history.forEach((entry, index) => {
    checkPastEntry(entry, index);
    caps.count(entry);
    if (blocksReentry(entry, policy)) exclude(entry.surveyId);
    if (groups.size === 0 || !blocksGroup(entry, policy, now)) return;
    for (const groupId of groups.groupsOf(entry.surveyId)) {
      const entered = enteredGroups.get(groupId);
      if (entered === undefined) enteredGroups.set(groupId, entry.surveyId);
      else if (entered !== entry.surveyId) enteredGroups.set(groupId, SEVERAL);
    }
  });
  const reached = caps.reached(policy);
  if (reached.length > 0) return reached;
  enteredGroups.forEach((entered, groupId) => {
    for (const member of groups.membersOf(groupId)) if (member !== entered) exclude(member);
  });
  return reached;
}

/** What a respondent's history says about one survey (see {@link historyVerdict}). */
export interface HistoryVerdict {
  /** The latest earlier entry into this survey that keeps it out (rule a). */
  readonly reentry: PastEntry | undefined;
  /** Per group of the survey (ascending id) through which it is out, the latest blocking entry into another member (rule b). */
  readonly groups: readonly { readonly groupId: number; readonly entry: PastEntry }[];
  /** The caps reached (rule d). */
  readonly caps: readonly ReachedCap[];
}

function later(current: PastEntry | undefined, entry: PastEntry): PastEntry {
  return current === undefined || entry.enteredAt > current.enteredAt ? entry : current;
}

/**
 * Every history rule that keeps one survey out, naming the entry behind each: the latest one
 * (the first in the history among equally late ones). For `explain`.
 *
 * @throws TypeError when an entry is malformed.
 */
export function historyVerdict(
  surveyId: number,
  respondent: Respondent,
  policy: ResolvedRoutingPolicy,
  groups: SurveyGroups,
  now: number,
): HistoryVerdict {
  const { history } = respondent;
  const caps = new CapCounter(now, respondent.last24h);
  const surveyGroups = groups.groupsOf(surveyId);
  let reentry: PastEntry | undefined;
  const byGroup = new Map<number, PastEntry>();
  history.forEach((entry, index) => {
    checkPastEntry(entry, index);
    caps.count(entry);
    if (entry.surveyId === surveyId) {
      if (blocksReentry(entry, policy)) reentry = later(reentry, entry);
      return;
    }
    if (surveyGroups.length === 0 || !blocksGroup(entry, policy, now)) return;
    for (const groupId of groups.groupsOf(entry.surveyId)) {
      if (surveyGroups.includes(groupId)) byGroup.set(groupId, later(byGroup.get(groupId), entry));
    }
  });
  const blockedGroups = surveyGroups.flatMap((groupId) => {
    const entry = byGroup.get(groupId);
    return entry === undefined ? [] : [{ groupId, entry }];
  });
  return { reentry, groups: blockedGroups, caps: caps.reached(policy) };
}
