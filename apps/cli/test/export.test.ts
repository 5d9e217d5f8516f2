import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Survey } from "@sds/schemas";
import { describe, expect, it, vi } from "vitest";
import { parseCsv } from "../src/framework/csv-reader.ts";
import { startFake } from "./support/fake-service.ts";
import { runSds, runSdsOnTerminal, startSds } from "./support/run-sds.ts";
import { useCliTestbed } from "./support/testbed.ts";

const testbed = useCliTestbed({
  fake: { seed: 11, suppliers: [{ supplierId: 1001, apiKey: "export-test-key", surveys: 25 }] },
});

interface ExportedRecord {
  readonly survey: Survey;
  readonly qualifications: readonly { readonly SurveyId: number }[];
  readonly quotas: readonly unknown[] | null;
}

const run = (...args: string[]) => runSds(args, testbed.home, { env: testbed.fake.env });
const liveSurveys = () => testbed.fake.api.listSurveys(1001);
const parseNdjson = (text: string) =>
  text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as ExportedRecord);

describe("sds export", () => {
  it("writes every live survey with its qualifications, and quotas where Has_Quotas, as NDJSON", async () => {
    const out = join(testbed.home.path, "surveys.ndjson");
    const result = await run("export", "--out", out);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("");
    const records = parseNdjson(readFileSync(out, "utf8"));
    expect(records.map((record) => record.survey.SurveyId)).toEqual(liveSurveys().map((survey) => survey.SurveyId));
    for (const record of records) {
      const stored = testbed.fake.api.getSurvey(record.survey.SurveyId);
      expect(record.qualifications).toEqual(stored?.qualifications);
      expect(record.quotas).toEqual(record.survey.Has_Quotas ? stored?.quotas : null);
    }
    expect(result.stderr).toBe(`Exported ${records.length} surveys to ${out} as ndjson.\n`);
  });

  it("writes a JSON array or CSV, by --format or by the file's extension, or to stdout", async () => {
    const jsonFile = join(testbed.home.path, "all.json");
    expect((await run("export", "--out", jsonFile)).code).toBe(0);
    const array = JSON.parse(readFileSync(jsonFile, "utf8")) as ExportedRecord[];
    expect(array).toHaveLength(liveSurveys().length);

    testbed.fake.api.clearRequestLog();
    const csv = await run("export", "--format", "csv", "--quotas", "none");
    const lines = csv.stdout.trimEnd().split("\r\n");
    expect(lines[0]).toMatch(/^SurveyId,Name,Cpi,.*,LengthOfInterview,Qualifications,Quotas$/);
    expect(lines).toHaveLength(liveSurveys().length + 1);
    expect(testbed.fake.api.requestLog().filter((entry) => entry.operationId === "getSurveyQuotas")).toEqual([]);

    const ndjson = await run("export");
    expect(parseNdjson(ndjson.stdout)).toHaveLength(liveSurveys().length);
    expect((await run("export", "-o", "table")).code).toBe(2);
  });

  it("writes qualifications and quotas in CSV as readable text, not JSON", async () => {
    const csv = await run("export", "--format", "csv", "--quotas", "all");
    expect(csv.code).toBe(0);
    const parsed = parseCsv(csv.stdout);
    if (!parsed.ok) throw new Error(`the export is not CSV: ${parsed.message}`);
    const [header, ...rows] = parsed.records.map((record) => record.fields);
    const column = (name: string) => header?.indexOf(name) ?? -1;
    expect(rows).toHaveLength(liveSurveys().length);
    for (const row of rows) {
      const surveyId = Number(row[column("SurveyId")]);
      const stored = testbed.fake.api.getSurvey(surveyId);
      const qualifications = row[column("Qualifications")] ?? "";
      const quotas = row[column("Quotas")] ?? "";
      expect(qualifications).not.toMatch(/[[{"]/);
      expect(quotas).not.toMatch(/[[{"]/);
      const qualificationIds =
        qualifications === "" ? [] : qualifications.split("; ").map((part) => Number(part.split("=")[0]));
      expect(qualificationIds).toEqual(stored?.qualifications.map((qualification) => qualification.QualificationId));
      for (const [index, quota] of (stored?.quotas ?? []).entries()) {
        const fields = quota as { QuotaId: number; Completes?: number; TargetCompletes?: number };
        expect(quotas.split(" | ")[index]).toMatch(
          new RegExp(`^${fields.QuotaId} .*${fields.Completes}/${fields.TargetCompletes}: (\\d+=\\S|all respondents)`),
        );
      }
      if ((stored?.quotas ?? []).length === 0) expect(quotas).toBe("");
    }
    expect(rows.some((row) => (row[column("Quotas")] ?? "") !== "")).toBe(true);
  });

  it("takes the filters of `sds surveys list`, under the same names, and exports the same surveys", async () => {
    const filters = ["--device", "mobile", "--min-cpi", "1", "--max-loi", "30"];
    const listed = JSON.parse((await run("surveys", "list", ...filters)).stdout) as Survey[];
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.length).toBeLessThan(liveSurveys().length);
    const exported = await run("export", ...filters);
    expect(exported.code).toBe(0);
    expect(parseNdjson(exported.stdout).map((record) => record.survey.SurveyId)).toEqual(
      listed.map((survey) => survey.SurveyId),
    );
    expect(exported.stderr).toBe(`Exported ${listed.length} of ${liveSurveys().length} live surveys as ndjson.\n`);
    const help = await run("export", "--help");
    for (const option of [
      "--language ID",
      "--country CODE",
      "--min-cpi",
      "--max-cpi",
      "--max-loi",
      "--min-ir",
      "--device",
      "--study-type",
      "--industry",
    ])
      expect(help.stdout).toContain(option);
    expect((await run("export", "--device", "phone")).code).toBe(2);
  });

  it("defuses formulas in CSV cells unless --raw-csv is given", async () => {
    const [first] = liveSurveys();
    if (first === undefined) throw new Error("the fake has no live survey");
    testbed.fake.api.updateSurvey(first.SurveyId, { Name: '=HYPERLINK("http://evil.example","open")' });
    try {
      const nameCell = (stdout: string) =>
        stdout
          .split("\r\n")
          .find((line) => line.startsWith(`${first.SurveyId},`))
          ?.split(",")[1];
      const defused = await run("export", "--format", "csv", "--quotas", "none");
      expect(defused.code).toBe(0);
      expect(nameCell(defused.stdout)).toBe(`"'=HYPERLINK(""http://evil.example""`);
      const raw = await run("export", "--format", "csv", "--quotas", "none", "--raw-csv");
      expect(nameCell(raw.stdout)).toBe(`"=HYPERLINK(""http://evil.example""`);
      const listed = await run("surveys", "list", "-o", "csv", "--fields", "SurveyId,Name");
      expect(listed.stdout).toContain(`${first.SurveyId},"'=HYPERLINK(""http://evil.example"",""open"")"\r\n`);
    } finally {
      testbed.fake.api.updateSurvey(first.SurveyId, { Name: first.Name });
    }
  });

  it("fetches quotas of every survey with --quotas all", async () => {
    await run("export", "--quotas", "all", "--out", join(testbed.home.path, "x.ndjson"));
    expect(testbed.fake.api.requestLog().filter((entry) => entry.operationId === "getSurveyQuotas")).toHaveLength(
      liveSurveys().length,
    );
  });

  it("reports surveys whose requests keep failing at the end and in the exit code, and writes the rest", async () => {
    const [first, second] = liveSurveys();
    testbed.fake.api.faults.add({
      kind: "status",
      status: 500,
      path: `/survey-qualifications/${String(first?.SurveyId)}`,
    });
    testbed.fake.api.faults.add({
      kind: "status",
      status: 500,
      path: `/survey-qualifications/${String(second?.SurveyId)}`,
    });
    const out = join(testbed.home.path, "partial.ndjson");
    const result = await run("export", "--out", out, "--concurrency", "8");
    expect(result.code).toBe(1);
    const records = parseNdjson(readFileSync(out, "utf8"));
    expect(records).toHaveLength(liveSurveys().length - 2);
    expect(records.map((record) => record.survey.SurveyId)).not.toContain(first?.SurveyId);
    expect(result.stderr).toContain(
      `warning: survey ${String(first?.SurveyId)}: qualifications: GET /survey-qualifications/${String(first?.SurveyId)} failed with HTTP 500`,
    );
    expect(result.stderr).toContain(`warning: survey ${String(second?.SurveyId)}: qualifications:`);
    expect(result.stderr).toMatch(
      /error: export incomplete: 2 surveys could not be exported\. The other surveys were written; run the export again to retry\.\n$/,
    );
  });

  it("exits with the failures' own code when they agree (5 for network failures)", async () => {
    const [first] = liveSurveys();
    testbed.fake.api.faults.add({
      kind: "connection-reset",
      path: `/survey-qualifications/${String(first?.SurveyId)}`,
    });
    const result = await run("export");
    expect(result.code).toBe(5);
    expect(parseNdjson(result.stdout)).toHaveLength(liveSurveys().length - 1);
  });

  it("recovers from a failure that the retries outlast", async () => {
    testbed.fake.api.faults.add({ kind: "status", status: 503, operation: "getSurveyQualifications", count: 2 });
    const result = await run("export");
    expect(result.code).toBe(0);
    expect(parseNdjson(result.stdout)).toHaveLength(liveSurveys().length);
  });

  it("exits 6 when surveys of the list fail validation, exporting the others", async () => {
    testbed.fake.api.addSurvey(1001, {
      survey: { SurveyId: 880_001, LanguageId: "three" } as unknown as Partial<Survey>,
      allowInvalid: true,
    });
    try {
      const result = await run("export");
      expect(result.code).toBe(6);
      expect(parseNdjson(result.stdout)).toHaveLength(liveSurveys().length - 1);
      expect(result.stderr).toContain("1 survey of the list failed validation");
    } finally {
      testbed.fake.api.removeSurvey(880_001);
    }
  });

  it("draws a progress bar on a terminal's stderr, and none when stderr is not a terminal", async () => {
    testbed.fake.api.faults.add({ kind: "latency", ms: 30, operation: "getSurveyQualifications" });
    const out = join(testbed.home.path, "tty.ndjson");
    const terminal = await runSdsOnTerminal(["export", "--out", out, "--concurrency", "2"], testbed.home, {
      env: testbed.fake.env,
    });
    expect(terminal.code).toBe(0);
    expect(terminal.stdout).toMatch(/Exporting .*\d+\/25/);
    expect(terminal.stdout).toContain("\r\u001b[2K");
    const piped = await run("export", "--out", out);
    expect(piped.stderr).not.toContain("Exporting");
    expect(piped.stderr).not.toContain("\r");
  });

  it("leaves no file behind when it cannot write, and when interrupted", async () => {
    const unwritable = await run("export", "--out", join(testbed.home.path, "no-such-dir", "x.ndjson"));
    expect(unwritable.code).toBe(1);
    expect(unwritable.stderr).toMatch(/^error: cannot write .*no-such-dir\/x\.ndjson: /);

    testbed.fake.api.faults.add({ kind: "latency", ms: 400, operation: "getSurveyQualifications" });
    const out = join(testbed.home.path, "interrupted.ndjson");
    const started = startSds(["export", "--out", out, "--concurrency", "1"], testbed.home, { env: testbed.fake.env });
    // Interrupted mid-export: once its temporary file is open and a slow answer is awaited.
    await vi.waitFor(
      () => {
        expect(readdirSync(testbed.home.path).filter((name) => name.endsWith(".tmp"))).toHaveLength(1);
        expect(testbed.fake.api.requestLog().map((entry) => entry.operationId)).toContain("getSurveyQualifications");
      },
      { timeout: 90_000, interval: 20 },
    );
    started.child.kill("SIGINT");
    const result = await started.result;
    expect(result.code).toBe(130);
    expect(result.stderr).toBe("error: interrupted\n");
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(testbed.home.path).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("stops fetching when the reader of its output quits (`sds export | head -1`), quietly", async () => {
    const big = await startFake({
      seed: 3,
      suppliers: [{ supplierId: 1001, apiKey: "export-epipe-key-1", surveys: 400 }],
    });
    try {
      const started = startSds(["export"], testbed.home, { env: big.env, timeoutMs: 60_000 });
      await started.waitForOutput("\n");
      // What `head -1` does after its line: close the read end of the pipe.
      started.child.stdout.destroy();
      const result = await started.result;
      expect(result.code).toBe(0);
      expect(result.stderr).toBe("");
      const fetched = big.api.requestLog().filter((entry) => entry.operationId === "getSurveyQualifications").length;
      // Before, every one of the 400 surveys was fetched before the first line was written.
      expect(fetched).toBeGreaterThan(0);
      expect(fetched).toBeLessThan(40);
    } finally {
      await big.close();
    }
  });

  it("writes the first survey before fetching the last, in list order", async () => {
    testbed.fake.api.faults.add({ kind: "latency", ms: 100, operation: "getSurveyQualifications" });
    const started = startSds(["export", "--concurrency", "2"], testbed.home, { env: testbed.fake.env });
    await started.waitForOutput("\n");
    const fetchedAtFirstLine = testbed.fake.api
      .requestLog()
      .filter((entry) => entry.operationId === "getSurveyQualifications").length;
    const result = await started.result;
    expect(result.code).toBe(0);
    expect(fetchedAtFirstLine).toBeLessThan(liveSurveys().length);
    expect(parseNdjson(result.stdout).map((record) => record.survey.SurveyId)).toEqual(
      liveSurveys().map((survey) => survey.SurveyId),
    );
  });

  it("rejects a concurrency outside 1 to 32", async () => {
    for (const value of ["0", "33", "two"]) expect((await run("export", "--concurrency", value)).code).toBe(2);
  });
});
