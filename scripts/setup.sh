#!/usr/bin/env bash
# Installs what the command being run needs on a fresh machine, and nothing else:
#   scripts/setup.sh demo   npm packages and litecoind (the demo's node)
#   scripts/setup.sh test   the same, and redis-server (serve --state redis://), chromium (the reserves
#                           report page is opened in a real headless browser), electrum (reserves sign-help's
#                           Electrum line is run as printed, offline) and Debian's python3-requests
#                           (serve's client tests run a requests-based client with /usr/bin/python3)
#   scripts/setup.sh bench  litecoind, nginx (bench/serve.mjs measures serve beside nginx proxy_pass) and
#                           libsecp256k1-dev (bench/exchange-scale.mjs's C floor, bench/secp-floor.c)
# One line per thing it installs; the installers' own output only when they fail. On a ready machine it
# prints nothing and does nothing.
set -euo pipefail
what="${1:-test}"
cd "$(dirname "$0")/.."

# runs a command with its output kept aside: shown (on stderr) only when the command fails
quiet() {
  local log rc=0
  log=$(mktemp)
  "$@" >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    cat "$log" >&2
    echo "setup: failed: $*" >&2
  fi
  rm -f "$log"
  return "$rc"
}

if [ -L node_modules ]; then
  # a link to another tree's packages (a git worktree sharing its main tree's): `npm ci` here would empty the
  # linked folder through the link, under every tree that uses it; the tree that owns it installs them
  :
elif [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # `npm ci` only: it installs exactly the locked tree and fails when package.json and the lock disagree
  # (after changing dependencies: `npm install && node scripts/complete-lock.mjs`, see the README)
  echo "setup: installing the npm packages (npm ci)" >&2
  quiet npm ci --no-audit --no-fund
fi

case "$what" in
  demo) need="litecoind" ;;
  test) need="litecoind redis-server chromium zsh fish electrum" ;;
  bench) need="litecoind nginx" ;;
  *)
    echo "setup: usage: scripts/setup.sh demo|test|bench" >&2
    exit 2
    ;;
esac
missing=""
for cmd in $need; do
  command -v "$cmd" >/dev/null 2>&1 || missing="$missing $cmd"
done
# python modules the tests import, checked with Debian's own python (the one the tests run; a pyenv python3
# on PATH has its own modules), named by their Debian package
py="${CHAINGW_SETUP_PYTHON:-/usr/bin/python3}"
if [ "$what" = test ] && ! "$py" -c 'import requests' >/dev/null 2>&1; then
  missing="$missing python3-requests"
fi
# a C library, not a command: its header tells
if [ "$what" = bench ] && [ ! -f /usr/include/secp256k1_recovery.h ]; then
  missing="$missing libsecp256k1-dev"
fi
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "setup:$missing missing; install as root: apt-get install -y$missing" >&2
  exit 1
fi
for pkg in $missing; do echo "setup: installing $pkg (Debian, apt-get)" >&2; done
quiet apt-get update -qq
# shellcheck disable=SC2086
quiet env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
