import { missingHeapFlags, missingMemoryEnv } from "./heap-flags.ts";
import { catchStopSignals, type StopSignals } from "./stop-signals.ts";
import { isSupportedNode, MIN_NODE_VERSION, VERSION } from "./common/version.ts";
import { runUnlessStopped } from "./run-unless-stopped.ts";

/*
 * The entry of `sds-sync`. It imports nothing but small modules without imports of their own, so
 * that it runs on any Node.js: `--version` and `--help` answer without configuration, and an
 * unsupported Node.js gets one line instead of ERR_UNKNOWN_BUILTIN_MODULE (node:sqlite) or a
 * syntax error. Everything else is imported only once those checks pass, and only after SIGTERM
 * and SIGINT are caught (stop-signals.ts), so that a stop during start is obeyed, not fatal.
 * exitCode rather than process.exit(): stdout may still be draining into a pipe.
 */

/** Exit status for a bad command line (EX_USAGE of sysexits.h). */
const EXIT_USAGE = 64;

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  process.stdout.write(`${VERSION}\n`);
} else if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "-h")) {
  void import("./config/help.ts").then(({ renderHelp }) => {
    process.stdout.write(renderHelp(VERSION));
  });
} else if (argv[0] === "replay" && isSupportedNode(process.versions.node)) {
  // Offline evaluation of ranking policies on the recorded entries (src/replay/): no service starts.
  void import("./replay/replay-command.ts").then(async ({ runReplayCommand }) => {
    process.exitCode = await runReplayCommand(argv.slice(1), process.env, process.stdout, process.stderr);
  });
} else if ((argv[0] === "check-config" || argv[0] === "migrate") && isSupportedNode(process.versions.node)) {
  // Operator commands (src/commands/): check the configuration, or migrate the database, and exit.
  void runOperatorCommand(argv[0], argv.slice(1));
} else if (argv.length > 0 && argv[0] !== "replay" && argv[0] !== "check-config" && argv[0] !== "migrate") {
  process.stderr.write(
    `sds-sync: unknown argument ${JSON.stringify(argv[0])}; sds-sync takes its configuration from the environment (see sds-sync --help)\n`,
  );
  process.exitCode = EXIT_USAGE;
} else if (!isSupportedNode(process.versions.node)) {
  process.stderr.write(
    `sds-sync: needs Node.js ${MIN_NODE_VERSION} or later, this is Node.js ${process.versions.node}; install Node.js 24 (LTS) and start it again\n`,
  );
  process.exitCode = 1;
} else if (!reexecWithHeapFlags()) {
  const stopSignals = catchStopSignals();
  run(stopSignals).catch((error: unknown) => {
    process.stderr.write(
      `sds-sync: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}

async function runOperatorCommand(command: "check-config" | "migrate", rest: readonly string[]): Promise<void> {
  if (rest.length === 1 && (rest[0] === "--help" || rest[0] === "-h")) {
    const { renderHelp } = await import("./config/help.ts");
    process.stdout.write(renderHelp(VERSION));
    return;
  }
  if (rest.length > 0) {
    process.stderr.write(
      `sds-sync ${command}: takes no arguments (the environment configures it; see sds-sync --help)\n`,
    );
    process.exitCode = EXIT_USAGE;
    return;
  }
  const output = { out: process.stdout, err: process.stderr };
  try {
    if (command === "check-config") {
      const { runCheckConfig } = await import("./commands/check-config.ts");
      process.exitCode = await runCheckConfig(process.env, output);
    } else {
      const { runMigrate } = await import("./commands/migrate.ts");
      process.exitCode = await runMigrate(process.env, output);
    }
  } catch (error) {
    process.stderr.write(
      `sds-sync ${command}: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  }
}

function run(stopSignals: StopSignals): Promise<void> {
  return runUnlessStopped(
    stopSignals,
    async () => (await import("./run-service.ts")).runService,
    (line) => process.stderr.write(line),
  );
}

/**
 * Replaces this process with itself started with the heap flags and the malloc settings it lacks
 * (see heap-flags.ts): same PID, signals and exit status, nothing left behind. Returns false, and
 * the service runs as is, when nothing is missing or where process.execve is not available
 * (Windows, Node.js < 22.15).
 *
 * It runs before the stop signals are caught, synchronously, so that no signal can be caught by
 * this image and then vanish with it: a handler's signal reaches JavaScript only at the event
 * loop's next poll, and an image replaced before that poll drops it, leaving a process that
 * ignored its SIGTERM (a fresh-clone run of the spread test caught one). Until the new image's
 * entry catches them, SIGTERM and SIGINT keep their default action, which ends a process that
 * has opened nothing.
 */
function reexecWithHeapFlags(): boolean {
  const missing = missingHeapFlags(process.execArgv, process.env.NODE_OPTIONS);
  const missingEnv = missingMemoryEnv(process.env);
  const script = process.argv[1];
  if (
    (missing.length === 0 && Object.keys(missingEnv).length === 0) ||
    typeof process.execve !== "function" ||
    script === undefined
  )
    return false;
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...missing, script], {
    ...process.env,
    ...missingEnv,
  });
  return true;
}
