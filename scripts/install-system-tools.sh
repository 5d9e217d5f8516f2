#!/usr/bin/env bash
# Installs the Debian packages whose programs the tests run, when the machine lacks them:
# zsh and fish (the CLI's completion scripts are tested by running them), promtool (sds-sync's
# /metrics and alert rules are checked with promtool), chromium (the status page is tested in
# headless Chromium), sqlite3 (the runbook's online backup is tested with its CLI), nats-server and
# openssl (events out is tested against a JetStream server and an https receiver), curl and jq (the
# README's walkthrough is run as written). Needs root and
# apt-get; elsewhere it says what is missing, and those tests skip outside CI and fail under CI.
set -euo pipefail

# program:package pairs; add a line here when a test starts running a new system program.
tools=("zsh:zsh" "fish:fish" "promtool:prometheus" "chromium:chromium" "sqlite3:sqlite3" "nats-server:nats-server" "openssl:openssl" "curl:curl" "jq:jq")

missing=()
for tool in "${tools[@]}"; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool#*:}")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "setup: installing ${missing[*]} for the tests" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup: ${missing[*]} missing and not installable here (needs root and apt-get); the tests that run them are skipped outside CI" >&2
fi
