import { fileInBatches } from "../../sync/batches.ts";
import { defineCommand } from "../../framework/command.ts";
import { syncConnectionOptions } from "../../sync/sync-connection.ts";

const defaultBatch = 500;

/** `sds outcomes reconcile FILE`: the marketplace's corrections, sent to sds-sync. */
export const command = defineCommand({
  description:
    "Sends the marketplace's corrections of outcomes (a complete rejected in its quality review, a terminate approved) to sds-sync, which records each as a transition of the entry's outcome with its reason; earnings are then reported net of reversals. FILE is CSV (RFC 4180) with the header token,outcome[,reason], outcome one of complete, terminate, overquota, security; - reads standard input. The file is read as a stream: every line is checked before anything is sent (problems are listed as FILE:LINE, exit 2), then it is read again and sent. Lines go in order, in batches, each applied whole or not at all; each batch carries an idempotency key derived from the file's content (stderr names it), so running the same file again records nothing twice (--again sends a fresh key). A line repeating a token's current outcome changes nothing, and a token no entry carries is reported and not recorded. --dry-run records nothing and lists what would change. Prints the changes (token, previous → new outcome, reason) and the totals; -o json gives every line's result. -o ndjson and -o csv print each batch's results as sds-sync answers it, in memory that stays flat however long the file; a table (the changes it lists) and -o json keep their results until the end, so for a large file use -o ndjson.",
  arguments: [{ name: "FILE", description: "CSV with the header token,outcome[,reason] (- for standard input)" }],
  options: {
    "dry-run": { type: "boolean", description: "record nothing: list what would change" },
    again: {
      type: "boolean",
      description:
        "send a fresh idempotency key: record the lines again even where sds-sync applied this same file before (within 7 days)",
    },
    batch: {
      type: "string",
      valueName: "N",
      // The limit is @sds/sync-client's MAX_RECONCILE_BATCH, checked in run; written out here because
      // help must not load the package (zod), and a test keeps the two equal.
      description: `lines per request, 1 to 1000 (default ${defaultBatch})`,
    },
    ...syncConnectionOptions,
  },
  globalOptions: ["output", "json", "raw-csv", "color", "timeout", "debug", "help"],
  examples: [
    {
      command: "outcomes reconcile rejected.csv --dry-run --sync-url http://127.0.0.1:8787",
      description: "See what a report would change, recording nothing",
    },
    {
      command: "outcomes reconcile rejected.csv",
      description: "Record the corrections (SDS_SYNC_URL and SYNC_API_TOKEN set)",
    },
    {
      command: "outcomes reconcile - -o json < report.csv | jq '.results[] | select(.status == \"unknown-token\")'",
      description: "Tokens sds-sync did not issue",
    },
  ],
  async run(context) {
    const { MAX_RECONCILE_BATCH } = await import("@sds/sync-client");
    const { path, size } = fileInBatches(context, defaultBatch, MAX_RECONCILE_BATCH);
    const { runReconcile } = await import("./reconcile-run.ts");
    await runReconcile(context, path, {
      size,
      dryRun: context.options["dry-run"] === true,
      again: context.options.again === true,
    });
  },
});
