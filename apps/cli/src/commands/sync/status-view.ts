import {
  formatMoney,
  type ConversionWindows,
  type Readiness,
  type RunSummary,
  type SyncStatus,
} from "@sds/sync-client";
import type { Styles } from "../../framework/styles.ts";
import type { TableRenderer } from "../../framework/table.ts";

/** What `sds sync status` shows, and `--json` prints. */
export interface StatusSummary {
  readonly url: string;
  readonly ready: boolean;
  /** `GET /readyz`'s answer (why not ready, the last success, warnings). */
  readonly health: Readiness;
  /** This replica; on a follower, the one that leads (`leaderId`, and `leaderAddress` where known). */
  readonly role: {
    readonly replicaId: string;
    readonly leader: boolean;
    readonly nextRunAt: string | null;
    readonly leaderId?: string;
    readonly leaderAddress?: string;
  };
  /** The most recent cycle, or null before the first. */
  readonly lastCycle: RunSummary | null;
  readonly store: SyncStatus["store"];
  /** The respondent loop's money: entries, outcomes, reversals, earnings, conversion, per window. */
  readonly money: ConversionWindows;
  /** The ISO 4217 code earnings are in (sds-sync's `SYNC_CURRENCY`). */
  readonly currency: string;
  readonly warnings: readonly string[];
}

/** The summary of one `readyz` and one `status` answer. */
export function summarizeStatus(url: string, health: Readiness, status: SyncStatus): StatusSummary {
  return {
    url,
    ready: health.ready,
    health,
    role: {
      replicaId: status.replica.id,
      leader: status.replica.leader,
      nextRunAt: status.replica.nextRunAt,
      ...(status.replica.leaderId === undefined ? {} : { leaderId: status.replica.leaderId }),
      ...(status.replica.leaderAddress === undefined ? {} : { leaderAddress: status.replica.leaderAddress }),
    },
    lastCycle: status.runs[0] ?? null,
    store: status.store,
    money: status.loop.totals,
    currency: status.currency,
    warnings: [...new Set([...(health.warnings ?? []), ...status.loop.warnings])],
  };
}

/** The summary as a key/value screen, with the money as a small table. */
export function renderStatus(summary: StatusSummary, styles: Styles, tables: TableRenderer): string {
  const { role, lastCycle, store } = summary;
  const health = summary.ready
    ? styles.green("ready")
    : styles.red(`not ready${summary.health.reason === undefined ? "" : `: ${summary.health.reason}`}`);
  const cycle =
    lastCycle === null
      ? "none yet"
      : `${lastCycle.status === "succeeded" ? styles.green("succeeded") : styles.red("failed")} at ${lastCycle.finishedAt} in ${formatDuration(lastCycle.durationMs)} (${lastCycle.trigger}${countsText(lastCycle.counts)})${lastCycle.error === null ? "" : `: ${lastCycle.error}`}`;
  const head = tables.renderKeyValues(
    [
      ["sds-sync", summary.url],
      ["Health", health],
      ["Role", `${role.leader ? "leader" : "follower"} (replica ${role.replicaId})`],
      ...(role.leader ? [] : [["Leader", leaderText(role)] as const]),
      ["Last cycle", cycle],
      ["Next cycle", role.nextRunAt ?? (role.leader ? "not scheduled" : "run by the leader")],
      [
        "Store",
        `${store.kind}: ${store.live} live, ${store.closed} closed${store.quarantined > 0 ? `, ${store.quarantined} quarantined` : ""}`,
      ],
    ],
    styles,
  );
  const windows = [
    ["lifetime", summary.money.lifetime],
    ["last 24 h", summary.money.last24h],
    ["last 7 days", summary.money.last7d],
  ] as const;
  const money = tables.renderTable(
    [
      { header: "MONEY" },
      { header: "ENTRIES", align: "right" },
      { header: "COMPLETES", align: "right" },
      { header: "REVERSALS", align: "right" },
      { header: "PENDING", align: "right" },
      { header: "EARNINGS", align: "right" },
      { header: "CONVERSION", align: "right" },
      { header: "PER ENTRY", align: "right" },
    ],
    windows.map(([name, window]) => [
      name,
      String(window.entries),
      String(window.completes),
      String(window.reversals),
      String(window.pending),
      formatMoney(window.earnings, summary.currency),
      `${(window.conversion * 100).toFixed(1)} %`,
      formatMoney(window.earningsPerEntry, summary.currency),
    ]),
    { styles },
  );
  const warnings = summary.warnings.map((warning) => `${styles.yellow("warning:")} ${warning}\n`).join("");
  return `${head}\n${money}${warnings === "" ? "" : `\n${warnings}`}`;
}

/** The replica that leads, as a follower names it: `replica ID at ADDRESS`, or that it is not known yet. */
function leaderText(role: StatusSummary["role"]): string {
  if (role.leaderId === undefined) return "not known yet";
  return `replica ${role.leaderId}${role.leaderAddress === undefined ? "" : ` at ${role.leaderAddress}`}`;
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** The first few counts of a cycle, such as `, listed 3000, opened 2`. */
function countsText(counts: Readonly<Record<string, number>>): string {
  const shown = Object.entries(counts)
    .filter(([, value]) => value !== 0)
    .slice(0, 4)
    .map(([name, value]) => `${name} ${value}`);
  return shown.length === 0 ? "" : `, ${shown.join(", ")}`;
}
