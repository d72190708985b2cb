#!/usr/bin/env bash
# `make sanitize`: the library and the harness built with clang
# -fsanitize=address,undefined -fno-sanitize-recover=all in their own build
# folder, then verify --quick, the kcrypt CLI tests and the tests of the
# incremental calls run against that build.  Any sanitizer report fails the
# stage.
#
#   harness/fuzz/sanitize.sh [BUILD_DIR]        (default build/asan)
#
# GENERATED (environment; default the repository's generated/) builds a
# scratch copy instead, for steps 1-3 (make -C harness/c GENERATED=...,
# pytest's KC_GENERATED); step 4's tests build the repository's generated/.
# SAN_CC (default clang) is the compiler.
#
# 1. build: make -C harness/c BUILD=BUILD_DIR CC=clang with CFLAGS and
#    EMULATED (all exported, so that a rebuild that tests/conftest.py's
#    harness_build fixture asks for uses them too): generated/ (libkcrypt.a
#    with the cores, every C kernel and the assembly twins) and kcrypt,
#    verify, bench.  The SIMDe builds (libkcrypt_emulated.a) are the slowest
#    sources there are under ASan (SIMDe's vectors are stack arrays ASan
#    instruments; docs/verification.md has the times), and they compile the
#    same kernel sources as the native build: they are built (EMULATED=1)
#    only where they check a kernel the native build cannot run here, i.e.
#    when the sanitized kcrypt, built without them, lists a target of this
#    architecture that is not native (SANITIZE_EMULATED=auto, the default;
#    1: always, 0: never).  The assembly twins (.S) are
#    assembled as usual: ASan cannot instrument hand-written assembly, so
#    their own loads and stores are unchecked here; the C around them (the
#    _asm.c entry points, the modes) is checked, and the fuzz targets check
#    the twins' accesses with guard pages and canaries instead
#    (harness/fuzz/fuzz_util.h).
# 2. BUILD_DIR/verify --quick --iterated serial: every kernel, native,
#    assembly twin and SIMDe build (where built), against the vectors, the reference and
#    the peers; the 1,000,000-fold vectors on the serial kernel only (the
#    others run them un-iterated: a million more blocks through the same
#    code under ASan take minutes and check no memory access the first
#    blocks did not; the verify stage runs them natively).
# 3. pytest tests/test_kcrypt_cli.py tests/test_kcrypt_sm4_modes.py with
#    KC_BUILD_DIR=BUILD_DIR: kcrypt
#    under the sanitizers; the tests' one-shot helper (harness/stream_check.py)
#    is compiled by `gcc`, which is BUILD_DIR/bin/gcc here: clang with the
#    sanitizer flags.
# 4. pytest tests/test_stream_block.py tests/test_stream_zuc.py
#    tests/test_kc_modes.py (not its AArch64 cases): the incremental calls of
#    every cipher.  These build generated/ themselves (conftest's
#    generated_library and run_generated_c call `gcc`: the wrapper again),
#    as a shared object loaded through ctypes, so pytest runs with the ASan
#    runtime preloaded (harness/fuzz/kc_sanitize_plugin.py keeps the preload
#    out of its subprocesses).
#
# Reports: ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1 and
# UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1, with ASan's log_path
# under BUILD_DIR/reports (clang's runtime writes UBSan's reports there too),
# so that a report from a process a test runs (a kcrypt that a test expects
# to fail, say) is not lost in the test's own checks: any file there fails
# the stage, and its contents are printed.  The steps all run; the wall time
# of each is printed.  Nothing is suppressed.
#
# Why clang: with gcc 12, ASan's reports go to log_path but UBSan's (in an
# ASan build) only to stderr, where a test that expects kcrypt to fail with
# "error" on stderr would take one for the error it wanted.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath -m "${1:-$repo/build/asan}")
case "$build" in
  /?*/?*) ;;
  *) echo "sanitize.sh: refusing build folder '$build'" >&2; exit 2 ;;
esac
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
export CC=${SAN_CC:-clang}
export CFLAGS="-O1 -g -fno-omit-frame-pointer -std=c11 -Wall -Wextra $san"
reports=$build/reports
rm -rf "$reports"
mkdir -p "$reports" "$build/bin"
asan_options="halt_on_error=1:abort_on_error=1:detect_leaks=1:log_path=$reports/asan"
ubsan_options="halt_on_error=1:print_stacktrace=1:log_path=$reports/ubsan"

# `gcc` for what the tests compile themselves: the same compiler, with the
# sanitizers.  (A new file: never written through an existing path.)
real_cc=$(command -v "$CC") || { echo "sanitize.sh: $CC not found" >&2; exit 2; }
wrapper=$build/bin/gcc
rm -f "$wrapper"
printf '#!/bin/sh\nexec %s "$@" %s\n' "$real_cc" "$san" > "$wrapper"
chmod +x "$wrapper"

failed=()
times=()
t_all=$(date +%s.%N)
step() { # step NAME COMMAND...: runs it, times it, remembers a failure
  local name=$1
  shift
  echo "sanitize: $name"
  local t0
  t0=$(date +%s.%N)
  "$@"
  local status=$?
  times+=("$(printf '%-28s %7.1f s  %s' "$name" "$(echo "$(date +%s.%N) - $t0" | bc)" \
    "$([ $status -eq 0 ] && echo ok || echo "FAILED (exit $status)")")")
  [ $status -eq 0 ] || failed+=("$name")
  return $status
}

generated=$(realpath -m "${GENERATED:-$repo/generated}")
# Objects built with another compiler or other flags are removed first (no
# Makefile here tracks flags).
if [ "$(cat "$build/.cflags" 2>/dev/null)" != "$CC $CFLAGS" ]; then
  rm -rf "$build/lib" "$build/harness"
  echo "$CC $CFLAGS" > "$build/.cflags"
fi
# build EMULATED: the harness's objects are compiled with -DKC_NO_EMULATED
# or without, so a change of EMULATED rebuilds them.
build_with() {
  export EMULATED=$1
  [ "$(cat "$build/.emulated" 2>/dev/null)" = "$EMULATED" ] || rm -rf "$build/harness"
  echo "$EMULATED" > "$build/.emulated"
  make -s -C "$repo/harness/c" BUILD="$build" GENERATED="$generated" CC="$CC"
}
emulated=${SANITIZE_EMULATED:-auto}
case "$emulated" in
  auto | 0) first=0 ;;
  1) first=1 ;;
  *) echo "sanitize.sh: SANITIZE_EMULATED must be auto, 0 or 1, not '$emulated'" >&2; exit 2 ;;
esac
step build build_with "$first" || { printf '  %s\n' "${times[@]}"; exit 1; }
if [ "$emulated" = auto ]; then
  lacking=$(ASAN_OPTIONS="$asan_options" "$build/kcrypt" --list-targets | awk '$2 != "native" { print $1 }')
  if [ -n "$lacking" ]; then
    echo "sanitize: this CPU does not run $(echo $lacking | tr ' ' ','): their SIMDe builds are checked too"
    step "build SIMDe" build_with 1 || { printf '  %s\n' "${times[@]}"; exit 1; }
  else
    echo "sanitize: every target runs natively here: the SIMDe builds are not built (SANITIZE_EMULATED=1 builds them)"
  fi
fi

step "verify --quick" env ASAN_OPTIONS="$asan_options" UBSAN_OPTIONS="$ubsan_options" \
  "$build/verify" --quick --iterated serial

cd "$repo" || exit 1
# Without the SIMDe builds, kcrypt's --emulated test has no build to run (the
# pytest stage runs it against the normal build).
no_simde=()
[ "$EMULATED" = 1 ] || no_simde=(--deselect tests/test_kcrypt_cli.py::test_emulated_runs_when_native_is_disabled)
step "pytest kcrypt CLI" env ASAN_OPTIONS="$asan_options" UBSAN_OPTIONS="$ubsan_options" \
  KC_BUILD_DIR="$build" KC_GENERATED="$generated" PATH="$build/bin:$PATH" \
  python3 -m pytest -q -p no:cacheprovider tests/test_kcrypt_cli.py tests/test_kcrypt_sm4_modes.py "${no_simde[@]}"

if "$CC" --version | grep -q clang; then
  preload=$("$CC" -print-file-name=libclang_rt.asan-x86_64.so) # UBSan's handlers are in it
else
  preload="$("$CC" -print-file-name=libasan.so) $("$CC" -print-file-name=libubsan.so)"
fi
step "pytest incremental calls" env ASAN_OPTIONS="$asan_options:detect_leaks=0" UBSAN_OPTIONS="$ubsan_options" \
  PATH="$build/bin:$PATH" PYTHONPATH="$repo/harness/fuzz${PYTHONPATH:+:$PYTHONPATH}" LD_PRELOAD="$preload" \
  python3 -m pytest -q -p no:cacheprovider -p kc_sanitize_plugin tests/test_stream_block.py \
  tests/test_stream_zuc.py tests/test_kc_modes.py -k "not aarch64 and not neon"

found=$(find "$reports" -type f | sort)
if [ -n "$found" ]; then
  failed+=("sanitizer reports")
  echo "sanitize: sanitizer reports:" >&2
  for f in $found; do
    echo "==== $f" >&2
    cat "$f" >&2
  done
fi
echo
echo "sanitize: $(echo "$(date +%s.%N) - $t_all" | bc | xargs printf '%.0f') s in all"
printf '  %s\n' "${times[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "sanitize: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "sanitize: no sanitizer report"
