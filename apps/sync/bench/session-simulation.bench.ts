/**
 * The respondent session's proof (`pnpm bench:session`, or `pnpm --filter @sds/sync bench:session`):
 * over the same seeded respondents of `@sds/testing`'s simulation (true answers hidden, a few
 * known at the start, a patience in minutes; a marketplace that screens out respondents whose
 * true answers miss a survey's qualifications), three routers, in process:
 *
 * (a) one match and one link on the answers known at the start (`Cpi × Ir` order);
 * (b) asks every catalogue question not answered yet (SYNC_QUESTION_SECONDS each), then offers up
 *     to three surveys by `Cpi × Ir`;
 * (c) the session: `@sds/routing`'s `nextSessionStep` (question value, the session's order over
 *     yield's posterior learned from the outcomes so far), at most three attempts.
 *
 * A respondent leaves once their patience is spent: a complete that would end after it earns
 * nothing. Goals (issue 28): (c) earns at least 1.25 × (b) and 1.5 × (a) per respondent on every
 * seed, asking fewer questions per respondent than (b).
 *
 * Environment: SYNC_BENCH_SEEDS (1,11,42), SYNC_BENCH_RESPONDENTS (3000), SYNC_BENCH_SURVEYS (300),
 * SYNC_BENCH_STRICT=1 (exit 1 on a missed goal).
 */
import {
  nextSessionStep,
  SessionInventory,
  SurveyMatcher,
  type AttemptReturn,
  type SessionQuestion,
} from "@sds/routing";
import {
  createMarketplaceSimulation,
  createSeededRandom,
  endEntry,
  qualificationCatalogue,
  sessionRespondents,
  type MarketplaceSimulation,
  type SessionRespondent,
} from "@sds/testing";

const GOAL_OVER_B = 1.25;
const GOAL_OVER_A = 1.5;
const QUESTION_SECONDS = 8;
const MAX_ATTEMPTS = 3;

const seeds = (process.env.SYNC_BENCH_SEEDS ?? "1,11,42").split(",").map(Number);
const respondentCount = Number(process.env.SYNC_BENCH_RESPONDENTS ?? 3000);
const surveyCount = Number(process.env.SYNC_BENCH_SURVEYS ?? 300);

const askable = new Map<number, SessionQuestion>(
  qualificationCatalogue.map((question) => {
    const type =
      question.TypeName === "Range" ? "numeric" : (question.TypeName.toLowerCase() as SessionQuestion["type"]);
    return [
      question.Id,
      {
        qualificationId: question.Id,
        type,
        optionCodes:
          type === "numeric" || type === "text" ? [] : question.Options.map((option) => String(option.OptionCode)),
      },
    ];
  }),
);

interface Figures {
  earnings: number;
  completes: number;
  questions: number;
  entries: number;
  screenOuts: number;
}
const empty = (): Figures => ({ earnings: 0, completes: 0, questions: 0, entries: 0, screenOuts: 0 });

function cents(cpi: string): number {
  return Math.round(Number(cpi) * 100);
}

/** Takes one survey as the marketplace would; the earnings when it completes within the respondent's patience. */
function take(
  simulation: MarketplaceSimulation,
  surveyId: number,
  person: SessionRespondent,
  elapsed: number,
  figures: Figures,
  random: ReturnType<typeof createSeededRandom>,
): { returned: AttemptReturn; minutes: number } {
  const survey = simulation.survey(surveyId);
  if (survey === undefined) throw new Error(`no survey ${surveyId}`);
  const result = endEntry(survey, person.respondent, random);
  figures.entries++;
  if (!result.qualified) figures.screenOuts++;
  if (result.outcome === "complete") {
    if (elapsed + result.minutes > person.patienceMinutes) return { returned: "drop", minutes: result.minutes };
    figures.completes++;
    figures.earnings += cents(survey.survey.Cpi);
  }
  return { returned: result.outcome, minutes: result.minutes };
}

function run(seed: number): { a: Figures; b: Figures; c: Figures } {
  const simulation = createMarketplaceSimulation({ seed, surveys: surveyCount, respondents: respondentCount });
  const people = sessionRespondents(simulation);
  const matcher = new SurveyMatcher();
  const inventory = new SessionInventory();
  for (const { survey, qualifications, quotas } of simulation.surveys) {
    matcher.upsert(survey, { qualifications, quotas });
    inventory.upsert(survey, { qualifications, quotas });
  }
  const a = empty();
  const b = empty();
  const c = empty();
  const evidence = new Map<number, { decided: number; completes: number }>();
  const answerCounts = new Map<string, Map<string, number>>();
  for (const person of people) {
    const { respondent } = person;
    const draw = (router: number) => createSeededRandom(seed * 1_000_003 + respondent.index * 7 + router);
    // (a) One match, one link, on the answers known at the start.
    {
      const [first] = matcher.match({
        answers: person.known,
        languageId: respondent.languageId,
        device: respondent.device,
        limit: 1,
      }).surveyIds;
      if (first !== undefined) take(simulation, first, person, 0, a, draw(1));
    }
    // (b) Every question first, then up to three surveys by Cpi × Ir.
    {
      const unanswered = qualificationCatalogue.filter(
        (question) => !Object.hasOwn(person.known, String(question.Id)),
      ).length;
      b.questions += unanswered;
      let elapsed = (unanswered * QUESTION_SECONDS) / 60;
      const random = draw(2);
      if (elapsed < person.patienceMinutes) {
        const offers = matcher.match({
          answers: respondent.answers,
          languageId: respondent.languageId,
          device: respondent.device,
          limit: MAX_ATTEMPTS,
        }).surveyIds;
        for (const surveyId of offers) {
          const { returned, minutes } = take(simulation, surveyId, person, elapsed, b, random);
          elapsed += minutes;
          if (returned === "complete" || returned === "drop" || elapsed >= person.patienceMinutes) break;
        }
      }
    }
    // (c) The session.
    {
      const answers = new Map<string, readonly string[]>(Object.entries(person.known));
      const attempts: { surveyId: number; returned: AttemptReturn }[] = [];
      const random = draw(3);
      let elapsed = 0;
      for (let step = 0; step < 40 && elapsed < person.patienceMinutes; step++) {
        const decision = nextSessionStep(
          inventory,
          {
            answers,
            languageId: respondent.languageId,
            device: respondent.device,
            attempts,
            excluded: new Set(),
            askable,
            answerCounts: (qualificationId) => answerCounts.get(`${respondent.languageId}:${qualificationId}`),
          },
          { questionSeconds: QUESTION_SECONDS, maxAttempts: MAX_ATTEMPTS },
        );
        if (decision.kind === "question") {
          const truth = respondent.answers[String(decision.qualificationId)] ?? [];
          elapsed += QUESTION_SECONDS / 60;
          c.questions++;
          answers.set(String(decision.qualificationId), truth);
          const key = `${respondent.languageId}:${decision.qualificationId}`;
          const counts = answerCounts.get(key) ?? new Map<string, number>();
          for (const answer of truth) counts.set(answer, (counts.get(answer) ?? 0) + 1);
          answerCounts.set(key, counts);
          continue;
        }
        if (decision.kind !== "survey") break;
        const surveyId = decision.surveys[0] ?? 0;
        const { returned, minutes } = take(simulation, surveyId, person, elapsed, c, random);
        elapsed += minutes;
        attempts.push({ surveyId, returned });
        // The loop learns: decided entries and completes, as yield's evidence.
        const known = evidence.get(surveyId) ?? { decided: 0, completes: 0 };
        known.decided++;
        if (returned === "complete") known.completes++;
        evidence.set(surveyId, known);
        inventory.setYieldEvidence(surveyId, { ...known });
        if (returned === "complete" || returned === "drop") break;
      }
    }
  }
  return { a, b, c };
}

const money = (centsPerRespondent: number) => `$${(centsPerRespondent / 100).toFixed(3)}`;
let met = true;
console.log(`session bench: ${respondentCount} respondents, ${surveyCount} surveys, seeds ${seeds.join(", ")}`);
console.log(
  "seed  (a) per resp.  (b) per resp.  (c) per resp.  c/a (goal 1.5)  c/b (goal 1.25)  questions/resp. b → c",
);
for (const seed of seeds) {
  const started = performance.now();
  const { a, b, c } = run(seed);
  const per = (figures: Figures) => figures.earnings / respondentCount;
  const overA = per(c) / Math.max(1e-9, per(a));
  const overB = per(c) / Math.max(1e-9, per(b));
  const fewer = c.questions < b.questions;
  const ok = overA >= GOAL_OVER_A && overB >= GOAL_OVER_B && fewer;
  met &&= ok;
  console.log(
    `${String(seed).padEnd(5)} ${money(per(a)).padEnd(14)} ${money(per(b)).padEnd(14)} ${money(per(c)).padEnd(14)} ${overA.toFixed(2).padEnd(15)} ${overB.toFixed(2).padEnd(16)} ${(b.questions / respondentCount).toFixed(1)} → ${(c.questions / respondentCount).toFixed(1)}   ${ok ? "met" : "NOT met"}   (${((performance.now() - started) / 1000).toFixed(1)} s; completes a/b/c ${a.completes}/${b.completes}/${c.completes}, entries ${a.entries}/${b.entries}/${c.entries}, screen-outs ${a.screenOuts}/${b.screenOuts}/${c.screenOuts})`,
  );
}
console.log(met ? "all goals met" : "a goal was missed");
if (!met && process.env.SYNC_BENCH_STRICT === "1") process.exitCode = 1;
