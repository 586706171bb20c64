#!/usr/bin/env bash
# The flow table with N flows (default 100,000): ingest time, frame gaps, filter time.
# Usage: bench/ui-flows.sh [N]   (builds what it needs; runs headless, no display needed)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mvn -B -q -pl bench -am package org.apache.maven.plugins:maven-dependency-plugin:3.11.0:build-classpath -DskipTests -Dmdep.outputFile=target/ui-bench.classpath >/dev/null
exec java -Xmx2g -cp "bench/target/classes:$(cat bench/target/ui-bench.classpath)" \
  dev.loupe.bench.ui.FlowTableBenchmark "${1:-100000}"
