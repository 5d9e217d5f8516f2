#!/usr/bin/env bash
# Packs @sds/sync and every workspace package it depends on (its "workspace:" dependencies,
# transitively) into DEST as npm tarballs, the way they are published (workspace: and catalog:
# versions resolved). Build first (pnpm exec turbo run build --filter=@sds/sync...). Used by the
# Dockerfile and by test/install.system.test.ts, so the image installs exactly what the test installs.
#   apps/sync/deploy/pack-tarballs.sh /tmp/sds-tarballs
set -euo pipefail
dest="${1:?usage: pack-tarballs.sh DEST}"
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
# The folders of @sds/sync and of its workspace dependencies, found from the package.json files.
folders="$(cd "$root" && node --input-type=module -e '
  import { readFileSync, readdirSync, existsSync } from "node:fs";
  const byName = new Map();
  for (const parent of ["packages", "apps"]) for (const folder of readdirSync(parent)) {
    const file = `${parent}/${folder}/package.json`;
    if (existsSync(file)) byName.set(JSON.parse(readFileSync(file, "utf8")).name, `${parent}/${folder}`);
  }
  const wanted = new Set(); const queue = ["@sds/sync"];
  while (queue.length > 0) {
    const name = queue.shift();
    if (wanted.has(name)) continue;
    wanted.add(name);
    const dependencies = JSON.parse(readFileSync(`${byName.get(name)}/package.json`, "utf8")).dependencies ?? {};
    for (const [dependency, range] of Object.entries(dependencies)) if (String(range).startsWith("workspace:")) queue.push(dependency);
  }
  console.log([...wanted].map((name) => byName.get(name)).join("\n"));
')"
for folder in $folders; do
  (cd "$root/$folder" && pnpm pack --pack-destination "$dest" >/dev/null)
done
ls "$dest"/*.tgz
