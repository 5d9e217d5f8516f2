// Fails when the package in the current directory has an import cycle. Every package's `lint`
// script runs it after ESLint, so the whole repository stays at zero cycles.
//
// dpdm reads each module with the TypeScript parser and counts every edge: `import type` (a
// cycle of types is still two modules that cannot be understood apart) and dynamic `import()`
// (a lazily loaded command that imports the table that loads it is still a cycle).
// eslint-plugin-import-x's no-cycle skips type-only imports, which is why it is not used.
//
// Usage: node ../../scripts/check-import-cycles.mjs [DIRECTORY]   (default: the current one)
import { existsSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { parseCircular, parseDependencyTree } from "dpdm";

const root = resolve(process.argv[2] ?? ".");
const folders = ["src", "test", "bench", "scripts"].filter((folder) => existsSync(join(root, folder)));
const entries = folders.map((folder) => `${folder}/**/*.{ts,mts,js,mjs}`);
const escaped = (root + sep).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// Only this package's own files are followed: other packages check themselves.
const tree = await parseDependencyTree(entries, {
  cwd: root,
  context: root,
  include: new RegExp(`^${escaped}`),
  exclude: /[\\/](node_modules|dist)[\\/]/,
  transform: false,
  skipDynamicImports: false,
  onProgress: () => undefined,
});
const cycles = parseCircular(tree, false);

if (cycles.length > 0) {
  console.error(`${cycles.length} import cycle${cycles.length === 1 ? "" : "s"} in ${relative(process.cwd(), root) || "."}:`);
  for (const cycle of cycles) console.error(`  ${[...cycle, cycle[0]].map((file) => relative(root, resolve(root, file))).join(" -> ")}`);
  console.error("Move what both sides need into a module that imports neither (a leaf), or pass it in.");
  process.exit(1);
}
console.log(`no import cycles in ${Object.keys(tree).filter((file) => tree[file] !== null).length} modules`);
