import type { SessionAnswers, SessionStep } from "@sds/sync-client";
import { qualificationCatalogue, type Sandbox } from "@sds/testing";

/*
 * The demo respondents' true answers: what each would answer to every catalogue question. The
 * sandbox's marketplace is told them over its control API (as a test in another process would),
 * so it screens out a respondent who misses a survey's qualifications; the respondent answers the
 * session's questions from them. Development code: it runs only from the demo.
 */

/** A respondent's answers: `QualificationId` (as a string) → option codes (strings; ages as numbers, such as "34"). */
export type Answers = Record<string, string[]>;

const AGE_QUALIFICATION = 42;

/**
 * True answers to every catalogue question, varied by `index`, that meet every qualification of
 * `surveyId` (one option code of each, a middle age of an age range): each respondent is someone
 * that survey screens in, with answers to everything else a session may ask.
 */
export function trueAnswersFor(sandbox: Sandbox, surveyId: number, index: number): Answers {
  const answers: Answers = {};
  for (const question of qualificationCatalogue) {
    const key = String(question.Id);
    const codes = question.Options.map((option) => String(option.OptionCode));
    if (question.Id === AGE_QUALIFICATION) answers[key] = [String(18 + ((index * 13) % 57))];
    else if (codes.length === 0) answers[key] = [String(10_001 + ((index * 7919) % 89_000)).padStart(5, "0")];
    else answers[key] = [codes[(index * 7 + question.Id) % codes.length] ?? "1"];
  }
  for (const qualification of sandbox.api.getSurvey(surveyId)?.qualifications ?? []) {
    const codes = qualification.OptionCodes;
    const code =
      qualification.QualificationId === AGE_QUALIFICATION
        ? codes[Math.floor(codes.length / 2)]
        : codes[index % Math.max(1, codes.length)];
    if (code !== undefined) answers[String(qualification.QualificationId)] = [ageOf(code)];
  }
  return answers;
}

/** An age an age code stands for: itself, the start of a range (`"25-34"`) or of an open one (`"55+"`). */
function ageOf(code: string): string {
  return /^\s*(\d+)\s*[-+]/.exec(code)?.[1] ?? code;
}

/** The answers known before the session (age and gender, as a panel's registration has them); the session asks the rest when it pays. */
export function knownAtStart(truth: Answers): Answers {
  const known: Answers = {};
  for (const key of ["42", "43"]) {
    const answer = truth[key];
    if (answer !== undefined) known[key] = answer;
  }
  return known;
}

/** The respondent's answer to a question step, from their true answers: a number for a numeric question, one value for a text one. */
export function answerTo(step: Extract<SessionStep, { kind: "question" }>, truth: Answers): SessionAnswers {
  const key = String(step.qualificationId);
  const given = truth[key] ?? [step.options[0]?.code ?? "0"];
  if (step.type === "numeric") return { [key]: Number(given[0] ?? 0) };
  if (step.type === "text") return { [key]: given[0] ?? "" };
  // An option the question does not offer would be a 400: the first option stands in for it.
  const offered = new Set(step.options.map((option) => option.code));
  const fitting = given.filter((code) => offered.has(code));
  return { [key]: fitting.length > 0 ? fitting : [step.options[0]?.code ?? ""] };
}

/**
 * Tells the sandbox's marketplace a respondent's true answers over its control API (`PUT
 * {marketplaceControlUrl}/respondents/{uid}/answers`), as a test or a tool in another process would.
 */
export async function tellMarketplace(
  marketplaceControlUrl: string,
  uid: string,
  truth: Answers,
  signal: AbortSignal,
): Promise<void> {
  const response = await fetch(`${marketplaceControlUrl}/respondents/${encodeURIComponent(uid)}/answers`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ answers: truth }),
    signal,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`the marketplace refused ${uid}'s true answers (${response.status}): ${text}`);
}
