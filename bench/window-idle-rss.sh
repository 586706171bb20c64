#!/usr/bin/env bash
# The window's idle RSS (issue 19: <= 200 MB): each candidate command opens Loupe's window on its own Xvfb
# display, with an empty configuration directory; RSS (VmRSS of the JVM) is read when the window has been
# mapped for 20 s and for 60 s (G1's periodic collection runs every 15 s with the launcher's options), and the
# median of one reading a second from 40 s to 60 s (the idle figure is a sawtooth of several MiB); also
# the seconds from launch until the window mapped (0.2 s resolution; the start time under this load).
# Candidates run in A B ... B A order, REPS times each way.
# Usage: bench/window-idle-rss.sh 'label|command' ['label|command' ...]
#   e.g. bench/window-idle-rss.sh "image|installer/target/app-image/Loupe/bin/Loupe" \
#          "jar-jdk17|java $(bench/launcher-options.sh) -jar app/target/loupe.jar"
# Env: REPS (default 1). Needs Xvfb and xwininfo (x11-utils).
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-1}
WORK=$(mktemp -d /tmp/loupe-window-rss.XXXXXX)
DISPLAY_NUM=$((400 + RANDOM % 100))
Xvfb ":$DISPLAY_NUM" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
XVFB=$!
CURRENT=
cleanup() {
  [[ -n $CURRENT ]] && kill -TERM "$CURRENT" 2>/dev/null || true
  kill -TERM "$XVFB" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
# the display accepts clients (a fixed sleep was too short on a loaded box: the first candidate then failed)
for _ in $(seq 100); do DISPLAY=":$DISPLAY_NUM" xwininfo -root >/dev/null 2>&1 && break; sleep 0.2; done
# the JVM: the launcher runs it in its own process; `java` under nice/taskset is a child
jvm_pid() { local c; c=$(pgrep -P "$1" java || true); echo "${c:-$1}"; }
rss_mib() { awk '$1 == "VmRSS:" {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }
one() { # label command -> prints "label start rss20 rss60 (s, MiB)"
  local label=$1 cmd=$2 pid jpid t0 r20 r60 start
  rm -rf "$WORK/conf"
  local n0; n0=$(date +%s%N)
  # shellcheck disable=SC2086 # the command is a word list on purpose
  DISPLAY=":$DISPLAY_NUM" $cmd --listen 127.0.0.1:0 --confdir "$WORK/conf" >"$WORK/$label.log" 2>&1 &
  pid=$!
  CURRENT=$pid
  t0=$SECONDS
  until DISPLAY=":$DISPLAY_NUM" xwininfo -root -tree 2>/dev/null | grep -q '"Loupe'; do
    kill -0 "$pid" 2>/dev/null || { echo "$label exited (log $WORK/$label.log)" >&2; cat "$WORK/$label.log" >&2; exit 1; }
    ((SECONDS - t0 < 300)) || { echo "$label: no window after 300 s" >&2; exit 1; }
    sleep 0.2
  done
  start=$(( ($(date +%s%N) - n0) / 100000000 ))
  jpid=$(jvm_pid "$pid")
  sleep 20
  r20=$(rss_mib "$jpid")
  sleep 20
  # the idle figure moves in a sawtooth of several MiB (malloc trimming every 5 s, G1's periodic cycle):
  # one sample a second from + 40 s to + 60 s, and their median
  local samples=() i
  for i in $(seq 20); do samples+=("$(rss_mib "$jpid")"); sleep 1; done
  r60=$(rss_mib "$jpid")
  local med lo hi
  read -r med lo hi < <(printf '%s\n' "${samples[@]}" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)], v[1], v[NR]}')
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null || true
  CURRENT=
  printf '%-24s mapped after %3d.%d s   + 20 s: %4s MiB   + 60 s: %4s MiB   + 40-60 s: median %4s (%s-%s) MiB\n' \
    "$label" $((start / 10)) $((start % 10)) "$r20" "$r60" "$med" "$lo" "$hi"
}
echo "# bench/window-idle-rss.sh, $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
cands=("$@")
for ((r = 0; r < REPS; r++)); do
  for c in "${cands[@]}"; do one "${c%%|*}" "${c#*|}"; done
  for ((i = ${#cands[@]} - 1; i >= 0; i--)); do one "${cands[i]%%|*}" "${cands[i]#*|}"; done
done
