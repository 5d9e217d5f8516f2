import { isConfigError, SyncError } from "../common/errors.ts";
import { EXIT_CONFIG, EXIT_OK, EXIT_TEMPORARY_FAILURE, type CommandOutput } from "../common/exit-codes.ts";
import { createLogger } from "../common/logger.ts";
import { configSecrets, describeDatabase, loadSettings } from "../config/config.ts";
import { DatabaseUnreachableError, retryWhileUnreachable } from "../database/start-retry.ts";
import { outcomeLedger } from "../loop/store/loop-migrations.ts";
import { openLoopStore } from "../loop/store/open-loop-store.ts";
import { defaultRecordingSettings } from "../loop/store/loop-records.ts";
import { syncLedger } from "../inventory-store/migrations.ts";
import { openStore } from "../inventory-store/open-store.ts";

/**
 * `sds-sync migrate`: applies the pending migrations of both stores (the sync tables and the
 * respondent loop's) to the database `DATABASE_URL` names, then exits, for deploy pipelines that
 * migrate before they roll the replicas. Reads only the database's settings. Waits for an
 * unreachable database like a start does (`SYNC_DATABASE_START_TIMEOUT_SECONDS`); JSON logs on
 * stderr, one line of result on stdout. Exit 0 when migrated, 78 for an invalid setting, 75 when
 * the database stayed unreachable, 1 when a migration failed (or the schema is newer than this build).
 */
export async function runMigrate(env: NodeJS.ProcessEnv, output: CommandOutput): Promise<number> {
  let settings;
  try {
    settings = loadSettings(env, ["database", "logLevel", "databaseStartTimeoutSeconds"]);
  } catch (error) {
    if (!isConfigError(error)) throw error;
    output.err.write(`sds-sync migrate: ${error.message}\n`);
    return EXIT_CONFIG;
  }
  const { database } = settings;
  const logger = createLogger(settings.logLevel, {
    secrets: configSecrets(settings),
    destination: output.err,
  });
  try {
    const store = await retryWhileUnreachable(() => openStore(database), {
      timeoutMs: (settings.databaseStartTimeoutSeconds ?? 60) * 1000,
      logger,
      database: describeDatabase(database),
    });
    await store.close();
    const outcomes = await openLoopStore(database, defaultRecordingSettings);
    await outcomes.close();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    output.err.write(`sds-sync migrate: ${message}\n`);
    if (error instanceof DatabaseUnreachableError) return EXIT_TEMPORARY_FAILURE;
    if (error instanceof SyncError) return 1;
    throw error;
  }
  output.out.write(
    `migrated ${describeDatabase(database)}: sync tables at migration ${syncLedger.migrations.at(-1)?.version ?? 0}, respondent loop tables at migration ${outcomeLedger.migrations.at(-1)?.version ?? 0}\n`,
  );
  return EXIT_OK;
}
