#!/usr/bin/env bash
# Installs sds-sync from packed tarballs (see pack-tarballs.sh) into DIR with plain npm, as a user
# outside the repository would; the service is then DIR/node_modules/.bin/sds-sync. Used by the
# Dockerfile and by test/install.system.test.ts.
#   apps/sync/deploy/install-tarballs.sh /opt/sds-sync /tmp/sds-tarballs
set -euo pipefail
dir="${1:?usage: install-tarballs.sh DIR TARBALL_DIR}"
tarballs="${2:?usage: install-tarballs.sh DIR TARBALL_DIR}"
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || printf '{ "name": "sds-sync-install", "private": true }\n' > package.json
npm install --omit=dev --no-audit --no-fund --no-package-lock "$tarballs"/*.tgz
