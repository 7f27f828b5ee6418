#!/bin/sh
# Installs the Debian packages gemmbench needs, when it may (root and apt),
# or prints the exact command and fails.
# Usage: scripts/setup.sh [plots] [reference] [cross]
#   (no argument) libcjson-dev: needed to build; libhwloc-dev: the machine
#                 block's topology (optional to the build, which probes it)
#   plots         gnuplot-nox as well: needed by scripts/plot.sh
#   reference     libopenblas-dev libblis-dev libdnnl-dev as well: the optional
#                 reference variants openblas, blis, onednn (rebuild afterwards)
#   cross         gcc-aarch64-linux-gnu, libcjson-dev:arm64 and qemu-user: the
#                 aarch64 build and its emulated runs (scripts/cross-aarch64.sh);
#                 adds dpkg's arm64 architecture first
set -e

need=""
arm64=""
pkg-config --exists libcjson 2>/dev/null || [ -f /usr/include/cjson/cJSON.h ] || need="libcjson-dev"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
# Optional: installed along when root can, else only mentioned.
optional=""
[ -f /usr/include/hwloc.h ] || optional="libhwloc-dev"
if [ -n "$optional" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    need="$need $optional"
    optional=""
fi
for arg in "$@"; do
    case $arg in
    plots)
        command -v gnuplot >/dev/null 2>&1 || need="$need gnuplot-nox" ;;
    reference)
        pkg-config --exists openblas 2>/dev/null || need="$need libopenblas-dev"
        blis=""
        for h in /usr/include/blis.h /usr/include/*/blis.h /usr/include/blis/blis.h; do
            [ -f "$h" ] && blis=$h
        done
        [ -n "$blis" ] || need="$need libblis-dev"
        [ -f /usr/include/dnnl.h ] || [ -f /usr/include/oneapi/dnnl/dnnl.h ] ||
            need="$need libdnnl-dev" ;;
    cross)
        command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || need="$need gcc-aarch64-linux-gnu"
        [ -f /usr/lib/aarch64-linux-gnu/libcjson.so ] || { need="$need libcjson-dev:arm64"; arm64=yes; }
        command -v qemu-aarch64 >/dev/null 2>&1 || need="$need qemu-user" ;;
    *)
        echo "setup: unknown argument '$arg' (plots, reference, cross)" >&2
        exit 2 ;;
    esac
done
need=$(echo $need)
[ -n "$optional" ] && echo "setup: optional $optional (the machine topology) is missing:" \
    "sudo apt-get install -y $optional" >&2
[ -z "$need" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing $need" >&2
    if [ -n "$arm64" ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
        dpkg --add-architecture arm64
    fi
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
    exit 0
fi
echo "setup: missing $need; install with:" >&2
[ -n "$arm64" ] && echo "    sudo dpkg --add-architecture arm64 && sudo apt-get update" >&2
echo "    sudo apt-get install -y $need" >&2
exit 1
