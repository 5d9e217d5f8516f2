import { mapCsvHeader, parseCsv } from "../../framework/csv-reader.ts";
import type { LineProblem } from "../../framework/input-file.ts";
import { loopTextProblem, MAX_REASON_LENGTH, outcomeKinds, parseOutcomeKind, type OutcomeKind } from "@sds/sync-client";

/** One line of a reconciliation file, checked. */
export interface ReconcileLine {
  /** The line of the file it starts on (the header is line 1). */
  readonly line: number;
  readonly token: string;
  readonly outcome: OutcomeKind;
  /** Left out when the cell is empty. */
  readonly reason?: string;
}

/** A reconciliation file read: its lines, or what is wrong with them (then nothing may be sent). */
export interface ReconcileFile {
  readonly lines: readonly ReconcileLine[];
  readonly problems: readonly LineProblem[];
}

const columns = { required: ["token", "outcome"], optional: ["reason"] } as const;

/**
 * Reads a CSV of reconciliations: a header naming `token`, `outcome` and optionally `reason` (in
 * any order, any case), then one line per correction. Every line is checked against sds-sync's
 * rules, and every problem is reported, not only the first.
 */
export function parseReconcileFile(text: string): ReconcileFile {
  const parsed = parseCsv(text);
  if (!parsed.ok) return { lines: [], problems: [{ line: parsed.line, message: parsed.message }] };
  const [header, ...records] = parsed.records;
  if (header === undefined)
    return {
      lines: [],
      problems: [{ line: 1, message: "the file is empty; its first line must be the header token,outcome[,reason]" }],
    };
  const mapped = mapCsvHeader(header.fields, columns.required, columns.optional);
  if (typeof mapped === "string") return { lines: [], problems: [{ line: header.line, message: mapped }] };
  const lines: ReconcileLine[] = [];
  const problems: LineProblem[] = [];
  for (const { line, fields } of records) {
    if (fields.length !== header.fields.length) {
      problems.push({ line, message: `has ${fields.length} fields, the header ${header.fields.length}` });
      continue;
    }
    const cell = (column: "token" | "outcome" | "reason") => {
      const index = mapped.get(column);
      return index === undefined ? "" : (fields[index] ?? "");
    };
    const token = cell("token");
    const outcome = parseOutcomeKind(cell("outcome"));
    const reason = cell("reason");
    const tokenProblem = loopTextProblem(token);
    // The reason is held to the rule of tokens (sds-sync's), with its own length; empty means none.
    const reasonProblem = reason === "" ? undefined : loopTextProblem(reason, MAX_REASON_LENGTH);
    const lineProblems = [
      tokenProblem === undefined ? undefined : `the token ${tokenProblem}`,
      outcome === undefined
        ? `the outcome ${JSON.stringify(cell("outcome"))} is not one of ${outcomeKinds.join(", ")}`
        : undefined,
      reasonProblem === undefined ? undefined : `the reason ${reasonProblem}`,
    ].filter((problem) => problem !== undefined);
    if (lineProblems.length > 0 || outcome === undefined) problems.push({ line, message: lineProblems.join("; ") });
    else lines.push({ line, token, outcome, ...(reason === "" ? {} : { reason }) });
  }
  return { lines, problems };
}
