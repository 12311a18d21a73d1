#!/bin/sh
# Check the Debian packages the build needs; install the missing ones when
# running as root, otherwise print the exact apt-get command and fail.
#
#   llvm-19, lld-19     llvm-mc, llvm-objdump and ld.lld for gfx906..gfx942
#                       (llvm 14, Debian's default, stops before gfx942)
#   libcmocka-dev       the test suites
#   libamdhip64-dev     HIP headers for the HIP backend (libamdhip64 itself is
#                       loaded with dlopen at run time, so it is optional)
#   pkg-config          the install test builds a program through igemm.pc
set -eu

LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-19/bin}
missing=""

[ -x "$LLVM_BIN/llvm-mc" ] && [ -x "$LLVM_BIN/llvm-objdump" ] || missing="$missing llvm-19"
[ -x "$LLVM_BIN/ld.lld" ] || missing="$missing lld-19"
[ -f /usr/include/cmocka.h ] || missing="$missing libcmocka-dev"
[ -f /usr/include/hip/hip_runtime_api.h ] || missing="$missing libamdhip64-dev"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"

[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ]; then
    echo "deps: installing$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 || true
    # shellcheck disable=SC2086
    apt-get install -y -qq $missing >&2
    exit 0
fi

echo "deps: missing Debian packages:$missing" >&2
echo "deps: run as root:  apt-get install -y$missing" >&2
exit 1
