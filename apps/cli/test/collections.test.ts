import { describe, expect, it } from "vitest";
import { runSds, runSdsOnTerminal } from "./support/run-sds.ts";
import { useCliTestbed } from "./support/testbed.ts";

const testbed = useCliTestbed();

const run = (...args: string[]) => runSds(args, testbed.home, { env: testbed.fake.env });

describe("sds collections", () => {
  const collections: readonly [string, string][] = [
    ["languages", "/api/v1/collection/languages"],
    ["industries", "/api/v1/collection/industries"],
    ["study-types", "/api/v1/collection/studytypes"],
    ["survey-statuses", "/api/v1/collection/surveystatuses"],
    ["qualification-categories", "/api/v1/collection/qualificationcategories"],
    ["qualification-category-types", "/api/v1/collection/qualificationcategorytypes"],
    ["qualification-types", "/api/v1/collection/qualificationtypes"],
    ["qualifications", "/api/v1/collection/qualifications"],
  ];

  for (const [name, path] of collections) {
    it(`lists ${name} from ${path}`, async () => {
      const result = await run("collections", name);
      expect(result.code).toBe(0);
      const records = JSON.parse(result.stdout) as { Id: unknown; Name?: string }[];
      expect(records.length).toBeGreaterThan(0);
      expect(records[0]).toHaveProperty("Id");
      expect(testbed.fake.api.requestLog().map((entry) => entry.path)).toEqual([path]);
    });
  }

  it("takes the spec's names in any case", async () => {
    const [kebab, spec, lower] = await Promise.all([
      run("collections", "study-types"),
      run("collections", "StudyTypes"),
      run("collections", "studytypes"),
    ]);
    expect(spec.stdout).toBe(kebab.stdout);
    expect(lower.stdout).toBe(kebab.stdout);
  });

  it("prints languages as a table with their country codes on a terminal, and as CSV", async () => {
    const table = await runSdsOnTerminal(["collections", "languages", "--no-color"], testbed.home, {
      env: testbed.fake.env,
    });
    expect(table.stdout).toMatch(/^Id\s+Name\s+CountryCode\n/);
    expect(table.stdout).toMatch(/\n\s+3\s+English - United States\s+US\n/);
    const csv = await run("collections", "languages", "-o", "csv");
    expect(csv.stdout.split("\r\n")[0]).toBe("Id,Name,CountryCode");
    expect(csv.stdout).toContain("\r\n3,English - United States,US\r\n");
  });

  it("lists the collection names without a NAME, and sends no request", async () => {
    const result = await run("collections");
    expect(result.code).toBe(0);
    const names = JSON.parse(result.stdout) as { Name: string; SpecName: string }[];
    expect(names.map((entry) => entry.Name)).toEqual(collections.map(([name]) => name));
    expect(names).toContainEqual({ Name: "study-types", SpecName: "StudyTypes" });
    expect(testbed.fake.api.requestLog()).toEqual([]);
    const table = await runSdsOnTerminal(["collections", "--no-color"], testbed.home, { env: testbed.fake.env });
    expect(table.stdout).toMatch(/^Name\s+SpecName\nlanguages\s+Languages\n/);
  });

  it("exits 2 for an unknown collection, naming the known ones", async () => {
    const result = await run("collections", "colours");
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: no collection "colours"\. Collections: languages, industries, study-types/);
  });
});

describe("sds collections qualification", () => {
  it("shows the question with its options", async () => {
    const result = await run("collections", "qualification", "3", "43");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      Id: 43,
      QuestionText: "What is your gender?",
      Options: [{ OptionText: "Male" }, { OptionText: "Female" }],
    });
    expect(testbed.fake.api.requestLog().map((entry) => entry.path)).toEqual([
      "/api/v1/collection/languages/3/qualifications/43",
    ]);
    const table = await runSdsOnTerminal(["collections", "qualification", "3", "43", "--no-color"], testbed.home, {
      env: testbed.fake.env,
    });
    expect(table.stdout).toMatch(/QuestionText\s+What is your gender\?/);
    expect(table.stdout).toContain("Options (2)");
    expect(table.stdout).toMatch(/43002\s+2\s+Female/);
  });

  it("exits 4 for an unknown qualification or language, and 2 for a missing id", async () => {
    expect((await run("collections", "qualification", "3", "999999")).code).toBe(4);
    expect((await run("collections", "qualification", "999", "43")).code).toBe(4);
    const missing = await run("collections", "qualification", "3");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: `sds collections qualification` needs QUALIFICATION_ID/);
  });
});
