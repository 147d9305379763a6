#!/usr/bin/env bash
# clang-format over the C++ sources of native/ (style: native/.clang-format).
#   --check  exit non-zero and name each file whose formatting differs (npm run lint:native)
#   --write  rewrite the files in place (npm run format)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mode=${1:---check}
if ! command -v clang-format >/dev/null 2>&1; then
  echo "clang-format not found: install Debian's clang-format package (.ci/run does)" >&2
  exit 1
fi
mapfile -t files < <(cd "$root" && find native \( -name '*.cc' -o -name '*.h' -o -name '*.inc' \) -not -path 'native/fuzz/corpus/*' | sort)
cd "$root"
case "$mode" in
  --write) clang-format -i --style=file "${files[@]}" ;;
  --check) clang-format --dry-run --Werror --style=file "${files[@]}" && echo "clang-format: ${#files[@]} files formatted" ;;
  *) echo "usage: $0 [--check|--write]" >&2; exit 2 ;;
esac
