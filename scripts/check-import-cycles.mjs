// Fails when the package in the current directory has an import cycle. Every package's `lint`
// script runs it after ESLint, so the whole repository stays at zero cycles.
//
// dpdm reads each module with the TypeScript parser and counts every edge: `import type` (a
// cycle of types is still two modules that cannot be understood apart) and dynamic `import()`
// (a lazily loaded command that imports the table that loads it is still a cycle).
// eslint-plugin-import-x's no-cycle skips type-only imports, which is why it is not used.
//
// With `--folders DIR` (such as `--folders src`), the folders right under DIR must also form no
// cycle: a module of folder A importing folder B is an arrow A -> B, and no chain of arrows may
// lead back to A (a feature's room depends on mechanism below it, never the other way round).
//
// Usage: node ../../scripts/check-import-cycles.mjs [DIRECTORY] [--folders DIR]   (default: the current one)
import { existsSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { parseCircular, parseDependencyTree } from "dpdm";

const args = process.argv.slice(2);
const foldersFlag = args.indexOf("--folders");
const foldersOf = foldersFlag === -1 ? undefined : args.splice(foldersFlag, 2)[1];
const root = resolve(args[0] ?? ".");
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
  console.error(
    `${cycles.length} import cycle${cycles.length === 1 ? "" : "s"} in ${relative(process.cwd(), root) || "."}:`,
  );
  for (const cycle of cycles)
    console.error(`  ${[...cycle, cycle[0]].map((file) => relative(root, resolve(root, file))).join(" -> ")}`);
  console.error("Move what both sides need into a module that imports neither (a leaf), or pass it in.");
  process.exit(1);
}
if (foldersOf !== undefined) checkFolderCycles(tree, join(root, foldersOf));
console.log(`no import cycles in ${Object.keys(tree).filter((file) => tree[file] !== null).length} modules`);

/** Fails when the folders right under `base` import each other in a cycle; prints one cycle and the imports that make it. */
function checkFolderCycles(tree, base) {
  const folderOf = (file) => {
    const path = relative(base, resolve(root, file));
    if (path.startsWith("..") || !path.includes(sep)) return path.startsWith("..") ? undefined : ".";
    return path.split(sep)[0];
  };
  const arrows = new Map();
  for (const [file, dependencies] of Object.entries(tree)) {
    const from = folderOf(file);
    if (from === undefined || dependencies === null) continue;
    for (const dependency of dependencies) {
      const to = dependency.id === null ? undefined : folderOf(dependency.id);
      if (to === undefined || to === from) continue;
      const key = `${from} -> ${to}`;
      if (!arrows.has(key))
        arrows.set(
          key,
          `${relative(root, resolve(root, file))} imports ${relative(root, resolve(root, dependency.id))}`,
        );
    }
  }
  const next = new Map();
  for (const key of arrows.keys()) {
    const [from, to] = key.split(" -> ");
    if (!next.has(from)) next.set(from, new Set());
    next.get(from).add(to);
  }
  // A path back to the start, by depth-first search from every arrow's head.
  const pathBack = (start, goal) => {
    const seen = new Set([start]);
    const stack = [[start]];
    while (stack.length > 0) {
      const path = stack.pop();
      for (const folder of next.get(path.at(-1)) ?? []) {
        if (folder === goal) return [...path, folder];
        if (!seen.has(folder)) {
          seen.add(folder);
          stack.push([...path, folder]);
        }
      }
    }
    return undefined;
  };
  for (const key of arrows.keys()) {
    const [from, to] = key.split(" -> ");
    const back = pathBack(to, from);
    if (back === undefined) continue;
    const cycle = [from, ...back];
    console.error(`a cycle between the folders of ${relative(root, base)}: ${cycle.join(" -> ")}`);
    for (let index = 0; index + 1 < cycle.length; index++)
      console.error(`  ${arrows.get(`${cycle[index]} -> ${cycle[index + 1]}`)}`);
    console.error(
      "A feature depends on mechanism below it, never the other way round: move what both need into a lower folder, or pass it in.",
    );
    process.exit(1);
  }
  console.log(
    `no import cycles between the ${new Set([...arrows.keys()].flatMap((key) => key.split(" -> "))).size} folders of ${relative(root, base)}`,
  );
}
