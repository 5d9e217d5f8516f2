import { StoreError } from "../common/errors.ts";
import { integer, isoTime, json, nullable, oneOf, text } from "../database/columns.ts";
import { execute, first, rows, type Program } from "../database/program.ts";
import { command, statement } from "../database/statement.ts";

/** One question of the catalogue, in one language, as sessions show it. */
export interface QuestionDetail {
  readonly text: string;
  readonly type: "single" | "multi" | "numeric" | "text";
  readonly options: readonly { readonly code: string; readonly text: string }[];
}

/** One read of QualificationDetailById, as stored. */
export interface QuestionRead {
  readonly languageId: number;
  readonly qualificationId: number;
  /** `ok` with its detail; `missing` (404) or `unreadable`: it cannot be asked. */
  readonly status: "ok" | "missing" | "unreadable";
  readonly detail: QuestionDetail | null;
  readonly problem: string | null;
  readonly fetchedAt: string;
}

const questionStatus = oneOf(["ok", "missing", "unreadable"]);
const questionType = oneOf(["single", "multi", "numeric", "text"]);

/**
 * A stored question's detail, as {@link writeQuestions} wrote it: anything else is a StoreError
 * (an `ok` read the catalogue would ask from), never a question shown with what it lacks.
 */
function decodeQuestionDetail(value: unknown): QuestionDetail {
  const detail = json(value);
  if (typeof detail !== "object" || detail === null || Array.isArray(detail))
    throw new StoreError(`the store returned a question's detail that is not an object: ${text(value).slice(0, 40)}`);
  const fields = detail as Record<string, unknown>;
  const options = fields.options;
  if (!Array.isArray(options)) throw new StoreError("the store returned a question's detail without options");
  return {
    text: text(fields.text),
    type: questionType(fields.type),
    options: options.map((option: unknown) => {
      const { code, text: optionText } = (option ?? {}) as Record<string, unknown>;
      return { code: text(code), text: text(optionText) };
    }),
  };
}

const SAVE_QUESTION = command<
  [
    languageId: number,
    qualificationId: number,
    status: QuestionRead["status"],
    detail: string | null,
    problem: string | null,
    fetchedAt: string,
  ]
>(`INSERT INTO loop_questions (language_id, qualification_id, status, detail, problem, fetched_at) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (language_id, qualification_id) DO UPDATE SET status = excluded.status, detail = excluded.detail, problem = excluded.problem, fetched_at = excluded.fetched_at`);
const MOVE_QUESTIONS_VERSION = command<[]>("UPDATE loop_counters SET value = value + 1 WHERE name = 'questions'");
const QUESTIONS_VERSION = statement<[], number>("SELECT value FROM loop_counters WHERE name = 'questions'", (row) =>
  integer(row.value),
);
const QUESTIONS = statement<[], QuestionRead>(
  "SELECT language_id, qualification_id, status, detail, problem, fetched_at FROM loop_questions",
  (row) => {
    const status = questionStatus(row.status);
    return {
      languageId: integer(row.language_id),
      qualificationId: integer(row.qualification_id),
      status,
      // Only a read that succeeded has a detail to ask from (and must have one).
      detail: status === "ok" ? decodeQuestionDetail(row.detail) : null,
      problem: nullable(text)(row.problem),
      fetchedAt: isoTime(row.fetched_at),
    };
  },
);

/** Stores a round of reads and moves the catalogue's version (every replica then reads it again). */
export function* writeQuestions(reads: readonly QuestionRead[]): Program<void> {
  for (const read of reads) {
    yield* execute(
      SAVE_QUESTION,
      read.languageId,
      read.qualificationId,
      read.status,
      read.detail === null ? null : JSON.stringify(read.detail),
      read.problem,
      read.fetchedAt,
    );
  }
  if (reads.length > 0) yield* execute(MOVE_QUESTIONS_VERSION);
}

/** The catalogue's version: equal versions hold equal reads (0 before the counter's row exists). */
export function* questionsVersion(): Program<number> {
  return (yield* first(QUESTIONS_VERSION)) ?? 0;
}

/** Every stored read. */
export function* readQuestions(): Program<QuestionRead[]> {
  return yield* rows(QUESTIONS);
}
