#!/bin/bash
# seq.sh STEP...: the A/B series; a run the lead's quiet window (/work/quiet.sh) interrupts is killed and run again after it
J25=/usr/lib/jvm/temurin-25-jdk-amd64/bin
quiet() { pgrep -f "/work/quiet.sh" >/dev/null; }
run() { # label tree n [path-prefix]
  local label=$1 tree=$2 n=$3 pre=$4
  while true; do
    while quiet; do sleep 5; done
    echo "$(date +%T) start $label load $(cut -d' ' -f1-3 /proc/loadavg)" >> /tmp/uiw/seq.log
    rm -f /tmp/uiw/$label.pid
    PATH=${pre:+$pre:}$PATH /tmp/uiw/run.sh $tree $label $n "-Xlog:gc*,gc+age=trace,safepoint:file=/tmp/uiw/$label.gc.log:uptime,tags" &
    local r=$!
    /tmp/uiw/histo.sh $label &
    local h=$!
    local disturbed=0
    while kill -0 $r 2>/dev/null; do
      if quiet; then disturbed=1; sleep 2; kill -KILL $(cat /tmp/uiw/$label.pid) $h 2>/dev/null; break; fi
      sleep 1
    done
    wait $r; wait $h 2>/dev/null
    if [ $disturbed = 0 ]; then
      echo "$(date +%T) end $label load $(cut -d' ' -f1-3 /proc/loadavg)" >> /tmp/uiw/seq.log; return
    fi
    echo "$(date +%T) DISTURBED $label (quiet window): again" >> /tmp/uiw/seq.log
    mv /tmp/uiw/$label.txt /tmp/uiw/$label.disturbed.txt
  done
}
for step in "$@"; do
  case $step in
    A1) run A1-old17 /work/h-uiwait-old 1000000;;
    B1) run B1-new17 /work/h-uiwait 1000000;;
    B2) run B2-new17 /work/h-uiwait 1000000;;
    A2) run A2-old17 /work/h-uiwait-old 1000000;;
    C1) run C1-old25 /work/h-uiwait-old 1000000 $J25;;
    D1) run D1-new25 /work/h-uiwait 1000000 $J25;;
    D2) run D2-new25 /work/h-uiwait 1000000 $J25;;
    C2) run C2-old25 /work/h-uiwait-old 1000000 $J25;;
  esac
done
echo "$(date +%T) seq done" >> /tmp/uiw/seq.log
