import { parseArgs } from "node:util";
import { DEFAULT_PRIOR_STRENGTH, DEFAULT_YIELD_CUTOFF } from "@sds/routing";
import { isConfigError, SyncError } from "../common/errors.ts";
import { SettingProblem } from "../common/setting-parsers.ts";
import { settingOf } from "../config/config.ts";
import type { DatabaseConfig } from "../database/database-config.ts";
import { candidatesByHour, recordedPolicy, replayPolicy, type ReplayPolicy } from "./replay-evaluation.ts";
import { readReplayHistory } from "./read-replay-history.ts";
import { REPLAY_CAVEAT, REPLAY_METHOD, renderReplayTable, type ReplayReport } from "./replay-report.ts";

/** Exit status of a bad command line (EX_USAGE of sysexits.h). */
const EXIT_USAGE = 64;
/** Exit status of a configuration error (EX_CONFIG). */
const EXIT_CONFIG = 78;

/** The text of `sds-sync replay --help`. */
export const REPLAY_HELP = `Usage: sds-sync replay [--policy earnings|yield]... [--seed N] [--no-explore] [--json]

Evaluates ranking policies offline on the entries and outcomes this sds-sync recorded
(DATABASE_URL), so that a policy can be compared on your own history before switching.
Without --policy both earnings and yield are replayed. Yield's prior and cut-off follow
SYNC_YIELD_PRIOR_STRENGTH, SYNC_YIELD_CUTOFF_ENTRIES and SYNC_YIELD_COOLDOWN_SECONDS.

  --policy P     earnings (Cpi x Ir / 100) or yield (Cpi x learned conversion); repeatable
  --seed N       seed of yield's draws (default 1): the same seed gives the same figures
  --no-explore   rank yield by the posterior mean instead of a draw
  --json         print the report as JSON

Method: ${REPLAY_METHOD}.
Caveat: ${REPLAY_CAVEAT}.
`;

/** A command line `replay` cannot run: said to the user with the usage, exit 64. */
export class ReplayUsageError extends SyncError {
  override name = "ReplayUsageError" as const;
}

/** A setting `replay` reads is invalid: exit 78, like the service. */
export class ReplayConfigError extends SyncError {
  override name = "ReplayConfigError" as const;
}

/** What the command writes to. */
export interface ReplayOutput {
  write(text: string): void;
}

interface ReplayArguments {
  readonly policies: readonly ReplayPolicy[];
  readonly seed: number;
  readonly explore: boolean;
  readonly json: boolean;
  readonly help: boolean;
}

function parseReplayArguments(argv: readonly string[]): ReplayArguments {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        policy: { type: "string", multiple: true },
        seed: { type: "string" },
        "no-explore": { type: "boolean" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new ReplayUsageError((error as Error).message, { cause: error });
  }
  const { values } = parsed;
  const policies = values.policy ?? ["earnings", "yield"];
  for (const policy of policies)
    if (policy !== "earnings" && policy !== "yield")
      throw new ReplayUsageError(`--policy must be earnings or yield, got ${JSON.stringify(policy)}`);
  const seed = values.seed === undefined ? 1 : Number(values.seed);
  if (!Number.isSafeInteger(seed) || seed < 0 || seed > 2 ** 32 - 1)
    throw new ReplayUsageError(`--seed must be an integer from 0 to 4294967295, got ${JSON.stringify(values.seed)}`);
  return {
    policies: [...new Set(policies as ReplayPolicy[])],
    seed,
    explore: values["no-explore"] !== true,
    json: values.json === true,
    help: values.help === true,
  };
}

/** A setting of the service's table read from the environment the way the service reads it (its parser, its default). */
function readSetting(key: Parameters<typeof settingOf>[0], env: NodeJS.ProcessEnv): unknown {
  const setting = settingOf(key);
  const raw = env[setting.variable]?.trim();
  try {
    if (raw !== undefined && raw !== "") return setting.parse(raw);
    return setting.fallback.kind === "default" ? setting.parse(setting.fallback.raw) : undefined;
  } catch (error) {
    if (error instanceof SettingProblem) throw new ReplayConfigError(`${setting.variable}: ${error.message}`);
    throw error;
  }
}

/** A numeric setting, or the service's default when unset (the defaults of routing-setup.ts). */
function numberSetting(
  key: "yieldPriorStrength" | "yieldCutoffEntries" | "yieldCooldownSeconds",
  env: NodeJS.ProcessEnv,
  fallback: number,
): number {
  const value = readSetting(key, env);
  return typeof value === "number" ? value : fallback;
}

/** Builds the report: reads the history and replays each policy. */
export async function buildReplayReport(
  database: DatabaseConfig,
  options: Pick<ReplayArguments, "policies" | "seed" | "explore">,
  env: NodeJS.ProcessEnv = {},
): Promise<ReplayReport> {
  const priorStrength = numberSetting("yieldPriorStrength", env, DEFAULT_PRIOR_STRENGTH);
  const cutoffEntries = numberSetting("yieldCutoffEntries", env, DEFAULT_YIELD_CUTOFF.entries);
  const cooldownSeconds = numberSetting("yieldCooldownSeconds", env, DEFAULT_YIELD_CUTOFF.cooldownMs / 1000);
  const history = await readReplayHistory(database);
  const decided = history.entries.filter((entry) => entry.outcome !== null).length;
  const entered = new Set(history.entries.map((entry) => entry.surveyId));
  const settings = {
    seed: options.seed,
    priorStrength,
    explore: options.explore,
    cutoff: { entries: cutoffEntries, cooldownMs: cooldownSeconds * 1000 },
  };
  return {
    method: REPLAY_METHOD,
    caveat: REPLAY_CAVEAT,
    entries: {
      recorded: history.entries.length,
      decided,
      pending: history.entries.length - decided,
      hours: candidatesByHour(history.entries).size,
      surveysWithoutIr: [...entered].filter((id) => !Number.isFinite(history.surveys.get(id)?.ir ?? Number.NaN)).length,
    },
    settings: { seed: options.seed, priorStrength, explore: options.explore, cutoffEntries, cooldownSeconds },
    policies: [recordedPolicy(history), ...options.policies.map((policy) => replayPolicy(history, policy, settings))],
  };
}

/**
 * `sds-sync replay`: the entry point of the subcommand, where its errors become a message and an
 * exit status (64 for the command line, 78 for a setting, 1 for the store). Returns the status.
 */
export async function runReplayCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  out: ReplayOutput,
  err: ReplayOutput,
): Promise<number> {
  try {
    const args = parseReplayArguments(argv);
    if (args.help) {
      out.write(REPLAY_HELP);
      return 0;
    }
    // The database row's parser gives a DatabaseConfig; its default (sqlite:./data/sds.db) applies when unset, as for the service.
    const database = readSetting("database", env) as DatabaseConfig | undefined;
    if (database === undefined) throw new ReplayConfigError("DATABASE_URL: not set");
    const report = await buildReplayReport(database, args, env);
    out.write(args.json ? `${JSON.stringify(report, null, 2)}\n` : renderReplayTable(report));
    return 0;
  } catch (error) {
    if (error instanceof ReplayUsageError) {
      err.write(`sds-sync replay: ${error.message}\n\n${REPLAY_HELP}`);
      return EXIT_USAGE;
    }
    if (error instanceof ReplayConfigError || isConfigError(error)) {
      err.write(`sds-sync replay: ${error.message}\n`);
      return EXIT_CONFIG;
    }
    if (error instanceof SyncError) {
      err.write(`sds-sync replay: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
