import { integer, text } from "../database/columns.ts";
import { execute, executeRows, first, rows, whole, type Program } from "../database/program.ts";
import { command, insertRows, statement } from "../database/statement.ts";
import { decodeAnswers, decodeProfileAnswer, type AnswerSource, type ProfileAnswer } from "./session-rows.ts";

/*
 * A respondent's stored answers (their profile) and the answer counts per language kept beside
 * them, as programs over typed statements: each runs in one transaction on either driver; with a
 * session on PostgreSQL, a session's answers are one statement (data-modifying CTEs), the whole
 * write, where SQLite runs the same program's plain statements.
 */

/** `profile` as it is once `answers` are stored at `at` in `languageId`: what a request that wrote them decides on, unread. */
export function withAnswers(
  profile: readonly ProfileAnswer[],
  answers: ReadonlyMap<number, readonly string[]>,
  languageId: number,
  source: AnswerSource,
  at: string,
): ProfileAnswer[] {
  const merged = new Map(profile.map((answer) => [answer.qualificationId, answer]));
  for (const [qualificationId, given] of answers)
    merged.set(qualificationId, { qualificationId, languageId, answers: [...given], source, answeredAt: at });
  return [...merged.values()].sort((a, b) => a.qualificationId - b.qualificationId);
}

/**
 * A session's answers in one statement, where the dialect writes several tables in one
 * (PostgreSQL), in the order of locks of {@link storeAnswers}: the session's version is bumped
 * first (nothing else happens when it moved), then the answers replace the earlier ones (those
 * read under their row locks) and the counts move by the difference, each answer counted once
 * per question and side. `answers` is a JSON object of arrays by question; always one row. An
 * earlier answer list that is not a JSON array of texts fails the statement (a data error, as
 * decoding it fails the programs): taking its counts back would move counts nobody can read.
 */
const STORE_SESSION_ANSWERS = statement<
  [
    answered: number,
    fingerprint: string | null,
    id: string,
    version: number,
    answers: string,
    uid: string,
    languageId: number,
    source: AnswerSource,
    at: string,
  ],
  boolean
>(
  (dialect) =>
    dialect.dataModifyingCte
      ? `WITH session AS (
  UPDATE loop_sessions SET questions_asked = questions_asked + ?, fingerprint = COALESCE(fingerprint, ?), version = version + 1
  WHERE id = ? AND version = ? RETURNING version
), given AS (
  SELECT CAST(key AS BIGINT) AS qualification_id, CAST(value AS TEXT) AS answers FROM json_each(CAST(? AS JSON))
  WHERE EXISTS (SELECT 1 FROM session)
), earlier AS (
  SELECT p.qualification_id, p.language_id, p.answers FROM loop_profile_answers AS p
  JOIN given AS g ON g.qualification_id = p.qualification_id WHERE p.uid = $6 FOR UPDATE OF p
), saved AS (
  INSERT INTO loop_profile_answers (uid, qualification_id, language_id, answers, source, answered_at)
  SELECT $6, g.qualification_id, $7, g.answers, $8, $9 FROM given AS g LEFT JOIN earlier AS e ON e.qualification_id = g.qualification_id
  ON CONFLICT (uid, qualification_id) DO UPDATE SET language_id = excluded.language_id, answers = excluded.answers,
    source = excluded.source, answered_at = excluded.answered_at
  RETURNING qualification_id
), deltas AS (
  SELECT DISTINCT e.language_id, e.qualification_id,
    CASE json_typeof(a.value) WHEN 'string' THEN a.value #>> '{}'
      ELSE CAST('a stored answer is a JSON ' || json_typeof(a.value) || ', not text' AS INTEGER)::text END AS answer,
    -1 AS delta
  FROM earlier AS e CROSS JOIN json_array_elements(CAST(e.answers AS JSON)) AS a (value)
  UNION ALL
  SELECT DISTINCT CAST($7 AS BIGINT), s.qualification_id, a.answer, 1
  FROM saved AS s JOIN given AS g ON g.qualification_id = s.qualification_id
    CROSS JOIN json_array_elements_text(CAST(g.answers AS JSON)) AS a (answer)
), counted AS (
  INSERT INTO loop_answer_counts (language_id, qualification_id, answer, answers)
  SELECT language_id, qualification_id, answer, SUM(delta) FROM deltas GROUP BY language_id, qualification_id, answer
  ORDER BY language_id, qualification_id, answer COLLATE "C"
  ON CONFLICT (language_id, qualification_id, answer) DO UPDATE SET answers = loop_answer_counts.answers + excluded.answers
  RETURNING answer
)
SELECT (SELECT count(*) FROM session) AS stored, (SELECT count(*) FROM counted) AS counted`
      : null,
  (row) => integer(row.stored) === 1,
);

/** A session's answered count moved and its version bumped, where its version still is the one read; the new version. */
const COUNT_ANSWERED = statement<[answered: number, fingerprint: string | null, id: string, version: number], number>(
  "UPDATE loop_sessions SET questions_asked = questions_asked + ?, fingerprint = COALESCE(fingerprint, ?), version = version + 1 WHERE id = ? AND version = ? RETURNING version",
  (row) => integer(row.version),
);
/** The answers a respondent gave some questions before, with their language (whose counts they are in). */
const EARLIER_ANSWERS = statement<
  [uid: string, qualificationIds: readonly number[]],
  { readonly qualificationId: number; readonly languageId: number; readonly answers: string[] }
>(
  (dialect) =>
    `SELECT qualification_id, language_id, answers FROM loop_profile_answers WHERE uid = ? AND ${dialect.inList("qualification_id", "bigint")}`,
  (row) => ({
    qualificationId: integer(row.qualification_id),
    languageId: integer(row.language_id),
    answers: decodeAnswers(row.answers),
  }),
);
const SAVE_ANSWERS = insertRows<
  [uid: string, qualificationId: number, languageId: number, answers: string, source: AnswerSource, at: string]
>(
  "loop_profile_answers",
  [
    ["uid", "text"],
    ["qualification_id", "bigint"],
    ["language_id", "bigint"],
    ["answers", "text"],
    ["source", "text"],
    ["answered_at", "time"],
  ],
  `ON CONFLICT (uid, qualification_id) DO UPDATE SET language_id = excluded.language_id, answers = excluded.answers, source = excluded.source, answered_at = excluded.answered_at`,
);
/** Moves answer counts by their deltas; one row per (language, question, answer), as PostgreSQL's ON CONFLICT requires. */
const ADD_ANSWER_COUNTS = insertRows<[languageId: number, qualificationId: number, answer: string, delta: number]>(
  "loop_answer_counts",
  [
    ["language_id", "bigint"],
    ["qualification_id", "bigint"],
    ["answer", "text"],
    ["answers", "bigint"],
  ],
  "ON CONFLICT (language_id, qualification_id, answer) DO UPDATE SET answers = loop_answer_counts.answers + excluded.answers",
);
const PROFILE = statement<[uid: string], ProfileAnswer>(
  "SELECT qualification_id, language_id, answers, source, answered_at FROM loop_profile_answers WHERE uid = ? ORDER BY qualification_id",
  (row) => decodeProfileAnswer(row),
);
const ERASE_PROFILE = command<[uid: string]>("DELETE FROM loop_profile_answers WHERE uid = ?");
const ANSWER_COUNTS = statement<
  [languageId: number],
  { readonly qualificationId: number; readonly answer: string; readonly count: number }
>("SELECT qualification_id, answer, answers FROM loop_answer_counts WHERE language_id = ? AND answers > 0", (row) => ({
  qualificationId: integer(row.qualification_id),
  answer: text(row.answer),
  count: integer(row.answers),
}));

/** Serialises the writers of one respondent's profile (a transaction-scoped advisory lock); SQLite skips it. */
const LOCK_PROFILE = command<[profileSubject: string]>((dialect) => {
  const locks = dialect.advisoryLocks([{ boundText: true }]);
  return locks === null ? null : `SELECT ${locks}`;
});

/**
 * Stores a respondent's answers (replacing earlier answers to the same questions) and keeps the
 * language's answer counts; with a session, counts them as answered in it, keeps the device
 * fingerprint passed when it has none yet (the first one stands) and bumps its version (false when
 * it moved meanwhile: nothing is written then). With a session on PostgreSQL, one
 * statement, the whole write.
 */
export function* storeAnswers(
  input: {
    readonly uid: string;
    readonly languageId: number;
    readonly answers: ReadonlyMap<number, readonly string[]>;
    readonly source: AnswerSource;
    readonly at: string;
  },
  session?: { readonly id: string; readonly version: number; readonly fingerprint?: string | undefined },
): Program<boolean> {
  if (session !== undefined) {
    const fingerprint = session.fingerprint ?? null;
    const [stored] = yield* whole(
      STORE_SESSION_ANSWERS,
      input.answers.size,
      fingerprint,
      session.id,
      session.version,
      JSON.stringify(Object.fromEntries(input.answers)),
      input.uid,
      input.languageId,
      input.source,
      input.at,
    );
    if (stored !== undefined) return stored;
    const moved = yield* first(COUNT_ANSWERED, input.answers.size, fingerprint, session.id, session.version);
    if (moved === undefined) return false;
  }
  if (input.answers.size === 0) return true;
  // One writer of a respondent's profile at a time across replicas (SQLite's one writer already
  // is): two writers would both read the same earlier answer, take its count down twice and leave
  // one of their own counted for an answer the profile no longer holds.
  yield* execute(LOCK_PROFILE, `profile:${input.uid}`);
  // Every question at once: a read, a write of the answers and one of the counts, however many questions.
  const earlier = yield* rows(EARLIER_ANSWERS, input.uid, [...input.answers.keys()]);
  const deltas = new AnswerDeltas();
  for (const before of earlier) deltas.add(before.languageId, before.qualificationId, before.answers, -1);
  for (const [qualificationId, answers] of input.answers) deltas.add(input.languageId, qualificationId, answers, 1);
  yield* executeRows(
    SAVE_ANSWERS,
    [...input.answers].map(([qualificationId, answers]) => [
      input.uid,
      qualificationId,
      input.languageId,
      JSON.stringify(answers),
      input.source,
      input.at,
    ]),
  );
  yield* executeRows(ADD_ANSWER_COUNTS, deltas.rows());
  return true;
}

/** How answer counts move: each answer once per question and side, the sides summed, the unmoved left out. */
class AnswerDeltas {
  readonly #deltas = new Map<string, [languageId: number, qualificationId: number, answer: string, delta: number]>();

  add(languageId: number, qualificationId: number, answers: readonly string[], delta: number): void {
    for (const answer of new Set(answers)) {
      const key = JSON.stringify([languageId, qualificationId, answer]);
      const row = this.#deltas.get(key) ?? [languageId, qualificationId, answer, 0];
      row[3] += delta;
      this.#deltas.set(key, row);
    }
  }

  /**
   * The moved counts in the one order every writer locks count rows in (language, question,
   * answer by its UTF-8 bytes, as `COLLATE "C"` orders them): respondents share count rows, and writers taking them in the order their questions
   * came would wait on each other in a cycle.
   */
  rows(): [languageId: number, qualificationId: number, answer: string, delta: number][] {
    return [...this.#deltas.values()]
      .filter((row) => row[3] !== 0)
      .sort((a, b) => a[0] - b[0] || a[1] - b[1] || Buffer.compare(Buffer.from(a[2]), Buffer.from(b[2])));
  }
}

/** A respondent's stored answers, by question. */
export function* readProfile(uid: string): Program<ProfileAnswer[]> {
  return yield* rows(PROFILE, uid);
}

/** Erases a respondent's stored answers (their history of entries stays: it is the buyer's exclusion record); how many. */
export function* eraseProfile(uid: string): Program<number> {
  const answers = yield* readProfile(uid);
  const deltas = new AnswerDeltas();
  for (const answer of answers) deltas.add(answer.languageId, answer.qualificationId, answer.answers, -1);
  yield* executeRows(ADD_ANSWER_COUNTS, deltas.rows());
  yield* execute(ERASE_PROFILE, uid);
  return answers.length;
}

/** How often each answer was given, per question, in one language. */
export function* answerCounts(languageId: number): Program<Map<number, Map<string, number>>> {
  const counts = new Map<number, Map<string, number>>();
  for (const row of yield* rows(ANSWER_COUNTS, languageId)) {
    let question = counts.get(row.qualificationId);
    if (question === undefined) {
      question = new Map();
      counts.set(row.qualificationId, question);
    }
    question.set(row.answer, row.count);
  }
  return counts;
}
