import { numberValue, oneOf, SettingProblem, type PlainSetting } from "../common/setting-parsers.ts";

/*
 * The quality gate's rows of the configuration table (config/config.ts spreads them in, like the
 * session's): `--help`, docs/reference.md and the logged configuration come from here.
 * docs/quality-gate.md explains each rule.
 */

/** The quality gate's settings, part of `SyncConfig`. */
export interface GateConfig {
  /** `SYNC_GATE_BOTS`: refuse user agents `isbot` recognises (`bot`). @default true */
  readonly gateBots?: boolean | undefined;
  /** `SYNC_MAX_STARTS_PER_IP_PER_HOUR`: session starts one address may make in an hour (`velocity-ip`); unset: no limit. */
  readonly maxStartsPerIpPerHour?: number | undefined;
  /** `SYNC_MAX_STARTS_PER_UID_PER_DAY`: session starts one uid may make in 24 hours (`velocity-uid`); unset: no limit. */
  readonly maxStartsPerUidPerDay?: number | undefined;
  /** `SYNC_GATE_CONCURRENT`: refuse a second open session of one uid (`concurrent`). @default true */
  readonly gateConcurrent?: boolean | undefined;
  /** `SYNC_DEVICE_WINDOW_DAYS`: how long a device fingerprint belongs to its uid (`duplicate-device`); 0: off. @default 30 */
  readonly deviceWindowDays?: number | undefined;
  /** `SYNC_GATE_GEO`: refuse an address in another country than the language's (`geo`). @default false */
  readonly gateGeo?: boolean | undefined;
  /** `SYNC_LANGUAGE_COUNTRIES`: LanguageId → ISO country code, before the Languages collection's `CountryCode`. */
  readonly languageCountries?: ReadonlyMap<number, string> | undefined;
  /** `SYNC_RESPONDENT_MAX_RISK`: the risk score past which a respondent is refused (`score`); unset: off. */
  readonly respondentMaxRisk?: number | undefined;
  /** `SYNC_SPEEDER_FRACTION`: a complete faster than this fraction of the Loi is a speeder; 0: off. @default 0.3 */
  readonly speederFraction?: number | undefined;
}

/** `on`/`off` (also `true`/`false`): a rule switched on or off. */
function onOff(raw: string): boolean {
  const word = oneOf(["on", "off", "true", "false"], raw.toLowerCase(), raw);
  return word === "on" || word === "true";
}

/**
 * `1=US,3=DE`: LanguageIds and the ISO 3166-1 alpha-2 code of the country each is spoken in.
 *
 * @throws SettingProblem naming the item that is wrong.
 */
export function parseLanguageCountries(raw: string): ReadonlyMap<number, string> {
  const countries = new Map<number, string>();
  for (const item of raw.split(",")) {
    const match = /^\s*(\d{1,12})\s*=\s*([A-Za-z]{2})\s*$/.exec(item);
    if (match === null)
      throw new SettingProblem(`must be a comma list of LanguageId=CC (1=US,3=DE), got ${JSON.stringify(item)}`);
    countries.set(Number(match[1]), (match[2] ?? "").toUpperCase());
  }
  return countries;
}

/** The gate's rows of the configuration table, in the order `--help` lists them. */
export const gateSettings = {
  gateBots: {
    variable: "SYNC_GATE_BOTS",
    description:
      "on or off: refuse sessions whose user agent the isbot list recognises as a crawler or tool (gate code bot). A start without a user agent passes.",
    parse: onOff,
    fallback: { kind: "default", raw: "on" },
  },
  maxStartsPerIpPerHour: {
    variable: "SYNC_MAX_STARTS_PER_IP_PER_HOUR",
    description:
      "Session starts (1 to 1000000) one client address may make in an hour, counted in the loop store (every replica alike); one more is refused (velocity-ip). Unset: no limit. A POST /v1/sessions without ip in its body is not counted: the caller is your server.",
    parse: numberValue({ min: 1, max: 1_000_000, integer: true }),
    fallback: { kind: "unset" },
  },
  maxStartsPerUidPerDay: {
    variable: "SYNC_MAX_STARTS_PER_UID_PER_DAY",
    description:
      "Session starts (1 to 1000000) one uid may make in 24 hours, counted in the loop store; one more is refused (velocity-uid). Unset: no limit.",
    parse: numberValue({ min: 1, max: 1_000_000, integer: true }),
    fallback: { kind: "unset" },
  },
  gateConcurrent: {
    variable: "SYNC_GATE_CONCURRENT",
    description:
      "on or off: refuse a session start while the same uid has another open, unexpired session (concurrent; Cint's code 301).",
    parse: onOff,
    fallback: { kind: "default", raw: "on" },
  },
  deviceWindowDays: {
    variable: "SYNC_DEVICE_WINDOW_DAYS",
    description:
      "Days (0 to 3650) a device fingerprint belongs to the uid it was last seen with: the same fingerprint from another uid within them is refused (duplicate-device). 0: off.",
    parse: numberValue({ min: 0, max: 3650, integer: false }),
    fallback: { kind: "default", raw: "30" },
  },
  gateGeo: {
    variable: "SYNC_GATE_GEO",
    description:
      "on or off: refuse a session whose client address lies in another country than its language's (geo), by the GeoLite2 country database shipped in the package. Addresses it does not know (private, loopback, unlisted) and languages without a country pass.",
    parse: onOff,
    fallback: { kind: "default", raw: "off" },
  },
  languageCountries: {
    variable: "SYNC_LANGUAGE_COUNTRIES",
    description:
      "Comma list of LanguageId=country (ISO 3166-1 alpha-2), such as 1=US,3=DE: the country the geo rule expects for a language, before the Languages collection's CountryCode.",
    parse: parseLanguageCountries,
    fallback: { kind: "unset" },
    describe: (countries: ReadonlyMap<number, string> | undefined) =>
      countries === undefined ? undefined : Object.fromEntries(countries),
  },
  respondentMaxRisk: {
    variable: "SYNC_RESPONDENT_MAX_RISK",
    description:
      "The risk score (0 to 1000000) past which a respondent is refused (score): 3 per security terminate, 2 per reversed complete, 1 per speeding complete, kept per uid as outcomes, reconciliations and returns arrive. Unset: off.",
    parse: numberValue({ min: 0, max: 1_000_000, integer: false }),
    fallback: { kind: "unset" },
  },
  speederFraction: {
    variable: "SYNC_SPEEDER_FRACTION",
    description:
      "A complete (S2S call or return) recorded less than this fraction (0 to 1) of its survey's Loi after its entry was issued is a speeder: flagged on the entry (GET /v1/outcomes) and the respondent (their profile's risk). 0: off.",
    parse: numberValue({ min: 0, max: 1, integer: false }),
    fallback: { kind: "default", raw: "0.3" },
  },
} as const satisfies { readonly [Key in keyof GateConfig]-?: PlainSetting<NonNullable<GateConfig[Key]>> };
