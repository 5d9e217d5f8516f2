import module from "node:module";

/** Replaced by the bundler with the version in package.json (see tsdown.config.ts). */
declare const __SDS_CLI_VERSION__: string;

/** The oldest Node that runs sds: the `engines` field of package.json. */
const minimumNode = [22, 13] as const;

/*
 * Checked before anything else runs, for every command: on an older Node the first missing API
 * would end the run with a stack trace that does not say what is wrong. This file uses nothing
 * newer than Node 18 up to here, so the check itself runs on any Node a machine may have.
 */
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
if (major < minimumNode[0] || (major === minimumNode[0] && minor < minimumNode[1])) {
  process.stderr.write(
    `sds needs Node ${minimumNode.join(".")} or newer; this is Node ${process.versions.node} (${process.execPath}). Put a newer node first on PATH.\n`,
  );
  process.exit(1);
}

// Node's on-disk compile cache (as npm enables it): the chunks a run loads are compiled once,
// not at every start (Node >= 22.1, below our floor); NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache();

// `sds surveys list | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

/*
 * The two most common probes of a CLI take shortcuts: `--version` loads nothing more, and the
 * overview of `--help` loads the help chunk without the parser. Everything else goes through
 * runCli. No top-level await here: were a module shared with the command chunks ever bundled
 * into this entry, a dynamic import of a chunk depending on a module still awaiting at top
 * level would never settle. exitCode rather than process.exit(): stdout may still be draining.
 */
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  process.stdout.write(`${__SDS_CLI_VERSION__}\n`);
} else if (argv.length === 0 || (argv.length === 1 && (argv[0] === "--help" || argv[0] === "-h"))) {
  void Promise.all([
    import("./framework/help.ts"),
    import("./commands/registry.ts"),
    import("./framework/styles.ts"),
  ]).then(([{ renderMainHelp }, { commandCatalog }, { decideStyles }]) => {
    const styles = decideStyles({ stdout: process.stdout, stderr: process.stderr, env: process.env }, undefined);
    process.stdout.write(renderMainHelp(__SDS_CLI_VERSION__, commandCatalog, styles.stdout));
  });
} else {
  void Promise.all([
    import("./framework/run-cli.ts"),
    import("./framework/io.ts"),
    import("./commands/registry.ts"),
  ]).then(async ([{ runCli }, { processIo }, { commandCatalog }]) => {
    process.exitCode = await runCli(argv, processIo(), commandCatalog);
  });
}
