import { defineCommand } from "../../framework/command.ts";
import { parseNumberOption } from "../../framework/option-values.ts";
import { connectSync, syncConnectionOptions } from "../../sync/sync-connection.ts";

/** `sds outcomes tail [--after SEQ] [--follow]`: sds-sync's outcome feed, as `kubectl logs -f` reads a log. */
export const command = defineCommand({
  description:
    "Prints sds-sync's outcome feed (GET /v1/outcomes): every outcome recorded after --after SEQ (default 0, the start), in order, one line each: sequence, time, outcome (previous ← on a change), token, survey, source and reason. --follow keeps reading, long-polling at the end of the feed, and prints each new outcome as it is recorded, until Ctrl-C (exit 130). -o ndjson prints one JSON object per line, -o csv a header and one row per outcome; -o json prints an array, or with --follow one object per line (a feed that never ends is not one array). A feed whose start was pruned answers 410: pass a later --after.",
  options: {
    after: { type: "string", valueName: "SEQ", description: "start after this sequence (default 0: the whole feed)" },
    follow: { type: "boolean", short: "f", description: "keep printing outcomes as they are recorded, until Ctrl-C" },
    ...syncConnectionOptions,
  },
  globalOptions: ["output", "json", "raw-csv", "color", "timeout", "debug", "help"],
  examples: [
    { command: "outcomes tail", description: "Every outcome so far" },
    { command: "outcomes tail --after 1200 --follow", description: "From sequence 1200 on, then as they arrive" },
    {
      command: "outcomes tail -f -o ndjson | jq -c 'select(.outcome == \"complete\")'",
      description: "Completes as they arrive, for a script",
    },
  ],
  async run(context) {
    const { options, output } = context;
    const after =
      options.after === undefined ? 0 : parseNumberOption("after", options.after, { integer: true, min: 0 });
    const { outcomeCsvHeader, outcomeCsvRow, outcomeLine } = await import("./outcome-line.ts");
    const sync = await connectSync(context);
    const csv = { defuseFormulas: !context.globals.rawCsv };
    if (options.follow !== true) {
      // The feed as it stands: page after page until it says there is no more.
      const outcomes = [];
      for (let next = after; ;) {
        const page = await sync.call((client, callOptions) => client.outcomes.list({ after: next }, callOptions));
        outcomes.push(...page.outcomes);
        next = page.next;
        if (!page.hasMore) break;
      }
      if (output.format === "json") return output.write(JSON.stringify(outcomes, null, 2) + "\n");
      if (output.format === "csv") await output.write(outcomeCsvHeader(csv));
      for (const outcome of outcomes) await output.write(formatted(outcome));
      if (outcomes.length === 0 && output.format === "table") output.note(`No outcome after sequence ${after}.`);
      return;
    }
    if (output.format === "csv") await output.write(outcomeCsvHeader(csv));
    await sync.call(async (client, callOptions) => {
      for await (const outcome of client.outcomes.follow({ after }, callOptions))
        await output.write(formatted(outcome));
    });

    function formatted(outcome: Parameters<typeof outcomeLine>[0]): string {
      switch (output.format) {
        case "table":
          return outcomeLine(outcome, output.styles);
        case "csv":
          return outcomeCsvRow(outcome, csv);
        default:
          return JSON.stringify(outcome) + "\n";
      }
    }
  },
});
