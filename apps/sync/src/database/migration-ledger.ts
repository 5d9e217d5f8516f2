import type { DialectName } from "./sql-dialect.ts";

/*
 * The migration mechanism both stores (the sync store and the loop's) share: a migration in
 * both dialects, a ledger of them, and the refusal of a schema newer than this build.
 */

/** One versioned schema change, written for both dialects. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sqlite: string;
  readonly postgres: string;
}

/** The two SQL dialects the stores speak, by name (the dialect objects: `dialects.ts`). */
export type Dialect = DialectName;

/** The SQL statements of one migration, split so drivers that run one statement at a time can. */
export function migrationStatements(migration: Migration, dialect: Dialect): string[] {
  return migration[dialect]
    .split(/;\s*\n/)
    .map((statement) => statement.replace(/^\s*--.*$/gm, "").trim())
    .filter((statement) => statement.length > 0);
}

/**
 * A list of migrations with the table that records which of them a store applied and the name
 * of the advisory lock that serialises replicas migrating together (PostgreSQL). The sync tables
 * and the respondent loop's tables each have one; both stores apply them with the same runner
 * (`sqlite-migrate.ts`, `postgres-migrate.ts`).
 */
export interface MigrationLedger {
  readonly table: string;
  /** Part of the advisory lock key; never change it, or replicas of two versions could migrate at once. */
  readonly lockName: string;
  readonly migrations: readonly Migration[];
}

/**
 * Refuses a store whose schema is newer than this build knows: an older sds-sync (a rollback, or
 * a replica not yet upgraded that restarts) must not write to tables whose meaning it does not
 * know. The remedy is in the message: run the newer version, or restore the backup taken before
 * the upgrade (docs/runbook.md).
 */
export function assertSchemaKnown(appliedVersion: number, known: readonly Migration[]): void {
  const latest = Math.max(0, ...known.map((migration) => migration.version));
  if (appliedVersion <= latest) return;
  throw new Error(
    `the store's schema is at version ${appliedVersion}, newer than this sds-sync knows (${latest}): ` +
      "run the sds-sync version that migrated it, or restore the backup taken before that upgrade (see the runbook)",
  );
}
