import { configSecrets, loadConfig } from "./config.ts";
import { isConfigError, SyncError } from "./errors.ts";
import { createLogger } from "./logger.ts";
import { startSyncService } from "./service.ts";

/** Exit status of a configuration error (EX_CONFIG of sysexits.h), so supervisors can tell it from a crash. */
const EXIT_CONFIG = 78;
/** How long shutdown may take before the process gives up waiting and exits non-zero. */
const SHUTDOWN_DEADLINE_MS = 10_000;

/**
 * Runs the service until a signal: the one place where errors become log lines and exit codes.
 * Configuration from the environment (see README), JSON logs to stdout, exit 0 after a clean
 * SIGTERM or SIGINT. Loaded by main.ts once the Node version and the arguments are checked.
 */
export async function runService(): Promise<void> {
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
  let service;
  try {
    service = await startSyncService({ config, logger });
  } catch (error) {
    // Our own errors say what to do in their message; a stack would only bury it.
    if (error instanceof SyncError) logger.fatal({ reason: error.message }, `sds-sync could not start: ${error.message}`);
    else logger.fatal({ err: error }, "sds-sync could not start");
    process.exitCode = 1;
    return;
  }

  let signalled = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.warn({ signal }, "second signal: exiting at once");
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal }, "signal received: shutting down");
    const deadline = setTimeout(() => {
      logger.error({ deadlineMs: SHUTDOWN_DEADLINE_MS }, "shutdown took too long: exiting");
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    deadline.unref();
    service.stop().then(
      () => {
        clearTimeout(deadline);
        // Idle keep-alive sockets of the HTTP client may linger; everything that matters is closed.
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}
