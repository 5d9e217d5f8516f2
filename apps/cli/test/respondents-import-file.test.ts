import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestHome, runSds, type TestHome } from "./support/run-sds.ts";

/*
 * `sds respondents import` refuses a file with invalid lines before anything is sent: read as a
 * stream, it keeps only the first problems and a count. No sds-sync is needed (nothing listens
 * at the URL): a refused file never reaches it.
 */

let home: TestHome;
beforeEach(() => {
  home = createTestHome();
});
afterEach(() => {
  home.remove();
});

const env = { SDS_SYNC_URL: "http://127.0.0.1:9", SYNC_API_TOKEN: "" };

describe("sds respondents import of a file with invalid lines", () => {
  it("lists the first 50 problems as FILE:LINE, counts the rest, and sends nothing", async () => {
    const lines = Array.from({ length: 60 }, (_, index) => `r-${index},not-a-survey,2026-01-05T10:00:00Z`);
    const path = join(home.path, "history.csv");
    writeFileSync(path, `uid,surveyId,enteredAt\n${lines.join("\n")}\nr-ok,42,2026-01-05T10:00:00Z\n`);
    const result = await runSds(["respondents", "import", path], home, { env });
    expect(result.code).toBe(2);
    const listed = result.stderr.split("\n").filter((line) => line.startsWith(`${path}:`));
    expect(listed).toHaveLength(50);
    expect(listed[0]).toBe(`${path}:2: surveyId "not-a-survey" is not a positive whole number`);
    expect(listed.at(-1)).toBe(`${path}:51: surveyId "not-a-survey" is not a positive whole number`);
    expect(result.stderr).toContain("… and 10 more\n");
    expect(result.stderr).toContain(`error: ${path} has 60 invalid lines (listed above); nothing was sent.`);
  });

  it("names standard input as stdin, with the line", async () => {
    const result = await runSds(["respondents", "import", "-", "--format", "jsonl"], home, {
      env,
      input: '{"uid":"r-1","surveyId":42,"enteredAt":"2026-01-05T10:00:00Z"}\n\nnot json\n',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^stdin:3: is not JSON: /m);
    expect(result.stderr).toContain("error: standard input has 1 invalid line (listed above); nothing was sent.");
  });
});
