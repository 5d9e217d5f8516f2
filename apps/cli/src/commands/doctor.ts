import type { SupplierAccountResponse } from "@sds/schemas";
import type { WithResponse } from "@sds/client";
import { createCliClient } from "../connection/client.ts";
import { defineCommand, type CommandContext } from "../framework/command.ts";
import { inspectConfig, type ConfigInspection } from "../connection/config.ts";
import { CheckFailedError } from "../framework/errors.ts";
import { ExitCode, exitCodeForError } from "../framework/exit-codes.ts";
import { profilesFileMode } from "../connection/profiles.ts";
import { joinSentences } from "../framework/report-error.ts";
import type { Styles } from "../framework/styles.ts";

/** The outcome of one check. */
interface Check {
  readonly name: string;
  readonly status: "ok" | "warn" | "fail" | "skip";
  readonly detail: string;
  /** For a failed check: the exit code it stands for. */
  readonly exitCode?: ExitCode;
}

const checkNames = [
  "Configuration",
  "Base URL",
  "API key",
  "Reachable",
  "Key accepted",
  "Latency",
  "Clock skew",
] as const;
const latencySamples = 3;
/** The Date header has one-second resolution, so smaller differences mean nothing. */
const clockSkewToleranceSeconds = 5;

/** `sds doctor`: is everything in place to talk to the service? */
export const command = defineCommand({
  description: `Checks, in order: the configuration (profile file, base URL, API key and where each came from; the key itself is never shown), that the base URL is reachable, that the key is accepted, the latency (median of ${latencySamples} requests), and the clock skew against the server's Date header (a warning beyond ${clockSkewToleranceSeconds} s). Exits with the code of the first failed check.`,
  options: {},
  examples: [
    { command: "doctor", description: "Check the default configuration" },
    { command: "doctor --profile sandbox", description: "Check a saved profile" },
    { command: "doctor -o json", description: "The checks as JSON, for monitoring" },
  ],
  async run(context) {
    const done = await runChecks(context);
    // Checks that could not run after a failure are listed as skipped, so the report always has every line.
    const checks = [
      ...done,
      ...checkNames
        .filter((name) => !done.some((check) => check.name === name))
        .map((name): Check => ({ name, status: "skip", detail: "skipped" })),
    ];
    const failed = checks.find((check) => check.status === "fail");
    const report = { ok: failed === undefined, checks };
    await context.output.document(report, (styles) => renderChecks(checks, styles));
    if (failed !== undefined)
      throw new CheckFailedError(
        `doctor: ${failed.name.toLowerCase()} failed: ${failed.detail}`,
        failed.exitCode ?? ExitCode.Failure,
      );
  },
});

async function runChecks(context: CommandContext): Promise<Check[]> {
  const config = await inspectConfig(context);
  const checks: Check[] = [await checkConfiguration(config)];
  if (config.baseUrl === undefined) {
    checks.push({
      name: "Base URL",
      status: "fail",
      detail: "not configured: pass --base-url, set SDS_BASE_URL, or run `sds login`",
      exitCode: ExitCode.Usage,
    });
    return checks;
  }
  checks.push({
    name: "Base URL",
    status: "ok",
    detail: `${config.baseUrl.value} (from ${config.baseUrl.source})${config.baseUrl.value.endsWith("/api/v1") ? "" : "; note: base URLs normally end in /api/v1"}`,
  });
  if (config.apiKey === undefined) {
    checks.push({
      name: "API key",
      status: "fail",
      detail: "not configured: set SDS_API_KEY, pipe it to --api-key-stdin, or run `sds login`",
      exitCode: ExitCode.Authentication,
    });
    return checks;
  }
  checks.push({ name: "API key", status: "ok", detail: `set (from ${config.apiKey.source})` });

  // No retries: the doctor reports what the first attempt meets.
  const client = await createCliClient(context, config.baseUrl.value, config.apiKey.value, { retry: false });
  const samples: WithResponse<SupplierAccountResponse>[] = [];
  const requestTimes: { sent: number; received: number }[] = [];
  for (let index = 0; index < latencySamples; index++) {
    const sent = Date.now();
    try {
      samples.push(await client.account.get({ signal: context.signal }).withResponse());
      requestTimes.push({ sent, received: Date.now() });
    } catch (error) {
      if (index > 0) break;
      checks.push(...checksForFailure(error));
      return checks;
    }
  }
  const first = samples[0] as WithResponse<SupplierAccountResponse>;
  checks.push({ name: "Reachable", status: "ok", detail: `HTTP ${first.response.status} from ${first.response.url}` });
  checks.push({
    name: "Key accepted",
    status: "ok",
    detail: `supplier ${first.data.data.Id} (${first.data.data.Name})${first.data.data.Active ? "" : ", account inactive"}`,
  });
  const durations = samples.map((sample) => sample.response.durationMs).sort((a, b) => a - b);
  const median = durations[Math.floor(durations.length / 2)] ?? 0;
  checks.push({
    name: "Latency",
    status: "ok",
    detail: `${Math.round(median)} ms median of ${durations.length} (min ${Math.round(durations[0] ?? 0)}, max ${Math.round(durations.at(-1) ?? 0)})`,
  });
  checks.push(clockSkewCheck(first, requestTimes[0] as { sent: number; received: number }));
  return checks;
}

async function checkConfiguration(config: ConfigInspection): Promise<Check> {
  const mode = await profilesFileMode(config.profilesPath);
  const profile =
    config.profile === undefined ? `profile "${config.profileName}" not saved` : `profile "${config.profileName}"`;
  if (config.profileNamedExplicitly && config.profile === undefined) {
    return {
      name: "Configuration",
      status: "fail",
      detail: `no profile named "${config.profileName}" in ${config.profilesPath}; run \`sds login --profile ${config.profileName}\``,
      exitCode: ExitCode.Usage,
    };
  }
  if (mode === undefined)
    return { name: "Configuration", status: "ok", detail: `${profile}; no profiles file (${config.profilesPath})` };
  if ((mode & 0o077) !== 0) {
    return {
      name: "Configuration",
      status: "warn",
      detail: `${profile}; ${config.profilesPath} is readable by others (mode ${mode.toString(8)}): run \`chmod 600 ${config.profilesPath}\``,
    };
  }
  return {
    name: "Configuration",
    status: "ok",
    detail: `${profile} in ${config.profilesPath} (mode ${mode.toString(8)})`,
  };
}

function checksForFailure(error: unknown): Check[] {
  const code = exitCodeForError(error);
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case ExitCode.Network:
      return [{ name: "Reachable", status: "fail", detail: message, exitCode: code }];
    case ExitCode.Authentication:
      return [
        { name: "Reachable", status: "ok", detail: "the service answered" },
        {
          name: "Key accepted",
          status: "fail",
          detail: joinSentences(message, "is the key for this deployment (sandbox or production)?"),
          exitCode: code,
        },
      ];
    case ExitCode.NotFound:
      return [
        {
          name: "Reachable",
          status: "fail",
          detail: joinSentences(
            message,
            "the host answers but has no Supplier Data Service there; the base URL must end in /api/v1",
          ),
          exitCode: code,
        },
      ];
    case ExitCode.Interrupted:
      throw error;
    default:
      return [
        { name: "Reachable", status: "ok", detail: "the service answered" },
        { name: "Key accepted", status: "fail", detail: message, exitCode: code },
      ];
  }
}

function clockSkewCheck(
  sample: WithResponse<SupplierAccountResponse>,
  times: { sent: number; received: number },
): Check {
  const date = sample.response.headers.get("date");
  // The Date header drops the milliseconds: the server's clock read somewhere in the next second, half a second later on average.
  const serverTime = date === null ? Number.NaN : Date.parse(date) + 500;
  if (Number.isNaN(serverTime))
    return { name: "Clock skew", status: "warn", detail: "the server sent no usable Date header" };
  // The server stamped the Date somewhere between sending and receiving; take the middle.
  const localTime = (times.sent + times.received) / 2;
  const skewSeconds = (localTime - serverTime) / 1000;
  const rounded = Math.round(skewSeconds);
  const direction =
    rounded === 0
      ? "in step with the server"
      : `${Math.abs(rounded)} s ${rounded > 0 ? "ahead of" : "behind"} the server`;
  if (Math.abs(skewSeconds) > clockSkewToleranceSeconds + 1) {
    return {
      name: "Clock skew",
      status: "warn",
      detail: `this machine's clock is ${direction}: synchronise it (NTP), timestamps such as LastUpdatedOnUTC are compared with it`,
    };
  }
  return {
    name: "Clock skew",
    status: "ok",
    detail: `${direction} (within ±${clockSkewToleranceSeconds} s; the Date header has 1 s resolution)`,
  };
}

function renderChecks(checks: readonly Check[], styles: Styles): string {
  const marks = { ok: styles.green("✓"), warn: styles.yellow("!"), fail: styles.red("✗"), skip: styles.dim("-") };
  const width = Math.max(...checks.map((check) => check.name.length));
  return checks.map((check) => `${marks[check.status]} ${check.name.padEnd(width)}  ${check.detail}`).join("\n") + "\n";
}
