import { MIN_START_LINK_SECRET_LENGTH } from "@sds/routing";
import { numberValue, originList, SettingProblem, type PlainSetting } from "../common/setting-parsers.ts";

/*
 * The respondent page's rows of the configuration table (config/config.ts spreads them in, like
 * the session's): `--help`, the reference table and the logged configuration come from here.
 */

/** The respondent page's settings, part of `SyncConfig`. */
export interface PageConfig {
  /** `SYNC_SESSION_SECRET`: signs and verifies start links; unset, the respondent page (`/s/*`) is off. Secret. */
  readonly sessionSecret?: string | undefined;
  /** `SYNC_START_LINK_SECONDS`: how long a start link can be used after it was made. @default 600 */
  readonly startLinkSeconds?: number | undefined;
  /** `SYNC_EMBED_ORIGINS`: origins whose pages may frame the respondent page; unset, none. */
  readonly embedOrigins?: readonly string[] | undefined;
}

/** A session secret: at least 32 characters, no whitespace. Problems never echo it. */
function parseSessionSecret(raw: string): string {
  if (raw.length < MIN_START_LINK_SECRET_LENGTH)
    throw new SettingProblem(
      `must be at least ${MIN_START_LINK_SECRET_LENGTH} characters (openssl rand -hex 32 makes one); the value is not shown`,
    );
  if (/\s/.test(raw)) throw new SettingProblem("must not hold whitespace; the value is not shown");
  return raw;
}

/** The page's rows of the configuration table, in the order `--help` lists them. */
export const pageSettings = {
  sessionSecret: {
    variable: "SYNC_SESSION_SECRET",
    description: `The secret (${MIN_START_LINK_SECRET_LENGTH} characters or more) start links of the respondent page are signed with (HMAC-SHA256; sds link start and @sds/routing's signStartLink make them). Unset: the respondent page (/s/*) is off, and /readyz says so. Never logged.`,
    parse: parseSessionSecret,
    fallback: { kind: "unset" },
    secret: true,
  },
  startLinkSeconds: {
    variable: "SYNC_START_LINK_SECONDS",
    description:
      "Seconds (10 to 604800) a start link (GET /s/start) can be used after its ts; an older one answers 403.",
    parse: numberValue({ min: 10, max: 604_800, integer: true }),
    fallback: { kind: "default", raw: "600" },
  },
  embedOrigins: {
    variable: "SYNC_EMBED_ORIGINS",
    description:
      "Comma list of origins (https://panel.example.com) whose pages may show the respondent page in a frame (CSP frame-ancestors). Unset: no page may frame it.",
    parse: originList,
    fallback: { kind: "unset" },
  },
} as const satisfies {
  readonly [Key in keyof PageConfig]-?: PlainSetting<NonNullable<PageConfig[Key]>> & { readonly secret?: boolean };
};
