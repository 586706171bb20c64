#!/usr/bin/env bash
# Soak: sustained load through Loupe (relay tier, capture on) for every client/origin protocol pair,
# with Netty's paranoid leak detection on in the proxy. One command:
#
#   scripts/soak.sh                         # 10 min per pair at c=64, all six pairs (~65 min)
#   scripts/soak.sh --minutes 1 --pairs h1h1,h3h2 --conc 16 --body 64k
#
# Pairs: reverse mode over TLS, client protocol then origin protocol: h1h1 h1h2 h2h1 h2h2 h3h1 h3h2
# (client h3 = Loupe's QUIC listener; origin h2 = --upstream-protocol h2). The origin is nginx
# (TLS, h1 + h2 by ALPN, static files); the load is bench/target/loadgen.jar (closed loop, -c
# connections, one request in flight each). For each pair a fresh Loupe is started:
#   java -Dio.netty.leakDetection.level=paranoid -jar loupe.jar --headless -q --mode reverse:...
# and sampled every --sample seconds: RSS (VmRSS), open file descriptors, threads. After the load:
# the generator's JSON (requests, errors by kind), RSS drift after warm-up (first sample after
# --warmup s vs the last), fds before the load / after it / after --settle s idle (past the 60 s
# idle timeout of pooled origin connections), and "LEAK"
# lines in the proxy's log (paranoid detection reports a leaked buffer when it is collected, so a
# System.gc() is forced through jcmd before the log is read).
#
# Output: bench/results/soak-STAMP/ with one CSV of samples per pair, the logs, and summary.md.
# Exit status 1 when any pair had errors, a leak, or RSS drift over 10 %.
set -Eeuo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

MINUTES=10
PAIRS="h1h1,h1h2,h2h1,h2h2,h3h1,h3h2"
CONC=64
BODY=16k
WARMUP=60
SAMPLE=5
SETTLE=70
HEAP="-Xms512m -Xmx512m -XX:+AlwaysPreTouch"
while (($#)); do
  case "$1" in
    --minutes) MINUTES=$2; shift 2 ;;
    --pairs) PAIRS=$2; shift 2 ;;
    --conc) CONC=$2; shift 2 ;;
    --body) BODY=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --sample) SAMPLE=$2; shift 2 ;;
    --settle) SETTLE=$2; shift 2 ;;
    --heap) HEAP=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

command -v nginx >/dev/null 2>&1 || [[ -x /usr/sbin/nginx ]] || {
  echo "[soak] installing nginx-light" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get -qq -o DPkg::Lock::Timeout=900 update >/dev/null
  apt-get -qq -o DPkg::Lock::Timeout=900 install -y --no-install-recommends nginx-light >/dev/null
}
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
LOUPE_JAR=${LOUPE_JAR:-app/target/loupe.jar}
LOADGEN=${LOADGEN_JAR:-bench/target/loadgen.jar}
if [[ ! -f $LOUPE_JAR || ! -f $LOADGEN ]]; then
  echo "[soak] building loupe.jar and loadgen.jar" >&2
  mvn -B -q -pl app,bench -am -DskipTests package >/dev/null
fi

STAMP=$(date -u +%Y%m%d-%H%M%S)
OUT=$ROOT/bench/results/soak-$STAMP
WORK=$(mktemp -d /tmp/loupe-soak.XXXXXX)
mkdir -p "$OUT"
PIDS=()
cleanup() {
  for p in "${PIDS[@]:-}"; do [[ -n $p ]] && kill "$p" 2>/dev/null || true; done
  [[ -f $WORK/nginx.pid ]] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# ---- origin: nginx with a throwaway CA ---------------------------------------------------------
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=soak-ca \
  -keyout "$WORK/ca.key" -out "$WORK/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=localhost \
  -keyout "$WORK/leaf.key" -out "$WORK/leaf.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > "$WORK/ext"
openssl x509 -req -in "$WORK/leaf.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" -CAcreateserial -days 2 \
  -extfile "$WORK/ext" -out "$WORK/leaf.pem" 2>/dev/null
mkdir -p "$WORK/www"
python3 - "$WORK/www" "$BODY" <<'EOF'
import sys, os
size = sys.argv[2].lower()
n = int(size[:-1]) * (1024 if size.endswith('k') else 1 << 20) if size[-1] in 'km' else int(size)
open(os.path.join(sys.argv[1], 'body'), 'wb').write(bytes((i * 31 + 7) & 0xff for i in range(n)))
EOF
ORIGIN_PORT=$(free_port)
cat > "$WORK/nginx.conf" <<EOF
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log warn;
$( [[ $(id -u) -eq 0 ]] && echo "user root;" )
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $WORK/tmp; proxy_temp_path $WORK/tmp; fastcgi_temp_path $WORK/tmp;
  uwsgi_temp_path $WORK/tmp; scgi_temp_path $WORK/tmp;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$ORIGIN_PORT ssl http2;
    ssl_certificate $WORK/leaf.pem; ssl_certificate_key $WORK/leaf.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    root $WORK/www;
  }
}
EOF
mkdir -p "$WORK/tmp"
"$NGINX" -p "$WORK" -c "$WORK/nginx.conf" -g 'daemon on;'
sleep 0.5

# ---- one pair ----------------------------------------------------------------------------------
SUMMARY=$OUT/summary.md
{
  echo "# Soak $STAMP"
  echo
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores, load average at start:" \
    "$(cut -d' ' -f1-3 /proc/loadavg); $MINUTES min per pair at c=$CONC, GET $BODY, warm-up $WARMUP s," \
    "Loupe $HEAP with -Dio.netty.leakDetection.level=paranoid, relay tier, capture on (default --keep-flows)."
  echo
  echo "| pair | requests | req/s | errors | RSS after warm-up MiB | RSS end MiB | RSS max MiB | drift | fds before | fds after load | fds settled | threads end | LEAK lines | load avg |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} > "$SUMMARY"

status=0
IFS=, read -ra pair_list <<< "$PAIRS"
for pair in "${pair_list[@]}"; do
  client=${pair:0:2}; origin=${pair:2:2}
  port=$(free_port)
  conf=$WORK/conf-$pair
  log=$OUT/loupe-$pair.log
  # shellcheck disable=SC2086
  java $HEAP -Dio.netty.leakDetection.level=paranoid -jar "$LOUPE_JAR" --headless -q \
    --listen 127.0.0.1:"$port" --confdir "$conf" --trust-ca "$WORK/ca.pem" \
    --mode reverse:https://127.0.0.1:"$ORIGIN_PORT" --upstream-protocol "$origin" > "$log" 2>&1 &
  lpid=$!
  PIDS+=("$lpid")
  for _ in $(seq 1 200); do
    grep -q "listening on" "$log" 2>/dev/null && break
    sleep 0.2
  done
  sleep 1
  fds_before=$(ls /proc/$lpid/fd | wc -l)
  samples=$OUT/samples-$pair.csv
  echo "t_s,rss_kib,fds,threads,load1" > "$samples"
  gen_flag=--$client
  url=https://127.0.0.1:$port/body
  duration=$((MINUTES * 60))
  java -Xmx512m -jar "$LOADGEN" "$url" "$gen_flag" -c "$CONC" -t 1 -D "$duration" --warmup 0 \
    --cacert "$conf/ca-cert.pem" --timeout 30 > "$OUT/loadgen-$pair.json" 2> "$OUT/loadgen-$pair.err" &
  gpid=$!
  PIDS+=("$gpid")
  start=$(date +%s)
  while kill -0 "$gpid" 2>/dev/null; do
    now=$(( $(date +%s) - start ))
    rss=$(awk '/VmRSS/ {print $2}' /proc/$lpid/status 2>/dev/null || echo 0)
    fds=$(ls /proc/$lpid/fd 2>/dev/null | wc -l)
    thr=$(awk '/Threads/ {print $2}' /proc/$lpid/status 2>/dev/null || echo 0)
    echo "$now,$rss,$fds,$thr,$(cut -d' ' -f1 /proc/loadavg)" >> "$samples"
    sleep "$SAMPLE"
  done
  wait "$gpid" || true
  fds_after=$(ls /proc/$lpid/fd | wc -l)
  sleep "$SETTLE"
  jcmd "$lpid" GC.run >/dev/null 2>&1 || true
  sleep 2
  jcmd "$lpid" GC.run >/dev/null 2>&1 || true
  # A leak is reported when the leaked buffer's tracker is polled, on a later allocation: one
  # request after the collection makes the detector look.
  curl -s -o /dev/null --cacert "$conf/ca-cert.pem" "$url" 2>/dev/null || true
  sleep 1
  fds_settled=$(ls /proc/$lpid/fd | wc -l)
  threads=$(awk '/Threads/ {print $2}' /proc/$lpid/status)
  kill "$lpid"; wait "$lpid" 2>/dev/null || true
  leaks=$(grep -c "LEAK" "$log" || true)
  read -r requests rps errors <<< "$(python3 - "$OUT/loadgen-$pair.json" <<'EOF'
import json, sys
try:
    lines = [l for l in open(sys.argv[1]) if l.strip().startswith('{')]
    j = json.loads(lines[-1])
    print(j.get('requests', 0), round(j.get('rps', 0)), j.get('errors_total', 0))
except Exception:
    print(0, 0, 'no-result')
EOF
)"
  read -r rss_warm rss_end rss_max drift <<< "$(python3 - "$samples" "$WARMUP" <<'EOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))]
warm = [r for r in rows if int(r['t_s']) >= int(sys.argv[2])]
if not warm:
    print('-', '-', '-', '-'); sys.exit()
a, b = int(warm[0]['rss_kib']), int(warm[-1]['rss_kib'])
m = max(int(r['rss_kib']) for r in rows)
print(round(a / 1024), round(b / 1024), round(m / 1024), '%+.1f%%' % (100.0 * (b - a) / a))
EOF
)"
  echo "| $pair | $requests | $rps | $errors | $rss_warm | $rss_end | $rss_max | $drift | $fds_before | $fds_after | $fds_settled | $threads | $leaks | $(cut -d' ' -f1-3 /proc/loadavg) |" >> "$SUMMARY"
  if [[ $errors != 0 || $leaks != 0 ]]; then status=1; fi
  if [[ $drift != - ]] && python3 -c "import sys; sys.exit(0 if abs(float('${drift%\%}')) > 10 else 1)"; then status=1; fi
  echo "[soak] $pair: $requests requests, $errors errors, drift $drift, fds $fds_before/$fds_after/$fds_settled, $leaks LEAK lines" >&2
done
{
  echo
  echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg). Samples every $SAMPLE s: samples-PAIR.csv;"
  echo "the generator's JSON: loadgen-PAIR.json; the proxy's log: loupe-PAIR.log."
} >> "$SUMMARY"
cat "$SUMMARY"
exit $status
