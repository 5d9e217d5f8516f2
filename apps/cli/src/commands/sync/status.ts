import { defineCommand } from "../../framework/command.ts";
import { connectSync, syncConnectionOptions } from "../../sync/sync-connection.ts";

/** `sds sync status`: sds-sync's health, role, last cycle and money, in one screen. */
export const command = defineCommand({
  description:
    "Shows how sds-sync is doing: its health (GET /readyz: ready, or why not), this replica's role (leader or follower) and id, the last sync cycle (when, how long, what it counted, its error), the store, and the money of the respondent loop (entries, completes, reversals, earnings and conversion, lifetime, last 24 hours and last 7 days), with its warnings. --json (or -o json) prints the same as one document. Exits 0 whenever sds-sync answers, ready or not; read `ready` to alert.",
  options: syncConnectionOptions,
  globalOptions: ["output", "json", "color", "timeout", "debug", "help"],
  examples: [
    { command: "sync status --sync-url http://127.0.0.1:8787", description: "The summary" },
    { command: "sync status --json | jq .money.lifetime.earnings", description: "Lifetime earnings" },
  ],
  async run(context) {
    const { summarizeStatus, renderStatus } = await import("./status-view.ts");
    const sync = await connectSync(context);
    const [readiness, status] = await sync.call((client, options) =>
      Promise.all([client.readiness(options), client.status(options)]),
    );
    const summary = summarizeStatus(sync.baseUrl, readiness, status);
    await context.output.document(summary, (styles, tables) => renderStatus(summary, styles, tables));
  },
});
