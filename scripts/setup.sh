#!/usr/bin/env bash
# Installs what chaingw's demo and tests need on a fresh machine: npm deps, and litecoind, redis-server and
# chromium (Debian) when missing (chromium: the reserves report page is opened in a real headless browser).
# Safe to run again; does nothing that is already done.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # `npm ci` only: it installs exactly the locked tree and fails when package.json and the lock disagree
  # (after changing dependencies: `npm install && node scripts/complete-lock.mjs`, see the README)
  npm ci --no-audit --no-fund >&2
fi
# litecoind: the UTXO node of the tests; redis-server: the shared state of `chaingw serve --state redis://`
missing=""
command -v litecoind >/dev/null 2>&1 || missing="$missing litecoind"
command -v redis-server >/dev/null 2>&1 || missing="$missing redis-server"
if [ -n "$missing" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing$missing from Debian (apt-get)" >&2
    # shellcheck disable=SC2086
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing) >&2
  else
    echo "setup:$missing missing; install as root: apt-get install -y$missing" >&2
    exit 1
  fi
fi
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing chromium from Debian (apt-get)" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >&2
  else
    echo "setup: chromium is missing; install it as root: apt-get install -y chromium" >&2
    exit 1
  fi
fi
