#!/usr/bin/env bash
# Cuts the first release of every public package, for the lead, once, at the end of a session
# on a clean main (docs/RELEASING.md):
#   1. deletes every pending changeset (their notes describe work before any release);
#   2. writes one "Initial release" changeset per public package still at 0.0.0 (minor: 0.1.0);
#   3. runs `changeset version` (versions, CHANGELOG.md files, internal ranges);
#   4. refreshes the lockfile and the API reports (the reports of this commit are the baseline
#      the API check compares against from now on).
# It commits nothing: review `git diff`, then commit everything it changed in one commit.
set -euo pipefail
source "$(dirname "$0")/env.sh" >/dev/null
cd "$(dirname "$0")/.."

if ! git diff --quiet HEAD; then
  echo "cut-first-release: the work tree has uncommitted changes; commit or stash them first" >&2
  exit 1
fi

node --input-type=module - <<'NODE'
import { execFileSync } from "node:child_process";
import { readdirSync, rmSync, writeFileSync } from "node:fs";

for (const file of readdirSync(".changeset")) {
  if (file.endsWith(".md") && file !== "README.md") rmSync(`.changeset/${file}`);
}
const workspace = JSON.parse(execFileSync("pnpm", ["-r", "ls", "--json", "--depth=-1"], { encoding: "utf8" }));
let written = 0;
for (const entry of workspace) {
  if (entry.private || entry.version !== "0.0.0") continue;
  const manifest = JSON.parse(execFileSync("cat", [`${entry.path}/package.json`], { encoding: "utf8" }));
  const slug = entry.name.replace(/^@/, "").replace("/", "-");
  writeFileSync(
    `.changeset/initial-release-${slug}.md`,
    `---\n"${entry.name}": minor\n---\nInitial release: ${manifest.description}.\n`,
  );
  written++;
}
console.log(`cut-first-release: ${written} "Initial release" changesets written`);
NODE

pnpm exec changeset version
pnpm install --lockfile-only --reporter=silent
pnpm api:update
echo "cut-first-release: done. Review \`git status\` and \`git diff\`, then:"
echo "  git add -A && git commit -m \"Initial release of every package (0.1.0)\""
