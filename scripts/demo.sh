#!/usr/bin/env bash
# The main job: the sandbox Supplier Data Service (a few thousand seeded surveys) and sds-sync
# on the embedded SQLite store against it. Waits for the first cycle, prints what was synced
# and the URLs to query, then runs until Ctrl-C. `bash scripts/demo.sh --once` exits after the
# first cycle; `--help` lists the other options.
set -euo pipefail
source "$(dirname "$0")/env.sh"

# turbo prints its banner and a task summary on every run, errors-only or not: its output is
# shown only when the build fails.
if ! build_log="$(pnpm exec turbo run build --filter=@sds/sync... --filter=@sds/cli --output-logs=errors-only 2>&1)"; then
  printf '%s\n' "$build_log" >&2
  echo "demo: the build failed (its output is above)" >&2
  exit 1
fi
exec node apps/sync/dist/demo.js "$@"
