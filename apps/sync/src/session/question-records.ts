import { isoTime as toIso } from "../database/columns.ts";
import { query, queryOne, type Program } from "../loop/store/loop-program.ts";

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

/** Stores a round of reads and moves the catalogue's version (every replica then reads it again). */
export function* writeQuestions(reads: readonly QuestionRead[]): Program<void> {
  for (const read of reads) {
    yield* query(
      `INSERT INTO loop_questions (language_id, qualification_id, status, detail, problem, fetched_at) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (language_id, qualification_id) DO UPDATE SET status = excluded.status, detail = excluded.detail, problem = excluded.problem, fetched_at = excluded.fetched_at`,
      read.languageId,
      read.qualificationId,
      read.status,
      read.detail === null ? null : JSON.stringify(read.detail),
      read.problem,
      read.fetchedAt,
    );
  }
  if (reads.length > 0) yield* query("UPDATE loop_counters SET value = value + 1 WHERE name = 'questions'");
}

/** The catalogue's version: equal versions hold equal reads. */
export function* questionsVersion(): Program<number> {
  return Number((yield* queryOne("SELECT value FROM loop_counters WHERE name = 'questions'"))?.value ?? 0);
}

/** Every stored read. */
export function* readQuestions(): Program<QuestionRead[]> {
  const rows = yield* query("SELECT * FROM loop_questions");
  return rows.map((row) => {
    const status = row.status === "ok" || row.status === "missing" ? row.status : "unreadable";
    let detail: QuestionDetail | null = null;
    if (status === "ok" && typeof row.detail === "string") detail = JSON.parse(row.detail) as QuestionDetail;
    return {
      languageId: Number(row.language_id),
      qualificationId: Number(row.qualification_id),
      status: detail === null ? (status === "ok" ? "unreadable" : status) : status,
      detail,
      problem: typeof row.problem === "string" ? row.problem : null,
      fetchedAt: toIso(row.fetched_at),
    };
  });
}
