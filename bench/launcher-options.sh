#!/usr/bin/env bash
# Prints the heap and GC options the packaged launcher ships (installer's LauncherOptions.DEFAULT), so
# benchmarks run with exactly those; LAUNCHER_OPTS, when set, replaces them (to compare candidates).
set -euo pipefail
if [[ -n ${LAUNCHER_OPTS+x} ]]; then
  echo "$LAUNCHER_OPTS"
  exit 0
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
javac -d "$out" "$root/installer/src/main/java/dev/loupe/installer/LauncherOptions.java"
java -cp "$out" dev.loupe.installer.LauncherOptions
