import { mapCsvHeader, parseCsv } from "../../framework/csv-reader.ts";
import type { LineProblem } from "../../framework/input-file.ts";
import type { HistoryFormat } from "./history-format.ts";
import { enteredAtProblem, loopTextProblem, outcomeKinds, parseOutcomeKind, type OutcomeKind } from "@sds/sync-client";

/** One entry of a respondent's history, as `POST /v1/respondents/history` takes it. */
export interface HistoryEntry {
  readonly uid: string;
  readonly surveyId: number;
  /** ISO 8601 with a zone. */
  readonly enteredAt: string;
  readonly outcome?: OutcomeKind;
}

/** A history file read: its entries (each with its line), or what is wrong with them. */
export interface HistoryFile {
  readonly entries: readonly { readonly line: number; readonly entry: HistoryEntry }[];
  readonly problems: readonly LineProblem[];
}

const fields = ["uid", "surveyId", "enteredAt", "outcome"] as const;
type Field = (typeof fields)[number];

/** Reads a history file in `format`, checking every entry against sds-sync's rules. */
export function parseHistoryFile(text: string, format: HistoryFormat): HistoryFile {
  return format === "csv" ? parseHistoryCsv(text) : parseHistoryJsonLines(text);
}

/** CSV with the header `uid,surveyId,enteredAt[,outcome]` (any order, any case). */
function parseHistoryCsv(text: string): HistoryFile {
  const parsed = parseCsv(text);
  if (!parsed.ok) return { entries: [], problems: [{ line: parsed.line, message: parsed.message }] };
  const [header, ...records] = parsed.records;
  if (header === undefined)
    return {
      entries: [],
      problems: [
        { line: 1, message: "the file is empty; its first line must be the header uid,surveyId,enteredAt[,outcome]" },
      ],
    };
  const mapped = mapCsvHeader<Field>(header.fields, ["uid", "surveyId", "enteredAt"], ["outcome"]);
  if (typeof mapped === "string") return { entries: [], problems: [{ line: header.line, message: mapped }] };
  const result: { entries: { line: number; entry: HistoryEntry }[]; problems: LineProblem[] } = {
    entries: [],
    problems: [],
  };
  for (const { line, fields: cells } of records) {
    if (cells.length !== header.fields.length) {
      result.problems.push({ line, message: `has ${cells.length} fields, the header ${header.fields.length}` });
      continue;
    }
    const cell = (field: Field) => {
      const index = mapped.get(field);
      return index === undefined ? "" : (cells[index] ?? "");
    };
    const surveyId = cell("surveyId").trim();
    collect(
      result,
      line,
      checkEntry({
        uid: cell("uid"),
        surveyId: /^\d+$/.test(surveyId) ? Number(surveyId) : surveyId,
        enteredAt: cell("enteredAt").trim(),
        outcome: cell("outcome"),
      }),
    );
  }
  return result;
}

/** One JSON object per line: `{"uid":…,"surveyId":…,"enteredAt":…,"outcome"?:…}`; blank lines are skipped. */
function parseHistoryJsonLines(text: string): HistoryFile {
  const result: { entries: { line: number; entry: HistoryEntry }[]; problems: LineProblem[] } = {
    entries: [],
    problems: [],
  };
  for (const [index, raw] of text
    .replace(/^\uFEFF/, "")
    .split(/\r?\n|\r/)
    .entries()) {
    const line = index + 1;
    if (raw.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      result.problems.push({ line, message: `is not JSON: ${(error as Error).message}` });
      continue;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      result.problems.push({
        line,
        message: 'is not a JSON object such as {"uid":"r1","surveyId":123,"enteredAt":"2026-01-05T10:00:00Z"}',
      });
      continue;
    }
    const unknown = Object.keys(value).filter((key) => !(fields as readonly string[]).includes(key));
    if (unknown.length > 0) {
      result.problems.push({
        line,
        message: `unknown field${unknown.length === 1 ? "" : "s"} ${unknown.map((key) => JSON.stringify(key)).join(", ")}; the fields are ${fields.join(", ")}`,
      });
      continue;
    }
    // Only own fields are read (a "__proto__" key is refused above as unknown).
    const read = (field: Field): unknown =>
      Object.hasOwn(value, field) ? (value as Record<string, unknown>)[field] : undefined;
    collect(
      result,
      line,
      checkEntry({
        uid: read("uid"),
        surveyId: read("surveyId"),
        enteredAt: read("enteredAt"),
        outcome: read("outcome") ?? "",
      }),
    );
  }
  return result;
}

function collect(
  result: { entries: { line: number; entry: HistoryEntry }[]; problems: LineProblem[] },
  line: number,
  checked: HistoryEntry | string,
): void {
  if (typeof checked === "string") result.problems.push({ line, message: checked });
  else result.entries.push({ line, entry: checked });
}

/** The entry, or every problem with it as one message. An empty outcome is none. */
function checkEntry(raw: {
  readonly uid: unknown;
  readonly surveyId: unknown;
  readonly enteredAt: unknown;
  readonly outcome: unknown;
}): HistoryEntry | string {
  const problems: string[] = [];
  const uidProblem = typeof raw.uid === "string" ? loopTextProblem(raw.uid) : "is missing or not a string";
  if (uidProblem !== undefined) problems.push(`uid ${uidProblem}`);
  const surveyId = raw.surveyId;
  if (typeof surveyId !== "number" || !Number.isSafeInteger(surveyId) || surveyId <= 0)
    problems.push(
      `surveyId ${surveyId === undefined ? "(missing)" : JSON.stringify(surveyId)} is not a positive whole number`,
    );
  const timeProblem =
    typeof raw.enteredAt === "string" ? enteredAtProblem(raw.enteredAt) : "is missing or not a string";
  if (timeProblem !== undefined)
    problems.push(
      `enteredAt ${typeof raw.enteredAt === "string" ? `${JSON.stringify(raw.enteredAt)} ` : ""}${timeProblem}`,
    );
  const outcome =
    typeof raw.outcome === "string"
      ? raw.outcome.trim() === ""
        ? null
        : parseOutcomeKind(raw.outcome)
      : raw.outcome === null
        ? null
        : undefined;
  if (outcome === undefined)
    problems.push(`outcome ${JSON.stringify(raw.outcome)} is not one of ${outcomeKinds.join(", ")} (or empty)`);
  if (problems.length > 0) return problems.join("; ");
  return {
    uid: raw.uid as string,
    surveyId: surveyId as number,
    enteredAt: raw.enteredAt as string,
    ...(outcome === null || outcome === undefined ? {} : { outcome }),
  };
}
