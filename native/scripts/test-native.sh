#!/usr/bin/env bash
# C++ checks for the native addon (npm run test:native):
#   1. the C++ unit tests built with AddressSanitizer + UndefinedBehaviorSanitizer (ctest);
#   2. each libFuzzer target (clang) for FUZZ_SECONDS (default 25) from the committed seeds.
# Builds land in build/native-asan and build/native-fuzz. Runs under `nice` (shared machine).
# Set SKIP_FUZZ=1 to run only the sanitizer tests.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
fuzz_seconds=${FUZZ_SECONDS:-25}
jobs=${JOBS:-2}
generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

echo "== C++ unit tests under ASan + UBSan"
nice -n 10 cmake -S "$root" -B "$root/build/native-asan" "${generator[@]}" \
  -DGATEWAY_NATIVE_TESTS=ON -DGATEWAY_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
nice -n 10 cmake --build "$root/build/native-asan" -j "$jobs"
(cd "$root/build/native-asan" && nice -n 10 ctest --output-on-failure)

if [[ "${SKIP_FUZZ:-0}" == "1" ]]; then exit 0; fi
if ! command -v clang++ >/dev/null 2>&1; then
  echo "clang++ not found: the fuzz targets need clang (libFuzzer)" >&2
  exit 1
fi

echo "== fuzz targets (${fuzz_seconds}s each)"
CC=clang CXX=clang++ nice -n 10 cmake -S "$root" -B "$root/build/native-fuzz" "${generator[@]}" \
  -DGATEWAY_NATIVE_FUZZ=ON -DGATEWAY_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
nice -n 10 cmake --build "$root/build/native-fuzz" -j "$jobs"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for target in webm-demuxer opus-frame wav-parser log-mel; do
  exe="$root/build/native-fuzz/fuzz_${target//-/_}"
  corpus="$work/$target"
  mkdir -p "$corpus"
  cp "$root/native/fuzz/corpus/$target/"* "$corpus/"
  echo "-- $target"
  log="$work/$target.log"
  set +e
  nice -n 10 "$exe" -max_total_time="$fuzz_seconds" -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$root/build/native-fuzz/$target-" "$corpus" >"$log" 2>&1
  status=$?
  set -e
  grep -E "^(Done [0-9]+ runs|stat::number_of_executed_units|stat::peak_rss_mb|INFO: seed corpus)" "$log" || true
  if [[ $status -ne 0 ]]; then
    tail -n 60 "$log" >&2
    echo "fuzz target $target failed (artifacts: build/native-fuzz/$target-*)" >&2
    exit 1
  fi
done
echo "native checks passed"
