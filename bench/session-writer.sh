#!/usr/bin/env bash
# The session writer's CPU per flow for probe-shaped flows (SessionWriterBenchmark), in-process.
# Usage: bench/session-writer.sh [N] [RATE]  (nice it on a shared box). ENGINE_FIRST=DIR_OR_JAR puts
# another build's classes first on the class path (A/B: e.g. an older app jar); LAUNCHER_OPTS as for
# bench/launcher-options.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [[ -z ${SKIP_BUILD:-} ]]; then
  mvn -B -q -o -pl bench -am package org.apache.maven.plugins:maven-dependency-plugin:3.11.0:build-classpath -DskipTests \
    -Dloupe.fuzz.skip=true -Dmdep.outputFile=target/session-bench.classpath >/dev/null
fi
opts=$(bench/launcher-options.sh)
cp="bench/target/classes:$(cat bench/target/session-bench.classpath)"
[[ -n ${ENGINE_FIRST:-} ]] && cp="$ENGINE_FIRST:$cp"
exec java $opts ${SESSION_BENCH_JAVA_OPTS:-} -cp "$cp" dev.loupe.bench.session.SessionWriterBenchmark "$@"
