#!/usr/bin/env bash
# The main job: the sandbox Supplier Data Service (a few thousand seeded surveys) and sds-sync
# on the embedded SQLite store against it. Waits for the first cycle, prints what was synced
# and the URLs to query, then runs until Ctrl-C. `bash scripts/demo.sh --once` exits after the
# first cycle; `--help` lists the other options.
set -euo pipefail
source "$(dirname "$0")/env.sh"

pnpm exec turbo run build --filter=@sds/sync... --filter=@sds/cli --output-logs=errors-only >&2
exec node apps/sync/dist/demo.js "$@"
