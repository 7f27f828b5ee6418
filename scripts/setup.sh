#!/bin/sh
# Installs the Debian packages gemmbench needs, when it may (root and apt),
# or prints the exact command and fails.  Usage: scripts/setup.sh [plots]
#   (no argument) libcjson-dev: needed to build
#   plots         gnuplot-nox as well: needed by scripts/plot.sh
set -e

need=""
pkg-config --exists libcjson 2>/dev/null || [ -f /usr/include/cjson/cJSON.h ] || need="libcjson-dev"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
if [ "${1:-}" = plots ]; then
    command -v gnuplot >/dev/null 2>&1 || need="$need gnuplot-nox"
fi
need=$(echo $need)
[ -z "$need" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing $need" >&2
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
    exit 0
fi
echo "setup: missing $need; install with:" >&2
echo "    sudo apt-get install -y $need" >&2
exit 1
