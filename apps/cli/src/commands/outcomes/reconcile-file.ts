import { readCheckedCsv } from "../../framework/checked-csv.ts";
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

/**
 * Reads a CSV of reconciliations as it streams: a header naming `token`, `outcome` and
 * optionally `reason` (in any order, any case), then one line per correction, each checked
 * against sds-sync's rules (every problem of a line is named, not only the first).
 */
export const reconcileLines = readCheckedCsv(
  { required: ["token", "outcome"], optional: ["reason"] },
  (cell, line): ReconcileLine | string => {
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
    if (lineProblems.length > 0 || outcome === undefined) return lineProblems.join("; ");
    return { line, token, outcome, ...(reason === "" ? {} : { reason }) };
  },
);
