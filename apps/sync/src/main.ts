import { missingHeapFlags } from "./heap-flags.ts";
import { isSupportedNode, MIN_NODE_VERSION, VERSION } from "./version.ts";

/*
 * The entry of `sds-sync`. It imports nothing but version.ts, so that it runs on any Node.js:
 * `--version` and `--help` answer without configuration, and an unsupported Node.js gets one
 * line instead of ERR_UNKNOWN_BUILTIN_MODULE (node:sqlite) or a syntax error. Everything else is
 * imported only once those checks pass. exitCode rather than process.exit(): stdout may still
 * be draining into a pipe.
 */

/** Exit status for a bad command line (EX_USAGE of sysexits.h). */
const EXIT_USAGE = 64;

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  process.stdout.write(`${VERSION}\n`);
} else if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "-h")) {
  void import("./help.ts").then(({ renderHelp }) => {
    process.stdout.write(renderHelp(VERSION));
  });
} else if (argv.length > 0) {
  process.stderr.write(`sds-sync: unknown argument ${JSON.stringify(argv[0])}; sds-sync takes its configuration from the environment (see sds-sync --help)\n`);
  process.exitCode = EXIT_USAGE;
} else if (!isSupportedNode(process.versions.node)) {
  process.stderr.write(`sds-sync: needs Node.js ${MIN_NODE_VERSION} or later, this is Node.js ${process.versions.node}; install Node.js 24 (LTS) and start it again\n`);
  process.exitCode = 1;
} else if (!reexecWithHeapFlags()) {
  import("./run-service.ts")
    .then(({ runService }) => runService())
    .catch((error: unknown) => {
      process.stderr.write(`sds-sync: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    });
}

/**
 * Replaces this process with itself started with the heap flags it lacks (see heap-flags.ts):
 * same PID, signals and exit status, nothing left behind. Returns false, and the service runs as
 * is, when nothing is missing or where process.execve is not available (Windows, Node.js < 22.15).
 */
function reexecWithHeapFlags(): boolean {
  const missing = missingHeapFlags(process.execArgv, process.env.NODE_OPTIONS);
  const script = process.argv[1];
  if (missing.length === 0 || typeof process.execve !== "function" || script === undefined) return false;
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...missing, script]);
  return true;
}
