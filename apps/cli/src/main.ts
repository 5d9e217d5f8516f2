/** Replaced by the bundler with the version in package.json (see tsdown.config.ts). */
declare const __SDS_CLI_VERSION__: string;

// `sds surveys list | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  // The most common probe of a CLI answers without loading the parser at all.
  process.stdout.write(`${__SDS_CLI_VERSION__}\n`);
} else {
  /*
   * No top-level await: the command chunks import modules bundled with the entry, and a
   * dynamic import of a chunk that depends on a module still awaiting at top level never
   * settles. exitCode rather than process.exit(): stdout may still be draining into a pipe.
   */
  void import("./internal/run-cli.ts").then(async ({ runCli }) => {
    const { processIo } = await import("./internal/io.ts");
    process.exitCode = await runCli(argv, processIo());
  });
}
