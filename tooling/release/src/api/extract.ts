import { readFileSync } from "node:fs";
import ts from "typescript";

/**
 * The public surface of one package as read from its built, rolled-up `dist/index.d.ts`: every
 * exported name, and every declaration of the file (exported or only referenced by an export),
 * printed without comments. Comments and formatting do not count as API; everything else does.
 */
export interface ApiSurface {
  /** `import … from "…"` lines: which other packages' types the surface uses. */
  readonly imports: readonly string[];
  /** Exported names, sorted; `Name` or `Local as Name`, `type` when type-only. */
  readonly exports: readonly string[];
  /** Declarations keyed by name, each printed on one or more lines, no blank line inside. */
  readonly declarations: ReadonlyMap<string, string>;
}

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/**
 * The bundler renames a local that collides with an import (`Survey$1`); the suffix depends on
 * declaration order, not on the API, so it is dropped.
 */
const withoutBundlerSuffixes = (text: string) => text.replace(/\b([A-Za-z_]\w*)\$\d+\b/g, "$1");

function declaredName(statement: ts.Statement): string | undefined {
  if (ts.isVariableStatement(statement)) {
    return statement.declarationList.declarations.map((declaration) => declaration.name.getText()).join(", ");
  }
  const named = statement as ts.Statement & { name?: ts.Node };
  return named.name?.getText();
}

/** Reads the surface from a `.d.ts` file. */
export function extractApiSurface(dtsPath: string): ApiSurface {
  const text = readFileSync(dtsPath, "utf8");
  const source = ts.createSourceFile(dtsPath, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const imports: string[] = [];
  const exports: string[] = [];
  const declarations = new Map<string, string>();

  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      imports.push(withoutBundlerSuffixes(printer.printNode(ts.EmitHint.Unspecified, statement, source)));
      continue;
    }
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const element of statement.exportClause.elements) {
        const local = element.propertyName ? withoutBundlerSuffixes(element.propertyName.getText()) : undefined;
        const name = element.name.getText();
        const typeOnly = statement.isTypeOnly || element.isTypeOnly;
        exports.push(`${typeOnly ? "type " : ""}${local !== undefined && local !== name ? `${local} as ` : ""}${name}`);
      }
      continue;
    }
    const declared = declaredName(statement);
    const name = declared === undefined ? undefined : withoutBundlerSuffixes(declared);
    const printed = withoutBundlerSuffixes(
      printer
        .printNode(ts.EmitHint.Unspecified, statement, source)
        .split("\n")
        .filter((line) => line.trim() !== "")
        .join("\n"),
    );
    if (name === undefined) {
      declarations.set(`(statement ${declarations.size + 1})`, printed);
      continue;
    }
    // Overloads and merged declarations (interface + namespace, function overloads) share a name.
    const previous = declarations.get(name);
    declarations.set(name, previous === undefined ? printed : `${previous}\n${printed}`);
  }

  const sortKey = (entry: string) =>
    entry
      .replace(/^type /, "")
      .split(" as ")
      .at(-1) ?? entry;
  exports.sort((a, b) => sortKey(a).localeCompare(sortKey(b)));
  return {
    imports: [...new Set(imports.map(dedupeImportNames))].sort(),
    exports,
    declarations: new Map([...declarations].sort(([a], [b]) => a.localeCompare(b))),
  };
}

/** `import { A, A as A } from "x"` (after dropping suffixes) becomes `import { A } from "x"`. */
function dedupeImportNames(line: string): string {
  return line.replace(/\{([^}]*)\}/, (_match, names: string) => {
    const unique = [
      ...new Set(
        names
          .split(",")
          .map((name) => name.trim())
          .filter((name) => name !== "")
          .map((name) => {
            const [local, alias] = name.split(/\s+as\s+/);
            return alias === local ? (local ?? name) : name;
          }),
      ),
    ];
    return `{ ${unique.join(", ")} }`;
  });
}
