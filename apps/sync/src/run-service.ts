import type { Logger } from "pino";
import { configSecrets, loadConfig } from "./config/config.ts";
import { isConfigError, SyncError } from "./common/errors.ts";
import { EXIT_CONFIG, EXIT_TEMPORARY_FAILURE } from "./common/exit-codes.ts";
import { createLogger } from "./common/logger.ts";
import { DatabaseUnreachableError } from "./database/start-retry.ts";
import { startSyncService, type SyncService } from "./service.ts";
import type { StopSignals } from "./stop-signals.ts";

/** How long shutdown may take, from the first signal, before the process gives up waiting and exits non-zero. */
const SHUTDOWN_DEADLINE_MS = 10_000;

/**
 * Runs the service until a stop signal: the one place where errors become log lines and exit
 * codes. Configuration from the environment (see README), JSON logs to stdout, exit 0 after a
 * clean SIGTERM or SIGINT, including one that arrives while start is still under way (the
 * migrations, the matcher's load, the first account read): start then completes, without the
 * rest of the matcher's load or the wait for the first account read, and the service stops at
 * once. Loaded by main.ts once the Node version and the arguments are checked and the stop
 * signals are caught.
 */
export async function runService(stopSignals: StopSignals): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!isConfigError(error)) throw error;
    process.stderr.write(`sds-sync: ${error.message}\n`);
    process.exitCode = EXIT_CONFIG;
    return;
  }
  const logger = createLogger(config.logLevel, { secrets: configSecrets(config) });
  const phase = { starting: true };
  const startAbort = new AbortController();
  stopSignals.onSignal((signal, count) => {
    onStopSignal(logger, signal, count, phase.starting);
    startAbort.abort();
  });

  let service: SyncService;
  try {
    service = await startSyncService({
      config,
      logger,
      startSignal: startAbort.signal,
    });
  } catch (error) {
    if (error instanceof DatabaseUnreachableError && startAbort.signal.aborted) {
      // Stopped while waiting for the database: the stop asked for, not a failure.
      logger.info("stopped while waiting for the database");
      return;
    }
    // A setting refused only once checked against the world (a webhook resolving to a private address).
    if (isConfigError(error)) {
      process.stderr.write(`sds-sync: ${error.message}\n`);
      process.exitCode = EXIT_CONFIG;
      return;
    }
    // Our own errors say what to do in their message; a stack would only bury it.
    if (error instanceof SyncError)
      logger.fatal({ reason: error.message }, `sds-sync could not start: ${error.message}`);
    else logger.fatal({ err: error }, "sds-sync could not start");
    process.exitCode = error instanceof DatabaseUnreachableError ? EXIT_TEMPORARY_FAILURE : 1;
    return;
  }
  phase.starting = false;

  await stopSignals.first;
  try {
    await service.stop();
  } catch (error) {
    logger.error({ err: error }, "shutdown failed");
    process.exit(1);
  }
  // Idle keep-alive sockets of the HTTP client may linger; everything that matters is closed.
  process.exit(0);
}

/** The first stop signal starts the shutdown's deadline; a second one ends the process at once. */
function onStopSignal(logger: Logger, signal: NodeJS.Signals, count: number, starting: boolean): void {
  if (count > 1) {
    logger.warn({ signal }, "second signal: exiting at once");
    process.exit(1);
  }
  logger.info(
    { signal, starting },
    starting ? "signal received while starting: shutting down once start completes" : "signal received: shutting down",
  );
  const deadline = setTimeout(() => {
    logger.error({ deadlineMs: SHUTDOWN_DEADLINE_MS }, "shutdown took too long: exiting");
    process.exit(1);
  }, SHUTDOWN_DEADLINE_MS);
  deadline.unref();
}
