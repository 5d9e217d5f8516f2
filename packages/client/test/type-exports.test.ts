import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Types of @sds/schemas that no call takes or returns, so @sds/client leaves them to
 * @sds/schemas: its parsing helpers' own types, the operations table's and the shared HTTP
 * router's (used by servers: the fake and sds-sync).
 */
const notPartOfAnyCall = new Set([
  "Device",
  "ItemwiseOptions",
  "ItemwiseResult",
  "OperationDefinition",
  "OperationEvidence",
  "ParsedRecontactRespondent",
  "ParsedSurveyGroup",
  "ParsedSurveyStats",
  "ParseRecontactRespondentsResult",
  "ParseSurveyGroupsResult",
  "ParseSurveyStatsResult",
  "SurveyDates",
  "SurveyNumbers",
  "SurveyStatsScope",
  "UrlSettingsUrlField",
]);

/** The exports of `file` that name a type, each with the declaration it resolves to. */
function typeExports(program: ts.Program, file: string): Map<string, ts.Symbol> {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (moduleSymbol === undefined) throw new Error(`${file} is not in the program`);
  const types = new Map<string, ts.Symbol>();
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    if (target.flags & ts.SymbolFlags.Type) types.set(symbol.name, target);
  }
  return types;
}

describe("the types of @sds/client's calls", () => {
  it("are all exported by @sds/client itself, so a consumer needs no direct @sds/schemas dependency", () => {
    const config = ts.getParsedCommandLineOfConfigFile(
      join(packageRoot, "tsconfig.json"),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
    );
    if (config === undefined) throw new Error("tsconfig.json could not be read");
    const clientEntry = join(packageRoot, "src", "index.ts");
    const schemasEntry = join(packageRoot, "..", "schemas", "src", "index.ts");
    const program = ts.createProgram({ rootNames: [clientEntry, schemasEntry], options: config.options });
    const fromSchemas = typeExports(program, schemasEntry);
    const fromClient = typeExports(program, clientEntry);

    const missing = [...fromSchemas.keys()].filter((name) => !notPartOfAnyCall.has(name) && !fromClient.has(name));
    expect(missing).toEqual([]);
    const different = [...fromSchemas]
      .filter(([name, symbol]) => fromClient.has(name) && fromClient.get(name) !== symbol)
      .map(([name]) => name);
    expect(different).toEqual([]);
    // The exceptions stay true: each is a type of @sds/schemas that the client does not export.
    expect([...notPartOfAnyCall].filter((name) => !fromSchemas.has(name) || fromClient.has(name))).toEqual([]);
  }, 60_000);
});
