#!/usr/bin/env bash
# Lints the images' Dockerfiles with dockerfile-utils (the linter of the Docker language server;
# hadolint is on neither npm nor Debian). Its CLI exits 0 even with findings, so any output fails.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for file in Dockerfile Dockerfile.gpu; do
  findings="$(npx --no-install dockerfile-utils lint "$file" 2>/dev/null || true)"
  if [ -n "$findings" ]; then
    echo "$file:"
    echo "$findings"
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "dockerfile-utils: Dockerfile, Dockerfile.gpu clean"
exit "$status"
