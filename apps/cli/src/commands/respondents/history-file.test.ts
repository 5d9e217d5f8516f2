import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { LineProblem } from "../../framework/input-file.ts";
import { historyLines, type HistoryLine } from "./history-file.ts";

/** A history file's text, checked as `sds respondents import` checks it (one chunk of the stream). */
async function checkHistoryFile(text: string): Promise<{ entries: HistoryLine[]; problems: LineProblem[] }> {
  const entries: HistoryLine[] = [];
  const problems: LineProblem[] = [];
  for await (const checked of historyLines("csv")(Readable.from([text]))) {
    if ("item" in checked) entries.push(checked.item);
    else problems.push({ line: checked.line, message: checked.problem });
  }
  return { entries, problems };
}

describe("historyLines", () => {
  it("refuses entry times before 2000 and in the future, as sds-sync would, before anything is sent", async () => {
    const ahead = new Date(Date.now() + 60 * 60_000).toISOString();
    const parsed = await checkHistoryFile(
      [
        "uid,surveyId,enteredAt",
        "ok,7,2026-01-05T10:00:00Z",
        "year-zero,7,0000-06-01T00:00:00Z",
        "far-ahead,7,9999-12-31T00:00:00Z",
        `hour-ahead,7,${ahead}`,
        "last-century,7,1999-12-31T23:59:59Z",
        "",
      ].join("\n"),
    );
    expect(parsed.entries.map((entry) => entry.entry.uid)).toEqual(["ok"]);
    expect(parsed.problems.map((problem) => problem.line)).toEqual([3, 4, 5, 6]);
    const [yearZero, farAhead, hourAhead, lastCentury] = parsed.problems.map((problem) => problem.message);
    expect(yearZero).toBe('enteredAt "0000-06-01T00:00:00Z" must be 2000-01-01T00:00:00Z or later');
    expect(farAhead).toMatch(/^enteredAt "9999-12-31T00:00:00Z" must not be in the future/);
    expect(hourAhead).toMatch(/^enteredAt "[^"]+" must not be in the future \(more than 5 minutes/);
    expect(lastCentury).toBe('enteredAt "1999-12-31T23:59:59Z" must be 2000-01-01T00:00:00Z or later');
  });
});
