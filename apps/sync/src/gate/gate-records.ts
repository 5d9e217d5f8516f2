import { GateCode } from "@sds/sync-client";
import { integer, oneOf, text } from "../database/columns.ts";
import { execute, first, one, rows, type Program } from "../database/program.ts";
import { command, statement } from "../database/statement.ts";

/*
 * The quality gate's store logic, as programs over the loop store's tables (gate-schema.ts in
 * loop/store): what every replica must count alike (starts, devices, refusals) lives in the
 * store, never in one process's memory.
 */

/** Every gate code, in the order the status page lists them (the contract's, `@sds/sync-client`'s). */
export const gateCodes: readonly GateCode[] = GateCode.options;

/** A gate code read back from the store: anything else is a StoreError. */
export const storedGateCode = oneOf(gateCodes);

/**
 * Serialises the starts of one uid and of one address across replicas (transaction-scoped
 * advisory locks on their texts, uid first); SQLite's one writer already does (the dialect skips
 * the statement). Without it two replicas could both count the last start a limit allows.
 */
const LOCK_SUBJECTS = command<[uidSubject: string, ipSubject: string]>((dialect) => {
  const locks = dialect.advisoryLocks([{ boundText: true }, { boundText: true }]);
  return locks === null ? null : `SELECT ${locks}`;
});

/**
 * Serialises the transactions that judge one device fingerprint across replicas (a start that
 * brings it, answers that bring it): without it two uids bringing one device at once would each
 * find no other uid and both be admitted. SQLite's one writer already does.
 */
const LOCK_DEVICE = command<[deviceSubject: string]>((dialect) => {
  const locks = dialect.advisoryLocks([{ boundText: true }]);
  return locks === null ? null : `SELECT ${locks}`;
});

/** Starts of one subject since a time, counted up to a limit (a flood never makes the count scan more). */
const STARTS_SINCE = statement<[subject: string, since: string, limit: number], number>(
  "SELECT count(*) AS starts FROM (SELECT 1 FROM loop_gate_starts WHERE subject = ? AND started_at > ? LIMIT ?) AS recent",
  (row) => integer(row.starts),
);
const INSERT_START = command<[subject: string, at: string]>(
  "INSERT INTO loop_gate_starts (subject, started_at) VALUES (?, ?)",
);
const PRUNE_STARTS = command<[before: string, limit: number]>(
  "DELETE FROM loop_gate_starts WHERE (subject, started_at) IN (SELECT subject, started_at FROM loop_gate_starts WHERE started_at < ? ORDER BY started_at LIMIT ?)",
);

/** An open, unexpired session of the uid (the partial index `loop_sessions_open_uid`). */
const OPEN_SESSION = statement<[uid: string, now: string], string>(
  "SELECT id FROM loop_sessions WHERE uid = ? AND state = 'open' AND expires_at > ? LIMIT 1",
  (row) => text(row.id),
);

/** Another uid seen with the fingerprint since a time. */
const DEVICE_OF_OTHER_UID = statement<[fingerprint: string, uid: string, since: string], string>(
  "SELECT uid FROM loop_gate_devices WHERE fingerprint = ? AND uid <> ? AND seen_at > ? LIMIT 1",
  (row) => text(row.uid),
);
const REMEMBER_DEVICE = command<[fingerprint: string, uid: string, at: string]>(
  `INSERT INTO loop_gate_devices (fingerprint, uid, seen_at) VALUES (?, ?, ?)
ON CONFLICT (fingerprint, uid) DO UPDATE SET seen_at = excluded.seen_at`,
);
const PRUNE_DEVICES = command<[before: string, limit: number]>(
  "DELETE FROM loop_gate_devices WHERE (fingerprint, uid) IN (SELECT fingerprint, uid FROM loop_gate_devices WHERE seen_at < ? ORDER BY seen_at LIMIT ?)",
);

const COUNT_REFUSAL = command<[name: string]>(
  `INSERT INTO loop_counters (name, value) VALUES (?, 1)
ON CONFLICT (name) DO UPDATE SET value = loop_counters.value + 1`,
);
const REFUSAL_COUNTS = statement<[], { readonly code: GateCode; readonly refusals: number }>(
  "SELECT name, value FROM loop_counters WHERE name LIKE 'gate:%'",
  (row) => ({ code: storedGateCode(text(row.name).split(":")[1]), refusals: integer(row.value) }),
);
/**
 * Refusals are counted on one of this many rows per code (`gate:<code>:<shard>`), summed when
 * read: a flood of refusals from many connections would otherwise queue on one counter row's
 * lock (PostgreSQL), one transaction after the other.
 */
const REFUSAL_SHARDS = 16;

/** The subject a start is counted under: `uid:<uid>` or `ip:<address>` (an IPv6 address's /64, as the gate counts it). */
export const startSubject = (kind: "uid" | "ip", value: string): string => `${kind}:${value}`;

/** Takes the locks of one uid's and one address's starts ({@link LOCK_SUBJECTS}). */
export function* lockStartSubjects(uid: string, ip: string | undefined): Program<void> {
  yield* execute(LOCK_SUBJECTS, startSubject("uid", uid), startSubject("ip", ip ?? ""));
}

/** Takes the lock of one device fingerprint's judgement ({@link LOCK_DEVICE}). */
export function* lockDevice(fingerprint: string): Program<void> {
  yield* execute(LOCK_DEVICE, `device:${fingerprint}`);
}

/** Starts of a subject after `since`, counted up to `limit`. */
export function* startsSince(subject: string, since: Date, limit: number): Program<number> {
  return yield* one(STARTS_SINCE, subject, since.toISOString(), limit);
}

/** Counts an admitted start under a subject. */
export function* recordStart(subject: string, at: Date): Program<void> {
  yield* execute(INSERT_START, subject, at.toISOString());
}

/** The id of an open, unexpired session of the uid, if there is one. */
export function* openSessionOf(uid: string, now: Date): Program<string | undefined> {
  return yield* first(OPEN_SESSION, uid, now.toISOString());
}

/** Another uid the fingerprint was seen with after `since`, if any. */
export function* deviceOfOtherUid(fingerprint: string, uid: string, since: Date): Program<string | undefined> {
  return yield* first(DEVICE_OF_OTHER_UID, fingerprint, uid, since.toISOString());
}

/** Remembers that the fingerprint was seen with the uid now. */
export function* rememberDevice(fingerprint: string, uid: string, at: Date): Program<void> {
  yield* execute(REMEMBER_DEVICE, fingerprint, uid, at.toISOString());
}

/** Counts a refusal under its code, for every replica's status page. */
export function* countRefusal(code: GateCode): Program<void> {
  yield* execute(COUNT_REFUSAL, `gate:${code}:${Math.floor(Math.random() * REFUSAL_SHARDS)}`);
}

/** Refusals so far, every code present (0 when none), all replicas together. */
export function* refusalCounts(): Program<Record<GateCode, number>> {
  const counts = Object.fromEntries(gateCodes.map((code) => [code, 0])) as Record<GateCode, number>;
  for (const row of yield* rows(REFUSAL_COUNTS)) counts[row.code] += row.refusals;
  return counts;
}

/**
 * Deletes up to `limit` rows: starts older than `startsBefore` (no limit looks back further),
 * then devices last seen before `devicesBefore`; how many.
 */
export function* pruneGateRecords(startsBefore: Date, devicesBefore: Date, limit: number): Program<number> {
  const starts = yield* execute(PRUNE_STARTS, startsBefore.toISOString(), limit);
  if (starts >= limit) return starts;
  return starts + (yield* execute(PRUNE_DEVICES, devicesBefore.toISOString(), limit - starts));
}
