#!/usr/bin/env bash
# usage: run.sh TREE LABEL [ENV=VAL...] -- args ; output /tmp/uip99-runs/LABEL.txt, gc log LABEL.gc
# HISTO_AT="100 160": live class histograms (jcmd) that many seconds after the measured JVM started
tree=$1; label=$2; shift 2
envs=()
while [[ $# -gt 0 && $1 != -- ]]; do envs+=("$1"); shift; done
shift || true
out=/tmp/uip99-runs/$label.txt
cd "$tree"
{ echo "# $(date -u +%FT%TZ) tree $tree ($(git -C "$tree" log --oneline -1 | cut -c1-80)) env ${envs[*]} EXTRA ${EXTRA:-} args $*"; } > "$out"
env PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH "${envs[@]}" \
  SESSION_BENCH_JAVA_OPTS="-Xlog:gc,gc+heap=debug,gc+cpu:file=/tmp/uip99-runs/$label.gc ${EXTRA:-}" \
  nice -n 19 bench/session-window.sh "$@" >> "$out" 2>&1 &
pid=$!
if [[ -n ${HISTO_AT:-} ]]; then
  (
    # wait for the measured JVM (its "session window:" line), then sample
    until grep -q '^session window:' "$out" 2>/dev/null; do sleep 1; kill -0 $pid 2>/dev/null || exit 0; done
    t0=$SECONDS
    for at in $HISTO_AT; do
      while (( SECONDS - t0 < at )); do sleep 1; done
      jp=$pid
      [[ -n $jp ]] && /usr/lib/jvm/temurin-25-jdk-amd64/bin/jcmd "$jp" GC.class_histogram > "/tmp/uip99-runs/$label.histo-$at.txt" 2>&1
    done
  ) &
fi
wait $pid
echo "# end $(date -u +%FT%TZ) rc $?" >> "$out"
