import type { EntryOutcome, PastEntry, RecentActivity, RespondentCapKind, RoutingPolicy } from "./respondent-types.ts";

/** One day in milliseconds: the window of the respondent caps. */
export const CAP_WINDOW_MS = 86_400_000;

const outcomes: ReadonlySet<string> = new Set<EntryOutcome>(["complete", "terminate", "overquota", "security"]);

/** A {@link RoutingPolicy} checked, with its defaults filled in and its lists as sets. */
export interface ResolvedRoutingPolicy {
  readonly reentryAfter: ReadonlySet<EntryOutcome>;
  /** `Infinity` when unbounded. */
  readonly groupLookbackMs: number;
  /** `undefined` for `"all"`; otherwise the outcomes that block (`"pending"` for `null`). */
  readonly groupBlockingOutcomes: ReadonlySet<EntryOutcome | "pending"> | undefined;
  readonly entriesPer24h: number | undefined;
  readonly completesPer24h: number | undefined;
}

function capLimit(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`routing policy: ${name} must be a positive integer, got ${value}`);
  return value;
}

/**
 * Checks a routing policy and fills in its defaults.
 *
 * @throws RangeError naming the field when a value is out of range or unknown.
 */
export function resolveRoutingPolicy(policy: RoutingPolicy = {}): ResolvedRoutingPolicy {
  // Read as strings: a policy may come from configuration that no type checked.
  for (const outcome of (policy.reentryAfter ?? []) as readonly string[]) {
    if (outcome !== "terminate" && outcome !== "overquota")
      throw new RangeError(`routing policy: reentryAfter accepts "terminate" and "overquota", got ${outcome}`);
  }
  const lookback = policy.groupLookbackMs ?? Number.POSITIVE_INFINITY;
  if (Number.isNaN(lookback) || lookback < 0)
    throw new RangeError(`routing policy: groupLookbackMs must be a non-negative number, got ${lookback}`);
  const blocking = policy.groupBlockingOutcomes ?? "all";
  if (blocking !== "all") {
    for (const outcome of blocking) {
      if (outcome !== "pending" && !outcomes.has(outcome))
        throw new RangeError(`routing policy: groupBlockingOutcomes holds an unknown outcome ${outcome}`);
    }
  }
  return {
    reentryAfter: new Set(policy.reentryAfter ?? []),
    groupLookbackMs: lookback,
    groupBlockingOutcomes: blocking === "all" ? undefined : new Set(blocking),
    entriesPer24h: capLimit("caps.entriesPer24h", policy.caps?.entriesPer24h),
    completesPer24h: capLimit("caps.completesPer24h", policy.caps?.completesPer24h),
  };
}

/**
 * Checks one history entry, so that a malformed one is a clear error rather than a survey
 * silently let through.
 *
 * @throws TypeError naming the entry.
 */
export function checkPastEntry(entry: PastEntry, index: number): void {
  if (
    !Number.isInteger(entry.surveyId) ||
    !Number.isFinite(entry.enteredAt) ||
    (entry.outcome !== null && !outcomes.has(entry.outcome))
  ) {
    throw new TypeError(
      `respondent.history[${index}] must be { surveyId: integer, enteredAt: epoch ms, outcome: complete|terminate|overquota|security|null }`,
    );
  }
}

/** Whether this earlier entry keeps the respondent out of the same survey (rule a). */
export function blocksReentry(entry: PastEntry, policy: ResolvedRoutingPolicy): boolean {
  return entry.outcome === null || !policy.reentryAfter.has(entry.outcome);
}

/** Whether this earlier entry keeps the respondent out of the other surveys of its groups (rule b). */
export function blocksGroup(entry: PastEntry, policy: ResolvedRoutingPolicy, now: number): boolean {
  if (entry.enteredAt < now - policy.groupLookbackMs) return false;
  return policy.groupBlockingOutcomes === undefined || policy.groupBlockingOutcomes.has(entry.outcome ?? "pending");
}

/** A cap the respondent has reached: `count` entries (or completes) in the last 24 h against `limit`. */
export interface ReachedCap {
  readonly cap: RespondentCapKind;
  readonly count: number;
  readonly limit: number;
}

/**
 * Counts entries and completes in the 24 hours before `now` (rule d) and keeps an entry only
 * to test it against the window: O(1) each, so the caller counts while it walks the history.
 * Given the counts (`counted`, a caller's COUNT over its whole history), it takes them and
 * counts nothing more.
 */
export class CapCounter {
  entries = 0;
  completes = 0;
  readonly #since: number;
  readonly #counted: boolean;

  constructor(now: number, counted?: RecentActivity) {
    this.#since = now - CAP_WINDOW_MS;
    this.#counted = counted !== undefined;
    if (counted !== undefined) {
      this.entries = counted.entries;
      this.completes = counted.completes;
    }
  }

  count(entry: PastEntry): void {
    if (this.#counted || entry.enteredAt <= this.#since) return;
    this.entries++;
    if (entry.outcome === "complete") this.completes++;
  }

  /** The caps reached (entries first, then completes): a respondent at a cap could only exceed it with one more entry. */
  reached(policy: ResolvedRoutingPolicy): ReachedCap[] {
    const reached: ReachedCap[] = [];
    if (policy.entriesPer24h !== undefined && this.entries >= policy.entriesPer24h)
      reached.push({ cap: "entries", count: this.entries, limit: policy.entriesPer24h });
    if (policy.completesPer24h !== undefined && this.completes >= policy.completesPer24h) {
      reached.push({ cap: "completes", count: this.completes, limit: policy.completesPer24h });
    }
    return reached;
  }
}
