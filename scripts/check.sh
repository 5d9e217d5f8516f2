#!/usr/bin/env bash
# Every check: build, lint, typecheck, tests, publint and are-the-types-wrong, then one closing
# line "N passed, M failed" summed over every package's Vitest JSON report.
set -euo pipefail
source "$(dirname "$0")/env.sh"
bash scripts/install-system-tools.sh || echo "setup: could not install the system tools; tests that need them fail under CI" >&2

find packages apps tooling -maxdepth 2 -name '*test-results.json' -delete
status=0
pnpm exec turbo run build lint typecheck test publint --output-logs=errors-only --continue || status=$?
# The layout of code and data is Prettier's (applied with `pnpm format`); a file it would change fails the check.
pnpm -s format:check || status=$?
node tooling/release/src/package-metadata.ts --check || status=$?
node tooling/release/src/api-report.ts --check || status=$?
# The API reference (TypeDoc, warnings as errors) into docs/api/.
pnpm -s docs || status=$?
# The end-to-end release test: a temporary copy is versioned, built and published to a private
# registry, then installed and used from outside the workspace (tooling/release/src/release-test).
pnpm --filter @sds/release-tooling test:release || status=$?
# The client and testing suites again, on the lowest Node the packages declare (engines).
bash scripts/test-node-floor.sh || status=$?
node scripts/sum-test-results.mjs || status=$?
exit "$status"
