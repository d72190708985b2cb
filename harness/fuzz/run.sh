#!/usr/bin/env bash
# Runs the libFuzzer targets that harness/fuzz/fuzz.mk built, each for a
# while, and prints what each did.
#
#   harness/fuzz/run.sh --build DIR --seconds N [TARGET ...]
#
# Each target starts from its checked-in seeds (harness/fuzz/corpus/TARGET,
# read only) and the units it found before (DIR/corpus/TARGET, where new
# ones go), with -max_total_time=N, -timeout=20 (one input taking 20 s is a
# failure) and -rss_limit_mb=4096.  A crash, a sanitizer report (ASan, UBSan
# with -fno-sanitize-recover=all, LeakSanitizer), a mismatch (the targets
# abort on one, see fuzz_util.h), a timeout or running out of memory makes
# libFuzzer exit non-zero: the input goes to DIR/artifacts/, the log to
# DIR/logs/TARGET.log, and this script goes on with the next target, then
# exits 1.  The summary gives per target the executions, the coverage (cov:
# and ft: of libFuzzer's last status line), the corpus size (its corp:, the
# units it keeps) and the result.
#
# Environment: FUZZ_SKIP (comma-separated check names, see fuzz_util.h) is
# passed on; FUZZ_FLAGS adds libFuzzer options (e.g. -jobs=2 -workers=2).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=""
seconds=30
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ -n "$build" ] || { echo "run.sh: --build DIR is required" >&2; exit 2; }
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_sm4 fuzz_ublock fuzz_zuc fuzz_zuc_bits fuzz_kcrypt)

mkdir -p "$build/logs" "$build/artifacts"
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}abort_on_error=1:detect_leaks=1:symbolize=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-}${UBSAN_OPTIONS:+:}halt_on_error=1:print_stacktrace=1"
[ -n "${FUZZ_SKIP:-}" ] && echo "run.sh: FUZZ_SKIP=$FUZZ_SKIP (these checks are not made)"

failed=0
summary=()
start_all=$(date +%s)
for t in "${targets[@]}"; do
  exe="$build/$t"
  [ -x "$exe" ] || { echo "run.sh: $exe not built (make fuzz-build)" >&2; exit 2; }
  mkdir -p "$build/corpus/$t"
  log="$build/logs/$t.log"
  echo "run.sh: $t for ${seconds} s (log: $log)"
  start=$(date +%s)
  # shellcheck disable=SC2086
  "$exe" "$build/corpus/$t" "$here/corpus/$t" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" ${FUZZ_FLAGS:-} > "$log" 2>&1
  status=$?
  took=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$last")
  units=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <<< "$last")
  if [ $status -eq 0 ]; then
    result=ok
  else
    failed=1
    result="FAILED (exit $status)"
    echo "---- $t failed; the end of its log:" >&2
    grep -E 'FUZZ CHECK FAILED|case:|^  [^ ]|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|SUMMARY|Test unit written|^    #[0-9] ' "$log" \
      | head -40 >&2
    echo "----" >&2
  fi
  summary+=("$(printf '%-14s %6ss %10s execs  cov %6s  ft %7s  corpus %5s  %s' "$t" "$took" "${execs:-?}" \
    "${cov:-?}" "${ft:-?}" "${units:-?}" "$result")")
done
echo
echo "run.sh: ${#targets[@]} targets, ${seconds} s each, $(( $(date +%s) - start_all )) s in all"
printf '  %s\n' "${summary[@]}"
exit $failed
