#!/bin/sh
# Installs the Debian packages gemmbench needs, when it may (root and apt),
# or prints the exact command and fails.  The reference libraries and hwloc
# are optional: without root they are only named, and the build goes on
# without them (the Makefile notices when they appear later).
# Usage: scripts/setup.sh [test] [plots] [reference] [cross] [fuzz] [browser]
#   (no argument) libcjson-dev, nettle-dev (SHA-256) and pkg-config: needed
#                 to build;
#                 libhwloc-dev: the machine block's topology (optional to the
#                 build, which probes it)
#                 libxgboost-dev: the cost model of `model train` and
#                 ml_guided (optional: without it ml_guided runs rule_based)
#   test          python3 as well: needed by `make test` (the command-line
#                 tests read the JSON they check with it)
#   plots         gnuplot-nox as well: needed by scripts/plot.sh
#   reference     libopenblas-dev libblis-dev libdnnl-dev libxsmm-dev as well:
#                 the optional reference variants openblas, blis, onednn,
#                 libxsmm (rebuild afterwards)
#   cross         gcc-aarch64-linux-gnu, libcjson-dev:arm64, nettle-dev:arm64
#                 and qemu-user: the aarch64 build and its emulated runs
#                 (scripts/cross-aarch64.sh); adds dpkg's arm64 architecture
#                 first
#   fuzz          clang-14, libclang-rt-14-dev (libFuzzer, the sanitizers) and
#                 libomp-14-dev: `make fuzz` (tests/fuzz/README.md)
#   browser       chromium: tests/cli/history.sh renders `gemmbench history
#                 html`'s page headless (skipped, never passed, without it)
set -e
. "$(dirname "$0")/lib.sh"

need=""
want=""
arm64=""
pkg-config --exists libcjson 2>/dev/null || [ -f /usr/include/cjson/cJSON.h ] || need="libcjson-dev"
pkg-config --exists nettle 2>/dev/null || [ -f /usr/include/nettle/sha2.h ] || need="$need nettle-dev"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
# Optional (the machine block's topology): installed along when root can,
# else only named.
[ -f /usr/include/hwloc.h ] || want="libhwloc-dev"
[ -f /usr/include/xgboost/c_api.h ] || want="$want libxgboost-dev"
for arg in "$@"; do
    case $arg in
    test)
        command -v python3 >/dev/null 2>&1 || need="$need python3" ;;
    plots)
        command -v gnuplot >/dev/null 2>&1 || need="$need gnuplot-nox" ;;
    reference)
        pkg-config --exists openblas 2>/dev/null || want="$want libopenblas-dev"
        blis=""
        for h in /usr/include/blis.h /usr/include/*/blis.h /usr/include/blis/blis.h; do
            [ -f "$h" ] && blis=$h
        done
        [ -n "$blis" ] || want="$want libblis-dev"
        [ -f /usr/include/dnnl.h ] || [ -f /usr/include/oneapi/dnnl/dnnl.h ] ||
            want="$want libdnnl-dev"
        [ -f /usr/include/libxsmm.h ] || want="$want libxsmm-dev" ;;
    cross)
        command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || need="$need gcc-aarch64-linux-gnu"
        [ -f /usr/lib/aarch64-linux-gnu/libcjson.so ] || { need="$need libcjson-dev:arm64"; arm64=yes; }
        [ -f /usr/lib/aarch64-linux-gnu/libnettle.so ] || { need="$need nettle-dev:arm64"; arm64=yes; }
        command -v qemu-aarch64 >/dev/null 2>&1 || need="$need qemu-user" ;;
    fuzz)
        command -v clang-14 >/dev/null 2>&1 || need="$need clang-14"
        ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
            need="$need libclang-rt-14-dev"
        [ -f /usr/lib/llvm-14/lib/libomp.so ] || need="$need libomp-14-dev" ;;
    browser)
        command -v chromium >/dev/null 2>&1 || need="$need chromium" ;;
    *)
        echo "gemmbench: setup: unknown argument '$(shown "$arg")' (test, plots, reference, cross, fuzz, browser)" >&2
        exit 2 ;;
    esac
done
need=$(echo $need)
want=$(echo $want)
[ -z "$need$want" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    need=$(echo $need $want)
    echo "setup: installing $need" >&2
    if [ -n "$arm64" ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
        dpkg --add-architecture arm64
    fi
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
    exit 0
fi
if [ -n "$want" ]; then
    echo "setup: optional: the reference variants (openblas, blis, onednn, libxsmm), the" >&2
    echo "    machine topology (hwloc) and ml_guided's model (xgboost) need what is" >&2
    echo "    missing of: $want; the next make" >&2
    echo "    adds them once installed: sudo apt-get install -y $want" >&2
fi
[ -z "$need" ] && exit 0
echo "setup: missing $need; install with:" >&2
[ -n "$arm64" ] && echo "    sudo dpkg --add-architecture arm64 && sudo apt-get update" >&2
echo "    sudo apt-get install -y $need" >&2
exit 1
