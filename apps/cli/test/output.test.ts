import { describe, expect, it } from "vitest";
import { runSds, runSdsOnTerminal } from "./support/run-sds.ts";
import { useCliTestbed } from "./support/testbed.ts";

const testbed = useCliTestbed({ fake: { suppliers: [{ supplierId: 1001, apiKey: "output-test-key", surveys: 400 }] } });

describe("output formats and terminals", () => {
  it("prints a table on a terminal and JSON when piped; --output overrides both", async () => {
    const terminal = await runSdsOnTerminal(["collections", "industries", "--no-color"], testbed.home, {
      env: testbed.fake.env,
    });
    expect(terminal.stdout).toMatch(/^Id\s+Name\n\s+1\s+Technology\n/);
    const piped = await runSds(["collections", "industries"], testbed.home, { env: testbed.fake.env });
    expect(JSON.parse(piped.stdout)).toEqual(expect.arrayContaining([{ Id: 1, Name: "Technology" }]));
    const forcedJson = await runSdsOnTerminal(["collections", "industries", "-o", "json"], testbed.home, {
      env: testbed.fake.env,
    });
    expect(JSON.parse(forcedJson.stdout)).toEqual(JSON.parse(piped.stdout));
    const forcedTable = await runSds(["collections", "industries", "--output", "table"], testbed.home, {
      env: testbed.fake.env,
    });
    expect(forcedTable.stdout).toMatch(/^Id\s+Name\n/);
    expect(forcedTable.stdout).not.toContain("\u001b[");
  });

  it("takes --json as -o json, as gh users type it, and refuses it beside another format", async () => {
    const viaFlag = await runSdsOnTerminal(["collections", "industries", "--json"], testbed.home, {
      env: testbed.fake.env,
    });
    const viaOutput = await runSds(["collections", "industries", "-o", "json"], testbed.home, {
      env: testbed.fake.env,
    });
    expect(viaFlag.code).toBe(0);
    expect(JSON.parse(viaFlag.stdout)).toEqual(JSON.parse(viaOutput.stdout));
    const conflicting = await runSds(["collections", "industries", "--json", "-o", "csv"], testbed.home, {
      env: testbed.fake.env,
    });
    expect(conflicting).toMatchObject({
      code: 2,
      stdout: "",
      stderr: "error: --json and --output csv ask for different formats; pass one\n",
    });
    const withFields = await runSds(["surveys", "list", "--json=SurveyId"], testbed.home, { env: testbed.fake.env });
    expect(withFields.code).toBe(2);
    expect(withFields.stderr).toMatch(/^error: --json takes no value/);
  });

  it("colours a terminal table unless NO_COLOR or --no-color, and never colours piped data", async () => {
    const coloured = await runSdsOnTerminal(["collections", "industries"], testbed.home, { env: testbed.fake.env });
    expect(coloured.stdout).toContain("\u001b[1mId");
    for (const run of [
      await runSdsOnTerminal(["collections", "industries"], testbed.home, {
        env: { ...testbed.fake.env, NO_COLOR: "1" },
      }),
      await runSdsOnTerminal(["collections", "industries", "--no-color"], testbed.home, { env: testbed.fake.env }),
      await runSds(["collections", "industries", "-o", "table", "--color", "-o", "json"], testbed.home, {
        env: testbed.fake.env,
      }),
    ]) {
      expect(run.stdout).not.toContain("\u001b[");
    }
  });

  it("writes NDJSON one record per line and CSV with a header", async () => {
    const ndjson = await runSds(["collections", "languages", "-o", "ndjson"], testbed.home, { env: testbed.fake.env });
    const lines = ndjson.stdout.trimEnd().split("\n");
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty("CountryCode");
    const csv = await runSds(
      ["surveys", "list", "--fields", "SurveyId,Name", "-o", "csv", "--limit", "3"],
      testbed.home,
      { env: testbed.fake.env },
    );
    expect(csv.stdout.split("\r\n")).toHaveLength(5);
  });
});
