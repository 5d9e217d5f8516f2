import type { Dialect } from "../../database/migration-ledger.ts";
import { DEFAULT_YIELD_CUTOFF, reachesYieldCutoff, type YieldTally } from "@sds/routing";
import { cpiMicros, storedCpiMicros, storedEarningsMicros } from "./stored-money.ts";
import { microsToAmount } from "../money.ts";
import { requiredRow, storedOutcome, storedOutcomeOrNull, storedSource } from "./stored-values.ts";
import { query, queryOne, type Program, type SqlRow, type SqlValue } from "./loop-program.ts";
import {
  conversionWindows,
  type ConversionCounts,
  type EntryAdmission,
  type EntryInput,
  type EntryRecord,
  type HistoryInput,
  type OutcomeInput,
  type OutcomeKind,
  type OutcomeRecord,
  type OutcomeSource,
  type PastEntry,
  type RecordEntryResult,
  type RecordOutcomeResult,
  type ConversionSummary,
  type SurveyConversionCounts,
} from "./loop-store.ts";

/*
 * The loop store's logic, once for both drivers (see loop-program.ts). Locks are taken in one
 * order everywhere, so PostgreSQL replicas never deadlock: the respondent, the token, the
 * windows' shared lock, the outcome feed's counter, then the survey's counts (lifetime row
 * first: it serialises the writers of one survey; then hour rows, then window rows).
 */

const HOUR_MS = 3_600_000;
/** The most entries of one respondent the routing rules read. */
export const HISTORY_LIMIT = 1000;

/** The epoch hour of a time: the key of the hourly counts. */
export const hourOf = (at: Date | number): number => Math.floor(Number(at) / HOUR_MS);

/** A time as either driver returns it (SQLite: the ISO text written; PostgreSQL: a Date), as ISO 8601 text. */
export function toIso(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value);
}

/** One row of `loop_entries`. */
export function toEntry(row: SqlRow): EntryRecord {
  return {
    token: String(row.token),
    surveyId: Number(row.survey_id),
    uid: String(row.uid),
    cpi: microsToAmount(storedCpiMicros(row.cpi_micros)),
    issuedAt: toIso(row.issued_at),
    outcome: storedOutcomeOrNull(row.outcome, "loop_entries.outcome"),
  };
}

/** One row of `loop_outcomes`. */
export function toOutcome(row: SqlRow): OutcomeRecord {
  return {
    sequence: Number(row.sequence),
    token: String(row.token),
    outcome: storedOutcome(row.outcome, "loop_outcomes.outcome"),
    surveyId: row.survey_id === null || row.survey_id === undefined ? null : Number(row.survey_id),
    previousOutcome: storedOutcomeOrNull(row.previous_outcome, "loop_outcomes.previous_outcome"),
    receivedAt: toIso(row.received_at),
    source: storedSource(row.source),
    reason: typeof row.reason === "string" ? row.reason : null,
  };
}

/** A row of `loop_survey_counts` or a sum of `loop_survey_hours`. */
export function toCounts(row: SqlRow | undefined): ConversionCounts {
  const count = (name: string) => Number(row?.[name] ?? 0);
  return {
    entries: count("entries"),
    completes: count("completes"),
    terminates: count("terminates"),
    overquotas: count("overquotas"),
    securityTerminates: count("security"),
    reversals: count("reversals"),
    earnings: microsToAmount(storedEarningsMicros(row?.earnings_micros)),
  };
}

function toPastEntry(row: SqlRow): PastEntry {
  return {
    surveyId: Number(row.survey_id),
    enteredAt: Date.parse(toIso(row.issued_at)),
    outcome: storedOutcomeOrNull(row.outcome, "loop_entries.outcome"),
  };
}

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

const COUNT_VALUES = (delta: CountDelta): SqlValue[] => [
  delta.entries ?? 0,
  delta.complete ?? 0,
  delta.terminate ?? 0,
  delta.overquota ?? 0,
  delta.security ?? 0,
  delta.reversals ?? 0,
  delta.earnings ?? 0,
];
/** The count columns of `loop_survey_counts`, `loop_survey_hours` and `loop_survey_windows`. */
const COUNT_COLUMNS = [
  "entries",
  "completes",
  "terminates",
  "overquotas",
  "security",
  "reversals",
  "earnings_micros",
] as const;
const ADD_COUNTS = (table: string) =>
  COUNT_COLUMNS.map((column) => `${column} = ${table}.${column} + excluded.${column}`).join(", ");
const ADD_LIFETIME_COUNTS = `INSERT INTO loop_survey_counts (survey_id, entries, completes, terminates, overquotas, security, reversals, earnings_micros)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (survey_id) DO UPDATE SET ${ADD_COUNTS("loop_survey_counts")}`;
const ADD_HOUR_COUNTS = `INSERT INTO loop_survey_hours (survey_id, hour, entries, completes, terminates, overquotas, security, reversals, earnings_micros)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (survey_id, hour) DO UPDATE SET ${ADD_COUNTS("loop_survey_hours")}`;
const ADD_TO_COUNTER =
  "INSERT INTO loop_counters (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = loop_counters.value + excluded.value";

const ADD_WINDOW_COUNTS = `INSERT INTO loop_survey_windows (survey_id, window_name, entries, completes, terminates, overquotas, security, reversals, earnings_micros)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (survey_id, window_name) DO UPDATE SET ${ADD_COUNTS("loop_survey_windows")}`;

/** The windows whose totals are kept per survey (see {@link conversionWindows}). */
const windowNames = ["last24h", "last7d"] as const;

/**
 * The lock that keeps window totals whole on PostgreSQL: every writer of counts holds it shared
 * (an advisory lock: no row is written to take it, unlike FOR SHARE on the edge rows, which made
 * every entry write a multixact into one hot row), and {@link advanceWindows} holds it
 * exclusively, so no count lands in a window on one side of an expiry while its hour is
 * subtracted on the other. One key per schema ("SDS", then a hash of the schema's name).
 */
const WINDOWS_LOCK_KEY = "5456979, hashtext(current_schema() || ':loop-windows')";

/** The last hour already taken out of a window (read under the windows lock on PostgreSQL). */
function* windowEdge(window: string): Program<number> {
  const row = yield* queryOne("SELECT value FROM loop_counters WHERE name = ?", `window-edge:${window}`);
  return Number(row?.value ?? Number.NEGATIVE_INFINITY);
}

function* addCounts(surveyId: number, hour: number | null, delta: CountDelta): Program<void> {
  if (hour === null) {
    yield* query(ADD_LIFETIME_COUNTS, surveyId, ...COUNT_VALUES(delta));
    return;
  }
  yield* query(ADD_HOUR_COUNTS, surveyId, hour, ...COUNT_VALUES(delta));
  // The hour counts in each window it has not left yet.
  for (const window of windowNames) {
    if (hour > (yield* windowEdge(window))) yield* query(ADD_WINDOW_COUNTS, surveyId, window, ...COUNT_VALUES(delta));
  }
}

const EXPIRE_WINDOW = `UPDATE loop_survey_windows SET
  entries = loop_survey_windows.entries - expired.entries, completes = loop_survey_windows.completes - expired.completes,
  terminates = loop_survey_windows.terminates - expired.terminates, overquotas = loop_survey_windows.overquotas - expired.overquotas,
  security = loop_survey_windows.security - expired.security, reversals = loop_survey_windows.reversals - expired.reversals,
  earnings_micros = loop_survey_windows.earnings_micros - expired.earnings_micros
FROM (SELECT survey_id, SUM(entries) AS entries, SUM(completes) AS completes, SUM(terminates) AS terminates, SUM(overquotas) AS overquotas,
  SUM(security) AS security, SUM(reversals) AS reversals, SUM(earnings_micros) AS earnings_micros FROM loop_survey_hours WHERE hour > ? AND hour <= ? GROUP BY survey_id) AS expired
WHERE loop_survey_windows.survey_id = expired.survey_id AND loop_survey_windows.window_name = ?`;

/** Whether an hour left a window since its edge last moved: only then does a read need the write transaction of {@link advanceWindows}. */
export function* windowsDue(now: Date): Program<boolean> {
  const current = hourOf(now);
  for (const window of windowNames) {
    const row = yield* queryOne("SELECT value FROM loop_counters WHERE name = ?", `window-edge:${window}`);
    if (current - conversionWindows[window] > Number(row?.value ?? Number.NEGATIVE_INFINITY)) return true;
  }
  return false;
}

/**
 * Takes the hours that left each window (as of `now`) out of its totals, once: the edge moves
 * with them. Cheap when no hour boundary was crossed since the last call (two counter reads).
 */
export function* advanceWindows(dialect: Dialect, now: Date): Program<void> {
  const current = hourOf(now);
  if (dialect === "postgres") yield* query(`SELECT pg_advisory_xact_lock(${WINDOWS_LOCK_KEY})`);
  for (const window of windowNames) {
    const target = current - conversionWindows[window];
    const edge = yield* windowEdge(window);
    if (target <= edge) continue;
    yield* query(EXPIRE_WINDOW, edge, target, window);
    yield* query("UPDATE loop_counters SET value = ? WHERE name = ?", target, `window-edge:${window}`);
  }
}

/**
 * Serialises the recorders of one token across PostgreSQL replicas (a transaction-scoped
 * advisory lock), then takes the windows lock shared; SQLite's one writer already does both.
 * Without the token lock an outcome and its entry arriving together could each miss the other
 * (the outcome kept as an orphan of an entry that exists). With a respondent, the respondent's
 * row is locked first (`ON CONFLICT … WHERE false` locks the row without writing a new version
 * of it): every entry of this respondent, on every replica, waits there for the one before.
 * One statement: the target list runs left to right, so the order of locks is the documented one.
 */
function* lockForRecording(dialect: Dialect, token: string, respondent?: string): Program<void> {
  if (dialect !== "postgres") return;
  const locks = `pg_advisory_xact_lock(hashtextextended(?, 7)), pg_advisory_xact_lock_shared(${WINDOWS_LOCK_KEY})`;
  if (respondent === undefined) {
    yield* query(`SELECT ${locks}`, token);
    return;
  }
  yield* query(
    `WITH respondent AS (INSERT INTO loop_respondents (uid) VALUES (?) ON CONFLICT (uid) DO UPDATE SET uid = excluded.uid WHERE false RETURNING uid)
SELECT (SELECT count(*) FROM respondent) AS inserted, ${locks}`,
    respondent,
    token,
  );
}

/** The next sequence of the outcome feed; on PostgreSQL the counter row stays locked until commit, so sequences follow commit order. */
function* nextSequence(): Program<number> {
  const row = yield* queryOne("UPDATE loop_counters SET value = value + 1 WHERE name = 'outcomes' RETURNING value");
  return Number(requiredRow(row, "the outcome feed's counter").value);
}

interface CurrentEntry {
  readonly token: string;
  readonly surveyId: number;
  /** The Cpi as issued, in integer micros (money.ts). */
  readonly cpiMicros: number;
  readonly outcome: OutcomeKind | null;
  readonly outcomeAt: string | null;
}

/** Settings the recording programs need. */
export interface RecordingSettings {
  /**
   * Decided entries with no complete after which a survey is held out of yield ranking
   * (`SYNC_YIELD_CUTOFF_ENTRIES`): the time an outcome makes the survey fail a trial, by
   * `@sds/routing`'s `reachesYieldCutoff`, is kept as `cutoff_reached_at`. @default 20
   */
  readonly yieldCutoffEntries: number;
}

/** The default {@link RecordingSettings}. */
export const defaultRecordingSettings: RecordingSettings = { yieldCutoffEntries: DEFAULT_YIELD_CUTOFF.entries };

/** A survey's tally as `loop_survey_counts` holds it after a change, and as it stood before. */
function tallies(
  row: SqlRow | undefined,
  previous: OutcomeKind | null,
  next: OutcomeKind,
): { readonly before: YieldTally; readonly after: YieldTally } {
  const completes = Number(row?.completes);
  const after = {
    decided: completes + Number(row?.terminates) + Number(row?.overquotas) + Number(row?.security),
    completes,
  };
  const before = {
    decided: after.decided - (previous === null ? 1 : 0),
    completes: after.completes - (next === "complete" ? 1 : 0) + (previous === "complete" ? 1 : 0),
  };
  return { before, after };
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
  const sequence = yield* nextSequence();
  const iso = at.toISOString();
  const row = yield* queryOne(
    "INSERT INTO loop_outcomes (sequence, token, outcome, survey_id, previous_outcome, received_at, source, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
    sequence,
    entry.token,
    next,
    entry.surveyId,
    entry.outcome,
    iso,
    source,
    reason,
  );
  yield* query("UPDATE loop_entries SET outcome = ?, outcome_at = ? WHERE token = ?", next, iso, entry.token);
  const previous = entry.outcome;
  const reversal = previous === "complete" ? 1 : 0;
  const earned = (next === "complete" ? entry.cpiMicros : 0) - (previous === "complete" ? entry.cpiMicros : 0);
  const lifetime: CountDelta = { [next]: 1, reversals: reversal, earnings: earned };
  if (previous !== null) lifetime[previous] = (lifetime[previous] ?? 0) - 1;
  yield* addCounts(entry.surveyId, null, lifetime);
  const after = yield* queryOne(
    "SELECT completes, terminates, overquotas, security FROM loop_survey_counts WHERE survey_id = ?",
    entry.surveyId,
  );
  const { before, after: tally } = tallies(after, previous, next);
  const cutoff = reachesYieldCutoff(before, tally, { entries: settings.yieldCutoffEntries });
  yield* query(
    "UPDATE loop_survey_counts SET last_outcome_at = ?, cutoff_reached_at = CASE WHEN ? = 1 THEN ? ELSE cutoff_reached_at END WHERE survey_id = ?",
    at.getTime(),
    cutoff ? 1 : 0,
    at.getTime(),
    entry.surveyId,
  );
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
  yield* query(ADD_TO_COUNTER, `outcome:${next}`, 1);
  return toOutcome(requiredRow(row, "a new outcome"));
}

function currentEntry(row: SqlRow): CurrentEntry {
  return {
    token: String(row.token),
    surveyId: Number(row.survey_id),
    cpiMicros: storedCpiMicros(row.cpi_micros),
    outcome: storedOutcomeOrNull(row.outcome, "loop_entries.outcome"),
    outcomeAt: row.outcome_at === null || row.outcome_at === undefined ? null : toIso(row.outcome_at),
  };
}

/** The feed row that set a token's current outcome (a repeat answers with it); synthesised when it was pruned. */
function* lastTransition(token: string, outcome: OutcomeKind, surveyId: number | null): Program<OutcomeRecord> {
  const row = yield* queryOne("SELECT * FROM loop_outcomes WHERE token = ? ORDER BY sequence DESC LIMIT 1", token);
  if (row) return toOutcome(row);
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
export function* recordOutcome(
  dialect: Dialect,
  input: OutcomeInput,
  settings: RecordingSettings,
): Program<RecordOutcomeResult> {
  const source = input.source ?? "s2s";
  const reason = input.reason ?? null;
  yield* lockForRecording(dialect, input.token);
  const entryRow = yield* queryOne(
    "SELECT token, survey_id, cpi_micros, outcome, outcome_at FROM loop_entries WHERE token = ? AND source = 'link'",
    input.token,
  );
  if (entryRow) {
    const entry = currentEntry(entryRow);
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
  const orphan = yield* queryOne("SELECT outcome FROM loop_orphans WHERE token = ?", input.token);
  const previous = orphan === undefined ? null : storedOutcome(orphan.outcome, "loop_orphans.outcome");
  if (previous === input.outcome)
    return { recorded: false, record: yield* lastTransition(input.token, input.outcome, null) };
  const sequence = yield* nextSequence();
  const iso = input.at.toISOString();
  const row = yield* queryOne(
    "INSERT INTO loop_outcomes (sequence, token, outcome, survey_id, previous_outcome, received_at, source, reason) VALUES (?, ?, ?, NULL, ?, ?, ?, ?) RETURNING *",
    sequence,
    input.token,
    input.outcome,
    previous,
    iso,
    source,
    reason,
  );
  yield* query(
    "INSERT INTO loop_orphans (token, outcome, received_at) VALUES (?, ?, ?) ON CONFLICT (token) DO UPDATE SET outcome = excluded.outcome, received_at = excluded.received_at",
    input.token,
    input.outcome,
    iso,
  );
  if (!orphan) yield* query(ADD_TO_COUNTER, "orphans", 1);
  yield* query(ADD_TO_COUNTER, `outcome:${input.outcome}`, 1);
  return { recorded: true, record: toOutcome(requiredRow(row, "a new orphan outcome")) };
}

/**
 * What {@link recordEntry} reads once its locks are held, in one statement: the entry that
 * already carries the token, the outcome that arrived for it first (an orphan), and the
 * respondent's latest entries (none when `historyLimit` is 0).
 */
const READ_FOR_ENTRY = `SELECT 'known' AS kind, token, survey_id, uid, cpi_micros, issued_at, outcome FROM loop_entries WHERE token = ?
UNION ALL SELECT 'orphan', token, NULL, NULL, NULL, NULL, outcome FROM loop_orphans WHERE token = ?
UNION ALL SELECT * FROM (SELECT 'history', token, survey_id, uid, cpi_micros, issued_at, outcome FROM loop_entries WHERE uid = ? ORDER BY issued_at DESC LIMIT ?) AS history`;

interface EntryFacts {
  readonly known: SqlRow | undefined;
  readonly orphan: OutcomeKind | null;
  readonly history: PastEntry[];
}

function* readForEntry(token: string, uid: string, historyLimit: number): Program<EntryFacts> {
  let known: SqlRow | undefined;
  let orphan: OutcomeKind | null = null;
  const history: PastEntry[] = [];
  for (const row of yield* query(READ_FOR_ENTRY, token, token, uid, historyLimit)) {
    if (row.kind === "known") known = row;
    else if (row.kind === "orphan") orphan = storedOutcome(row.outcome, "loop_orphans.outcome");
    else history.push(toPastEntry(row));
  }
  return { known, orphan, history };
}

/**
 * A new entry and its counts (lifetime, its hour, the windows the hour is in) in one statement on
 * PostgreSQL: one round trip instead of six. Each step reads the one before (RETURNING), which
 * fixes the order its rows are locked in to the documented one; the windows are decided against
 * their edges under the windows lock, as {@link addCounts} does. No row when the token is taken.
 */
const POSTGRES_INSERT_ENTRY = `WITH entry AS (
  INSERT INTO loop_entries (token, survey_id, uid, cpi_micros, issued_at, source) VALUES ($1, $2, $3, $4, $5, 'link')
  ON CONFLICT (token) DO NOTHING RETURNING *
), lifetime AS (
  INSERT INTO loop_survey_counts (survey_id, entries) SELECT survey_id, 1 FROM entry
  ON CONFLICT (survey_id) DO UPDATE SET entries = loop_survey_counts.entries + 1 RETURNING survey_id
), hour AS (
  INSERT INTO loop_survey_hours (survey_id, hour, entries) SELECT survey_id, $6, 1 FROM lifetime
  ON CONFLICT (survey_id, hour) DO UPDATE SET entries = loop_survey_hours.entries + 1 RETURNING survey_id
), windows AS (
  INSERT INTO loop_survey_windows (survey_id, window_name, entries)
  SELECT hour.survey_id, w.name, 1 FROM hour CROSS JOIN (VALUES ('last24h'), ('last7d')) AS w (name)
    LEFT JOIN loop_counters AS edge ON edge.name = 'window-edge:' || w.name
  WHERE edge.value IS NULL OR $6 > edge.value
  ON CONFLICT (survey_id, window_name) DO UPDATE SET entries = loop_survey_windows.entries + 1 RETURNING survey_id
)
SELECT entry.*, (SELECT count(*) FROM windows) AS windows FROM entry`;

function* insertEntry(dialect: Dialect, entry: EntryInput): Program<SqlRow | undefined> {
  const values = [entry.token, entry.surveyId, entry.uid, cpiMicros(entry.cpi), entry.at.toISOString()] as const;
  const hour = hourOf(entry.at);
  if (dialect === "postgres") return yield* queryOne(POSTGRES_INSERT_ENTRY, ...values, hour);
  const inserted = yield* queryOne(
    "INSERT INTO loop_entries (token, survey_id, uid, cpi_micros, issued_at, source) VALUES (?, ?, ?, ?, ?, 'link') ON CONFLICT (token) DO NOTHING RETURNING *",
    ...values,
  );
  if (inserted) {
    yield* addCounts(entry.surveyId, null, { entries: 1 });
    yield* addCounts(entry.surveyId, hour, { entries: 1 });
  }
  return inserted;
}

/**
 * {@link LoopStore.recordEntry}. On PostgreSQL five round trips (BEGIN, the locks, one read, one
 * write, COMMIT); the rare entry whose outcome came first takes the slow path of
 * {@link applyTransition}.
 */
export function* recordEntry<Refusal>(
  dialect: Dialect,
  entry: EntryInput,
  admit: EntryAdmission<Refusal> | undefined,
  settings: RecordingSettings,
): Program<RecordEntryResult<Refusal>> {
  const repeatOrConflict = (row: SqlRow): RecordEntryResult<Refusal> => {
    const existing = toEntry(row);
    return {
      kind: existing.surveyId === entry.surveyId && existing.uid === entry.uid ? "existing" : "conflict",
      entry: existing,
    };
  };
  const admitting = admit !== undefined && entry.uid !== "";
  yield* lockForRecording(dialect, entry.token, admitting ? entry.uid : undefined);
  // Read under the locks: a retry of this token, or an entry of this respondent committed a moment ago, is seen.
  const facts = yield* readForEntry(entry.token, entry.uid, admitting ? HISTORY_LIMIT : 0);
  if (facts.known) return repeatOrConflict(facts.known);
  if (admit !== undefined) {
    const refusal = admit(facts.history);
    if (refusal !== undefined) return { kind: "refused", refusal };
  }
  // The attachment below takes the feed's counter; taken before the counts, as everywhere else.
  if (facts.orphan !== null && dialect === "postgres")
    yield* query("SELECT value FROM loop_counters WHERE name = 'outcomes' FOR UPDATE");
  const inserted = yield* insertEntry(dialect, entry);
  if (!inserted)
    return repeatOrConflict(
      requiredRow(
        yield* queryOne("SELECT * FROM loop_entries WHERE token = ?", entry.token),
        "the entry holding the token",
      ),
    );
  if (facts.orphan === null) return { kind: "recorded", entry: toEntry(inserted), attached: [] };
  const attached = yield* applyTransition(
    { token: entry.token, surveyId: entry.surveyId, cpiMicros: cpiMicros(entry.cpi), outcome: null, outcomeAt: null },
    facts.orphan,
    entry.at,
    "attach",
    "the outcome arrived before its entry was issued",
    settings,
  );
  yield* query("DELETE FROM loop_orphans WHERE token = ?", entry.token);
  yield* query(ADD_TO_COUNTER, "orphans", -1);
  return { kind: "recorded", entry: { ...toEntry(inserted), outcome: facts.orphan }, attached: [attached] };
}

/** {@link LoopStore.importHistory}: deterministic tokens, so importing the same file twice adds nothing. */
export function* importHistory(entries: readonly HistoryInput[]): Program<{ imported: number; skipped: number }> {
  let imported = 0;
  for (const item of entries) {
    const at = item.enteredAt.toISOString();
    const token = `history:${item.surveyId}:${item.enteredAt.getTime()}:${item.uid}`;
    const row = yield* queryOne(
      "INSERT INTO loop_entries (token, survey_id, uid, cpi_micros, issued_at, outcome, outcome_at, source) VALUES (?, ?, ?, 0, ?, ?, ?, 'import') ON CONFLICT (token) DO NOTHING RETURNING token",
      token,
      item.surveyId,
      item.uid,
      at,
      item.outcome ?? null,
      item.outcome === undefined ? null : at,
    );
    if (row) imported += 1;
  }
  return { imported, skipped: entries.length - imported };
}

/** How many tokens one statement of {@link currentOutcomes} names: well under every driver's limit on parameters. */
const TOKENS_PER_READ = 500;

/**
 * {@link LoopStore.currentOutcomes}: the current outcome of the entries issued through sds-sync
 * (what a reconciliation corrects; imported history is not), read and never locked.
 */
export function* currentOutcomes(tokens: readonly string[]): Program<Map<string, OutcomeKind | null>> {
  const outcomes = new Map<string, OutcomeKind | null>();
  const unique = [...new Set(tokens)];
  for (let start = 0; start < unique.length; start += TOKENS_PER_READ) {
    const chunk = unique.slice(start, start + TOKENS_PER_READ);
    const rows = yield* query(
      `SELECT token, outcome FROM loop_entries WHERE source = 'link' AND token IN (${chunk.map(() => "?").join(", ")})`,
      ...chunk,
    );
    for (const row of rows) outcomes.set(String(row.token), storedOutcomeOrNull(row.outcome, "loop_entries.outcome"));
  }
  return outcomes;
}

/** {@link LoopStore.respondentHistory}. */
export function* respondentHistory(uid: string, limit: number): Program<PastEntry[]> {
  return (yield* query(
    "SELECT survey_id, issued_at, outcome FROM loop_entries WHERE uid = ? ORDER BY issued_at DESC LIMIT ?",
    uid,
    limit,
  )).map(toPastEntry);
}

/** {@link LoopStore.conversion}. */
export function* lifetimeConversion(): Program<SurveyConversionCounts[]> {
  return (yield* query("SELECT * FROM loop_survey_counts WHERE entries > 0 ORDER BY survey_id")).map((row) => ({
    surveyId: Number(row.survey_id),
    ...toCounts(row),
  }));
}

const prefixed = (table: string, prefix: string) =>
  COUNT_COLUMNS.map((column) => `${table}.${column} AS ${prefix}${column}`).join(", ");
const summed = (table: string) =>
  COUNT_COLUMNS.map((column) => `COALESCE(SUM(${table}.${column}), 0) AS ${column}`).join(", ");

/** The counts of one window of a {@link TOP_SURVEYS} row (`d_`: last 24 hours, `w_`: last 7 days, none: lifetime). */
function prefixedCounts(row: SqlRow, prefix: string): ConversionCounts {
  return toCounts(Object.fromEntries(COUNT_COLUMNS.map((column) => [column, row[`${prefix}${column}`]])));
}

const SURVEYS_WITH_ENTRIES = "loop_survey_counts AS c WHERE c.entries > 0";
const LIFETIME_TOTALS = `SELECT COUNT(*) AS surveys, ${summed("c")} FROM ${SURVEYS_WITH_ENTRIES}`;
const WINDOW_TOTALS = `SELECT w.window_name, ${summed("w")} FROM loop_survey_windows AS w
  JOIN loop_survey_counts AS c ON c.survey_id = w.survey_id AND c.entries > 0 GROUP BY w.window_name`;
const TOP_SURVEYS = `SELECT c.survey_id, ${prefixed("c", "")}, ${prefixed("d", "d_")}, ${prefixed("w", "w_")}
  FROM loop_survey_counts AS c
  LEFT JOIN loop_survey_windows AS d ON d.survey_id = c.survey_id AND d.window_name = 'last24h'
  LEFT JOIN loop_survey_windows AS w ON w.survey_id = c.survey_id AND w.window_name = 'last7d'
  WHERE c.entries > 0 ORDER BY COALESCE(w.earnings_micros, 0) DESC, c.earnings_micros DESC, c.survey_id LIMIT ?`;

/**
 * {@link LoopStore.conversionSummary}: three statements, the sums and the ordering done by the
 * database; only `limit` surveys reach JavaScript. Call {@link advanceWindows} first.
 */
export function* conversionSummary(limit: number): Program<ConversionSummary> {
  const lifetime = yield* queryOne(LIFETIME_TOTALS);
  const windows = new Map((yield* query(WINDOW_TOTALS)).map((row) => [String(row.window_name), toCounts(row)]));
  const surveys = (yield* query(TOP_SURVEYS, limit)).map((row) => ({
    surveyId: Number(row.survey_id),
    lifetime: prefixedCounts(row, ""),
    last24h: prefixedCounts(row, "d_"),
    last7d: prefixedCounts(row, "w_"),
  }));
  return {
    totals: {
      lifetime: toCounts(lifetime),
      last24h: windows.get("last24h") ?? toCounts(undefined),
      last7d: windows.get("last7d") ?? toCounts(undefined),
    },
    surveyCount: Number(lifetime?.surveys ?? 0),
    surveys,
  };
}

/**
 * {@link LoopStore.conversionVersion}: the outcome feed's sequence, the newest entry's time and
 * the hour — what every figure of the conversion report moves with. Two indexed reads.
 */
export function* conversionVersion(now: Date): Program<string> {
  const sequence = (yield* queryOne("SELECT value FROM loop_counters WHERE name = 'outcomes'"))?.value;
  const newest = (yield* queryOne("SELECT MAX(issued_at) AS at FROM loop_entries"))?.at;
  return `${String(sequence)}:${newest === null || newest === undefined ? "" : toIso(newest)}:${hourOf(now)}`;
}

/** {@link LoopStore.outcomeCounts}, from the counter rows kept as transitions are recorded. */
export function* outcomeCounts(): Program<Record<OutcomeKind, number>> {
  const counts: Record<OutcomeKind, number> = { complete: 0, terminate: 0, overquota: 0, security: 0 };
  for (const row of yield* query("SELECT name, value FROM loop_counters WHERE name LIKE 'outcome:%'")) {
    counts[storedOutcome(String(row.name).slice("outcome:".length), "loop_counters.name")] = Number(row.value);
  }
  return counts;
}

/** {@link LoopStore.orphanCount}. */
export function* orphanCount(): Program<number> {
  return Number((yield* queryOne("SELECT value FROM loop_counters WHERE name = 'orphans'"))?.value ?? 0);
}

/** {@link LoopStore.listOutcomes}. */
export function* listOutcomes(after: number, limit: number): Program<OutcomeRecord[]> {
  return (yield* query("SELECT * FROM loop_outcomes WHERE sequence > ? ORDER BY sequence LIMIT ?", after, limit)).map(
    toOutcome,
  );
}

/** {@link LoopStore.latestSequence}. */
export function* latestSequence(): Program<number> {
  return Number((yield* queryOne("SELECT value FROM loop_counters WHERE name = 'outcomes'"))?.value ?? 0);
}

/** {@link LoopStore.pruneHourlyCounts}. */
export function* pruneHourlyCounts(before: Date): Program<number> {
  return (yield* query("DELETE FROM loop_survey_hours WHERE hour < ? RETURNING hour", hourOf(before))).length;
}
