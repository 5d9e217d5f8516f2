/** How an entry into a survey ended, as the marketplace reported it. */
export type EntryOutcome = "complete" | "terminate" | "overquota" | "security";

/** One earlier entry of the respondent into a survey. */
export interface PastEntry {
  readonly surveyId: number;
  /** When the respondent entered, in epoch milliseconds. */
  readonly enteredAt: number;
  /** How it ended; `null` while pending (no outcome yet). */
  readonly outcome: EntryOutcome | null;
}

/** A respondent's entries and completes in the 24 hours before a request's `now` (the caps' window). */
export interface RecentActivity {
  readonly entries: number;
  readonly completes: number;
}

/** The respondent of a match, named: their id in the supplier's system and their earlier entries. */
export interface Respondent {
  /** The respondent's id in the supplier's system (not empty). */
  readonly uid: string;
  /**
   * Their earlier entries, in any order. With {@link Respondent.last24h} it may be condensed to
   * the latest entry per survey and outcome: every rule but the caps decides on those alone.
   */
  readonly history: readonly PastEntry[];
  /**
   * The entries and completes of the 24 hours before `now`, counted by the caller (a database
   * `COUNT`): the caps use these instead of counting `history`, which then need not hold every
   * recent entry. @default counted from `history`
   */
  readonly last24h?: RecentActivity;
}

/**
 * The uids a re-contact study admits: the set of ACTIVE uids, or `"unreadable"` when the list
 * could not be read (then the study is out for everyone: never route blind).
 */
export type RecontactList = ReadonlySet<string> | "unreadable";

/** A cap on a respondent's activity over the last 24 hours. */
export type RespondentCapKind = "entries" | "completes";

/**
 * How a respondent's history keeps surveys out. Every field is optional; the defaults are the
 * strictest reading of "never send a respondent twice".
 */
export interface RoutingPolicy {
  /**
   * Outcomes after which the respondent may enter the same survey again. An entry with any
   * other outcome (a complete, a security fail, a pending entry) keeps the survey out for good.
   * @default [] (never re-enter)
   */
  readonly reentryAfter?: readonly ("terminate" | "overquota")[];
  /**
   * How far back an entry into one survey of a group keeps the group's other surveys out, in
   * milliseconds (an entry at `now - groupLookbackMs` or later counts).
   * @default unbounded (every earlier entry counts)
   */
  readonly groupLookbackMs?: number;
  /**
   * Which earlier entries keep a group's other surveys out: `"all"`, or the outcomes that do
   * (`"pending"` for an entry without an outcome yet).
   * @default "all"
   */
  readonly groupBlockingOutcomes?: "all" | readonly (EntryOutcome | "pending")[];
  /**
   * Caps over the 24 hours before `now` (entries with `enteredAt > now - 24 h`, later ones
   * included): a respondent who has reached a cap gets no survey at all.
   * @default no caps
   */
  readonly caps?: { readonly entriesPer24h?: number; readonly completesPer24h?: number };
}
