#!/usr/bin/env bash
# A session of N flows (default 1,000,000) on disk: ingest rate, memory (heap, RSS), opening the file
# to its first page, head filters, body search, and with --diff a session diff of two such files.
# Usage: bench/session-scale.sh [N] [--diff] [--dir=DIR] [--reuse] [--search-only]
#   (builds what it needs; nice it on a shared box). --reuse reads the DIR/bench.loupe an earlier run left
#   instead of recording a new one; --search-only skips the head filters (body search only).
# JVM options: the launcher's (LauncherOptions.DEFAULT: G1 footprint); the heap cap is the JVM default
# unless SESSION_BENCH_JAVA_OPTS adds one (e.g. SESSION_BENCH_JAVA_OPTS=-Xmx512m).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mvn -B -q -o -pl bench -am package org.apache.maven.plugins:maven-dependency-plugin:3.11.0:build-classpath -DskipTests -Dloupe.fuzz.skip=true \
  -Dmdep.outputFile=target/session-bench.classpath >/dev/null
exec java -XX:+UseG1GC -XX:+UseStringDeduplication -XX:G1PeriodicGCInterval=15000 -XX:MinHeapFreeRatio=10 \
  -XX:MaxHeapFreeRatio=30 ${SESSION_BENCH_JAVA_OPTS:-} -cp "bench/target/classes:$(cat bench/target/session-bench.classpath)" \
  dev.loupe.bench.session.SessionScaleBenchmark "$@"
