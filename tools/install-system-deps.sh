#!/usr/bin/env bash
# Installs the Debian packages the layout providers and tests need, where they are missing.
# As root it runs apt-get; otherwise it prints the exact command and exits 1.
set -euo pipefail

missing=()
command -v dot >/dev/null 2>&1 || missing+=(graphviz)
[ -e /usr/include/graphviz/cgraph.h ] || missing+=(libgraphviz-dev)
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
# the Studio's browser tests drive Debian's chromium through playwright (no browser download)
[ -x /usr/bin/chromium ] || missing+=(chromium)
# the PostgreSQL store's tests start a throwaway server (initdb + pg_ctl, Debian keeps them here)
compgen -G '/usr/lib/postgresql/*/bin/pg_ctl' >/dev/null || missing+=(postgresql)

if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
    echo "Missing system packages: ${missing[*]}" >&2
    echo "Install them with: sudo sh -c '$cmd'" >&2
    exit 1
fi
echo "Installing system packages: ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
