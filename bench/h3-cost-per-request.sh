#!/usr/bin/env bash
# What one HTTP/3 request costs Loupe (reverse mode, H3 client -> TLS H1 origin, 13 B GET), for
# judging the QUIC path on a noisy box where req/s swings: CPU per request by thread, UDP datagrams
# per request and (STRACE=1) system calls per request.
#
#   bench/h3-cost-per-request.sh JAR_A JAR_B [CONC] [SECONDS] [PAIRS]
#
# Starts an nginx origin (TLS h1, one worker) serving /small (13 B), then for each pair runs A B,
# B A, ...: Loupe (reverse mode to the origin, --insecure; JOPTS, default the launcher's options)
# is started fresh, warmed up with LoadGen --h3 for WARM seconds (default 20), then over one LoadGen
# run of SECONDS (default 10) at CONC QUIC connections x 1 stream (default 64, LoadGen on 2 loops):
#   - CPU of Loupe's threads per request (bench/thread-cpu.py, names without their numbers);
#   - UDP datagrams per request: /proc/net/snmp Udp InDatagrams and OutDatagrams over the run (the
#     whole network namespace: on loopback each datagram counts once in and once out, and every
#     other process's UDP adds to it -- read it on a box where nothing else speaks UDP);
#   - with STRACE=1, a second measured run under `strace -c -f` on Loupe's process: system calls
#     per request (strace slows Loupe down a lot; only the counts per request mean anything).
# One line per run: jar, req/s, CPU µs per request (total and by thread), datagrams per request.
set -Eeuo pipefail
A=$1; B=$2; CONC=${3:-64}; DUR=${4:-10}; PAIRS=${5:-1}
HERE=$(cd "$(dirname "$0")" && pwd)
WARM=${WARM:-20}
JOPTS=${JOPTS-$("$HERE/launcher-options.sh")}
GEN=${GEN:-$HERE/target/loadgen.jar}
W=$(mktemp -d /tmp/loupe-h3cost.XXXXXX)
chmod 755 "$W" # nginx workers run as another user
trap '[[ -f $W/nginx.pid ]] && kill "$(cat "$W/nginx.pid")" 2>/dev/null; rm -rf "$W"' EXIT
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$W/key.pem" -out "$W/cert.pem" \
  -days 2 -subj "/CN=localhost" -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null
echo "hello, world" > "$W/small"
OPORT=$((30000 + RANDOM % 5000))
cat > "$W/nginx.conf" <<CONF
worker_processes 1; pid $W/nginx.pid; error_log $W/error.log;
events { worker_connections 4096; }
http { access_log off; keepalive_requests 100000000; keepalive_timeout 300s;
  server { listen 127.0.0.1:$OPORT ssl; ssl_certificate $W/cert.pem; ssl_certificate_key $W/key.pem;
    location / { root $W; } } }
CONF
nginx -c "$W/nginx.conf"
udp() { awk '/^Udp: [0-9]/ {print $2, $5}' /proc/net/snmp; } # InDatagrams OutDatagrams
gen() { # SECONDS -> LoadGen's JSON line
  java -jar "$GEN" "https://127.0.0.1:$1/small" --h3 -c "$CONC" -m 1 -t 2 -D "$2" --warmup 0 --insecure
}
field() { python3 -c 'import json,sys; print(json.loads(sys.stdin.read())[sys.argv[1]])' "$1"; }
run() {
  local jar=$1 port=$((35000 + RANDOM % 5000))
  # shellcheck disable=SC2086
  java $JOPTS -jar "$jar" --headless -q --listen 127.0.0.1:$port --confdir "$W/conf" \
    --mode reverse:https://127.0.0.1:$OPORT --insecure > "$W/loupe.log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 150); do grep -q listening "$W/loupe.log" && break; sleep 0.2; done
  gen "$port" "$WARM" > /dev/null
  sleep 1
  "$HERE/thread-cpu.py" "$pid" > "$W/threads0"
  local u0 u1 line n
  u0=$(udp)
  line=$(gen "$port" "$DUR")
  u1=$(udp)
  "$HERE/thread-cpu.py" "$pid" > "$W/threads1"
  n=$(echo "$line" | field requests)
  echo "$(basename "$jar") c=$CONC rps=$(echo "$line" | field rps) requests=$n errors=$(echo "$line" | field errors_total)" \
    "datagrams/request in $(python3 -c "print('%.2f' % (($(echo "$u1" | cut -d' ' -f1) - $(echo "$u0" | cut -d' ' -f1)) / $n))")" \
    "out $(python3 -c "print('%.2f' % (($(echo "$u1" | cut -d' ' -f2) - $(echo "$u0" | cut -d' ' -f2)) / $n))")"
  "$HERE/thread-cpu.py" diff "$W/threads0" "$W/threads1" "$n"
  if [[ -n ${STRACE:-} ]]; then
    strace -c -f -q -p "$pid" -o "$W/strace.txt" &
    local st=$!
    sleep 1
    line=$(gen "$port" "$DUR")
    kill -INT "$st"; wait "$st" 2>/dev/null || true
    n=$(echo "$line" | field requests)
    python3 - "$W/strace.txt" "$n" <<'PY'
import re, sys
n = int(sys.argv[2])
rows = []
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 5 and re.match(r"^[\d.]+$", f[0]) and f[-1] not in ("total",):
        calls = int(f[3]); rows.append((calls, f[-1]))
rows.sort(reverse=True)
print("  under strace: %d requests; syscalls per request %.2f: %s" % (n, sum(c for c, _ in rows) / max(n, 1),
      ", ".join("%s %.2f" % (name, c / max(n, 1)) for c, name in rows[:10])))
PY
  fi
  kill "$pid"; wait "$pid" 2>/dev/null || true
}
for ((i = 0; i < PAIRS; i++)); do
  if ((i % 2 == 0)); then run "$A"; run "$B"; else run "$B"; run "$A"; fi
done
