import type { DatabaseSync } from "node:sqlite";
import { assertSchemaKnown, migrationStatements, type MigrationLedger } from "./migration-ledger.ts";

/** Runs `work` in one immediate (write-locking) transaction, rolled back when it throws. */
export function inSqliteTransaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = work();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}

/**
 * Applies every migration of `ledger` above the highest version recorded in its table, one
 * transaction each, after refusing a schema newer than this build knows.
 */
export function migrateSqlite(db: DatabaseSync, ledger: MigrationLedger): void {
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${ledger.table} (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
  );
  const applied = db.prepare(`SELECT COALESCE(MAX(version), 0) AS version FROM ${ledger.table}`).get() as {
    version: number;
  };
  assertSchemaKnown(applied.version, ledger.migrations);
  for (const migration of ledger.migrations.filter((candidate) => candidate.version > applied.version)) {
    inSqliteTransaction(db, () => {
      for (const statement of migrationStatements(migration, "sqlite")) db.exec(statement);
      db.prepare(`INSERT INTO ${ledger.table} (version, name, applied_at) VALUES (?, ?, ?)`).run(
        migration.version,
        migration.name,
        new Date().toISOString(),
      );
    });
  }
}
