import type { Session, SessionExplanation, SessionStep } from "@sds/sync-client";
import type { CommandContext } from "../../framework/command.ts";
import type { Styles } from "../../framework/styles.ts";
import type { TableRenderer } from "../../framework/table.ts";

/** Why a session is done, in words a supplier acts on. */
const doneReasons: Readonly<Record<Extract<SessionStep, { kind: "done" }>["reason"], string>> = {
  completed: "the respondent completed a survey",
  "no-survey": "no live survey is open to this respondent",
  attempts: "the respondent used up the session's attempts (SYNC_SESSION_MAX_ATTEMPTS)",
  excluded: "a survey ended it with a security terminate",
  ended: "it was ended on request",
  expired: "it expired (SYNC_SESSION_TTL_SECONDS)",
};

const questionTypes: Readonly<Record<Extract<SessionStep, { kind: "question" }>["type"], string>> = {
  single: "one option",
  multi: "one or more options",
  numeric: "a number",
  text: "a text",
};

/**
 * Prints a session: the whole answer as JSON (`--json`, or when piped), else in words with the
 * next step first and what to do about it: the question with its options and the command that
 * answers it, the survey with its link, or done with its reason.
 */
export async function printSession(context: CommandContext, session: Session): Promise<void> {
  await context.output.document(session, (styles, tables) => renderSession(session, styles, tables));
}

/** A session in words, for a terminal (and `-o table`). */
export function renderSession(session: Session, styles: Styles, tables: TableRenderer): string {
  const attempts =
    session.attempts.length === 0
      ? "none yet"
      : session.attempts
          .map(
            (attempt) =>
              `survey ${attempt.surveyId} ${attempt.returned === undefined ? "(awaiting its return)" : `${attempt.returned} at ${attempt.returnedAt ?? "?"}`}`,
          )
          .join("; ");
  const head = tables.renderKeyValues(
    [
      ["Session", session.id],
      ["Respondent", `${session.uid} (language ${session.languageId})`],
      [
        "State",
        `${session.state === "open" ? styles.green("open") : "done"}, ${session.questionsAsked} ${session.questionsAsked === 1 ? "question" : "questions"} answered`,
      ],
      ["Attempts", attempts],
    ],
    styles,
  );
  const explanation =
    session.explanation === undefined ? "" : `\n${renderExplanation(session.explanation, styles, tables)}`;
  return `${head}\n${renderNext(session, styles)}${explanation}`;
}

function renderNext(session: Session, styles: Styles): string {
  const { next } = session;
  switch (next.kind) {
    case "question": {
      const lines = [
        `${styles.bold("Next: a question")} (qualification ${next.qualificationId}, ${questionTypes[next.type]})`,
        `  ${next.text}`,
      ];
      const width = Math.max(0, ...next.options.map((option) => option.code.length));
      for (const option of next.options) lines.push(`    ${option.code.padEnd(width)}  ${option.text}`);
      const placeholder = next.type === "numeric" ? "NUMBER" : next.type === "text" ? "TEXT" : "CODE";
      lines.push(
        `Answer it: sds sessions answer ${session.id} --answers ${next.qualificationId}=${placeholder}${next.type === "multi" ? "[,CODE…]" : ""}`,
      );
      return lines.join("\n") + "\n";
    }
    case "survey":
      return [
        `${styles.bold("Next: a survey")} (survey ${next.surveyId}, token ${next.token})`,
        `  Send the respondent to: ${next.link}`,
        `When the survey sends them back, sds-sync moves the session on: sds sessions show ${session.id}`,
        "",
      ].join("\n");
    case "done":
      return `${styles.bold("Done")} (${next.reason}): ${doneReasons[next.reason]}.\n`;
  }
}

/** What the step rested on: the questions weighed and the surveys the order starts with, money in the account's units. */
function renderExplanation(explanation: SessionExplanation, styles: Styles, tables: TableRenderer): string {
  const money = (cents: number) => (cents / 100).toFixed(2);
  const out = [
    `${styles.bold("Why")}: the session is expected to earn ${money(explanation.expectedCents)} in ${explanation.expectedMinutes.toFixed(1)} min, ${explanation.attemptsLeft} ${explanation.attemptsLeft === 1 ? "attempt" : "attempts"} left.\n`,
  ];
  if (explanation.questions.length > 0)
    out.push(
      tables.renderTable(
        [
          { header: "QUESTION", align: "right" },
          { header: "GAIN", align: "right" },
          { header: "COST", align: "right" },
          { header: "SURVEYS", align: "right" },
        ],
        explanation.questions.map((question) => [
          String(question.qualificationId),
          money(question.gainCents),
          money(question.costCents),
          String(question.surveys),
        ]),
        { styles },
      ),
    );
  if (explanation.surveys.length > 0)
    out.push(
      tables.renderTable(
        [
          { header: "SURVEY", align: "right" },
          { header: "CPI", align: "right" },
          { header: "CONVERSION", align: "right" },
          { header: "LOI", align: "right" },
          { header: "EXPECTED", align: "right" },
        ],
        explanation.surveys.map((survey) => [
          String(survey.surveyId),
          money(survey.cpiCents),
          `${(survey.conversion * 100).toFixed(1)} %`,
          `${survey.loiMinutes} min`,
          money(survey.expectedCents),
        ]),
        { styles },
      ),
    );
  return out.join("\n");
}
