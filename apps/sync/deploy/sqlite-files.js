// What sqlite-backup.js, sqlite-restore.js and loop-to-postgres.js share about sds-sync's two
// SQLite files. Plain JavaScript with nothing but Node's built-ins: the scripts run from
// node_modules/@sds/sync/deploy without the service's bundle.
import { closeSync, existsSync, fsyncSync, openSync, rmSync } from "node:fs";
import { dirname, extname } from "node:path";
import { DatabaseSync } from "node:sqlite";

/** The ledger table of each file: the sync store's and the respondent loop's migrations. */
export const ledgers = { store: "schema_migrations", loop: "loop_schema_migrations" };

/**
 * The loop's file beside a store file: `sds.db` → `sds.loop.db`, `sds` → `sds.loop.db`. A copy
 * of `loopDatabasePath` (src/loop/store/sqlite-loop-store.ts), which the scripts cannot import;
 * test/backup-restore.system.test.ts checks both agree.
 */
export function loopPathOf(storePath) {
  const extension = extname(storePath);
  return `${storePath.slice(0, storePath.length - extension.length)}.loop${extension || ".db"}`;
}

/**
 * Checks a SQLite file (reading only, see openForReading) and reads its schema version from `ledgerTable`.
 * Throws when the file is unsound or is not the kind of file the ledger says; messages name
 * the file as `label` (a copy's partial name means nothing to the operator).
 */
export function inspectFile(path, ledgerTable, label = path) {
  if (!existsSync(path)) throw new Error(`${label} does not exist`);
  let database;
  try {
    database = openForReading(path);
    const problems = database
      .prepare("PRAGMA integrity_check")
      .all()
      .map((row) => String(row.integrity_check))
      .filter((result) => result !== "ok");
    if (problems.length > 0) throw new Error(`integrity check of ${label} failed: ${problems.slice(0, 5).join("; ")}`);
    const hasTable = (name) =>
      database.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
    if (!hasTable(ledgerTable)) {
      const what = ledgerTable === ledgers.loop ? "an sds-sync loop file (NAME.loop.db)" : "an sds-sync store";
      const hint =
        ledgerTable === ledgers.store && hasTable(ledgers.loop)
          ? ": it is a loop file; name the store's file (sds.db), its loop file goes with it"
          : "";
      throw new Error(`${label} has no ${ledgerTable} table: it is not ${what}${hint}`);
    }
    const row = database.prepare(`SELECT COALESCE(MAX(version), 0) AS version FROM ${ledgerTable}`).get();
    return { version: Number(row?.version ?? 0) };
  } catch (error) {
    // SQLite's own messages ("database disk image is malformed") do not say which file.
    if (error?.code !== "ERR_SQLITE_ERROR") throw error;
    // SQLITE_CORRUPT (11), SQLITE_NOTADB (26).
    const damaged = error.errcode === 11 || error.errcode === 26;
    throw new Error(`${label}${damaged ? " is damaged or not a SQLite file" : ""}: ${error.message}`, { cause: error });
  } finally {
    database?.close();
  }
}

/**
 * A connection that only reads. Not `readOnly`: a read-only connection to a WAL-mode file
 * creates its -wal and -shm and, unable to write, cannot remove them when it is the last one to
 * close; this one checkpoints and removes them as the service itself does. (A file the user may
 * not write is still opened, read-only: SQLite falls back.)
 */
export function openForReading(path) {
  return new DatabaseSync(path);
}

/**
 * Whether another connection has the file open (the service, or a sqlite3 shell): best effort,
 * by asking for an exclusive lock without waiting. A WAL-mode connection holds a shared lock
 * for as long as it is open, so a running service refuses it. Taking the lock also recovers a
 * WAL left by a crashed process, which is harmless before the file is replaced.
 */
export function isOpenElsewhere(path) {
  if (!existsSync(path)) return false;
  const database = new DatabaseSync(path, { timeout: 0 });
  try {
    database.exec("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT;");
    return false;
  } catch (error) {
    // SQLITE_BUSY (5) and SQLITE_LOCKED (6): someone else holds it.
    if (error && (error.errcode === 5 || error.errcode === 6)) return true;
    throw error;
  } finally {
    database.close();
  }
}

/**
 * Removes the files SQLite keeps beside a database (`-wal`, `-shm`, `-journal`). A WAL left
 * beside a file that was replaced would be replayed onto the new file when it is next opened.
 */
export function removeSideFiles(path) {
  for (const suffix of ["-wal", "-shm", "-journal"]) rmSync(`${path}${suffix}`, { force: true });
}

/** Makes renames in the directory of `path` durable. */
export function syncDirectory(path) {
  const descriptor = openSync(dirname(path), "r");
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

/** A copy's temporary name beside its destination, so a rename puts it in place at once. */
export function partialPath(path) {
  return `${path}.partial-${process.pid}`;
}

/** The message of anything thrown. */
export function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}
