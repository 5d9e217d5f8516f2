import { integer, text } from "../../database/columns.ts";
import { execute, first, type Program } from "../../database/program.ts";
import { command, statement } from "../../database/statement.ts";

/*
 * A respondent's risk, kept as outcomes, reconciliations and returns are recorded (in their
 * transaction), never computed by scanning entries: the quality gate reads one row per step.
 * An entry's flags (`flagged_security`, `speeder`) say whether it already counts, so a security
 * terminate reported twice (the S2S call and the respondent's return) counts once, and a
 * reconciliation that takes a security terminate back takes its count back too.
 */

/** SYNC_SPEEDER_FRACTION's default: PureSpectrum's speeder (status 29) is a complete in under a third of the Loi or so. */
export const DEFAULT_SPEEDER_FRACTION = 0.3;

/** What a respondent's risk is made of (`loop_respondent_risk`). */
export interface RespondentRisk {
  /** Entries whose outcome or return is a security terminate. */
  readonly security: number;
  /** Completes taken back (a complete changed into another outcome). */
  readonly reversals: number;
  /** Completes recorded faster than SYNC_SPEEDER_FRACTION × the survey's Loi. */
  readonly speeders: number;
}

/** The weights of {@link riskScore}: a security terminate is the marketplace's own verdict, a speeder only a hint. */
export const RISK_WEIGHTS = { security: 3, reversals: 2, speeders: 1 } as const;

/**
 * The documented risk score SYNC_RESPONDENT_MAX_RISK is compared with:
 * 3 × security terminates + 2 × reversals + 1 × speeding completes.
 *
 * @example riskScore({ security: 1, reversals: 0, speeders: 2 }) // 5
 */
export function riskScore(risk: RespondentRisk): number {
  return (
    RISK_WEIGHTS.security * risk.security +
    RISK_WEIGHTS.reversals * risk.reversals +
    RISK_WEIGHTS.speeders * risk.speeders
  );
}

/** No risk at all: a respondent without a row. */
export const NO_RISK: RespondentRisk = { security: 0, reversals: 0, speeders: 0 };

const ADD_RISK = command<[uid: string, security: number, reversals: number, speeders: number, at: string]>(
  `INSERT INTO loop_respondent_risk (uid, security, reversals, speeders, updated_at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (uid) DO UPDATE SET security = loop_respondent_risk.security + excluded.security,
  reversals = loop_respondent_risk.reversals + excluded.reversals, speeders = loop_respondent_risk.speeders + excluded.speeders,
  updated_at = excluded.updated_at`,
);
const READ_RISK = statement<[uid: string], RespondentRisk>(
  "SELECT security, reversals, speeders FROM loop_respondent_risk WHERE uid = ?",
  (row) => ({ security: integer(row.security), reversals: integer(row.reversals), speeders: integer(row.speeders) }),
);
/** Sets an entry's security flag when it changes, giving back the entry's uid then. */
const SET_SECURITY_FLAG = statement<[flagged: boolean, token: string, flagged: boolean], string>(
  "UPDATE loop_entries SET flagged_security = ? WHERE token = ? AND flagged_security <> ? RETURNING uid",
  (row) => text(row.uid),
);
/** Flags an entry as a speeder once, giving back its uid the first time. */
const SET_SPEEDER_FLAG = statement<[token: string], string>(
  "UPDATE loop_entries SET speeder = true WHERE token = ? AND speeder = false RETURNING uid",
  (row) => text(row.uid),
);

/** Adds to a respondent's risk (a negative count takes back); nothing for an entry without a uid. */
export function* addRisk(uid: string, delta: Partial<RespondentRisk>, at: Date): Program<void> {
  if (uid === "") return;
  yield* execute(ADD_RISK, uid, delta.security ?? 0, delta.reversals ?? 0, delta.speeders ?? 0, at.toISOString());
}

/** A respondent's risk ({@link NO_RISK} without a row). */
export function* readRisk(uid: string): Program<RespondentRisk> {
  return (yield* first(READ_RISK, uid)) ?? NO_RISK;
}

/** Marks (or unmarks) an entry as a security terminate, moving its respondent's count when the flag changed. */
export function* flagSecurity(token: string, flagged: boolean, at: Date): Program<void> {
  const uid = yield* first(SET_SECURITY_FLAG, flagged, token, flagged);
  if (uid !== undefined) yield* addRisk(uid, { security: flagged ? 1 : -1 }, at);
}

/** Marks an entry as a speeder (once), counting it on its respondent. */
export function* flagSpeeder(token: string, at: Date): Program<void> {
  const uid = yield* first(SET_SPEEDER_FLAG, token);
  if (uid !== undefined) yield* addRisk(uid, { speeders: 1 }, at);
}

/**
 * Whether a complete recorded at `at` came too fast: less than `fraction` × the survey's Loi (as
 * issued) after the entry was issued. Never without a Loi or with a fraction of 0 (off).
 */
export function isSpeeding(
  entry: { readonly issuedAt: number; readonly loiMinutes: number | null },
  at: Date,
  fraction: number,
): boolean {
  if (fraction <= 0 || entry.loiMinutes === null || entry.loiMinutes <= 0) return false;
  return at.getTime() - entry.issuedAt < fraction * entry.loiMinutes * 60_000;
}
