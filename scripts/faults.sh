#!/usr/bin/env bash
# Fault injection, the long version: FaultInjectionTest with every fault repeated N times (default
# 10,000) per server-leg protocol and client-leg protocol (H1, H2, H3), in one JVM with Netty's
# paranoid leak detection. One command:
#
#   scripts/faults.sh                 # 10,000 repeats
#   scripts/faults.sh 500 32          # 500 repeats, 32 requests in flight at a time
#
# The build runs the same test with 3 repeats. Results: bench/results/faults-STAMP.md (the test's
# "[faults]" lines: per fault and protocol pair, the error kinds the flows ended with and what the
# clients saw; the normal-request latency after the faults; file descriptors before and after) and
# the full test output next to it.
set -Eeuo pipefail
cd "$(dirname "$0")/.."
REPEATS=${1:-10000}
PARALLEL=${2:-16}
STAMP=$(date -u +%Y%m%d-%H%M%S)
OUT=bench/results/faults-$STAMP
mkdir -p bench/results
start=$(date +%s)
status=0
nice -n 10 mvn -B -o -pl src/test -am test -Dtest=FaultInjectionTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Dloupe.faults.repeats="$REPEATS" -Dloupe.faults.parallel="$PARALLEL" > "$OUT.build.log" 2>&1 || status=$?
report=src/test/target/surefire-reports/dev.loupe.e2e.FaultInjectionTest-output.txt
{
  echo "# Fault injection $STAMP"
  echo
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $REPEATS repeats per fault and protocol pair," \
    "$PARALLEL in flight, $(nproc) cores (shared), $(( $(date +%s) - start )) s, load average at the end" \
    "$(cut -d' ' -f1-3 /proc/loadavg); maven exit status $status."
  echo
  echo '```'
  grep -h '^\[faults\]' "$report" 2>/dev/null || echo "(no [faults] lines: see $OUT.build.log)"
  grep -h 'Tests run:' "$OUT.build.log" | tail -1
  echo '```'
} > "$OUT.md"
cp "$report" "$OUT.output.txt" 2>/dev/null || true
cat "$OUT.md"
exit $status
