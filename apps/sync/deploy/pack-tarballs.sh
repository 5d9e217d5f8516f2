#!/usr/bin/env bash
# Packs @sds/sync and the workspace packages it depends on into DEST as npm tarballs, the way
# they are published (workspace: and catalog: versions resolved). Build first
# (pnpm exec turbo run build --filter=@sds/sync...). Used by the Dockerfile and by
# test/install.test.ts, so the image installs exactly what the test installs.
#   apps/sync/deploy/pack-tarballs.sh /tmp/sds-tarballs
set -euo pipefail
dest="${1:?usage: pack-tarballs.sh DEST}"
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
for package in packages/schemas packages/client apps/sync; do
  (cd "$root/$package" && pnpm pack --pack-destination "$dest" >/dev/null)
done
ls "$dest"/*.tgz
