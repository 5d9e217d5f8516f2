/**
 * Where a `.cpuprofile` spent its time (`node bench/profile-summary.ts FILE [TOP]`): the
 * functions with the most self time, and the functions of this repository with the most total
 * time (self and callees), each as `file:line function` with its share of all samples.
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
}

const [file, topArgument] = process.argv.slice(2);
if (file === undefined) throw new Error("usage: node bench/profile-summary.ts FILE.cpuprofile [TOP]");
const top = Number(topArgument ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

const nameOf = (node: ProfileNode): string => {
  const { functionName, url, lineNumber } = node.callFrame;
  const where =
    url === ""
      ? ""
      : `${url.replace(/^file:\/\//, "").replace(/^.*?\/(apps|packages|node_modules)\//, "$1/")}:${lineNumber + 1} `;
  return `${where}${functionName === "" ? "(anonymous)" : functionName}`;
};

const self = new Map<string, number>();
const total = new Map<string, number>();
for (const sample of profile.samples) {
  const node = byId.get(sample);
  if (node === undefined) continue;
  self.set(nameOf(node), (self.get(nameOf(node)) ?? 0) + 1);
  // Each function once per sample, however often it recurs on the stack.
  const seen = new Set<string>();
  for (let id: number | undefined = sample; id !== undefined; id = parentOf.get(id)) {
    const frame = byId.get(id);
    if (frame === undefined) break;
    const name = nameOf(frame);
    if (seen.has(name)) continue;
    seen.add(name);
    total.set(name, (total.get(name) ?? 0) + 1);
  }
}

const share = (count: number) => `${((100 * count) / profile.samples.length).toFixed(1).padStart(5)} %`;
console.log(`${profile.samples.length} samples\n\nself time:`);
for (const [name, count] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`${share(count)}  ${name}`);
console.log("\ntotal time, functions of apps/ and packages/:");
const ours = [...total].filter(([name]) => /^(apps|packages)\//.test(name) && !name.includes("node_modules"));
for (const [name, count] of ours.sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${share(count)}  ${name}`);
