#!/usr/bin/env bash
# Fault injection, the long version: FaultInjectionTest with every fault repeated N times per
# server-leg/client-leg protocol pair (H1, H2, H3 each side; default N = 3334, so about 10,000 times
# per fault on each protocol of each leg), in one JVM with Netty's paranoid leak detection. One
# command:
#
#   scripts/faults.sh                 # 3334 per pair: ~10,000 per fault and protocol
#   scripts/faults.sh 500 32          # 500 per pair, 32 requests in flight at a time
#
# Time on the shared 2-core VM at load average 10-16 (2026-12-02): 1000 per pair 18 minutes, 2000
# per pair 33 minutes, so the default takes about an hour.
#
# The build runs the same test with 3 repeats. Results: bench/results/faults-STAMP.md (the test's
# "[faults]" lines: per fault and protocol pair, the error kinds the flows ended with and what the
# clients saw; the normal-request latency after the faults; file descriptors before and after) and
# the full test output next to it.
set -Eeuo pipefail
cd "$(dirname "$0")/.."
REPEATS=${1:-3334}
PARALLEL=${2:-64}
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
