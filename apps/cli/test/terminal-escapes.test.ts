import { describe, expect, it } from "vitest";
import { runSds, runSdsOnTerminal } from "./support/run-sds.ts";
import { useCliTestbed } from "./support/testbed.ts";

/*
 * Text from the marketplace reaches the terminal: a survey's name, a quota's, a reconciliation's
 * reason. A terminal acts on the control characters in it (clearing the screen, opening a link
 * that shows other text, overwriting what was printed), so sds prints them as visible escapes.
 */

const clearScreen = "\u001b[2J";
const osc8Link = "\u001b]8;;https://evil.example\u001b\\click here\u001b]8;;\u001b\\";
const backspaces = "paid\b\b\b\bfree";
const c1Csi = "\u009b31mred";
const hostileName = `Survey ${clearScreen}${osc8Link} ${backspaces} ${c1Csi}`;

const testbed = useCliTestbed({
  fake: {
    suppliers: [
      {
        supplierId: 1001,
        apiKey: "escapes-test-key",
        surveys: [
          {
            survey: { SurveyId: 701, Name: hostileName, Cpi: "1.00", LanguageId: 3 },
            quotas: [
              { QuotaId: 9701, Name: `Quota ${clearScreen}`, TargetCompletes: 10, Completes: 1, Conditions: [] },
            ],
          },
        ],
      },
    ],
  },
});

/** The control characters a terminal acts on: C0 but tab and line feed, DEL and C1. */
// eslint-disable-next-line no-control-regex -- finding them is the point
const terminalControls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe("text from the marketplace on a terminal", () => {
  it("prints a table cell's escape sequences, backspaces and C1 controls as visible escapes, never raw", async () => {
    const result = await runSds(["surveys", "list", "--fields", "SurveyId,Name", "-o", "table"], testbed.home, {
      env: testbed.fake.env,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toMatch(terminalControls);
    expect(result.stdout).toContain(
      "Survey \\x1b[2J\\x1b]8;;https://evil.example\\x1b\\click here\\x1b]8;;\\x1b\\ paid\\x08\\x08\\x08\\x08free \\x9b31mred",
    );
  });

  it("keeps sds's own colours on a colour terminal while showing the marketplace's escapes", async () => {
    const result = await runSdsOnTerminal(["surveys", "show", "701", "--color"], testbed.home, {
      env: testbed.fake.env,
      columns: 400,
    });
    expect(result.code, result.stdout).toBe(0);
    // eslint-disable-next-line no-control-regex -- removing sds's own styles is the point
    const withoutOwnStyles = result.stdout.replace(/\u001b\[(?:1|2|22|31|32|33|36|39)m/g, "");
    expect(withoutOwnStyles).not.toMatch(terminalControls);
    expect(result.stdout).toContain("\u001b[1m");
    expect(result.stdout).toContain("Quota \\x1b[2J");
    expect(result.stdout).toContain("\\x9b31mred");
  });

  it("leaves JSON exact: JSON escapes the controls itself", async () => {
    const result = await runSds(["surveys", "show", "701", "-o", "json"], testbed.home, { env: testbed.fake.env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(JSON.stringify(hostileName));
  });
});
