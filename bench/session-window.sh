#!/usr/bin/env bash
# The window's flow table over a session of N flows (default 1,000,000) arriving at RATE/s (default
# 5,000) while the table is scrolled: UI-thread waits (a heartbeat every 10 ms), ingest rate, RSS at the
# end of the ingest. Runs headless (Monocle), no display needed; nice it on a shared box.
# JVM options: the packaged launcher's (bench/launcher-options.sh; LAUNCHER_OPTS=... to try others),
# plus SESSION_BENCH_JAVA_OPTS if set.
# Usage: bench/session-window.sh [N] [RATE]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mvn -B -q -o -pl bench -am package org.apache.maven.plugins:maven-dependency-plugin:3.11.0:build-classpath -DskipTests \
  -Dloupe.fuzz.skip=true -Dmdep.outputFile=target/session-bench.classpath >/dev/null
opts=$(bench/launcher-options.sh)
exec java $opts ${SESSION_BENCH_JAVA_OPTS:-} -cp "bench/target/classes:$(cat bench/target/session-bench.classpath)" \
  dev.loupe.bench.ui.SessionWindowBenchmark "$@"
