import { DEFAULT_YIELD_CUTOFF, reachesYieldCutoff, type YieldTally } from "@sds/routing";
import { bool, decimal, epochMillis, integer, isoTime, nullable, text } from "../../database/columns.ts";
import { addRisk, DEFAULT_SPEEDER_FRACTION, flagSecurity, flagSpeeder, isSpeeding } from "./respondent-risk-records.ts";
import { capWindowStart, decodeRespondentHistory, respondentHistorySql } from "./respondent-history.ts";
import { cpiMicros, storedCpiMicros } from "./stored-money.ts";
import { execute, first, one, rows, type Program } from "../../database/program.ts";
import { command, statement, type RawRow } from "../../database/statement.ts";
import { IMPORTED_TOKEN_PREFIX } from "@sds/sync-client";
import {
  COUNT_COLUMNS,
  ENTRY_COLUMNS,
  decodeCounts,
  decodeEntry,
  decodeOutcome,
  maybeOutcomeKind,
  outcomeKind,
  zeroCounts,
} from "./loop-rows.ts";
import {
  conversionWindows,
  type ConversionSummary,
  type EntryAdmission,
  type EntryInput,
  type EntryRecord,
  type HistoryInput,
  type OutcomeInput,
  type OutcomeKind,
  type OutcomeRecord,
  type OutcomeSource,
  type RecordEntryResult,
  type RespondentHistory,
  type RecordOutcomeResult,
  type SurveyConversion,
  type SurveyConversionCounts,
  type RecordingSettings,
} from "./loop-store.ts";

/*
 * The loop store's logic, once for both drivers (programs over typed statements: database/program.ts). Locks are taken in one
 * order everywhere, so PostgreSQL replicas never deadlock: the respondent, the token, the
 * windows' shared lock, the outcome feed's counter, then the survey's counts (lifetime row
 * first: it serialises the writers of one survey; then hour rows, then window rows), then the
 * counter of entries recorded. A history import takes only the keys of the entries it inserts,
 * in the order of their tokens (see importHistory): two imports of the same entries in any
 * order wait for each other instead of deadlocking.
 */

const HOUR_MS = 3_600_000;

/** The epoch hour of a time: the key of the hourly counts. */
export const hourOf = (at: Date | number): number => Math.floor(Number(at) / HOUR_MS);

/** Changes to a survey's counts. */
interface CountDelta {
  entries?: number;
  complete?: number;
  terminate?: number;
  overquota?: number;
  security?: number;
  reversals?: number;
  /** In integer micros. */
  earnings?: number;
}

/** The seven count values a count upsert binds, in {@link COUNT_COLUMNS} order. */
type CountValues = [number, number, number, number, number, number, number];

const COUNT_VALUES = (delta: CountDelta): CountValues => [
  delta.entries ?? 0,
  delta.complete ?? 0,
  delta.terminate ?? 0,
  delta.overquota ?? 0,
  delta.security ?? 0,
  delta.reversals ?? 0,
  delta.earnings ?? 0,
];
const ADD_COUNTS = (table: string) =>
  COUNT_COLUMNS.map((column) => `${column} = ${table}.${column} + excluded.${column}`).join(", ");
const ADD_LIFETIME_COUNTS = command<[surveyId: number, ...CountValues]>(
  `INSERT INTO loop_survey_counts (survey_id, entries, completes, terminates, overquotas, security, reversals, earnings_micros)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (survey_id) DO UPDATE SET ${ADD_COUNTS("loop_survey_counts")}`,
);
const ADD_HOUR_COUNTS = command<[surveyId: number, hour: number, ...CountValues]>(
  `INSERT INTO loop_survey_hours (survey_id, hour, entries, completes, terminates, overquotas, security, reversals, earnings_micros)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (survey_id, hour) DO UPDATE SET ${ADD_COUNTS("loop_survey_hours")}`,
);
const ADD_TO_COUNTER = command<[name: string, amount: number]>(
  "INSERT INTO loop_counters (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = loop_counters.value + excluded.value",
);
/** A counter's value. */
const COUNTER = statement<[name: string], number>("SELECT value FROM loop_counters WHERE name = ?", (row) =>
  integer(row.value),
);
const SET_COUNTER = command<[value: number, name: string]>("UPDATE loop_counters SET value = ? WHERE name = ?");

/** The windows whose totals are kept per survey (see {@link conversionWindows}). */
const windowNames = ["last24h", "last7d"] as const;

/**
 * An hour's counts into the totals of each window it has not left yet (its hour is past the
 * window's edge, or the edge was never set), in one statement: the edges are read by the
 * statement itself, under the windows lock the writer holds (see {@link WINDOWS_LOCK}), instead
 * of one read and one upsert per window (four statements for each count on SQLite's hot path).
 * The windows come in {@link windowNames} order, so their rows are locked in it.
 */
const ADD_WINDOWS_COUNTS = command<[surveyId: number, ...CountValues, hour: number]>(
  `INSERT INTO loop_survey_windows (survey_id, window_name, entries, completes, terminates, overquotas, security, reversals, earnings_micros)
  SELECT ?, w.name, ?, ?, ?, ?, ?, ?, ? FROM (${windowNames.map((name) => `SELECT '${name}' AS name`).join(" UNION ALL ")}) AS w
    LEFT JOIN loop_counters AS edge ON edge.name = 'window-edge:' || w.name
  WHERE edge.value IS NULL OR ? > edge.value
  ON CONFLICT (survey_id, window_name) DO UPDATE SET ${ADD_COUNTS("loop_survey_windows")}`,
);

/**
 * The lock that keeps window totals whole where writers run concurrently (PostgreSQL replicas):
 * every writer of counts holds it shared (an advisory lock: no row is written to take it, unlike
 * FOR SHARE on the edge rows, which made every entry write a multixact into one hot row), and
 * {@link advanceWindows} holds it exclusively, so no count lands in a window on one side of an
 * expiry while its hour is subtracted on the other. SQLite's one writer needs none.
 */
const WINDOWS_LOCK = "loop-windows";
const LOCK_WINDOWS = command<[]>((dialect) => {
  const locks = dialect.advisoryLocks([{ name: WINDOWS_LOCK }]);
  return locks === null ? null : `SELECT ${locks}`;
});

/** The last hour already taken out of a window (read under the windows lock). */
function* windowEdge(window: string): Program<number> {
  return (yield* first(COUNTER, `window-edge:${window}`)) ?? Number.NEGATIVE_INFINITY;
}

function* addCounts(surveyId: number, hour: number | null, delta: CountDelta): Program<void> {
  if (hour === null) {
    yield* execute(ADD_LIFETIME_COUNTS, surveyId, ...COUNT_VALUES(delta));
    return;
  }
  yield* execute(ADD_HOUR_COUNTS, surveyId, hour, ...COUNT_VALUES(delta));
  yield* execute(ADD_WINDOWS_COUNTS, surveyId, ...COUNT_VALUES(delta), hour);
}

const EXPIRE_WINDOW = command<[edge: number, target: number, window: string]>(`UPDATE loop_survey_windows SET
  entries = loop_survey_windows.entries - expired.entries, completes = loop_survey_windows.completes - expired.completes,
  terminates = loop_survey_windows.terminates - expired.terminates, overquotas = loop_survey_windows.overquotas - expired.overquotas,
  security = loop_survey_windows.security - expired.security, reversals = loop_survey_windows.reversals - expired.reversals,
  earnings_micros = loop_survey_windows.earnings_micros - expired.earnings_micros
FROM (SELECT survey_id, SUM(entries) AS entries, SUM(completes) AS completes, SUM(terminates) AS terminates, SUM(overquotas) AS overquotas,
  SUM(security) AS security, SUM(reversals) AS reversals, SUM(earnings_micros) AS earnings_micros FROM loop_survey_hours WHERE hour > ? AND hour <= ? GROUP BY survey_id) AS expired
WHERE loop_survey_windows.survey_id = expired.survey_id AND loop_survey_windows.window_name = ?`);

/** Whether an hour left a window since its edge last moved: only then does a read need the write transaction of {@link advanceWindows}. */
export function* windowsDue(now: Date): Program<boolean> {
  const current = hourOf(now);
  for (const window of windowNames) {
    if (current - conversionWindows[window] > (yield* windowEdge(window))) return true;
  }
  return false;
}

/**
 * Takes the hours that left each window (as of `now`) out of its totals, once: the edge moves
 * with them. Cheap when no hour boundary was crossed since the last call (two counter reads).
 */
export function* advanceWindows(now: Date): Program<void> {
  const current = hourOf(now);
  yield* execute(LOCK_WINDOWS);
  for (const window of windowNames) {
    const target = current - conversionWindows[window];
    const edge = yield* windowEdge(window);
    if (target <= edge) continue;
    yield* execute(EXPIRE_WINDOW, edge, target, window);
    yield* execute(SET_COUNTER, target, `window-edge:${window}`);
  }
}

/** The token's lock, then the windows' shared lock (see {@link lockForRecording}). */
const LOCK_TOKEN = command<[token: string]>((dialect) => {
  const locks = dialect.advisoryLocks([{ boundText: true }, { name: WINDOWS_LOCK, shared: true }]);
  return locks === null ? null : `SELECT ${locks}`;
});
/**
 * The respondent's row first (`ON CONFLICT … WHERE false` locks the row without writing a new
 * version of it), then the locks of {@link LOCK_TOKEN}. One statement: the target list runs left
 * to right, so the order of locks is the documented one.
 */
const LOCK_RESPONDENT_AND_TOKEN = command<[uid: string, token: string]>((dialect) => {
  const locks = dialect.advisoryLocks([{ boundText: true }, { name: WINDOWS_LOCK, shared: true }]);
  if (locks === null) return null;
  return `WITH respondent AS (INSERT INTO loop_respondents (uid) VALUES (?) ON CONFLICT (uid) DO UPDATE SET uid = excluded.uid WHERE false RETURNING uid)
SELECT (SELECT count(*) FROM respondent) AS inserted, ${locks}`;
});

/**
 * Serialises the recorders of one token across replicas (a transaction-scoped advisory lock),
 * then takes the windows lock shared; SQLite's one writer already does both (the dialect skips
 * the statement). Without the token lock an outcome and its entry arriving together could each
 * miss the other (the outcome kept as an orphan of an entry that exists). With a respondent, the
 * respondent's row is locked first: every entry of this respondent, on every replica, waits
 * there for the one before.
 */
function* lockForRecording(token: string, respondent?: string): Program<void> {
  if (respondent === undefined) yield* execute(LOCK_TOKEN, token);
  else yield* execute(LOCK_RESPONDENT_AND_TOKEN, respondent, token);
}

/** Takes the next sequence of the outcome feed; where writers overlap the counter row stays locked until commit, so sequences follow commit order. */
const NEXT_SEQUENCE = statement<[], number>(
  "UPDATE loop_counters SET value = value + 1 WHERE name = 'outcomes' RETURNING value",
  (row) => integer(row.value),
);
/** Locks the outcome feed's counter row before the counts (the order of locks), where writers overlap. */
const LOCK_OUTCOME_COUNTER = command<[]>((dialect) =>
  dialect.lockRowsClause === null
    ? null
    : `SELECT value FROM loop_counters WHERE name = 'outcomes' ${dialect.lockRowsClause}`,
);

const INSERT_OUTCOME = statement<
  [
    sequence: number,
    token: string,
    outcome: OutcomeKind,
    surveyId: number | null,
    previous: OutcomeKind | null,
    receivedAt: string,
    source: OutcomeSource,
    reason: string | null,
  ],
  OutcomeRecord
>(
  "INSERT INTO loop_outcomes (sequence, token, outcome, survey_id, previous_outcome, received_at, source, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
  decodeOutcome,
);
const SET_ENTRY_OUTCOME = command<[outcome: OutcomeKind, at: string, token: string]>(
  "UPDATE loop_entries SET outcome = ?, outcome_at = ? WHERE token = ?",
);
/** A survey's standing completes and decided entries, right after its counts moved. */
const DECIDED = statement<[surveyId: number], { readonly completes: number; readonly decided: number }>(
  "SELECT completes, terminates, overquotas, security FROM loop_survey_counts WHERE survey_id = ?",
  (row) => {
    const completes = integer(row.completes);
    return {
      completes,
      decided: completes + integer(row.terminates) + integer(row.overquotas) + integer(row.security),
    };
  },
);
const MARK_OUTCOME_TIME = command<[at: number, cutoff: number, cutoffAt: number, surveyId: number]>(
  "UPDATE loop_survey_counts SET last_outcome_at = ?, cutoff_reached_at = CASE WHEN ? = 1 THEN ? ELSE cutoff_reached_at END WHERE survey_id = ?",
);

interface CurrentEntry {
  readonly token: string;
  readonly surveyId: number;
  readonly uid: string;
  /** Epoch milliseconds. */
  readonly issuedAt: number;
  readonly loiMinutes: number | null;
  /** Already flagged as a speeder. */
  readonly speeder: boolean;
  /** The Cpi as issued, in integer micros (money.ts). */
  readonly cpiMicros: number;
  readonly outcome: OutcomeKind | null;
  readonly outcomeAt: string | null;
}

export type { RecordingSettings } from "./loop-store.ts";

/** The default {@link RecordingSettings}. */
export const defaultRecordingSettings: RecordingSettings = {
  yieldCutoffEntries: DEFAULT_YIELD_CUTOFF.entries,
  speederFraction: DEFAULT_SPEEDER_FRACTION,
};

/** A survey's tally before a change, from the tally after it and the change itself. */
function tallyBefore(after: YieldTally, previous: OutcomeKind | null, next: OutcomeKind): YieldTally {
  return {
    decided: after.decided - (previous === null ? 1 : 0),
    completes: after.completes - (next === "complete" ? 1 : 0) + (previous === "complete" ? 1 : 0),
  };
}

/** Records one change of an entry's current outcome: the feed row, the entry, and the counts moved from the old outcome to the new. */
function* applyTransition(
  entry: CurrentEntry,
  next: OutcomeKind,
  at: Date,
  source: OutcomeSource,
  reason: string | null,
  settings: RecordingSettings,
): Program<OutcomeRecord> {
  const sequence = yield* one(NEXT_SEQUENCE);
  const iso = at.toISOString();
  const record = yield* one(
    INSERT_OUTCOME,
    sequence,
    entry.token,
    next,
    entry.surveyId,
    entry.outcome,
    iso,
    source,
    reason,
  );
  yield* execute(SET_ENTRY_OUTCOME, next, iso, entry.token);
  const previous = entry.outcome;
  const reversal = previous === "complete" ? 1 : 0;
  const earned = (next === "complete" ? entry.cpiMicros : 0) - (previous === "complete" ? entry.cpiMicros : 0);
  const lifetime: CountDelta = { [next]: 1, reversals: reversal, earnings: earned };
  if (previous !== null) lifetime[previous] = (lifetime[previous] ?? 0) - 1;
  yield* addCounts(entry.surveyId, null, lifetime);
  const after = yield* one(DECIDED, entry.surveyId);
  // The one cut-off rule (@sds/routing): the change that makes the survey fail a trial starts its cool-down now.
  const cutoff = reachesYieldCutoff(tallyBefore(after, previous, next), after, {
    entries: settings.yieldCutoffEntries,
  });
  yield* execute(MARK_OUTCOME_TIME, at.getTime(), cutoff ? 1 : 0, at.getTime(), entry.surveyId);
  // Hourly: the old outcome leaves the hour it arrived in; the new one (and the reversal) count in this hour.
  if (previous !== null && entry.outcomeAt !== null) {
    yield* addCounts(entry.surveyId, hourOf(Date.parse(entry.outcomeAt)), {
      [previous]: -1,
      earnings: previous === "complete" ? -entry.cpiMicros : 0,
    });
  }
  yield* addCounts(entry.surveyId, hourOf(at), {
    [next]: 1,
    reversals: reversal,
    earnings: next === "complete" ? entry.cpiMicros : 0,
  });
  yield* execute(ADD_TO_COUNTER, `outcome:${next}`, 1);
  const speeder = yield* updateRisk(entry, previous, next, at, source, settings);
  // The record says what the feed will list for it (its entry's flag).
  return speeder ? { ...record, speeder } : record;
}

/**
 * The respondent's risk moves with the entry's outcome: a reversal counts, a security terminate
 * flags the entry (and a change away from it unflags it), and a complete that arrived in real time
 * (S2S or return, not a reconciliation or an attached orphan) faster than the speeder fraction of
 * its Loi flags the entry as a speeder. Whether the entry is a speeder now.
 */
function* updateRisk(
  entry: CurrentEntry,
  previous: OutcomeKind | null,
  next: OutcomeKind,
  at: Date,
  source: OutcomeSource,
  settings: RecordingSettings,
): Program<boolean> {
  if (previous === "complete") yield* addRisk(entry.uid, { reversals: 1 }, at);
  if (next === "security") yield* flagSecurity(entry.token, true, at);
  else if (previous === "security") yield* flagSecurity(entry.token, false, at);
  if (
    !entry.speeder &&
    next === "complete" &&
    (source === "s2s" || source === "redirect") &&
    isSpeeding(entry, at, settings.speederFraction)
  ) {
    yield* flagSpeeder(entry.token, at);
    return true;
  }
  return entry.speeder;
}

/** The entry issued through sds-sync that carries a token, as a transition reads it. */
const CURRENT_ENTRY = statement<[token: string], CurrentEntry>(
  "SELECT token, survey_id, uid, issued_at, loi_minutes, speeder, cpi_micros, outcome, outcome_at FROM loop_entries WHERE token = ? AND source = 'link'",
  (row) => ({
    token: text(row.token),
    surveyId: integer(row.survey_id),
    uid: text(row.uid),
    speeder: bool(row.speeder),
    issuedAt: epochMillis(row.issued_at),
    loiMinutes: nullable(decimal)(row.loi_minutes),
    cpiMicros: storedCpiMicros(row.cpi_micros),
    outcome: maybeOutcomeKind(row.outcome),
    outcomeAt: nullable(isoTime)(row.outcome_at),
  }),
);
const LAST_TRANSITION = statement<[token: string], OutcomeRecord>(
  "SELECT * FROM loop_outcomes WHERE token = ? ORDER BY sequence DESC LIMIT 1",
  decodeOutcome,
);
const ORPHAN_OUTCOME = statement<[token: string], OutcomeKind>(
  "SELECT outcome FROM loop_orphans WHERE token = ?",
  (row) => outcomeKind(row.outcome),
);
const UPSERT_ORPHAN = command<[token: string, outcome: OutcomeKind, at: string]>(
  "INSERT INTO loop_orphans (token, outcome, received_at) VALUES (?, ?, ?) ON CONFLICT (token) DO UPDATE SET outcome = excluded.outcome, received_at = excluded.received_at",
);
const DELETE_ORPHAN = command<[token: string]>("DELETE FROM loop_orphans WHERE token = ?");

/** The feed row that set a token's current outcome (a repeat answers with it); synthesised when it was pruned. */
function* lastTransition(token: string, outcome: OutcomeKind, surveyId: number | null): Program<OutcomeRecord> {
  const record = yield* first(LAST_TRANSITION, token);
  if (record) return record;
  return {
    sequence: 0,
    token,
    outcome,
    surveyId,
    previousOutcome: null,
    receivedAt: new Date(0).toISOString(),
    source: "s2s",
    reason: null,
  };
}

/** {@link LoopStore.recordOutcome}. */
export function* recordOutcome(input: OutcomeInput, settings: RecordingSettings): Program<RecordOutcomeResult> {
  const source = input.source ?? "s2s";
  const reason = input.reason ?? null;
  yield* lockForRecording(input.token);
  const entry = yield* first(CURRENT_ENTRY, input.token);
  if (entry) {
    if (entry.outcome === input.outcome)
      return { recorded: false, record: yield* lastTransition(input.token, input.outcome, entry.surveyId) };
    return {
      recorded: true,
      record: yield* applyTransition(entry, input.outcome, input.at, source, reason, settings),
    };
  }
  if (source === "reconcile") {
    return {
      recorded: false,
      unknownToken: true,
      record: {
        sequence: 0,
        token: input.token,
        outcome: input.outcome,
        surveyId: null,
        previousOutcome: null,
        receivedAt: input.at.toISOString(),
        source,
        reason,
      },
    };
  }
  // No entry carries the token (yet): an orphan, kept apart and counted apart, attached if the entry is issued later.
  const previous = (yield* first(ORPHAN_OUTCOME, input.token)) ?? null;
  if (previous === input.outcome)
    return { recorded: false, record: yield* lastTransition(input.token, input.outcome, null) };
  const sequence = yield* one(NEXT_SEQUENCE);
  const iso = input.at.toISOString();
  const record = yield* one(INSERT_OUTCOME, sequence, input.token, input.outcome, null, previous, iso, source, reason);
  yield* execute(UPSERT_ORPHAN, input.token, input.outcome, iso);
  if (previous === null) yield* execute(ADD_TO_COUNTER, "orphans", 1);
  yield* execute(ADD_TO_COUNTER, `outcome:${input.outcome}`, 1);
  return { recorded: true, record };
}

/** One row of {@link READ_FOR_ENTRY}. */
type EntryFact =
  | { readonly kind: "known"; readonly entry: EntryRecord }
  | { readonly kind: "orphan"; readonly outcome: OutcomeKind }
  | { readonly kind: "history"; readonly row: RawRow };

function decodeEntryFact(row: RawRow): EntryFact {
  switch (row.kind) {
    case "known":
      return { kind: "known", entry: decodeEntry(row) };
    case "orphan":
      return { kind: "orphan", outcome: outcomeKind(row.outcome) };
    default:
      return { kind: "history", row };
  }
}

/**
 * What {@link recordEntry} reads once its locks are held, in one statement: the entry that
 * already carries the token, the outcome that arrived for it first (an orphan), and the
 * respondent's whole history, condensed (respondent-history.ts; skipped when `read` is 0). The
 * other branches' `recent` is 0, not NULL: PostgreSQL types a UNION's column from its first
 * branches, and two NULLs would make it text.
 */
const READ_FOR_ENTRY = statement<
  [token: string, token: string, windowStart: string, read: number, uid: string],
  EntryFact
>(
  `SELECT 'known' AS kind, token, survey_id, uid, cpi_micros, issued_at, outcome, link, 0 AS recent FROM loop_entries WHERE token = ?
UNION ALL SELECT 'orphan', token, NULL, NULL, NULL, NULL, outcome, NULL, 0 FROM loop_orphans WHERE token = ?
UNION ALL SELECT 'history', NULL, survey_id, NULL, NULL, issued_at, outcome, NULL, recent FROM (${respondentHistorySql("?", "? = 1")}) AS history`,
  decodeEntryFact,
);

interface EntryFacts {
  readonly known: EntryRecord | undefined;
  readonly orphan: OutcomeKind | null;
  readonly history: RespondentHistory;
}

function* readForEntry(token: string, uid: string, at: Date, readHistory: boolean): Program<EntryFacts> {
  let known: EntryRecord | undefined;
  let orphan: OutcomeKind | null = null;
  const history: RawRow[] = [];
  for (const fact of yield* rows(READ_FOR_ENTRY, token, token, capWindowStart(at), readHistory ? 1 : 0, uid)) {
    if (fact.kind === "known") known = fact.entry;
    else if (fact.kind === "orphan") orphan = fact.outcome;
    else history.push(fact.row);
  }
  return { known, orphan, history: decodeRespondentHistory(history) };
}

/**
 * A new entry, with its counts (lifetime, its hour, the windows the hour is in) in the same
 * statement where the dialect can write several tables in one (PostgreSQL): one round trip
 * instead of six. Each step reads the one before (RETURNING), which fixes the order its rows are
 * locked in to the documented one; the windows are decided against their edges under the windows
 * lock, as {@link addCounts} does. Elsewhere (SQLite) the row says `counted` false and the
 * program counts it. No row when the token is taken.
 */
/**
 * The counters of entry links recorded: what the conversion report's version moves with
 * ({@link conversionVersion}), bumped in the transaction of every entry they count. One row per
 * survey id modulo {@link ENTRY_COUNTER_SHARDS}, not one row: every entry link holds its row's
 * lock until it commits, and one row would serialise the entries of every survey on PostgreSQL
 * (a survey's own entries already wait for each other on its lifetime counts).
 */
const ENTRIES_RECORDED = "entries-recorded:";
const ENTRY_COUNTER_SHARDS = 16;
const entryCounter = (surveyId: number) => `${ENTRIES_RECORDED}${surveyId % ENTRY_COUNTER_SHARDS}`;
/** The sum of the counters of entry links recorded. */
const ENTRIES_RECORDED_SUM = statement<[], number>(
  `SELECT COALESCE(SUM(value), 0) AS value FROM loop_counters WHERE name LIKE '${ENTRIES_RECORDED}%'`,
  (row) => integer(row.value),
);

/** {@link INSERT_ENTRY}'s common table expressions on PostgreSQL, in the order their rows are locked; placeholders 1 to 8. */
const ENTRY_CTES = `WITH entry AS (
  INSERT INTO loop_entries (token, survey_id, uid, cpi_micros, issued_at, loi_minutes, link, source) VALUES (?, ?, ?, ?, ?, ?, ?, 'link')
  ON CONFLICT (token) DO NOTHING RETURNING ${ENTRY_COLUMNS}
), lifetime AS (
  INSERT INTO loop_survey_counts (survey_id, entries) SELECT survey_id, 1 FROM entry
  ON CONFLICT (survey_id) DO UPDATE SET entries = loop_survey_counts.entries + 1 RETURNING survey_id
), hour AS (
  INSERT INTO loop_survey_hours (survey_id, hour, entries) SELECT survey_id, $8, 1 FROM lifetime
  ON CONFLICT (survey_id, hour) DO UPDATE SET entries = loop_survey_hours.entries + 1 RETURNING survey_id
), windows AS (
  INSERT INTO loop_survey_windows (survey_id, window_name, entries)
  SELECT hour.survey_id, w.name, 1 FROM hour CROSS JOIN (VALUES ('last24h'), ('last7d')) AS w (name)
    LEFT JOIN loop_counters AS edge ON edge.name = 'window-edge:' || w.name
  WHERE edge.value IS NULL OR $8 > edge.value
  ON CONFLICT (survey_id, window_name) DO UPDATE SET entries = loop_survey_windows.entries + 1 RETURNING survey_id
), recorded AS (
  INSERT INTO loop_counters (name, value) SELECT '${ENTRIES_RECORDED}' || (entry.survey_id % ${ENTRY_COUNTER_SHARDS}), 1 FROM entry
  WHERE (SELECT count(*) FROM windows) >= 0
  ON CONFLICT (name) DO UPDATE SET value = loop_counters.value + 1 RETURNING value
)`;

type EntryValues = [
  token: string,
  surveyId: number,
  uid: string,
  cpiMicros: number,
  issuedAt: string,
  loiMinutes: number | null,
  link: string | null,
  hour: number,
];

const insertedEntry = (row: RawRow) => ({
  entry: decodeEntry(row),
  counted: row.counted === true || row.counted === 1,
});

const INSERT_ENTRY = statement<EntryValues, { readonly entry: EntryRecord; readonly counted: boolean }>(
  (dialect) =>
    dialect.dataModifyingCte
      ? `${ENTRY_CTES}
SELECT entry.*, (SELECT count(*) FROM windows) AS windows, true AS counted FROM entry`
      : // The hour is bound as above and returned: this statement counts nothing.
        `INSERT INTO loop_entries (token, survey_id, uid, cpi_micros, issued_at, loi_minutes, link, source) VALUES (?, ?, ?, ?, ?, ?, ?, 'link') ON CONFLICT (token) DO NOTHING RETURNING ${ENTRY_COLUMNS}, ? AS hour, 0 AS counted`,
  insertedEntry,
);

/**
 * {@link INSERT_ENTRY} and a session's attempt at it in one statement, where the dialect can
 * (PostgreSQL; elsewhere the statement is skipped): after the entry's counts (the windows read
 * first, so the session's row is locked last, as ever), the session's version is bumped if it
 * still is the one given, and the attempt inserted; `attempts` 0 when the session moved meanwhile.
 * Always one row where it runs.
 */
const INSERT_ENTRY_WITH_ATTEMPT = statement<
  [...EntryValues, sessionId: string, version: number, position: number, link: string],
  {
    /** Undefined when the token is taken (nothing written). */
    readonly inserted: { readonly entry: EntryRecord; readonly counted: boolean } | undefined;
    readonly attempts: number;
  }
>(
  (dialect) =>
    dialect.dataModifyingCte
      ? `${ENTRY_CTES}, bumped AS (
  UPDATE loop_sessions SET version = version + 1
  WHERE id = $9 AND version = $10 AND EXISTS (SELECT 1 FROM entry) AND (SELECT count(*) FROM recorded) >= 0 RETURNING id
), attempt AS (
  INSERT INTO loop_session_attempts (token, session_id, position, survey_id, link, issued_at)
  SELECT entry.token, bumped.id, $11, entry.survey_id, $12, entry.issued_at FROM entry CROSS JOIN bumped RETURNING token
)
SELECT entry.*, (SELECT count(*) FROM windows) AS windows, true AS counted, (SELECT count(*) FROM attempt) AS attempts
FROM (SELECT 1) AS ran LEFT JOIN entry ON true`
      : null,
  (row) => ({ inserted: row.token === null ? undefined : insertedEntry(row), attempts: integer(row.attempts) }),
);

/** A session's attempt recorded with its entry ({@link recordEntry}), in the entry's own statement where the dialect can. */
export interface AttemptWithEntry {
  readonly sessionId: string;
  /** The session's version the attempt is decided on: the attempt is not added when it moved. */
  readonly version: number;
  readonly position: number;
  readonly link: string;
}

const ENTRY = statement<[token: string], EntryRecord>(
  `SELECT ${ENTRY_COLUMNS} FROM loop_entries WHERE token = ?`,
  decodeEntry,
);

/**
 * {@link LoopStore.recordEntry}. On PostgreSQL five round trips (BEGIN, the locks, one read, one
 * write, COMMIT); the rare entry whose outcome came first takes the slow path of
 * {@link applyTransition}.
 */
export function* recordEntry<Refusal>(
  entry: EntryInput,
  admit: EntryAdmission<Refusal> | undefined,
  settings: RecordingSettings,
): Program<RecordEntryResult<Refusal>> {
  return (yield* recordEntryWithAttempt(entry, admit, settings, undefined)).result;
}

/**
 * {@link recordEntry}, and a session's attempt at the entry in the entry's own statement where the
 * dialect can (PostgreSQL) and no outcome came first: `attempted` says whether the attempt was
 * added (false: the session moved; the caller rolls back), undefined when it was not tried here.
 */
export function* recordEntryWithAttempt<Refusal>(
  entry: EntryInput,
  admit: EntryAdmission<Refusal> | undefined,
  settings: RecordingSettings,
  attempt: AttemptWithEntry | undefined,
): Program<{ readonly result: RecordEntryResult<Refusal>; readonly attempted?: boolean | undefined }> {
  const result = (value: RecordEntryResult<Refusal>, attempted?: boolean) => ({ result: value, attempted });
  const repeatOrConflict = (existing: EntryRecord) =>
    result({
      kind: existing.surveyId === entry.surveyId && existing.uid === entry.uid ? "existing" : "conflict",
      entry: existing,
    });
  const admitting = admit !== undefined && entry.uid !== "";
  yield* lockForRecording(entry.token, admitting ? entry.uid : undefined);
  // Read under the locks: a retry of this token, or an entry of this respondent committed a moment ago, is seen.
  const facts = yield* readForEntry(entry.token, entry.uid, entry.at, admitting);
  if (facts.known) return repeatOrConflict(facts.known);
  if (admit !== undefined) {
    const refusal = admit(facts.history);
    if (refusal !== undefined) return result({ kind: "refused", refusal });
  }
  // The attachment below takes the feed's counter; taken before the counts, as everywhere else.
  if (facts.orphan !== null) yield* execute(LOCK_OUTCOME_COUNTER);
  const hour = hourOf(entry.at);
  const values: EntryValues = [
    entry.token,
    entry.surveyId,
    entry.uid,
    cpiMicros(entry.cpi),
    entry.at.toISOString(),
    entry.loiMinutes ?? null,
    entry.link ?? null,
    hour,
  ];
  // With an outcome to attach, the attempt waits for the transition: the session's row stays locked last.
  if (attempt !== undefined && facts.orphan === null) {
    const [ran] = yield* rows(
      INSERT_ENTRY_WITH_ATTEMPT,
      ...values,
      attempt.sessionId,
      attempt.version,
      attempt.position,
      attempt.link,
    );
    if (ran !== undefined) {
      if (ran.inserted === undefined) return repeatOrConflict(yield* one(ENTRY, entry.token));
      return result({ kind: "recorded", entry: ran.inserted.entry, attached: [] }, ran.attempts > 0);
    }
  }
  const inserted = yield* first(INSERT_ENTRY, ...values);
  if (!inserted) return repeatOrConflict(yield* one(ENTRY, entry.token));
  if (!inserted.counted) {
    yield* addCounts(entry.surveyId, null, { entries: 1 });
    yield* addCounts(entry.surveyId, hour, { entries: 1 });
    yield* execute(ADD_TO_COUNTER, entryCounter(entry.surveyId), 1);
  }
  if (facts.orphan === null) return result({ kind: "recorded", entry: inserted.entry, attached: [] });
  const attached = yield* applyTransition(
    {
      token: entry.token,
      surveyId: entry.surveyId,
      uid: entry.uid,
      issuedAt: entry.at.getTime(),
      loiMinutes: entry.loiMinutes ?? null,
      speeder: false,
      cpiMicros: cpiMicros(entry.cpi),
      outcome: null,
      outcomeAt: null,
    },
    facts.orphan,
    entry.at,
    "attach",
    "the outcome arrived before its entry was issued",
    settings,
  );
  yield* execute(DELETE_ORPHAN, entry.token);
  yield* execute(ADD_TO_COUNTER, "orphans", -1);
  return result({ kind: "recorded", entry: { ...inserted.entry, outcome: facts.orphan }, attached: [attached] });
}

/** What an imported entry's token ends with when an older link holds its first name (see {@link importHistory}). */
const HELD_BY_LINK_SUFFIX = ":beside-link";

const IMPORT_ENTRY = command<
  [token: string, surveyId: number, uid: string, at: string, outcome: OutcomeKind | null, outcomeAt: string | null]
>(
  "INSERT INTO loop_entries (token, survey_id, uid, cpi_micros, issued_at, outcome, outcome_at, source) VALUES (?, ?, ?, 0, ?, ?, ?, 'import') ON CONFLICT (token) DO NOTHING",
);

/**
 * {@link LoopStore.importHistory}: deterministic tokens in the import's own namespace (entry
 * links refuse it: {@link IMPORTED_TOKEN_PREFIX}), so importing the same file twice adds
 * nothing and no link's token stands for an imported entry. Inserted in the order of their
 * tokens: concurrent imports of the same entries (on any replica, in any order) wait on their
 * first common key instead of each holding a key the other waits for (a deadlock).
 */
export function* importHistory(entries: readonly HistoryInput[]): Program<{ imported: number; skipped: number }> {
  const named = entries.map((item) => ({
    item,
    token: `${IMPORTED_TOKEN_PREFIX}${item.surveyId}:${item.enteredAt.getTime()}:${item.uid}`,
  }));
  // A link recorded before entry links refused the namespace may hold an import's token: the entry is kept under
  // the token's second name then, never skipped because of the link (a read: it takes no lock).
  const heldByLinks = yield* currentOutcomes(named.map(({ token }) => token));
  const keyed = named.map(({ item, token }) => ({
    item,
    token: heldByLinks.has(token) ? `${token}${HELD_BY_LINK_SUFFIX}` : token,
  }));
  keyed.sort((a, b) => (a.token < b.token ? -1 : a.token > b.token ? 1 : 0));
  let imported = 0;
  for (const { item, token } of keyed) {
    const at = item.enteredAt.toISOString();
    imported += yield* execute(
      IMPORT_ENTRY,
      token,
      item.surveyId,
      item.uid,
      at,
      item.outcome ?? null,
      item.outcome === undefined ? null : at,
    );
  }
  return { imported, skipped: entries.length - imported };
}

/** How many tokens one statement of {@link currentOutcomes} names. */
const TOKENS_PER_READ = 500;
const CURRENT_OUTCOMES = statement<
  [tokens: readonly string[]],
  { readonly token: string; readonly outcome: OutcomeKind | null }
>(
  (dialect) => `SELECT token, outcome FROM loop_entries WHERE source = 'link' AND ${dialect.inList("token", "text")}`,
  (row) => ({ token: text(row.token), outcome: maybeOutcomeKind(row.outcome) }),
);

/**
 * {@link LoopStore.currentOutcomes}: the current outcome of the entries issued through sds-sync
 * (what a reconciliation corrects; imported history is not), read and never locked.
 */
export function* currentOutcomes(tokens: readonly string[]): Program<Map<string, OutcomeKind | null>> {
  const outcomes = new Map<string, OutcomeKind | null>();
  const unique = [...new Set(tokens)];
  for (let start = 0; start < unique.length; start += TOKENS_PER_READ) {
    for (const row of yield* rows(CURRENT_OUTCOMES, unique.slice(start, start + TOKENS_PER_READ)))
      outcomes.set(row.token, row.outcome);
  }
  return outcomes;
}

const RESPONDENT_HISTORY = statement<[windowStart: string, uid: string], RawRow>(
  respondentHistorySql("?"),
  (row) => row,
);

/** {@link LoopStore.respondentHistory}. */
export function* respondentHistory(uid: string, now: Date): Program<RespondentHistory> {
  return decodeRespondentHistory(yield* rows(RESPONDENT_HISTORY, capWindowStart(now), uid));
}

/** {@link LoopStore.entryOf}. */
export function* entryOf(token: string): Program<EntryRecord | undefined> {
  return yield* first(ENTRY, token);
}

const LIFETIME_CONVERSION = statement<[], SurveyConversionCounts>(
  "SELECT * FROM loop_survey_counts WHERE entries > 0 ORDER BY survey_id",
  (row) => ({ surveyId: integer(row.survey_id), ...decodeCounts(row) }),
);

/** {@link LoopStore.conversion}. */
export function* lifetimeConversion(): Program<SurveyConversionCounts[]> {
  return yield* rows(LIFETIME_CONVERSION);
}

const prefixed = (table: string, prefix: string) =>
  COUNT_COLUMNS.map((column) => `${table}.${column} AS ${prefix}${column}`).join(", ");
const summed = (table: string) =>
  COUNT_COLUMNS.map((column) => `COALESCE(SUM(${table}.${column}), 0) AS ${column}`).join(", ");

const SURVEYS_WITH_ENTRIES = "loop_survey_counts AS c WHERE c.entries > 0";
const LIFETIME_TOTALS = statement<[], { readonly surveys: number; readonly counts: ReturnType<typeof decodeCounts> }>(
  `SELECT COUNT(*) AS surveys, ${summed("c")} FROM ${SURVEYS_WITH_ENTRIES}`,
  (row) => ({ surveys: integer(row.surveys), counts: decodeCounts(row) }),
);
const WINDOW_TOTALS = statement<[], readonly [string, ReturnType<typeof decodeCounts>]>(
  `SELECT w.window_name, ${summed("w")} FROM loop_survey_windows AS w
  JOIN loop_survey_counts AS c ON c.survey_id = w.survey_id AND c.entries > 0 GROUP BY w.window_name`,
  (row) => [text(row.window_name), decodeCounts(row)],
);
/** The surveys earning most, with their lifetime counts and those of each window (`d_`: last 24 hours, `w_`: last 7 days). */
const TOP_SURVEYS = statement<[limit: number], SurveyConversion>(
  `SELECT c.survey_id, ${prefixed("c", "")}, ${prefixed("d", "d_")}, ${prefixed("w", "w_")}
  FROM loop_survey_counts AS c
  LEFT JOIN loop_survey_windows AS d ON d.survey_id = c.survey_id AND d.window_name = 'last24h'
  LEFT JOIN loop_survey_windows AS w ON w.survey_id = c.survey_id AND w.window_name = 'last7d'
  WHERE c.entries > 0 ORDER BY COALESCE(w.earnings_micros, 0) DESC, c.earnings_micros DESC, c.survey_id LIMIT ?`,
  (row) => ({
    surveyId: integer(row.survey_id),
    lifetime: decodeCounts(row),
    last24h: decodeCounts(row, "d_"),
    last7d: decodeCounts(row, "w_"),
  }),
);

/**
 * {@link LoopStore.conversionSummary}: three statements, the sums and the ordering done by the
 * database; only `limit` surveys reach JavaScript. Call {@link advanceWindows} first.
 */
export function* conversionSummary(limit: number): Program<ConversionSummary> {
  const lifetime = yield* one(LIFETIME_TOTALS);
  const windows = new Map(yield* rows(WINDOW_TOTALS));
  const surveys = yield* rows(TOP_SURVEYS, limit);
  return {
    totals: {
      lifetime: lifetime.counts,
      last24h: windows.get("last24h") ?? zeroCounts,
      last7d: windows.get("last7d") ?? zeroCounts,
    },
    surveyCount: lifetime.surveys,
    surveys,
  };
}

/**
 * {@link LoopStore.conversionVersion}: the outcome feed's sequence, the count of entry links
 * recorded and the hour — what every figure of the conversion report moves with (imported
 * history counts in none, whatever its times). Two reads of counter rows (a few rows of a small
 * table), each moved in the transaction of the write it counts.
 */
export function* conversionVersion(now: Date): Program<string> {
  const sequence = yield* one(COUNTER, "outcomes");
  const entries = yield* one(ENTRIES_RECORDED_SUM);
  return `${sequence}:${entries}:${hourOf(now)}`;
}

const OUTCOME_COUNTERS = statement<[], readonly [OutcomeKind, number]>(
  "SELECT name, value FROM loop_counters WHERE name LIKE 'outcome:%'",
  (row) => [outcomeKind(text(row.name).slice("outcome:".length)), integer(row.value)],
);

/** {@link LoopStore.outcomeCounts}, from the counter rows kept as transitions are recorded. */
export function* outcomeCounts(): Program<Record<OutcomeKind, number>> {
  const counts: Record<OutcomeKind, number> = { complete: 0, terminate: 0, overquota: 0, security: 0 };
  for (const [kind, value] of yield* rows(OUTCOME_COUNTERS)) counts[kind] = value;
  return counts;
}

/** {@link LoopStore.orphanCount}. */
export function* orphanCount(): Program<number> {
  return (yield* first(COUNTER, "orphans")) ?? 0;
}

/** The feed with each record's speeder flag (its entry's). */
const OUTCOMES_AFTER = statement<[after: number, limit: number], OutcomeRecord>(
  "SELECT o.*, e.speeder FROM loop_outcomes o LEFT JOIN loop_entries e ON e.token = o.token WHERE o.sequence > ? ORDER BY o.sequence LIMIT ?",
  decodeOutcome,
);

/** {@link LoopStore.listOutcomes}. */
export function* listOutcomes(after: number, limit: number): Program<OutcomeRecord[]> {
  return yield* rows(OUTCOMES_AFTER, after, limit);
}

/** {@link LoopStore.latestSequence}. */
export function* latestSequence(): Program<number> {
  return (yield* first(COUNTER, "outcomes")) ?? 0;
}

const PRUNE_HOURS = command<[beforeHour: number]>("DELETE FROM loop_survey_hours WHERE hour < ?");

/** {@link LoopStore.pruneHourlyCounts}. */
export function* pruneHourlyCounts(before: Date): Program<number> {
  return yield* execute(PRUNE_HOURS, hourOf(before));
}
