import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { extractApiSurface, type ApiSurface } from "./extract.ts";
import { diffSurfaces, parseReport, renderReport } from "./report.ts";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** The surface of a `.d.ts` with this text, as a build would leave it. */
function surfaceOf(dts: string): ApiSurface {
  const directory = mkdtempSync(join(tmpdir(), "api-report-"));
  directories.push(directory);
  const path = join(directory, "index.d.ts");
  writeFileSync(path, dts);
  return extractApiSurface(path);
}

const released = `import { z } from "zod";
/** Options. */
interface Options {
  /** The timeout. */
  readonly timeout?: number;
}
declare function connect(url: string, options?: Options): Promise<void>;
declare const Survey$1: z.ZodObject<{
  SurveyId: z.ZodInt;
}>;
export { Options, Survey$1 as Survey, connect };
`;

describe("API reports", () => {
  it("read back exactly what they were rendered from, comments and bundler suffixes left out", () => {
    const surface = surfaceOf(released);
    const report = renderReport("@sds/example", surface);
    expect(report).not.toContain("The timeout");
    expect(report).not.toContain("$1");
    const parsed = parseReport(report);
    expect(parsed.exports).toEqual(surface.exports);
    expect([...parsed.declarations]).toEqual([...surface.declarations]);
    expect(diffSurfaces(parsed, surface)).toEqual({ breaking: [], additions: [] });
  });

  it("name a package's internal subpaths as not public API, and read back the same surface", () => {
    const surface = surfaceOf(released);
    const report = renderReport("@sds/example", surface, ["./internal/router"]);
    expect(report).toContain("Internal, not public API and not in this report: `@sds/example/internal/router`.");
    expect(renderReport("@sds/example", surface)).not.toContain("Internal");
    expect(diffSurfaces(parseReport(report), surface)).toEqual({ breaking: [], additions: [] });
  });

  it("count a new export or a new member as an addition only", () => {
    const next = released
      .replace("readonly timeout?: number;", "readonly timeout?: number;\n  readonly retries?: number;")
      .replace("SurveyId: z.ZodInt;", "SurveyId: z.ZodInt;\n  Name: z.ZodString;")
      .replace("export {", "declare const version: string;\nexport { version,");
    const diff = diffSurfaces(surfaceOf(released), surfaceOf(next));
    expect(diff.breaking).toEqual([]);
    expect(diff.additions).toEqual([
      "export `version` added",
      "`Options` gained members",
      "`Survey` gained members",
      "`version` added",
    ]);
  });

  it("count a removed export, a removed member or a changed signature as breaking", () => {
    const next = released
      .replace("declare function connect(url: string,", "declare function connect(url: URL,")
      .replace("  SurveyId: z.ZodInt;\n", "")
      .replace("Options, ", "");
    const diff = diffSurfaces(surfaceOf(released), surfaceOf(next));
    expect(diff.breaking).toEqual(["export `Options` removed or changed", "`connect` changed", "`Survey` changed"]);
  });

  it("count every declaration as added against a package with no release yet", () => {
    const empty: ApiSurface = { imports: [], exports: [], declarations: new Map() };
    const diff = diffSurfaces(empty, surfaceOf(released));
    expect(diff.breaking).toEqual([]);
    expect(diff.additions).toContain("export `connect` added");
  });
});
