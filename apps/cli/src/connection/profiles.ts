import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { CliError, UsageError } from "../framework/errors.ts";
import { ExitCode } from "../framework/exit-codes.ts";

/** A saved base URL and API key, as `sds login` writes it. */
export interface Profile {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** The supplier the key belonged to when it was saved, for `sds doctor` and `sds login`'s message. */
  readonly supplierId?: string;
  readonly supplierName?: string;
  /** ISO 8601 time of the `sds login` that saved it. */
  readonly savedAt: string;
}

/**
 * The contents of the profiles file. Profiles are a `Map`: a profile name is typed by the user
 * (`--profile constructor`), and as a key of a plain object it would find `Object.prototype`'s
 * members; in a Map it is only ever a name.
 */
export interface ProfilesFile {
  readonly version: 1;
  readonly profiles: ReadonlyMap<string, Profile>;
}

/** The profile used when neither `--profile` nor `SDS_PROFILE` names one. */
export const defaultProfileName = "default";

/**
 * The directory of sds's configuration: `$XDG_CONFIG_HOME/sds`, else `~/.config/sds` (the XDG
 * base directory spec ignores a relative `XDG_CONFIG_HOME`, and so does this).
 */
export function configDirectory(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), ".config"), "sds");
}

/** The path of the profiles file. */
export function profilesPath(env: NodeJS.ProcessEnv): string {
  return join(configDirectory(env), "profiles.json");
}

/** The profile a command uses, and whether the user named it (then it must exist where it is read). */
export interface ProfileSelection {
  readonly name: string;
  /** Named by `--profile` or a non-empty `SDS_PROFILE`, rather than the default. */
  readonly namedExplicitly: boolean;
}

/**
 * The profile named by `--profile`, else a non-empty `SDS_PROFILE`, else `default`.
 *
 * @throws UsageError when the name could not be a profile name.
 */
export function selectProfile(flag: string | undefined, env: NodeJS.ProcessEnv): ProfileSelection {
  const fromEnv = env.SDS_PROFILE === undefined || env.SDS_PROFILE.trim() === "" ? undefined : env.SDS_PROFILE;
  const named = flag ?? fromEnv;
  return { name: checkProfileName(named ?? defaultProfileName), namedExplicitly: named !== undefined };
}

/** @throws UsageError when `name` could not be a profile name (it becomes a JSON key and a word in messages). */
export function checkProfileName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name)) {
    throw new UsageError(`"${name}" is not a valid profile name`, {
      hint: "Use letters, digits, dot, dash and underscore (up to 64 characters).",
    });
  }
  return name;
}

/**
 * Reads the profiles file; a missing file holds no profiles.
 *
 * @throws CliError when the file exists but cannot be read or is not a profiles file.
 */
export async function readProfiles(path: string): Promise<ProfilesFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, profiles: new Map() };
    throw new CliError(`cannot read the profiles file ${path}: ${(error as Error).message}`, ExitCode.Failure, {
      cause: error,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliError(`the profiles file ${path} is not valid JSON`, ExitCode.Failure, {
      hint: "Fix it, or delete it and run `sds login` again.",
      cause: error,
    });
  }
  if (!isStoredProfilesFile(parsed)) {
    throw new CliError(`the profiles file ${path} is not in the expected format`, ExitCode.Failure, {
      hint: "Delete it and run `sds login` again.",
    });
  }
  // Own entries only: JSON.parse never gives inherited ones, and Object.entries never reads them.
  return { version: 1, profiles: new Map(Object.entries(parsed.profiles)) };
}

/** The profiles file as JSON holds it. */
interface StoredProfilesFile {
  readonly version: 1;
  readonly profiles: Readonly<Record<string, Profile>>;
}

function isStoredProfilesFile(value: unknown): value is StoredProfilesFile {
  if (typeof value !== "object" || value === null) return false;
  const { version, profiles } = value as { version?: unknown; profiles?: unknown };
  if (version !== 1 || typeof profiles !== "object" || profiles === null) return false;
  return Object.values(profiles).every(
    (profile: unknown) =>
      typeof profile === "object" &&
      profile !== null &&
      typeof (profile as Profile).baseUrl === "string" &&
      typeof (profile as Profile).apiKey === "string",
  );
}

/**
 * Writes the profiles file readable by its owner only (0600, directory 0700): it holds API
 * keys. Written to a temporary file and renamed, so a crash never leaves half a file.
 */
export async function writeProfiles(path: string, file: ProfilesFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    const stored: StoredProfilesFile = { version: file.version, profiles: Object.fromEntries(file.profiles) };
    await writeFile(temporary, JSON.stringify(stored, null, 2) + "\n", { mode: 0o600 });
    // The mode given to writeFile is filtered by the umask and ignored for an existing file.
    await chmod(temporary, 0o600);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw new CliError(`cannot write the profiles file ${path}: ${(error as Error).message}`, ExitCode.Failure, {
      cause: error,
    });
  }
}

/** The permission bits of the profiles file, or `undefined` when it does not exist. */
export async function profilesFileMode(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mode & 0o777;
  } catch {
    return undefined;
  }
}
