#!/bin/sh
# onednn-avx512.sh - gemmbench with oneDNN held to its AVX-512 path
# (ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16: no AMX tiles), as a build of its own
# for `gemmbench ab`, which runs two builds' processes in turns:
#   gemmbench ab build/gemmbench scripts/onednn-avx512.sh --variant onednn \
#       --dtype bf16,u8s8 --prepack --kernel qkv --m 16,64,256
# NEW/OLD is then the AVX-512 path's time over the default's (AMX where the
# CPU has it): what the tiles buy oneDNN.  The result file's
# tool.libraries.onednn.forced_by records the variable.
# Environment: GEMMBENCH, the build to run (default build/gemmbench beside
# this script's directory).
ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16
export ONEDNN_MAX_CPU_ISA
exec "${GEMMBENCH:-$(dirname "$0")/../build/gemmbench}" "$@"
