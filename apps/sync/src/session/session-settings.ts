import { numberValue, SettingProblem, type PlainSetting } from "../common/setting-parsers.ts";

/*
 * The respondent session's rows of the configuration table (config/config.ts spreads them in,
 * like the loop's): `--help`, the reference table and the logged configuration come from here.
 */

/** The session's settings, part of `SyncConfig`. */
export interface SessionConfig {
  /** `SYNC_SESSION_MAX_ATTEMPTS`: surveys one session offers at most. @default 3 */
  readonly sessionMaxAttempts?: number | undefined;
  /** `SYNC_SESSION_TTL_SECONDS`: a session's lifetime. @default 3600 */
  readonly sessionTtlSeconds?: number | undefined;
  /** `SYNC_SESSION_RETURN_URL`: where a return sends the respondent when the session names no `returnUrl`. */
  readonly sessionReturnUrl?: string | undefined;
  /** `SYNC_QUESTION_SECONDS`: what one question costs the respondent, in seconds. @default 8 */
  readonly questionSeconds?: number | undefined;
  /** `SYNC_PROFILE_TTL_DAYS`: how long a stored answer stands (and is not asked again). @default 30 */
  readonly profileTtlDays?: number | undefined;
  /** `SYNC_DROP_AFTER_LOI`: an entry with no outcome after this many times its survey's Loi is a drop. @default 3 */
  readonly dropAfterLoi?: number | undefined;
}

/**
 * A URL of the supplier's own page: absolute http(s), no credentials, no fragment.
 *
 * @throws SettingProblem naming what is wrong.
 */
export function parseReturnUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SettingProblem(`is not an absolute URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new SettingProblem(`must be http or https, got ${url.protocol}`);
  if (url.username !== "" || url.password !== "") throw new SettingProblem("must not hold credentials");
  if (url.hash !== "" || value.includes("#")) throw new SettingProblem("must not hold a fragment");
  return url.toString();
}

/** The session's rows of the configuration table, in the order `--help` lists them. */
export const sessionSettings = {
  sessionMaxAttempts: {
    variable: "SYNC_SESSION_MAX_ATTEMPTS",
    description:
      "Surveys (1 to 20) one respondent session offers at most; a terminate, overquota or drop offers the next while fewer came back.",
    parse: numberValue({ min: 1, max: 20, integer: true }),
    fallback: { kind: "default", raw: "3" },
  },
  sessionTtlSeconds: {
    variable: "SYNC_SESSION_TTL_SECONDS",
    description: "Seconds (60 to 604800) a respondent session lives; an expired one is done (expired), then pruned.",
    parse: numberValue({ min: 60, max: 604_800, integer: true }),
    fallback: { kind: "default", raw: "3600" },
  },
  sessionReturnUrl: {
    variable: "SYNC_SESSION_RETURN_URL",
    description:
      "Your respondent page, absolute http(s): where a survey's return (GET /v1/return/…) sends the respondent, with session=<id>, when the session names no returnUrl. Unset: sds-sync's respondent page (/s/<id>).",
    parse: parseReturnUrl,
    fallback: { kind: "unset" },
  },
  questionSeconds: {
    variable: "SYNC_QUESTION_SECONDS",
    description:
      "Seconds (0 to 600) one question costs a respondent: a session asks only when the answer is worth more than that time at the session's expected earnings rate.",
    parse: numberValue({ min: 0, max: 600, integer: false }),
    fallback: { kind: "default", raw: "8" },
  },
  profileTtlDays: {
    variable: "SYNC_PROFILE_TTL_DAYS",
    description:
      "Days (1 to 3650) a respondent's stored answer stands from when it was last given: it is used for matching and never asked again meanwhile (a match that gives it again, unchanged, renews it at most once a day).",
    parse: numberValue({ min: 1, max: 3650, integer: true }),
    fallback: { kind: "default", raw: "30" },
  },
  dropAfterLoi: {
    variable: "SYNC_DROP_AFTER_LOI",
    description:
      "An entry with no outcome after this many times (1 to 100) its survey's Loi is a drop: a failed entry in conversion, and its session moves on as after a terminate.",
    parse: numberValue({ min: 1, max: 100, integer: false }),
    fallback: { kind: "default", raw: "3" },
  },
} as const satisfies { readonly [Key in keyof SessionConfig]-?: PlainSetting<NonNullable<SessionConfig[Key]>> };
