import type { CommandContext } from "../framework/command.ts";
import { ConfigError, UsageError } from "../framework/errors.ts";
import { ExitCode } from "../framework/exit-codes.ts";
import { profilesPath, readProfiles, selectProfile, type Profile } from "./profiles.ts";
import { readStdinText } from "../framework/stdin.ts";

/** A setting and where it came from (`--base-url`, `SDS_API_KEY`, `profile "default"`). */
export interface SourcedValue {
  readonly value: string;
  readonly source: string;
}

/** Everything `sds` found about its configuration, missing parts included (for `sds doctor`). */
export interface ConfigInspection {
  readonly baseUrl: SourcedValue | undefined;
  readonly apiKey: SourcedValue | undefined;
  readonly profileName: string;
  /** Whether the profile was named by `--profile` or `SDS_PROFILE` (so it must exist). */
  readonly profileNamedExplicitly: boolean;
  readonly profile: Profile | undefined;
  readonly profilesPath: string;
}

/** A configuration complete enough to call the service. */
export interface ResolvedConfig extends ConfigInspection {
  readonly baseUrl: SourcedValue;
  readonly apiKey: SourcedValue;
}

const inspections = new WeakMap<CommandContext, Promise<ConfigInspection>>();

/**
 * Finds the base URL and API key. Base URL: `--base-url`, else `SDS_BASE_URL`, else the
 * profile. Key: `--api-key-stdin`, else `SDS_API_KEY`, else the profile. Profile: `--profile`,
 * else `SDS_PROFILE`, else `default`. Standard input is read at most once per command.
 *
 * @throws UsageError for a malformed base URL, a bad profile name or an empty key on stdin.
 */
export function inspectConfig(context: CommandContext): Promise<ConfigInspection> {
  let inspection = inspections.get(context);
  if (inspection === undefined) inspections.set(context, (inspection = readConfig(context)));
  return inspection;
}

async function readConfig(context: CommandContext): Promise<ConfigInspection> {
  const { globals, io } = context;
  const env = io.env;
  const { name: profileName, namedExplicitly: profileNamedExplicitly } = selectProfile(globals.profile, env);
  const path = profilesPath(env);
  const profile = (await readProfiles(path)).profiles.get(profileName);
  const profileSource = `profile "${profileName}"`;

  let baseUrl: SourcedValue | undefined;
  if (globals.baseUrl !== undefined)
    baseUrl = { value: await normalizeBaseUrl(globals.baseUrl, "--base-url"), source: "--base-url" };
  else if (nonEmpty(env.SDS_BASE_URL) !== undefined)
    baseUrl = { value: await normalizeBaseUrl(env.SDS_BASE_URL as string, "SDS_BASE_URL"), source: "SDS_BASE_URL" };
  // A profile is a file anyone may edit: its URL passes the same check as a typed one.
  else if (profile !== undefined)
    baseUrl = { value: await normalizeBaseUrl(profile.baseUrl, profileSource), source: profileSource };

  let apiKey: SourcedValue | undefined;
  if (globals.apiKeyStdin) {
    if (io.stdin.isTTY === true) io.stderr.write("Reading the API key from standard input (end with Ctrl-D)…\n");
    const key = (await readStdinText(io.stdin)).trim();
    if (key === "")
      throw new UsageError("--api-key-stdin read an empty key", {
        hint: "Pipe the key in, e.g. `pass show sds | sds account show --api-key-stdin`.",
      });
    apiKey = { value: key, source: "standard input" };
  } else if (nonEmpty(env.SDS_API_KEY) !== undefined) {
    apiKey = { value: (env.SDS_API_KEY as string).trim(), source: "SDS_API_KEY" };
  } else if (profile !== undefined) {
    apiKey = { value: profile.apiKey, source: profileSource };
  }
  if (apiKey !== undefined) context.registerSecret(apiKey.value);
  return { baseUrl, apiKey, profileName, profileNamedExplicitly, profile, profilesPath: path };
}

/**
 * The base URL and key, or a {@link ConfigError} that says how to provide the missing one.
 *
 * @throws ConfigError (exit 2) without a base URL, (exit 3) without a key, (exit 2) for a named profile that does not exist.
 */
export async function resolveConfig(context: CommandContext): Promise<ResolvedConfig> {
  const inspection = await inspectConfig(context);
  if (inspection.profileNamedExplicitly && inspection.profile === undefined) {
    throw new ConfigError(
      `no profile named "${inspection.profileName}" in ${inspection.profilesPath}`,
      ExitCode.Usage,
      {
        hint: `Run \`sds login --profile ${inspection.profileName}\` to create it.`,
      },
    );
  }
  if (inspection.baseUrl === undefined) {
    throw new ConfigError("no base URL configured", ExitCode.Usage, {
      hint: "Pass --base-url, set SDS_BASE_URL, or run `sds login`.",
    });
  }
  if (inspection.apiKey === undefined) {
    throw new ConfigError("no API key configured", ExitCode.Authentication, {
      hint: "Set SDS_API_KEY, pipe it to --api-key-stdin, or run `sds login`.",
    });
  }
  return { ...inspection, baseUrl: inspection.baseUrl, apiKey: inspection.apiKey };
}

/**
 * Checks and tidies a base URL with the client's validator (`parseBaseUrl`, the project's one
 * rule: absolute http(s), no query, fragment, credentials or dot segments), without the
 * trailing slash.
 *
 * @param hint - what to do instead, after the message (sds-sync's URL has no `/api/v1`).
 * @throws UsageError naming where the bad value came from.
 */
export async function normalizeBaseUrl(
  value: string,
  source: string,
  hint = "Give the full base URL, such as https://api.example.com/api/v1.",
): Promise<string> {
  // Loaded on demand, like the client itself (see client.ts).
  const { isConfigurationError, parseBaseUrl } = await import("@sds/client");
  try {
    return parseBaseUrl(value).href.replace(/\/+$/, "");
  } catch (error) {
    if (!isConfigurationError(error)) throw error;
    throw new UsageError(`${source}: ${error.message}`, { hint });
  }
}

/** `value` unless it is missing or blank: an empty variable is one not set. */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}
