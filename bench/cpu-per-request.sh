#!/usr/bin/env bash
# CPU time of the Loupe process per 1000 requests, for judging per-request changes on a noisy box
# (throughput moves by up to 2x between identical runs here; CPU per request much less).
#
#   bench/cpu-per-request.sh JAR_A JAR_B [h1|h2] [PATH] [N] [PAIRS]
#
# Starts an nginx origin (TLS, h1+h2, one worker) serving /small (13 B) and /1m (1 MiB) in a temp
# dir, then for each pair runs A B, B A, ... : Loupe (reverse mode to the origin, --insecure: the
# origin has a throwaway certificate) is started fresh, warmed up with h2load -n WARM requests
# (JIT), then the Loupe process's utime+stime is read from /proc around `h2load -n N`. Prints one
# line per run: jar, CPU ms per 1000 requests, wall time, peak RSS (VmHWM).
# env: JOPTS (Loupe JVM options, default "-Xms1g -Xmx1g"; set JOPTS= for JVM defaults), WARM (150000),
# A_ARGS / B_ARGS (extra Loupe options of run A / B, e.g. the same jar twice with
# B_ARGS='--session /tmp/x-%n.loupe'; %n becomes the run's number, so each run records a new file),
# THREADS=1 (also print the CPU per request of each thread name: event loops, session writer, JIT, GC),
# WINDOW=1 (run Loupe as the desktop window, flow table live and session autosaved, on a virtual display
# (Xvfb) instead of --headless), GCLOG=1 (-Xlog:gc into the run's log; prints the young pauses and the
# old generation's growth per young pause over the measured requests).
set -Eeuo pipefail
A=$1; B=$2; P=${3:-h1}; URLPATH=${4:-small}; N=${5:-100000}; PAIRS=${6:-2}
JOPTS=${JOPTS--Xms1g -Xmx1g}; WARM=${WARM:-150000}
W=$(mktemp -d /tmp/loupe-cpr.XXXXXX)
chmod 755 "$W" # nginx workers run as another user
XVFB=
trap '[[ -f $W/nginx.pid ]] && kill "$(cat "$W/nginx.pid")" 2>/dev/null; [[ -n $XVFB ]] && kill "$XVFB" 2>/dev/null; rm -rf "$W"' EXIT
HEADLESS=--headless
if [[ -n ${WINDOW:-} ]]; then
  DISP=$((200 + RANDOM % 300))
  Xvfb ":$DISP" -screen 0 1400x900x24 -nolisten tcp > /dev/null 2>&1 &
  XVFB=$!
  export DISPLAY=":$DISP"
  HEADLESS=
fi
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$W/key.pem" -out "$W/cert.pem" \
  -days 2 -subj "/CN=localhost" -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null
echo "hello, world" > "$W/small"; head -c 1048576 /dev/urandom > "$W/1m"
OPORT=$((30000 + RANDOM % 5000))
cat > "$W/nginx.conf" <<CONF
worker_processes 1; pid $W/nginx.pid; error_log $W/error.log;
events { worker_connections 4096; }
http { access_log off; keepalive_requests 100000000; keepalive_timeout 300s;
  server { listen 127.0.0.1:$OPORT ssl http2; ssl_certificate $W/cert.pem; ssl_certificate_key $W/key.pem;
    location / { root $W; } } }
CONF
nginx -c "$W/nginx.conf"
if [[ $P == h1 ]]; then F=(--h1 -c 64); else F=(-c 64 -m 10); fi
RUNS=0
run() {
  local jar=$1 extra=${2//%n/$RUNS} port=$((35000 + RANDOM % 5000))
  RUNS=$((RUNS + 1))
  # shellcheck disable=SC2086
  local gclog=
  [[ -n ${GCLOG:-} ]] && gclog="-Xlog:gc:file=$W/gc.log:uptimemillis"
  java $JOPTS $gclog -jar "$jar" $HEADLESS -q --listen 127.0.0.1:$port --confdir "$W/conf" \
    --mode reverse:https://127.0.0.1:$OPORT --insecure $extra > "$W/loupe.log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 100); do grep -q listening "$W/loupe.log" && break; sleep 0.2; done
  h2load "${F[@]}" -n "$WARM" "https://127.0.0.1:$port/$URLPATH" > /dev/null 2>&1
  sleep 1
  local a b t0 t1 ok hwm
  if [[ -n ${THREADS:-} ]]; then "$(dirname "$0")/thread-cpu.py" "$pid" > "$W/threads0"; fi
  local g0=0
  [[ -n ${GCLOG:-} ]] && g0=$(wc -l < "$W/gc.log")
  a=$(awk '{print $14+$15}' /proc/$pid/stat); t0=$(date +%s.%N)
  ok=$(h2load "${F[@]}" -n "$N" "https://127.0.0.1:$port/$URLPATH" 2>&1 | grep -oE '[0-9]+ succeeded' | head -1)
  t1=$(date +%s.%N); b=$(awk '{print $14+$15}' /proc/$pid/stat)
  if [[ -n ${THREADS:-} ]]; then
    "$(dirname "$0")/thread-cpu.py" "$pid" > "$W/threads1"
    "$(dirname "$0")/thread-cpu.py" diff "$W/threads0" "$W/threads1" "$N"
  fi
  if [[ -n ${GCLOG:-} ]]; then # "Pause Young (Normal) (G1 Evacuation Pause) 40M->12M(64M) 3.456ms"
    tail -n +"$((g0 + 1))" "$W/gc.log" | python3 -c '
import re, sys
young, after, ms = [], [], []
for line in sys.stdin:
    m = re.search(r"Pause Young.* (\d+)M->(\d+)M\(\d+M\) ([\d.]+)ms", line)
    if m:
        young.append(int(m.group(1))); after.append(int(m.group(2))); ms.append(float(m.group(3)))
if ms:
    grow = [b - a for a, b in zip(after, after[1:]) if b > a]  # promoted (and humongous) per young pause
    s = sorted(ms)
    print("  young pauses %d: p50 %.1f ms, p90 %.1f ms, total %.0f ms; heap after each p50 %d MiB; old growth per growing pause (mean) %.1f MiB"
          % (len(s), s[len(s) // 2], s[int(len(s) * 0.9)], sum(s), sorted(after)[len(after) // 2], sum(grow) / max(1, len(grow))))'
  fi
  hwm=$(awk '/VmHWM/ {print int($2/1024)}' /proc/$pid/status)
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "$(basename "$jar")${extra:+ [$extra]} $P /$URLPATH cpu_ms_per_1k=$(echo "scale=1; ($b-$a)*10*1000/$N" | bc)" \
    "wall_s=$(echo "$t1-$t0" | bc) rss_peak_mib=$hwm ($ok)"
}
for ((i = 0; i < PAIRS; i++)); do
  if ((i % 2 == 0)); then run "$A" "${A_ARGS:-}"; run "$B" "${B_ARGS:-}"; else run "$B" "${B_ARGS:-}"; run "$A" "${A_ARGS:-}"; fi
done
