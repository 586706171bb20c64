#!/usr/bin/env bash
# Bytes the Loupe JVM allocates per relayed request, for judging allocation changes on a noisy box
# (bytes per request hardly depend on the load; throughput does).
#
#   bench/alloc-per-request.sh JAR_A JAR_B [ARMS] [N] [PAIRS]
#
# ARMS: comma-separated of h1h1 (reverse TLS, h1 client -> h1 origin), h2h1, h2h2 (h2 client,
# --upstream-protocol h2), regular-h1h1 (CONNECT + interception, h1 inside the tunnel; LoadGen).
# Starts an nginx origin (TLS, h1+h2, one worker) serving /small (13 B), then per arm and pair runs
# A B, B A, ...: Loupe (-q, capture on, the default rolling store) started fresh, warmed up with WARM
# requests, then a JFR recording (jcmd JFR.start/stop, jdk.ThreadAllocationStatistics at its start
# and end) around N requests at c=64; prints the bytes every thread allocated in between / N.
# LoadGen (regular-h1h1) runs for a duration instead: N / 4000 seconds, divided by its request count.
# env: JOPTS (Loupe JVM options, default "-Xms1g -Xmx1g"), WARM (100000),
# PROFILE=DIR: also record jdk.ObjectAllocationSample with stacks and print the top allocation
# sites (bench/AllocSites.java), keeping the .jfr files in DIR.
set -Eeuo pipefail
A=$1; B=$2; ARMS=${3:-h1h1,h2h1,h2h2,regular-h1h1}; N=${4:-100000}; PAIRS=${5:-2}
JOPTS=${JOPTS--Xms1g -Xmx1g}; WARM=${WARM:-100000}
HERE=$(cd "$(dirname "$0")" && pwd)
LOADGEN=${LOADGEN:-$HERE/target/loadgen.jar}
W=$(mktemp -d /tmp/loupe-alloc.XXXXXX)
chmod 755 "$W"
trap '[[ -f $W/nginx.pid ]] && kill "$(cat "$W/nginx.pid")" 2>/dev/null; rm -rf "$W"' EXIT
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$W/key.pem" -out "$W/cert.pem" \
  -days 2 -subj "/CN=localhost" -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null
echo "hello, world" > "$W/small"
OPORT=$((30000 + RANDOM % 5000))
cat > "$W/nginx.conf" <<CONF
worker_processes 1; pid $W/nginx.pid; error_log $W/error.log;
events { worker_connections 4096; }
http { access_log off; keepalive_requests 100000000; keepalive_timeout 300s;
  server { listen 127.0.0.1:$OPORT ssl http2; ssl_certificate $W/cert.pem; ssl_certificate_key $W/key.pem;
    location / { root $W; } } }
CONF
nginx -c "$W/nginx.conf"
cat > "$W/stats.jfc" <<'JFC'
<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0">
  <event name="jdk.ThreadAllocationStatistics"><setting name="enabled">true</setting><setting name="period">everyChunk</setting></event>
</configuration>
JFC
cat > "$W/profile.jfc" <<'JFC'
<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0">
  <event name="jdk.ThreadAllocationStatistics"><setting name="enabled">true</setting><setting name="period">everyChunk</setting></event>
  <event name="jdk.ObjectAllocationSample"><setting name="enabled">true</setting><setting name="throttle">3000/s</setting><setting name="stackTrace">true</setting></event>
</configuration>
JFC
RUNS=0
gen() { # arm port n
  local arm=$1 port=$2 n=$3
  case $arm in
    h1h1) h2load --h1 -c 64 -n "$n" "https://127.0.0.1:$port/small" 2>&1 | grep -oE '[0-9]+ succeeded' | grep -oE '[0-9]+' ;;
    h2h1|h2h2) h2load -c 64 -m 1 -n "$n" "https://127.0.0.1:$port/small" 2>&1 | grep -oE '[0-9]+ succeeded' | grep -oE '[0-9]+' ;;
    regular-h1h1)
      java -jar "$LOADGEN" "https://127.0.0.1:$OPORT/small" --proxy "127.0.0.1:$port" --h1 -c 64 -t 1 \
        -D "$(( n / 4000 > 20 ? n / 4000 : 20 ))" --warmup 0 --insecure > "$W/loadgen.json" 2>&1
      python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])["requests"])' "$W/loadgen.json" \
        || { cat "$W/loadgen.json" >&2; echo 1; } ;;
  esac
}
run() {
  local jar=$1 arm=$2 port=$((35000 + RANDOM % 5000)) args
  RUNS=$((RUNS + 1))
  case $arm in
    h1h1|h2h1) args="--mode reverse:https://127.0.0.1:$OPORT --upstream-protocol h1" ;;
    h2h2) args="--mode reverse:https://127.0.0.1:$OPORT --upstream-protocol h2" ;;
    regular-h1h1) args="" ;;
  esac
  # shellcheck disable=SC2086
  nice -n 19 java $JOPTS ${PROFILE:+-XX:FlightRecorderOptions=stackdepth=96 -XX:TLABSize=8k -XX:-ResizeTLAB} -jar "$jar" --headless -q \
    --listen 127.0.0.1:$port --confdir "$W/conf-$RUNS" $args --insecure > "$W/loupe.log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 150); do grep -q listening "$W/loupe.log" && break; sleep 0.2; done
  gen "$arm" "$port" "$WARM" > /dev/null
  sleep 1
  local jfc=$W/stats.jfc out=$W/run-$RUNS.jfr done
  if [[ -n ${PROFILE:-} ]]; then jfc=$W/profile.jfc; mkdir -p "$PROFILE"; out=$PROFILE/$arm-$(basename "$(dirname "$jar")")-$RUNS.jfr; fi
  jcmd "$pid" JFR.start name=alloc settings="$jfc" > /dev/null
  done=$(gen "$arm" "$port" "$N")
  [[ -f $W/loadgen.json && -n ${SHOWGEN:-} ]] && cat "$W/loadgen.json" >&2
  jcmd "$pid" JFR.stop name=alloc filename="$out" > /dev/null
  kill "$pid"; wait "$pid" 2>/dev/null || true
  local bytes
  bytes=$(java "$HERE/AllocSites.java" total "$out")
  echo "$jar $arm requests=$done bytes_per_request=$(( bytes / done )) load=$(cut -d' ' -f1 /proc/loadavg)"
  if [[ -n ${PROFILE:-} ]]; then java "$HERE/AllocSites.java" "$out" "$done" ${DEPTH:-4} | head -${TOP:-40}; fi
}
IFS=, read -ra ARMLIST <<< "$ARMS"
for arm in "${ARMLIST[@]}"; do
  for ((i = 0; i < PAIRS; i++)); do
    if [[ $B == - ]]; then run "$A" "$arm"; continue; fi
    if ((i % 2 == 0)); then run "$A" "$arm"; run "$B" "$arm"; else run "$B" "$arm"; run "$A" "$arm"; fi
  done
done
