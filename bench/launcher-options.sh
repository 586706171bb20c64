#!/usr/bin/env bash
# Prints the heap and GC options the packaged launcher ships (installer's LauncherOptions.memory: DEFAULT,
# and for a JDK 22+ `java` on the PATH the native-heap trimming the launcher adds for such a runtime), so
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
feature=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p')
java -cp "$out" dev.loupe.installer.LauncherOptions --jdk "${feature:-17}"
