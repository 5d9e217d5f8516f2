#!/usr/bin/env bash
# Every check: build, lint, typecheck, both test tiers (the fast tier `test` and the system tier
# `test:system`, which holds the end-to-end release test), publint and are-the-types-wrong, the
# format, the API reports and the API reference, the suites again on the Node floor, then one
# closing line "N passed, M failed, K skipped" summed over every Vitest JSON report.
# Each step says how long it took, so a slow check shows where its time goes.
set -euo pipefail
source "$(dirname "$0")/env.sh"
bash scripts/install-system-tools.sh || echo "setup: could not install the system tools; tests that need them fail under CI" >&2
# The browser tests (the respondent page, the status page) launch Debian's chromium at /usr/bin/chromium;
# CI machines start without it.
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: /usr/bin/chromium is missing: installing Debian's chromium for the browser tests" >&2
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >/dev/null ||
      echo "setup: apt-get could not install chromium; the browser tests fail under CI" >&2
  else
    echo "setup: /usr/bin/chromium is missing and cannot be installed here (needs root and apt-get); the browser tests are skipped outside CI" >&2
  fi
fi

find packages apps tooling -maxdepth 2 -name '*test-results.json' -delete
status=0
started=$SECONDS
timed() {
  local label="$1" step_started=$SECONDS step_status=0
  shift
  "$@" || step_status=$?
  echo "check: $label took $((SECONDS - step_started)) s (exit $step_status)" >&2
  return "$step_status"
}

# The Node-floor run reads sources only (no build), so it runs beside the turbo graph, where the
# system tier's tests spend much of their time waiting on processes and sockets.
floor_log="$(mktemp)"
( timed "the suites on the Node floor" bash scripts/test-node-floor.sh >"$floor_log" 2>&1 ) &
floor_pid=$!

# The build first, alone: the system tier (one file at a time, the check's long pole) waits for it,
# and in one graph lint and typecheck would take the slots the build chain needs.
timed "turbo build" pnpm exec turbo run build --output-logs=errors-only || status=$?
# Turbo's default of 10 tasks at once: with every task at once the system tier began a minute
# sooner but its floods (loop-kill) ran at half speed beside lint and typecheck, for no gain.
timed "turbo (build, lint, typecheck, test, test:system, publint)" \
  pnpm exec turbo run build lint typecheck test test:system publint --output-logs=errors-only --continue || status=$?
# The layout of code and data is Prettier's (applied with `pnpm format`); a file it would change fails the check.
timed "format" pnpm -s format:check || status=$?
timed "package metadata" node tooling/release/src/package-metadata.ts --check || status=$?
timed "API reports" node tooling/release/src/api-report.ts --check || status=$?
# The API reference (TypeDoc, warnings as errors) into docs/api/.
timed "API reference" pnpm -s docs || status=$?

wait "$floor_pid" || status=$?
cat "$floor_log"
rm -f "$floor_log"
echo "check: all steps took $((SECONDS - started)) s" >&2
node scripts/sum-test-results.mjs || status=$?
exit "$status"
