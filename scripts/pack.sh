#!/usr/bin/env bash
# Packs one workspace package and every workspace package it depends on (its "workspace:"
# dependencies, peer and optional ones included, transitively) into DEST as npm tarballs, the way
# they would be published (workspace: and catalog: versions resolved by pnpm pack). Nothing is
# published yet, so this is how to use a package outside the repository:
#   bash scripts/pack.sh @sds/client ./out
#   npm install ./out/*.tgz
# It builds what it packs first (turbo, cached); --no-build skips that (build yourself before).
# Prints the tarballs and the npm install line that installs them together.
set -euo pipefail

usage="usage: bash scripts/pack.sh [--no-build] PACKAGE DEST   (for example: bash scripts/pack.sh @sds/client ./out)"
build=1
if [ "${1:-}" = "--no-build" ]; then
  build=0
  shift
fi
case "${1:-}" in -h | --help) echo "$usage"; exit 0 ;; esac
if [ "$#" -ne 2 ] || [ -z "$1" ] || [ -z "$2" ]; then
  echo "$usage" >&2
  exit 64
fi
package="$1"
dest_argument="${2%/}"; dest_argument="${dest_argument:-/}"
mkdir -p "$dest_argument"
dest="$(cd "$dest_argument" && pwd)"

source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

# The folders to pack, the package's first; an unknown or private package is refused by name.
folders="$(node --input-type=module - "$package" <<'NODE'
import { existsSync, readdirSync, readFileSync } from "node:fs";
const wanted = process.argv[2];
const manifests = new Map();
for (const parent of ["packages", "apps", "tooling"]) {
  if (!existsSync(parent)) continue;
  for (const folder of readdirSync(parent)) {
    const file = `${parent}/${folder}/package.json`;
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, "utf8"));
    manifests.set(manifest.name, { folder: `${parent}/${folder}`, manifest });
  }
}
const publishable = [...manifests].filter(([, { manifest }]) => manifest.private !== true).map(([name]) => name).sort();
const found = manifests.get(wanted);
if (found === undefined || found.manifest.private === true) {
  console.error(`pack: ${JSON.stringify(wanted)} is ${found === undefined ? "not a package of this workspace" : "private: it is never published"}; one of ${publishable.join(", ")}`);
  process.exit(64);
}
const closure = [];
const queue = [wanted];
while (queue.length > 0) {
  const name = queue.shift();
  if (closure.includes(name)) continue;
  closure.push(name);
  const { manifest } = manifests.get(name);
  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    for (const [dependency, range] of Object.entries(manifest[field] ?? {})) {
      if (!String(range).startsWith("workspace:")) continue;
      if (!manifests.has(dependency)) {
        console.error(`pack: ${name} depends on ${dependency}, which no folder of the workspace holds`);
        process.exit(1);
      }
      queue.push(dependency);
    }
  }
}
console.log(closure.map((name) => manifests.get(name).folder).join("\n"));
NODE
)"

if [ "$build" = 1 ]; then
  filters=()
  for folder in $folders; do filters+=("--filter=./$folder"); done
  # turbo prints a banner and a summary on every run: shown only when the build fails.
  if ! build_log="$(pnpm exec turbo run build "${filters[@]}" --output-logs=errors-only 2>&1)"; then
    printf '%s\n' "$build_log" >&2
    echo "pack: the build failed (its output is above)" >&2
    exit 1
  fi
fi

tarballs=()
for folder in $folders; do
  # pnpm pack prints the tarball's path last; the file list before it is noise here.
  tarball="$(cd "$folder" && pnpm pack --pack-destination "$dest" | tail -n 1)"
  tarballs+=("$dest_argument/$(basename "$tarball")")
done

echo "Packed $package with its workspace dependencies into $dest_argument:"
printf '  %s\n' "${tarballs[@]}"
echo "Install them together (npm resolves the other dependencies from the registry):"
echo "  npm install ${tarballs[*]}"
