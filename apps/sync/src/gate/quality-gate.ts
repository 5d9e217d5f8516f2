import type { GateCode } from "@sds/sync-client";
import { isbot } from "isbot";
import { Counter, type Registry } from "prom-client";
import type { Program } from "../database/program.ts";
import { addressBlock } from "../http/client-address.ts";
import { readRisk, riskScore } from "../loop/store/respondent-risk-records.ts";
import type { CountryLookup } from "./country-lookup.ts";
import {
  deviceOfOtherUid,
  gateCodes,
  lockDevice,
  lockStartSubjects,
  openSessionOf,
  recordStart,
  rememberDevice,
  startSubject,
  startsSince,
} from "./gate-records.ts";

/** The gate's rules as configured (gate-settings.ts, with defaults applied). */
export interface GateRules {
  readonly bots: boolean;
  readonly maxStartsPerIpPerHour: number | undefined;
  readonly maxStartsPerUidPerDay: number | undefined;
  readonly concurrent: boolean;
  /** 0: the duplicate-device rule is off. */
  readonly deviceWindowDays: number;
  readonly geo: boolean;
  readonly respondentMaxRisk: number | undefined;
}

/** Who starts a session, as far as the gate judges them. */
export interface StartingRespondent {
  readonly uid: string;
  readonly languageId: number;
  /** The client address: the respondent's (the page's request, or an `ip` a supplier's server passed); undefined when unknown. */
  readonly ip?: string | undefined;
  readonly userAgent?: string | undefined;
  readonly fingerprint?: string | undefined;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The quality gate: before a session starts and before each of its survey steps, the rules of
 * docs/quality-gate.md decide whether the respondent may go on, and name the rule that refused
 * them. Rules that need only the request (bot, geo) are decided before any transaction; those
 * that count across replicas (velocity, concurrent, duplicate-device, score) are programs run
 * inside the session's own write transaction, so what they admit is recorded atomically.
 */
export class QualityGate {
  readonly #rules: GateRules;
  readonly #countries: CountryLookup;
  readonly #languageCountry: (languageId: number) => Promise<string | undefined>;
  readonly #refusals: Counter<"reason">;

  constructor(options: {
    readonly rules: GateRules;
    readonly countries: CountryLookup;
    /** The country a language is spoken in (SYNC_LANGUAGE_COUNTRIES, else the Languages collection). */
    readonly languageCountry: (languageId: number) => Promise<string | undefined>;
    readonly registry: Registry;
  }) {
    this.#rules = options.rules;
    this.#countries = options.countries;
    this.#languageCountry = options.languageCountry;
    this.#refusals = new Counter({
      name: "sds_sync_gate_refusals_total",
      help: "Respondents the quality gate refused on this replica, by reason (its gate code: bot, velocity-ip, velocity-uid, concurrent, duplicate-device, geo, score).",
      labelNames: ["reason"],
      registers: [options.registry],
    });
    for (const reason of gateCodes) this.#refusals.inc({ reason }, 0);
  }

  /** Counts a refusal this replica made (`sds_sync_gate_refusals_total{reason}`). */
  counted(code: GateCode): void {
    this.#refusals.inc({ reason: code });
  }

  /** The rules decided from the request alone: `bot`, then `geo`. */
  async screen(respondent: StartingRespondent): Promise<GateCode | undefined> {
    if (this.#rules.bots && respondent.userAgent !== undefined && isbot(respondent.userAgent)) return "bot";
    if (this.#rules.geo && respondent.ip !== undefined) {
      const country = this.#countries.country(respondent.ip);
      // An address the database cannot place (private, loopback, unlisted) passes, as does a language without a country.
      if (country !== undefined) {
        const expected = await this.#languageCountry(respondent.languageId);
        if (expected !== undefined && expected !== country) return "geo";
      }
    }
    return undefined;
  }

  /**
   * The rules that count, judged on a read before any lock is taken (reads only, nothing
   * recorded): a start they refuse is refused without queueing behind the locks of
   * {@link admitStart}, so a flood of refused starts from one address or uid does not
   * serialise. What they admit is judged again under the locks.
   */
  *judgeStart(respondent: StartingRespondent, now: Date): Program<GateCode | undefined> {
    return yield* this.#countedRules(respondent, now);
  }

  /**
   * The rules that count, run in the start's write transaction before the session is stored,
   * under locks on the uid, the address and the fingerprint: `concurrent`, `velocity-uid`, `velocity-ip`,
   * `duplicate-device`, `score`. An admitted start is counted (and its device remembered) in the
   * same transaction.
   */
  *admitStart(respondent: StartingRespondent, now: Date): Program<GateCode | undefined> {
    const rules = this.#rules;
    const uidLimit = rules.maxStartsPerUidPerDay;
    const ipLimit = respondent.ip === undefined ? undefined : rules.maxStartsPerIpPerHour;
    const block = respondent.ip === undefined ? undefined : addressBlock(respondent.ip);
    if (rules.concurrent || uidLimit !== undefined || ipLimit !== undefined)
      yield* lockStartSubjects(respondent.uid, block);
    // After the uid's and the address's (one order for every transaction that takes more than one).
    if (respondent.fingerprint !== undefined && rules.deviceWindowDays > 0) yield* lockDevice(respondent.fingerprint);
    const code = yield* this.#countedRules(respondent, now);
    if (code !== undefined) return code;
    if (respondent.fingerprint !== undefined && rules.deviceWindowDays > 0)
      yield* rememberDevice(respondent.fingerprint, respondent.uid, now);
    if (uidLimit !== undefined) yield* recordStart(startSubject("uid", respondent.uid), now);
    if (ipLimit !== undefined) yield* recordStart(startSubject("ip", block ?? ""), now);
    return undefined;
  }

  /**
   * Whether {@link admitStart} would judge this start by `concurrent` alone under its locks, and
   * record nothing: no start limit applies, no device, no score. Then the start's own insert may
   * re-check it, in the statement that stores the session (session-records.ts
   * `createSessionUnlessOpen`), after {@link lockStart}: one round trip where two would be.
   */
  admitsByConcurrentAlone(respondent: StartingRespondent): boolean {
    const rules = this.#rules;
    return (
      rules.concurrent &&
      rules.maxStartsPerUidPerDay === undefined &&
      (respondent.ip === undefined || rules.maxStartsPerIpPerHour === undefined) &&
      (respondent.fingerprint === undefined || rules.deviceWindowDays <= 0) &&
      rules.respondentMaxRisk === undefined
    );
  }

  /** The locks {@link admitStart} takes first: for a caller that re-checks `concurrent` itself ({@link admitsByConcurrentAlone}). */
  *lockStart(respondent: StartingRespondent): Program<void> {
    yield* lockStartSubjects(respondent.uid, respondent.ip);
  }

  /**
   * `duplicate-device`: the fingerprint seen with another uid within SYNC_DEVICE_WINDOW_DAYS
   * refuses; otherwise it is remembered as this uid's (now). Judged under the fingerprint's lock,
   * so two uids bringing one device at once are judged one after the other.
   */
  *admitDevice(uid: string, fingerprint: string | undefined, now: Date): Program<GateCode | undefined> {
    if (fingerprint === undefined || this.#rules.deviceWindowDays <= 0) return undefined;
    yield* lockDevice(fingerprint);
    if (yield* this.#seenWithAnotherUid(uid, fingerprint, now)) return "duplicate-device";
    yield* rememberDevice(fingerprint, uid, now);
    return undefined;
  }

  /** Whether a survey step of this session needs the store's judgement: a rule that can change once it runs (score, its device). */
  judgesStepsOf(session: { readonly fingerprint: string | null }): boolean {
    return (
      this.#rules.respondentMaxRisk !== undefined || (session.fingerprint !== null && this.#rules.deviceWindowDays > 0)
    );
  }

  /**
   * Before a survey step (reads only): `duplicate-device`, for a device another uid came with
   * since, and `score`, as outcomes arrived since the start.
   */
  *judgeStep(
    session: { readonly uid: string; readonly fingerprint: string | null },
    now: Date,
  ): Program<GateCode | undefined> {
    if (yield* this.#seenWithAnotherUid(session.uid, session.fingerprint, now)) return "duplicate-device";
    if (yield* this.#risky(session.uid)) return "score";
    return undefined;
  }

  /** `concurrent`, `velocity-uid`, `velocity-ip`, `duplicate-device` and `score`, in that order: reads only. */
  *#countedRules(respondent: StartingRespondent, now: Date): Program<GateCode | undefined> {
    const rules = this.#rules;
    const uidLimit = rules.maxStartsPerUidPerDay;
    const ipLimit = respondent.ip === undefined ? undefined : rules.maxStartsPerIpPerHour;
    if (rules.concurrent && (yield* openSessionOf(respondent.uid, now)) !== undefined) return "concurrent";
    const dayAgo = new Date(now.getTime() - DAY_MS);
    if (
      uidLimit !== undefined &&
      (yield* startsSince(startSubject("uid", respondent.uid), dayAgo, uidLimit)) >= uidLimit
    )
      return "velocity-uid";
    const hourAgo = new Date(now.getTime() - HOUR_MS);
    if (
      ipLimit !== undefined &&
      (yield* startsSince(startSubject("ip", addressBlock(respondent.ip ?? "")), hourAgo, ipLimit)) >= ipLimit
    )
      return "velocity-ip";
    if (yield* this.#seenWithAnotherUid(respondent.uid, respondent.fingerprint ?? null, now)) return "duplicate-device";
    if (yield* this.#risky(respondent.uid)) return "score";
    return undefined;
  }

  /** Whether the fingerprint was seen with another uid within SYNC_DEVICE_WINDOW_DAYS (never while the rule is off). */
  *#seenWithAnotherUid(uid: string, fingerprint: string | null, now: Date): Program<boolean> {
    if (fingerprint === null || this.#rules.deviceWindowDays <= 0) return false;
    const since = new Date(now.getTime() - this.#rules.deviceWindowDays * DAY_MS);
    return (yield* deviceOfOtherUid(fingerprint, uid, since)) !== undefined;
  }

  /** How long the starts and devices the rules look back at must be kept. */
  get lookback(): { readonly startsMs: number; readonly devicesMs: number } {
    return { startsMs: DAY_MS, devicesMs: this.#rules.deviceWindowDays * DAY_MS };
  }

  *#risky(uid: string): Program<boolean> {
    const max = this.#rules.respondentMaxRisk;
    if (max === undefined) return false;
    return riskScore(yield* readRisk(uid)) > max;
  }
}
