#!/usr/bin/env bash
# Long fuzzing runs of the @FuzzTest targets in proxy-engine/src/test/java/dev/loupe/engine/fuzz,
# with Jazzer's own driver (Jazzer 0.24's JUnit runner takes the time budget only from the
# annotation, which `mvn verify` keeps at a few seconds). One command:
#
#   scripts/fuzz-long.sh                          # every target, 30 min each, two at a time
#   scripts/fuzz-long.sh --minutes 5 --parallel 1 Http1PipelineFuzzTest FilterFuzzTest
#
# Each target starts from its seeds (src/test/resources/.../<Target>Inputs/<method>) and from the
# corpus earlier runs left in proxy-engine/.cifuzz-corpus/<class>/<method> (not committed), which
# it grows. The JVM runs with Netty's paranoid leak detection; a "LEAK:" line in a target's log
# counts as a finding. Findings (crash-*, timeout-*) are written to target/fuzz-long/STAMP/<Target>/
# and the run summary to target/fuzz-long/STAMP/summary.md. To keep a finding as a regression input,
# copy it into the target's Inputs directory: `mvn verify` then replays it on every build.
# Runs under `nice -n 10` (the machine is shared). Exit status 1 when anything was found.
set -Eeuo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

MINUTES=30
PARALLEL=2
targets=()
while (($#)); do
  case "$1" in
    --minutes) MINUTES=$2; shift 2 ;;
    --parallel) PARALLEL=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done

FUZZ_DIR=proxy-engine/src/test/java/dev/loupe/engine/fuzz
if ((${#targets[@]} == 0)); then
  for f in "$FUZZ_DIR"/*FuzzTest.java; do targets+=("$(basename "$f" .java)"); done
fi

STAMP=$(date -u +%Y%m%d-%H%M%S)
OUT=$ROOT/target/fuzz-long/$STAMP
mkdir -p "$OUT"
CP_FILE=$OUT/classpath
echo "[fuzz-long] compiling the test classes and resolving the class path" >&2
mvn -B -q -o -pl proxy-engine -am test-compile dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$CP_FILE" >"$OUT/build.log" 2>&1 || { cat "$OUT/build.log" >&2; exit 1; }
# A private copy of the compiled classes: a build in this tree during the run must not pull them
# away under the fuzzer.
mkdir -p "$OUT/classes"
cp -r proxy-engine/target/test-classes "$OUT/classes/engine-test"
cp -r proxy-engine/target/classes "$OUT/classes/engine"
cp -r cert-authority/target/classes "$OUT/classes/ca"
CP="$OUT/classes/engine-test:$OUT/classes/engine:$(sed "s|$ROOT/cert-authority/target/classes|$OUT/classes/ca|" "$CP_FILE")"

run_target() {
  local name=$1
  local file=$FUZZ_DIR/$name.java
  local method
  method=$(grep -A3 '@FuzzTest' "$file" | grep -oE 'void [a-zA-Z0-9_]+\(' | head -1 | sed 's/void //; s/(//')
  local dir=$OUT/$name
  mkdir -p "$dir"
  # The corpus JUnit fuzzing uses, so both kinds of run build on each other.
  local corpus=$ROOT/proxy-engine/.cifuzz-corpus/dev.loupe.engine.fuzz.$name/$method
  mkdir -p "$corpus"
  local code=0
  (cd proxy-engine && nice -n 10 java -Xmx1g -Dio.netty.leakDetection.level=paranoid \
    -Dio.netty.leakDetection.targetRecords=8 -cp "$CP" com.code_intelligence.jazzer.Jazzer \
    --target_class=dev.loupe.engine.fuzz."$name" --target_method="$method" \
    --instrumentation_includes='dev.loupe.**:io.netty.handler.codec.http.**' \
    --custom_hook_includes='dev.loupe.**' \
    --disabled_hooks=com.code_intelligence.jazzer.sanitizers.RegexInjection \
    --keep_going=20 --reproducer_path="$dir" \
    -max_total_time=$((MINUTES * 60)) -rss_limit_mb=4096 -timeout=300 -print_final_stats=1 \
    -artifact_prefix="$dir/" "$corpus") >"$dir/fuzz.log" 2>&1 || code=$?
  echo "$code" > "$dir/exit"
}

echo "[fuzz-long] ${#targets[@]} targets, $MINUTES min each, $PARALLEL at a time; output in $OUT" >&2
running=0
for t in "${targets[@]}"; do
  run_target "$t" &
  running=$((running + 1))
  if ((running >= PARALLEL)); then
    wait -n || true
    running=$((running - 1))
  fi
done
wait || true

status=0
{
  echo "# Long fuzz run $STAMP"
  echo
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $MINUTES min per target, $PARALLEL at a time," \
    "$(nproc) cores (shared), load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  echo "| target | executions | exec/s | coverage (edges) | corpus | findings | LEAK lines | exit |"
  echo "|---|---|---|---|---|---|---|---|"
  for t in "${targets[@]}"; do
    d=$OUT/$t
    log=$d/fuzz.log
    runs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | awk '{print $2}' | tail -1)
    speed=$(grep -oE 'stat::average_exec_per_sec: [0-9]+' "$log" | awk '{print $2}' | tail -1)
    cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | awk '{print $2}')
    corp=$(grep -oE 'corp: [0-9]+/[0-9]+[a-zA-Z]*' "$log" | tail -1 | awk '{print $2}')
    findings=$(find "$d" -maxdepth 1 \( -name 'crash-*' -o -name 'timeout-*' -o -name 'leak-*' -o -name 'oom-*' \) | wc -l)
    leaks=$(grep -c 'LEAK:' "$log" || true)
    code=$(cat "$d/exit" 2>/dev/null || echo '?')
    echo "| $t | ${runs:-?} | ${speed:-?} | ${cov:-?} | ${corp:-?} | $findings | $leaks | $code |"
    if ((findings > 0 || leaks > 0)); then status=1; fi
  done
} > "$OUT/summary.md"
cat "$OUT/summary.md"
exit $status
