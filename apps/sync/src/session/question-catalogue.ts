import { isNotFoundError, type SdsClient } from "@sds/client";
import type { SessionQuestion } from "@sds/routing";
import type { Logger } from "pino";
import type { LoopStore } from "../loop/store/loop-store.ts";
import {
  questionsVersion,
  readQuestions,
  writeQuestions,
  type QuestionDetail,
  type QuestionRead,
} from "./question-records.ts";

/** How long a read question is trusted before it is read again. */
const REFRESH_MS = 86_400_000;
/** Reads of QualificationDetailById under way at once. */
const CONCURRENCY = 4;

/**
 * Reads one QualificationDetailById body leniently: `{"Qualification": {"QuestionText", "TypeName",
 * "Options": [{"OptionCode", "OptionText"}]}}`, unknown fields ignored, `OptionCode` a number
 * or a string. `TypeName` lower-cased: `range` and `numeric` ask for a number.
 */
export function parseQuestionDetail(
  body: unknown,
): { ok: true; detail: QuestionDetail } | { ok: false; problem: string } {
  const qualification = (body as { Qualification?: unknown } | null)?.Qualification;
  if (typeof qualification !== "object" || qualification === null)
    return { ok: false, problem: "no Qualification object" };
  const record = qualification as Record<string, unknown>;
  const text = record.QuestionText;
  if (typeof text !== "string" || text.trim() === "")
    return { ok: false, problem: "QuestionText: not a non-empty string" };
  const typeName = typeof record.TypeName === "string" ? record.TypeName.trim().toLowerCase() : "";
  const type =
    typeName === "single" || typeName === "multi" || typeName === "text"
      ? typeName
      : typeName === "range" || typeName === "numeric" || typeName === "number"
        ? "numeric"
        : undefined;
  if (type === undefined) return { ok: false, problem: `TypeName: unknown ${JSON.stringify(record.TypeName)}` };
  const options: { code: string; text: string }[] = [];
  if (type === "single" || type === "multi") {
    if (!Array.isArray(record.Options) || record.Options.length === 0)
      return { ok: false, problem: "Options: a choice question without options" };
    for (const option of record.Options as unknown[]) {
      const { OptionCode: code, OptionText: optionText } = (option ?? {}) as Record<string, unknown>;
      if ((typeof code !== "string" && typeof code !== "number") || typeof optionText !== "string")
        return { ok: false, problem: "Options: an option without OptionCode and OptionText" };
      options.push({ code: String(code), text: optionText });
    }
  }
  return { ok: true, detail: { text, type, options } };
}

/** What {@link QuestionCatalogue.report} says, as `loop.inventoryData.questions`. */
export interface QuestionReport {
  readonly askable: number;
  /** Questions that answered 404 or could not be read: not askable (still used on answers passed). */
  readonly unavailable: number;
  readonly missing: number;
  readonly unreadable: number;
}

/**
 * The question catalogue every replica asks from: QualificationDetailById for each question a
 * live survey uses in each language live surveys use, read by the leader after its cycles (new
 * ones at once, all of them daily), stored in the loop store, and followed by every replica.
 */
export class QuestionCatalogue {
  readonly #store: LoopStore;
  readonly #logger: Logger;
  #version = -1;
  #reads = new Map<string, QuestionRead>();
  #askable = new Map<number, Map<number, SessionQuestion>>();

  constructor(store: LoopStore, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  /** The questions that can be asked in a language. */
  askable(languageId: number): ReadonlyMap<number, SessionQuestion> {
    return this.#askable.get(languageId) ?? new Map();
  }

  /** A question's text and options in a language, when it can be asked. */
  detail(languageId: number, qualificationId: number): QuestionDetail | undefined {
    const read = this.#reads.get(`${languageId}:${qualificationId}`);
    return read?.status === "ok" ? (read.detail ?? undefined) : undefined;
  }

  /** Counts of what was read. */
  report(): QuestionReport {
    let askable = 0;
    let missing = 0;
    let unreadable = 0;
    for (const read of this.#reads.values()) {
      if (read.status === "ok") askable++;
      else if (read.status === "missing") missing++;
      else unreadable++;
    }
    return { askable, unavailable: missing + unreadable, missing, unreadable };
  }

  /** Reads the stored catalogue again when its version moved (every replica, on a timer). */
  async follow(): Promise<void> {
    const version = await this.#store.read(questionsVersion());
    if (version === this.#version) return;
    const reads = await this.#store.read(readQuestions());
    this.#reads = new Map(reads.map((read) => [`${read.languageId}:${read.qualificationId}`, read]));
    const askable = new Map<number, Map<number, SessionQuestion>>();
    for (const read of reads) {
      if (read.status !== "ok" || read.detail === null) continue;
      let language = askable.get(read.languageId);
      if (language === undefined) {
        language = new Map();
        askable.set(read.languageId, language);
      }
      language.set(read.qualificationId, {
        qualificationId: read.qualificationId,
        type: read.detail.type,
        optionCodes: read.detail.options.map((option) => option.code),
      });
    }
    this.#askable = askable;
    this.#version = version;
  }

  /**
   * Reads the questions `wanted` (language, question) that were never read or were read a day
   * ago or more, and stores them (the leader, after its cycles). A 404 or a body that cannot be
   * read is stored as such: the question is not asked.
   */
  async refresh(client: SdsClient, wanted: ReadonlySet<string>, now: Date, signal: AbortSignal): Promise<number> {
    await this.follow();
    const due = [...wanted].filter((key) => {
      const read = this.#reads.get(key);
      return read === undefined || now.getTime() - Date.parse(read.fetchedAt) >= REFRESH_MS;
    });
    if (due.length === 0) return 0;
    const reads: QuestionRead[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < due.length && !signal.aborted) {
        const key = due[next++] ?? "";
        const [languageId, qualificationId] = key.split(":").map(Number) as [number, number];
        reads.push(await this.#read(client, languageId, qualificationId, now, signal));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    if (signal.aborted) return 0;
    await this.#store.write("storing the question catalogue", writeQuestions(reads));
    const failed = reads.filter((read) => read.status !== "ok").length;
    if (failed > 0)
      this.#logger.warn(
        { failed, read: reads.length },
        "some questions could not be read (QualificationDetailById): sessions do not ask them; see loop.inventoryData.questions",
      );
    await this.follow();
    return reads.length;
  }

  async #read(
    client: SdsClient,
    languageId: number,
    qualificationId: number,
    now: Date,
    signal: AbortSignal,
  ): Promise<QuestionRead> {
    const base = { languageId, qualificationId, fetchedAt: now.toISOString() };
    try {
      const parsed = parseQuestionDetail(
        await client.collections.qualificationDetail(languageId, qualificationId, { signal }),
      );
      return parsed.ok
        ? { ...base, status: "ok", detail: parsed.detail, problem: null }
        : { ...base, status: "unreadable", detail: null, problem: parsed.problem };
    } catch (error) {
      if (isNotFoundError(error)) return { ...base, status: "missing", detail: null, problem: "404 from the upstream" };
      if (signal.aborted) throw error;
      return {
        ...base,
        status: "unreadable",
        detail: null,
        problem: error instanceof Error ? error.message.slice(0, 300) : String(error),
      };
    }
  }
}
