#!/bin/sh
# Check the Debian packages a group of targets needs; install the missing
# ones when running as root, otherwise print the exact apt-get command and
# fail.
#
#   sh tools/deps.sh            the build (every make target):
#     llvm-19, lld-19     llvm-mc, llvm-objdump and ld.lld for gfx906..gfx942
#                         (llvm 14, Debian's default, stops before gfx942)
#     clang-19            clang-offload-bundler, which writes the offload
#                         bundle of every target's code object (build/co/igemm.hipfb),
#                         and clang, which compiles the LLVM corpus (tests/llvm)
#     libcmocka-dev       the test suites
#     libamdhip64-dev     HIP headers for the HIP backend (libamdhip64 itself is
#                         loaded with dlopen at run time, so it is optional)
#     pkg-config          the install test builds a program through igemm.pc
#   sh tools/deps.sh python     the Python tests (make test) and make demo-torch:
#     python3-numpy, python3-torch   for $PYTHON (default /usr/bin/python3),
#                         installed with --no-install-recommends
set -eu

LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-19/bin}
PYTHON=${PYTHON:-/usr/bin/python3}
group=${1:-build}
missing=""
apt_flags=""

case $group in
build)
    [ -x "$LLVM_BIN/llvm-mc" ] && [ -x "$LLVM_BIN/llvm-objdump" ] || missing="$missing llvm-19"
    [ -x "$LLVM_BIN/ld.lld" ] || missing="$missing lld-19"
    { [ -x "$LLVM_BIN/clang-offload-bundler" ] && [ -x "$LLVM_BIN/clang" ]; } || missing="$missing clang-19"
    [ -f /usr/include/cmocka.h ] || missing="$missing libcmocka-dev"
    [ -f /usr/include/hip/hip_runtime_api.h ] || missing="$missing libamdhip64-dev"
    command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
    command -v cmake >/dev/null 2>&1 || missing="$missing cmake"
    ;;
python)
    apt_flags=" --no-install-recommends"
    "$PYTHON" -c 'import numpy' >/dev/null 2>&1 || missing="$missing python3-numpy"
    "$PYTHON" -c 'import torch' >/dev/null 2>&1 || missing="$missing python3-torch"
    ;;
*)
    echo "deps: unknown group '$group' (build, python)" >&2
    exit 2
    ;;
esac

[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ]; then
    echo "deps: installing$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 || true
    # shellcheck disable=SC2086
    apt-get install -y -qq$apt_flags $missing >&2
    if [ "$group" = python ] && ! "$PYTHON" -c 'import numpy, torch' >/dev/null 2>&1; then
        echo "deps: $PYTHON cannot import numpy and torch after installing$missing: use Debian's python3" \
             "(make PYTHON=/usr/bin/python3)" >&2
        exit 1
    fi
    exit 0
fi

echo "deps: missing Debian packages:$missing" >&2
echo "deps: run as root:  apt-get install -y$apt_flags$missing" >&2
exit 1
