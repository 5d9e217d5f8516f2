import type { PolicyReplay, ReplaySettings } from "./replay-evaluation.ts";

/** What `sds-sync replay` reports: the data, the settings, each policy's figures and the caveat. */
export interface ReplayReport {
  readonly method: string;
  readonly caveat: string;
  readonly entries: {
    readonly recorded: number;
    readonly decided: number;
    readonly pending: number;
    readonly hours: number;
    readonly surveysWithoutIr: number;
  };
  readonly settings: Required<Pick<ReplaySettings, "seed" | "priorStrength" | "explore">> & {
    readonly cutoffEntries: number;
    readonly cooldownSeconds: number;
  };
  /** `recorded` first (what the history came to), then each policy asked for. */
  readonly policies: readonly PolicyReplay[];
}

/** How the figures are obtained, said with them. */
export const REPLAY_METHOD =
  "replay (Li et al., WSDM 2011): entries in issue order; for each decided entry the policy ranks the surveys that received entries in the same hour, and the entry counts only when its first choice is the recorded survey; yield learns only from the entries it matched, from nothing, each outcome once its time has passed";

/** What the figures cannot say. */
export const REPLAY_CAVEAT =
  "an offline, counterfactual estimate: it is unbiased only when the recorded surveys were chosen at random among those live, and these were chosen by the policy in use then; which surveys a respondent qualified for is not recorded (the hour's surveys stand in); compare policies on earnings per matched entry, on enough matched entries, and confirm by switching a share of traffic";

function cell(value: string, width: number, right: boolean): string {
  return right ? value.padStart(width) : value.padEnd(width);
}

/** The report as a table for a terminal. */
export function renderReplayTable(report: ReplayReport): string {
  const header = ["policy", "matched", "of evaluated", "completes", "conversion", "earnings", "per matched entry"];
  const rows = report.policies.map((row) => [
    row.policy,
    String(row.matched),
    String(row.evaluated),
    String(row.completes),
    `${(row.conversion * 100).toFixed(1)} %`,
    row.earnings.toFixed(2),
    row.earningsPerEntry.toFixed(4),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: readonly string[]) =>
    cells.map((value, column) => cell(value, widths[column] ?? 0, column > 0)).join("  ");
  const { entries, settings } = report;
  return [
    `${entries.recorded} recorded entries (${entries.decided} decided, ${entries.pending} pending) over ${entries.hours} hours; ${entries.surveysWithoutIr} surveys with no Ir in the inventory (scored as Ir 0)`,
    `yield: seed ${settings.seed}, prior strength ${settings.priorStrength}, cut-off ${settings.cutoffEntries} entries / ${settings.cooldownSeconds} s, ${settings.explore ? "exploring (Thompson sampling)" : "posterior mean"}`,
    "",
    line(header),
    ...rows.map(line),
    "",
    `method: ${report.method}`,
    `caveat: ${report.caveat}`,
    "",
  ].join("\n");
}
