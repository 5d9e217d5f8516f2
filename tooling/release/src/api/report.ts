import type { ApiSurface } from "./extract.ts";

/*
 * The committed report: Markdown with the exports and then every declaration, each under a
 * `// Name` line, so that a diff in review reads like a diff of the types. `parseReport` reads
 * it back for the comparison with the last release.
 */

const DECLARATION_HEADER = /^\/\/ (.+)$/;

/**
 * Renders a surface as the committed report of `packageName`. `internalSubpaths` are the
 * package's `./internal/*` exports: named in the report as internal, not covered by it.
 */
export function renderReport(
  packageName: string,
  surface: ApiSurface,
  internalSubpaths: readonly string[] = [],
): string {
  const declarations = [...surface.declarations].map(([name, text]) => `// ${name}\n${text}`).join("\n\n");
  const internal = internalSubpaths.map((subpath) => `\`${packageName}${subpath.slice(1)}\``).join(", ");
  return [
    `# API report: ${packageName}`,
    "",
    "Generated from the built `dist/index.d.ts` by `pnpm api:update`; do not edit by hand. The",
    "check fails when the build no longer matches this file, or when it differs from the last",
    "release's report without a changeset of the matching bump (docs/CONTRIBUTING.md).",
    "",
    ...(internalSubpaths.length === 0
      ? []
      : [
          `Internal, not public API and not in this report: ${internal}. This repository's own`,
          "packages import it; it may change in any release, without a changeset's bump.",
          "",
        ]),
    "## Exports",
    "",
    "```ts",
    "export {",
    ...surface.exports.map((name) => `  ${name},`),
    "};",
    "```",
    "",
    "## Declarations",
    "",
    "```ts",
    ...surface.imports,
    ...(surface.imports.length > 0 ? [""] : []),
    declarations,
    "```",
    "",
  ].join("\n");
}

/** Reads a report written by {@link renderReport} back into a surface. */
export function parseReport(text: string): ApiSurface {
  const blocks = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
  const [exportBlock = "", declarationBlock = ""] = blocks;
  const exports = exportBlock
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && line !== "export {" && line !== "};")
    .map((line) => line.replace(/,$/, ""));
  const imports: string[] = [];
  const declarations = new Map<string, string>();
  for (const chunk of declarationBlock.split("\n\n")) {
    const lines = chunk.split("\n").filter((line) => line !== "");
    const header = DECLARATION_HEADER.exec(lines[0] ?? "");
    if (header?.[1] !== undefined) {
      declarations.set(header[1], lines.slice(1).join("\n"));
    } else {
      imports.push(...lines.filter((line) => line.startsWith("import ")));
    }
  }
  return { imports, exports, declarations };
}

/** What a change of surface is, for semver. */
export interface SurfaceDiff {
  /** Removed exports or declarations, and declarations changed other than by additions. */
  readonly breaking: readonly string[];
  /** New exports or declarations, and declarations that only gained lines (members). */
  readonly additions: readonly string[];
}

/** Whether every line of `before` appears in `after`, in order: `after` only added lines. */
function onlyAddedLines(before: string, after: string): boolean {
  const afterLines = after.split("\n");
  let index = 0;
  for (const line of before.split("\n")) {
    while (index < afterLines.length && afterLines[index] !== line) index++;
    if (index === afterLines.length) return false;
    index++;
  }
  return true;
}

/**
 * Classifies the change from `before` (the last release) to `after` (the build). Conservative:
 * any changed line of a declaration counts as breaking, even when a human might call it safe
 * (a new optional parameter); a new line (member) counts as an addition.
 */
export function diffSurfaces(before: ApiSurface, after: ApiSurface): SurfaceDiff {
  const breaking: string[] = [];
  const additions: string[] = [];
  const afterExports = new Set(after.exports);
  const beforeExports = new Set(before.exports);
  for (const name of before.exports)
    if (!afterExports.has(name)) breaking.push(`export \`${name}\` removed or changed`);
  for (const name of after.exports) if (!beforeExports.has(name)) additions.push(`export \`${name}\` added`);
  for (const [name, text] of before.declarations) {
    const next = after.declarations.get(name);
    if (next === undefined) breaking.push(`\`${name}\` removed`);
    else if (next !== text)
      (onlyAddedLines(text, next) ? additions : breaking).push(
        `\`${name}\` ${onlyAddedLines(text, next) ? "gained members" : "changed"}`,
      );
  }
  for (const name of after.declarations.keys()) if (!before.declarations.has(name)) additions.push(`\`${name}\` added`);
  return { breaking, additions };
}
