#!/usr/bin/env bash
# The window's flow table over a session of N flows (default 1,000,000) arriving at RATE/s (default
# 5,000) while the table is scrolled: UI-thread waits (a heartbeat every 10 ms), ingest rate, RSS at the
# end of the ingest. Runs headless (Monocle), no display needed; nice it on a shared box.
# JVM options: the packaged launcher's (bench/launcher-options.sh; LAUNCHER_OPTS=... to try others),
# plus SESSION_BENCH_JAVA_OPTS if set.
#
# AOT=1 (a `java` of JDK 25 or newer on the PATH): runs as the package runs, with an ahead-of-time cache
# (-XX:AOTCache, the launcher's LauncherOptions.AOT diagnostics and its JDK 24+ options) trained the way the
# installer's AotTraining trains the package's: one launch of the window under load (here TRAIN_N flows,
# default 50,000, i.e. 10 s at 5,000/s, no scrolling, as the installer's 10 s of proxied load), the cache
# written as that JVM exits. The cache (bench/target/session-window.aot) is trained again whenever a jar
# of the class path is newer; the measured run maps it with -XX:AOTMode=on, so a cache it cannot map
# stops the run instead of silently measuring without it. The class path is jars only (a cache refuses
# class directories). Without AOT: plain `java -cp`, no cache (JIT and class loading from cold).
# Usage: [AOT=1] [TRAIN_N=50000] bench/session-window.sh [N] [RATE]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mvn -B -q -o -pl bench -am package org.apache.maven.plugins:maven-dependency-plugin:3.11.0:build-classpath -DskipTests \
  -Dloupe.fuzz.skip=true -Dmdep.outputFile=target/session-bench.classpath >/dev/null
opts=$(bench/launcher-options.sh)
main=dev.loupe.bench.ui.SessionWindowBenchmark
if [[ ${AOT:-} != 1 ]]; then
  exec java $opts ${SESSION_BENCH_JAVA_OPTS:-} -cp "bench/target/classes:$(cat bench/target/session-bench.classpath)" "$main" "$@"
fi
feature=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p')
if (( ${feature:-17} < 25 )); then
  echo "AOT=1 needs a java of JDK 25 or newer on the PATH (this one is $feature)" >&2
  exit 2
fi
jar=$(ls bench/target/loupe-bench-*.jar 2>/dev/null | grep -v -- '-sources\|-tests' | head -1 || true)
[[ -n $jar ]] || { jar=bench/target/session-window-bench.jar; jar cf "$jar" -C bench/target/classes .; }
cp="$PWD/$jar:$(cat bench/target/session-bench.classpath)"
cache=$PWD/bench/target/session-window.aot
# as the launcher (LauncherOptions.AOT minus -Xlog:aot=off: here a cache that does not map is an error; JDK24)
aot=(-XX:+UnlockDiagnosticVMOptions -XX:-AOTAdapterCaching --enable-native-access=ALL-UNNAMED
  --sun-misc-unsafe-memory-access=allow)
stale=yes
if [[ -f $cache ]]; then
  stale=
  IFS=: read -ra entries <<<"$cp"
  for e in "${entries[@]}"; do
    if [[ $e -nt $cache ]]; then stale=yes; fi
  done
fi
if [[ -n $stale ]]; then
  echo "training the AOT cache: ${TRAIN_N:-50000} flows into the window, no scrolling -> $cache" >&2
  rm -f "$cache"
  env -u JAVA_TOOL_OPTIONS java $opts "${aot[@]}" -XX:AOTCacheOutput="$cache" -Dloupe.bench.scroll=false \
    -Dloupe.bench.scrollSeconds=0 -cp "$cp" "$main" "${TRAIN_N:-50000}" "${2:-5000}" > "$cache.training.log" 2>&1 \
    || { echo "training failed: $cache.training.log" >&2; exit 1; }
  [[ -f $cache ]] || { echo "training wrote no cache: $cache.training.log" >&2; exit 1; }
fi
echo "AOT cache: $cache ($(du -m "$cache" | cut -f1) MiB)"
exec java $opts "${aot[@]}" -XX:AOTCache="$cache" -XX:AOTMode=on ${SESSION_BENCH_JAVA_OPTS:-} -cp "$cp" "$main" "$@"
