#!/usr/bin/env bash
# Heap and GC options for the packaged launcher, side by side (docs/PERFORMANCE.md, "Packaged launcher"):
# for each candidate, the app image (installer/target/app-image/Loupe, its options given through
# JAVA_TOOL_OPTIONS) as a headless reverse proxy to a local nginx, driven by h2load (HTTP/1.1, 64
# connections, tiny body) — requests per second and peak RSS —, then its RSS after 20 s idle; and the
# window under Xvfb: RSS 20 s after it opened. Candidates run in A B C D D C B A order (two reps each).
# The candidates' options must be the only heap/GC options: build the image for this with
# `installer/build.sh --java-options ''` (the launcher's own GC option would conflict with theirs).
# Needs nginx, h2load (nghttp2-client), xvfb, x11-utils.
# Usage: installer/bench-jvm-options.sh [SECONDS per load step, default 10]
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-10}
LOUPE=installer/target/app-image/Loupe/bin/Loupe
[[ -x $LOUPE ]] || { echo "build first: installer/build.sh" >&2; exit 1; }
CANDIDATES=(
  "default|"
  "g1-footprint|-XX:+UseG1GC -XX:+UseStringDeduplication -XX:G1PeriodicGCInterval=15000 -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30"
  "serial|-XX:+UseSerialGC"
  "parallel|-XX:+UseParallelGC"
)
WORK=$(mktemp -d /tmp/loupe-bench-jvm.XXXXXX)
PIDS=()
CURRENT= # the Loupe being measured
cleanup() {
  local p
  for p in $CURRENT "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# the launcher starts the JVM inside its own process (libjli), so its PID is the JVM's
kib() { awk -v k="$2" '$1 == k":" {print $2}' "/proc/$1/status"; }

OPORT=$(port)
mkdir -p "$WORK/nginx/www" "$WORK/nginx/logs"
printf 'hello, loupe\n' >"$WORK/nginx/www/13"
cat >"$WORK/nginx/nginx.conf" <<EOF
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log;
$( [[ $(id -u) == 0 ]] && echo "user root;" )
events { worker_connections 1024; }
http {
  access_log off;
  server { listen 127.0.0.1:$OPORT; root $WORK/nginx/www; keepalive_requests 1000000; }
}
EOF
nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' &
PIDS+=($!)
DISPLAY_NUM=$((300 + RANDOM % 100))
Xvfb ":$DISPLAY_NUM" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
PIDS+=($!)
sleep 1

load() { # name options -> "rps peakMiB idleMiB"
  local p pid rps
  p=$(port)
  JAVA_TOOL_OPTIONS="$2" "$LOUPE" --headless -q --mode "reverse:http://127.0.0.1:$OPORT" \
    --listen "127.0.0.1:$p" --confdir "$WORK/conf" >"$WORK/loupe.log" 2>&1 &
  pid=$!
  CURRENT=$pid
  until (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do sleep 0.1; done
  h2load --h1 -c 64 -D 5 "http://127.0.0.1:$p/13" >/dev/null 2>&1 # warm-up
  rps=$(h2load --h1 -c 64 -D "$SECS" "http://127.0.0.1:$p/13" 2>/dev/null | awk '/^finished in/ {print $4}')
  local peak idle
  peak=$(kib "$pid" VmHWM)
  sleep 20
  idle=$(kib "$pid" VmRSS)
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null || true
  echo "${rps:-0} $((peak / 1024)) $((idle / 1024))"
}

window() { # options -> RSS MiB 20 s after the window opened
  local pid rss
  JAVA_TOOL_OPTIONS="$1" DISPLAY=":$DISPLAY_NUM" "$LOUPE" --listen 127.0.0.1:0 --confdir "$WORK/conf" \
    >"$WORK/window.log" 2>&1 &
  pid=$!
  CURRENT=$pid
  until DISPLAY=":$DISPLAY_NUM" xwininfo -root -tree 2>/dev/null | grep -q '"Loupe'; do sleep 0.2; done
  sleep 20
  rss=$(kib "$pid" VmRSS)
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null || true
  echo $((rss / 1024))
}

order=()
for i in "${!CANDIDATES[@]}"; do order+=("$i"); done
for ((i = ${#CANDIDATES[@]} - 1; i >= 0; i--)); do order+=("$i"); done
echo "JVM options of the packaged launcher, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in "${order[@]}"; do
  IFS='|' read -r name opts <<<"${CANDIDATES[$i]}"
  read -r rps peak idle < <(load "$name" "$opts")
  win=$(window "$opts")
  echo "$name $rps $peak $idle $win" | tee -a "$WORK/results"
done
echo
echo "| options | req/s (h1, c=64, tiny; 2 reps) | peak RSS under load | RSS 20 s idle after load | window RSS 20 s after opening |"
echo "|---|---|---|---|---|"
for c in "${CANDIDATES[@]}"; do
  IFS='|' read -r name opts <<<"$c"
  awk -v n="$name" -v o="$opts" '$1 == n {r = r sep int($2); p = p sep $3; i = i sep $4; w = w sep $5; sep = " / "}
    END {printf "| %s `%s` | %s | %s MiB | %s MiB | %s MiB |\n", n, (o == "" ? "(none)" : o), r, p, i, w}' "$WORK/results"
done
