#!/usr/bin/env bash
# A session of N flows (default 1,000,000) on disk: ingest rate, memory (heap, RSS), opening the file
# to its first page, head filters, body search, and with --diff a session diff of two such files.
# Usage: bench/session-scale.sh [N] [--diff] [--dir=DIR] [--reuse] [--search-only] [--open-only] [--deferred] [--on-demand]
#   (builds what it needs; nice it on a shared box). --reuse reads the DIR/bench.loupe an earlier run left
#   instead of recording a new one; --search-only skips the head filters (body search only), --open-only both; --deferred
#   records as headless --session does (no indexes until close), then opens the file without its indexes
#   (as a killed recording leaves it) and times their background build; --on-demand records and opens as the window
#   does (indexes built when a filter or sort first asks) and runs the head filters again once their index is built.
# JVM options: the packaged launcher's (bench/launcher-options.sh, i.e. LauncherOptions.DEFAULT; LAUNCHER_OPTS=...
# replaces them), plus SESSION_BENCH_JAVA_OPTS if set (e.g. SESSION_BENCH_JAVA_OPTS=-XX:StartFlightRecording=...).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mvn -B -q -o -pl bench -am package org.apache.maven.plugins:maven-dependency-plugin:3.11.0:build-classpath -DskipTests -Dloupe.fuzz.skip=true \
  -Dmdep.outputFile=target/session-bench.classpath >/dev/null
opts=$(bench/launcher-options.sh)
exec java $opts ${SESSION_BENCH_JAVA_OPTS:-} -cp "bench/target/classes:$(cat bench/target/session-bench.classpath)" \
  dev.loupe.bench.session.SessionScaleBenchmark "$@"
