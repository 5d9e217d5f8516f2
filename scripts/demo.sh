#!/usr/bin/env bash
# The main job: the sandbox Supplier Data Service (a few thousand seeded surveys, and its
# marketplace) and sds-sync on the embedded SQLite store against it, the account's S2S URLs
# pointing at sds-sync's receiver and its redirect URLs at sds-sync's return. Waits for the first
# cycle, walks a dozen respondents through sessions (questions, surveys, the marketplace's outcome
# call and the return, a re-route after a terminate), prints what happened, the status
# page's URL and the commands to try, then runs until Ctrl-C. `bash scripts/demo.sh --once` exits
# after the first cycle and the respondents; `--help` lists the other options.
set -euo pipefail
source "$(dirname "$0")/env.sh"

# A taken port is reported before the build, not after it (the demo checks again before its sandbox).
port=8787
previous=""
for argument in "$@"; do
  case "$previous" in --port) port="$argument" ;; esac
  case "$argument" in --port=*) port="${argument#--port=}" ;; -h|--help) port=0 ;; esac
  previous="$argument"
done
if [[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -ne 0 ] &&
  ! node -e 'const s = require("node:net").createServer(); s.once("error", () => process.exit(1)); s.listen(Number(process.argv[1]), "127.0.0.1", () => s.close())' "$port"; then
  echo "demo: port $port is already in use: stop what listens there, or run the demo with --port N (--port 0 picks a free one)" >&2
  exit 1
fi

# turbo prints its banner and a task summary on every run, errors-only or not: its output is
# shown only when the build fails.
if ! build_log="$(pnpm exec turbo run build --filter=@sds/sync... --filter=@sds/cli --output-logs=errors-only 2>&1)"; then
  printf '%s\n' "$build_log" >&2
  echo "demo: the build failed (its output is above)" >&2
  exit 1
fi
exec node apps/sync/dist/demo.js "$@"
