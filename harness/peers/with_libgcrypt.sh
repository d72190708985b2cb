#!/bin/sh
# Runs a command (bench, verify, ...) against the libgcrypt that
# harness/peers/build_libgcrypt.sh built into LIBGCRYPT_PREFIX (default
# <repo>/build/peers/libgcrypt) instead of Debian's: the programs link
# libgcrypt.so.20 and libgpg-error.so.0 dynamically, and the newer library keeps
# that soname, so pointing the dynamic linker at its lib folder is enough.
#
#   harness/peers/with_libgcrypt.sh build/bench --cipher sm4 --mode ctr,gcm-enc,xts-enc --sizes 65536
#
# bench's libgcrypt cells name the version loaded ("gcry_cipher 1.12.2").
set -eu
here=$(cd "$(dirname "$0")" && pwd)
prefix=${LIBGCRYPT_PREFIX:-$(cd "$here/../.." && pwd)/build/peers/libgcrypt}
[ -e "$prefix/lib/libgcrypt.so.20" ] || {
  echo "with_libgcrypt: no $prefix/lib/libgcrypt.so.20: run harness/peers/build_libgcrypt.sh first" >&2
  exit 1
}
[ $# -gt 0 ] || { echo "usage: $0 COMMAND [ARG...]" >&2; exit 2; }
LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
exec "$@"
