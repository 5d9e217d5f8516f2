import type { SurveyQualification } from "@sds/schemas";
import { createSeededRandom, deriveSeed, type SeededRandom } from "../random.ts";
import { qualificationCatalogue } from "../fixtures/qualification-catalogue.ts";
import type { MarketplaceSimulation, SimulatedRespondent, SimulatedSurvey } from "./types.ts";

/*
 * The respondent's session, simulated: respondents whose true answers the routers do not see
 * (they know a few at the start and learn the rest only by asking), with a patience in minutes,
 * and a marketplace that screens out (terminates after a screener of about a minute) those whose
 * true answers miss the survey's qualifications, and otherwise ends the entry as the survey's
 * hidden conversion says. Three routers walk the same respondents in `pnpm bench:session`.
 */

/** One respondent of a session simulation. */
export interface SessionRespondent {
  readonly respondent: SimulatedRespondent;
  /** What the supplier knows at the start (a few questions of the profile). */
  readonly known: Readonly<Record<string, readonly string[]>>;
  /** Minutes the respondent gives before leaving. */
  readonly patienceMinutes: number;
}

/** Minutes a screen-out (or a terminate) takes: the marketplace's screener. */
export const SCREENER_MINUTES = 1;

/** Questions known at the start: age and gender, each for a share of respondents. */
const START_KNOWN = [
  [42, 0.8],
  [43, 0.8],
] as const;

/**
 * The session respondents of a simulation: its respondents (their answers are the truth), each
 * with the answers known at the start and a patience drawn from a log-normal around 15 minutes.
 */
export function sessionRespondents(simulation: MarketplaceSimulation): SessionRespondent[] {
  return simulation.respondents.map((respondent) => {
    const random = createSeededRandom(deriveSeed(simulation.seed, respondent.index, 0x5e55));
    const known: Record<string, readonly string[]> = {};
    for (const [id, share] of START_KNOWN) {
      const answer = respondent.answers[String(id)];
      if (answer !== undefined && random.chance(share)) known[String(id)] = answer;
    }
    const patienceMinutes = Math.min(90, Math.max(2, 15 * Math.exp(0.6 * normal(random))));
    return { respondent, known, patienceMinutes };
  });
}

function normal(random: SeededRandom): number {
  const u = Math.max(1e-12, random.next());
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random.next());
}

/** How the marketplace ends one entry, and the minutes it took. */
export interface SessionEntryResult {
  readonly outcome: "complete" | "terminate" | "overquota";
  readonly minutes: number;
  /** Whether the respondent's true answers met every qualification (else a screen-out). */
  readonly qualified: boolean;
}

/** Whether true answers meet a survey's qualification records (AND across, OR within; ranges `"25-34"`, `"55+"`). */
export function meetsQualifications(
  answers: Readonly<Record<string, readonly string[]>>,
  qualifications: readonly Pick<SurveyQualification, "QualificationId" | "OptionCodes">[],
): boolean {
  return qualifications.every((record) => {
    const given = Object.hasOwn(answers, String(record.QualificationId))
      ? answers[String(record.QualificationId)]
      : undefined;
    return given?.some((answer) => record.OptionCodes.some((code) => codeMeets(code, answer))) ?? false;
  });
}

function codeMeets(code: string, answer: string): boolean {
  if (code === answer) return true;
  const value = Number(answer);
  if (!Number.isFinite(value) || answer.trim() === "") return false;
  const range = /^\s*(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)\s*$/.exec(code);
  if (range) return value >= Number(range[1]) && value <= Number(range[2]);
  const open = /^\s*(\d+(?:\.\d+)?)\s*\+\s*$/.exec(code);
  return open ? value >= Number(open[1]) : false;
}

/**
 * The marketplace ends an entry: a respondent whose true answers miss a qualification is
 * screened out (a terminate after {@link SCREENER_MINUTES}); one who qualifies completes with the
 * survey's hidden conversion (taking its `Loi`), else terminates or is over quota after the screener.
 */
export function endEntry(
  survey: SimulatedSurvey,
  truth: SimulatedRespondent,
  random: SeededRandom,
): SessionEntryResult {
  const qualified = meetsQualifications(truth.answers, survey.qualifications);
  if (!qualified) return { outcome: "terminate", minutes: SCREENER_MINUTES, qualified };
  if (random.next() < survey.trueConversion)
    return { outcome: "complete", minutes: Number(survey.survey.Loi) || 15, qualified };
  return { outcome: random.chance(0.2) ? "overquota" : "terminate", minutes: SCREENER_MINUTES, qualified };
}

/** The catalogue's questions, as a session router may ask them. */
export const catalogueQuestionIds: readonly number[] = qualificationCatalogue.map((question) => question.Id);
