import { readCheckedCsv } from "../../framework/checked-csv.ts";
import type { CheckedLine, LineChecker } from "../../framework/input-file.ts";
import { readTextLines } from "../../framework/text-lines.ts";
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

/** One entry of a history file, with the line it is on. */
export interface HistoryLine {
  readonly line: number;
  readonly entry: HistoryEntry;
}

const fields = ["uid", "surveyId", "enteredAt", "outcome"] as const;
type Field = (typeof fields)[number];

/** Reads a history file in `format` as it streams, checking every entry against sds-sync's rules. */
export function historyLines(format: HistoryFormat): LineChecker<HistoryLine> {
  return format === "csv" ? historyCsvLines : historyJsonLines;
}

/** CSV with the header `uid,surveyId,enteredAt[,outcome]` (any order, any case). */
const historyCsvLines = readCheckedCsv<Field, HistoryLine>(
  { required: ["uid", "surveyId", "enteredAt"], optional: ["outcome"] },
  (cell, line) => {
    const surveyId = cell("surveyId").trim();
    return lined(
      line,
      checkEntry({
        uid: cell("uid"),
        surveyId: /^\d+$/.test(surveyId) ? Number(surveyId) : surveyId,
        enteredAt: cell("enteredAt").trim(),
        outcome: cell("outcome"),
      }),
    );
  },
);

/** One JSON object per line: `{"uid":…,"surveyId":…,"enteredAt":…,"outcome"?:…}`; blank lines are skipped. */
async function* historyJsonLines(chunks: AsyncIterable<string>): AsyncGenerator<CheckedLine<HistoryLine>> {
  for await (const { line, text } of readTextLines(chunks)) {
    if (text.trim() === "") continue;
    const checked = checkJsonLine(text);
    yield typeof checked === "string" ? { line, problem: checked } : { line, item: { line, entry: checked } };
  }
}

function checkJsonLine(text: string): HistoryEntry | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `is not JSON: ${(error as Error).message}`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return 'is not a JSON object such as {"uid":"r1","surveyId":123,"enteredAt":"2026-01-05T10:00:00Z"}';
  const unknown = Object.keys(value).filter((key) => !(fields as readonly string[]).includes(key));
  if (unknown.length > 0)
    return `unknown field${unknown.length === 1 ? "" : "s"} ${unknown.map((key) => JSON.stringify(key)).join(", ")}; the fields are ${fields.join(", ")}`;
  // Only own fields are read (a "__proto__" key is refused above as unknown).
  const read = (field: Field): unknown =>
    Object.hasOwn(value, field) ? (value as Record<string, unknown>)[field] : undefined;
  return checkEntry({
    uid: read("uid"),
    surveyId: read("surveyId"),
    enteredAt: read("enteredAt"),
    outcome: read("outcome") ?? "",
  });
}

function lined(line: number, checked: HistoryEntry | string): HistoryLine | string {
  return typeof checked === "string" ? checked : { line, entry: checked };
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
