#!/usr/bin/env bash
# h2load against Loupe in reverse mode, next to nginx as a TLS reverse proxy, mitmdump
# in reverse mode, and the origin itself (the ceiling). Tiny GET (13 bytes), TLS to
# the client and to the origin. Figures go in docs/PERFORMANCE.md.
#
# What it starts (all on 127.0.0.1, in a temp dir, each stopped by its PID on exit):
#   origin     nginx, 1 worker, HTTPS h1+h2 (TLS 1.2/1.3), GET /small -> "hello, world\n"
#              (cert from a throwaway "origin CA" made with openssl)
#   arms, one at a time, each started fresh for each run and stopped after it:
#   direct     no proxy: h2load -> origin
#   nginx      nginx, 1 worker, TLS h2+h1 to clients, proxy_pass https://origin over
#              HTTP/1.1 with an upstream keepalive pool (up to 1024 idle connections,
#              so 640 concurrent streams do not churn upstream TLS), origin cert
#              verified, access_log off
#   loupe      java -Xms1g -Xmx1g -jar loupe.jar --headless -q --mode reverse:https://origin
#              --trust-ca ORIGIN_CA  (capture on, as by default; -q: no line per flow;
#              --upstream-protocol auto, i.e. h2 to the origin when the client spoke h2)
#   loupe-h1up the same with --upstream-protocol h1 (the same upstream protocol as nginx's;
#              not in the default ARMS: with h2 clients at c=64 x m=10 its 32-per-loop
#              idle pool churns upstream TLS connections and a run can take minutes)
#   loupe-ramped  diagnostic: the loupe arm, but its pre-warm run is gentle (-c 8 -m 1,
#              or --h1 -c 8) so its HTTP/2 origin pool is not built during a burst
#              of 640 streams (see docs/PERFORMANCE.md, "origin connection storm")
#   mitmdump   mitmdump --mode reverse:https://origin --set connection_strategy=lazy -q
#              --set flow_detail=0 --set ssl_verify_upstream_trusted_ca=ORIGIN_CA
# Load: after each arm starts, an unmeasured pre-warm h2load run of PREWARM seconds
#   (same flags; JIT for the JVM arm, caches for all), then the measured
#   h2load -c CONNS -m STREAMS -D DURATION --warm-up-time WARMUP https://127.0.0.1:P/small
#   (and with --h1: -c CONNS, one request in flight per connection). Arms are run
#   in rounds, the order reversed every other round (A B B A), ROUNDS rounds per
#   protocol; the summary is the median per arm. p50/p99 come from h2load's
#   --log-file (requests started in the last DURATION seconds). Each h2load run is
#   capped at WARMUP+DURATION+60 s (h2load -D waits for in-flight requests); a
#   capped run is recorded with 0 req/s and "hung". After each proxy run the
#   number of the proxy's TCP connections to the origin is recorded.
#
# Run:   (mvn -B -q install -DskipTests) && bench/h2load-reverse.sh      (from the repo root)
#   env: LOUPE_JAR (default app/target/loupe.jar), ARMS="direct nginx loupe mitmdump" (add loupe-h1up),
#        PROTOS="h2 h1", ROUNDS=3, CONNS=64, STREAMS=10, DURATION=10, WARMUP=5, PREWARM=10,
#        LOUPE_JAVA_OPTS="-Xms1g -Xmx1g", OUT=DIR (default: a new temp dir; kept),
#        KEEP_WORK=1 keeps the work dir with the configs and logs.
# Needs nginx, h2load (nghttp2-client), curl, openssl, python3, java, mitmdump
# (mitmproxy; the arm is skipped when missing). A run with everything takes about
# 10 minutes with the defaults.
# Prints one line per run and a markdown table of medians with ratios to nginx
# and to mitmdump; raw results in OUT/runs.tsv.
set -Eeuo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
LOUPE_JAR="${LOUPE_JAR:-$REPO_ROOT/app/target/loupe.jar}"
ARMS="${ARMS:-direct nginx loupe mitmdump}"
PROTOS="${PROTOS:-h2 h1}"
ROUNDS="${ROUNDS:-3}"
CONNS="${CONNS:-64}"
STREAMS="${STREAMS:-10}"
DURATION="${DURATION:-10}"
WARMUP="${WARMUP:-5}"
PREWARM="${PREWARM:-10}"
LOUPE_JAVA_OPTS="${LOUPE_JAVA_OPTS:--Xms1g -Xmx1g}"

log() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] ERROR: %s\n' "$*" >&2; exit 2; }

for bin in h2load curl openssl python3 java; do
  command -v "$bin" >/dev/null 2>&1 || die "'$bin' not found"
done
NGINX=$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)
[[ -x $NGINX ]] || die "nginx not found (apt-get install nginx-light)"
[[ -f $LOUPE_JAR ]] || die "Loupe jar not found: $LOUPE_JAR (mvn -B -q install -DskipTests)"
if [[ " $ARMS " == *" mitmdump "* ]] && ! command -v mitmdump >/dev/null 2>&1; then
  log "mitmdump not found (apt-get install mitmproxy): skipping that arm"
  ARMS=$(tr ' ' '\n' <<<"$ARMS" | grep -vx mitmdump | tr '\n' ' ')
fi

W=$(mktemp -d "${TMPDIR:-/tmp}/loupe-h2load.XXXXXX")
OUT="${OUT:-$W/out}"
mkdir -p "$W/pki" "$W/origin/tmp" "$W/nginx-rp/tmp" "$W/loupe-conf" "$W/mitm" "$OUT"
ORIGIN_PID=""
ARM_PID=""

stop_pid() { # stop_pid PID : SIGTERM, SIGKILL after 10 s
  local pid=$1 i
  [[ -n $pid ]] || return 0
  kill -TERM "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
  for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null || true
}
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  stop_pid "$ARM_PID"
  stop_pid "$ORIGIN_PID"
  if [[ ${KEEP_WORK:-0} == 1 ]]; then log "work dir kept: $W"; else
    [[ $OUT == "$W"/* ]] && { mkdir -p "${TMPDIR:-/tmp}/loupe-h2load-results"; OUT_KEPT=$(mktemp -d "${TMPDIR:-/tmp}/loupe-h2load-results/XXXXXX"); cp -r "$OUT"/. "$OUT_KEPT"/; log "results kept in $OUT_KEPT"; }
    rm -rf "$W"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

read -r ORIGIN_PORT PROXY_PORT < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')

# --- PKI: origin CA and one leaf (SAN localhost, 127.0.0.1) for the origin and nginx-rp
openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -keyout "$W/pki/ca-key.pem" -out "$W/pki/ca.pem" -days 30 -subj "/CN=bench origin CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -keyout "$W/pki/leaf-key.pem" -out "$W/pki/leaf.csr" -subj "/CN=localhost" 2>/dev/null
printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$W/pki/leaf.ext"
openssl x509 -req -in "$W/pki/leaf.csr" -CA "$W/pki/ca.pem" -CAkey "$W/pki/ca-key.pem" \
  -set_serial "0x$(openssl rand -hex 16)" -days 30 -extfile "$W/pki/leaf.ext" -out "$W/pki/leaf.pem" 2>/dev/null
ORIGIN_CA=$W/pki/ca.pem

USER_LINE=""
[[ $(id -u) -eq 0 ]] && USER_LINE="user root;"
nginx_common() { # nginx_common DIR : the shared top of an nginx.conf
  cat <<EOF
$USER_LINE
worker_processes 1;
pid $1/nginx.pid;
error_log $1/error.log error;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $1/tmp/body;
    proxy_temp_path $1/tmp/proxy;
    fastcgi_temp_path $1/tmp/fastcgi;
    uwsgi_temp_path $1/tmp/uwsgi;
    scgi_temp_path $1/tmp/scgi;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_certificate $W/pki/leaf.pem;
    ssl_certificate_key $W/pki/leaf-key.pem;
    keepalive_requests 100000000;
    keepalive_timeout 300s;
EOF
}
{ nginx_common "$W/origin"; cat <<EOF
    server {
        listen 127.0.0.1:$ORIGIN_PORT ssl http2;
        location = /small { default_type text/plain; return 200 "hello, world\n"; }
    }
}
EOF
} >"$W/origin/nginx.conf"
{ nginx_common "$W/nginx-rp"; cat <<EOF
    upstream origin {
        server 127.0.0.1:$ORIGIN_PORT;
        keepalive 1024;
        keepalive_requests 100000000;
        keepalive_timeout 300s;
    }
    server {
        listen 127.0.0.1:$PROXY_PORT ssl http2;
        location / {
            proxy_pass https://origin;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_ssl_session_reuse on;
            proxy_ssl_verify on;
            proxy_ssl_trusted_certificate $ORIGIN_CA;
            proxy_ssl_name localhost;
            proxy_ssl_protocols TLSv1.2 TLSv1.3;
        }
    }
}
EOF
} >"$W/nginx-rp/nginx.conf"

ready() { # ready PORT : a GET /small through PORT answers 200 with the body
  [[ $(curl --noproxy '*' -sk --max-time 5 "https://127.0.0.1:$1/small" 2>/dev/null) == "hello, world" ]]
}
wait_ready() { # wait_ready PORT PID NAME
  local deadline=$((SECONDS + 60))
  until ready "$1"; do
    kill -0 "$2" 2>/dev/null || die "$3 exited before it was ready (see $W)"
    ((SECONDS < deadline)) || die "$3 not ready after 60 s"
    sleep 0.2
  done
}

"$NGINX" -p "$W/origin" -c "$W/origin/nginx.conf" -g 'daemon off;' >"$W/origin/stdout.log" 2>&1 &
ORIGIN_PID=$!
wait_ready "$ORIGIN_PORT" "$ORIGIN_PID" origin

start_arm() { # start_arm ARM RUNTAG : starts it (not for direct), sets ARM_PID, PORT
  local arm=$1 tag=$2
  case $arm in
    direct) ARM_PID=""; PORT=$ORIGIN_PORT; return 0 ;;
    nginx)
      "$NGINX" -p "$W/nginx-rp" -c "$W/nginx-rp/nginx.conf" -g 'daemon off;' >"$W/nginx-rp/stdout-$tag.log" 2>&1 &
      ARM_PID=$! ;;
    loupe | loupe-h1up | loupe-ramped)
      local up=auto
      [[ $arm == loupe-h1up ]] && up=h1
      # shellcheck disable=SC2086
      java $LOUPE_JAVA_OPTS -jar "$LOUPE_JAR" --headless -q --listen "127.0.0.1:$PROXY_PORT" \
        --confdir "$W/loupe-conf" --trust-ca "$ORIGIN_CA" --upstream-protocol "$up" \
        --mode "reverse:https://127.0.0.1:$ORIGIN_PORT" >"$W/$tag.out" 2>"$W/$tag.err" &
      ARM_PID=$! ;;
    mitmdump)
      mitmdump --listen-host 127.0.0.1 --listen-port "$PROXY_PORT" --set "confdir=$W/mitm" \
        --mode "reverse:https://127.0.0.1:$ORIGIN_PORT" --set connection_strategy=lazy -q \
        --set flow_detail=0 --set "ssl_verify_upstream_trusted_ca=$ORIGIN_CA" >"$W/$tag.out" 2>&1 &
      ARM_PID=$! ;;
    *) die "unknown arm $arm" ;;
  esac
  PORT=$PROXY_PORT
  wait_ready "$PORT" "$ARM_PID" "$arm"
}

# CPU ticks (utime+stime) of PID and its children, and the largest VmHWM among them (KiB)
proc_tree() { local p=$1; echo "$p"; for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do proc_tree "$c"; done; }
cpu_ticks() {
  local t=0 p
  [[ -n $1 ]] || { echo 0; return; }
  for p in $(proc_tree "$1"); do
    t=$((t + $(awk '{print $14 + $15}' /proc/"$p"/stat 2>/dev/null || echo 0)))
  done
  echo "$t"
}
peak_rss_kib() {
  local m=0 p v
  [[ -n $1 ]] || { echo 0; return; }
  for p in $(proc_tree "$1"); do
    v=$(awk '/^VmHWM/ {print $2}' /proc/"$p"/status 2>/dev/null || echo 0)
    ((v > m)) && m=$v
  done
  echo "$m"
}
HZ=$(getconf CLK_TCK)

RUNS=$OUT/runs.tsv
printf 'proto\tround\tarm\treq_s\ttotal\tsucceeded\tfailed\terrored\ttimeout\tp50_ms\tp99_ms\tmean_ms\tproxy_cpu_pct\tproxy_peak_rss_mib\tload1\tupstream_conns\thung\n' >"$RUNS"

run_one() { # run_one PROTO ROUND ARM
  local proto=$1 round=$2 arm=$3 tag="$1-r$2-$3" load1 t0 t1 c0 c1 args=()
  start_arm "$arm" "$tag"
  load1=$(cut -d' ' -f1 /proc/loadavg)
  if [[ $proto == h1 ]]; then args=(--h1 -c "$CONNS"); else args=(-c "$CONNS" -m "$STREAMS"); fi
  local warm_args=("${args[@]}")
  if [[ $arm == loupe-ramped ]]; then
    if [[ $proto == h1 ]]; then warm_args=(--h1 -c 8); else warm_args=(-c 8 -m 1); fi
  fi
  if ((PREWARM > 0)); then
    timeout $((PREWARM + 60)) h2load "${warm_args[@]}" -D "$PREWARM" "https://127.0.0.1:$PORT/small" \
      >"$OUT/$tag.prewarm" 2>&1 || true
  fi
  c0=$(cpu_ticks "$ARM_PID"); t0=$(date +%s.%N)
  local hung=no
  timeout $((WARMUP + DURATION + 60)) h2load "${args[@]}" -D "$DURATION" --warm-up-time "$WARMUP" \
    --log-file "$OUT/$tag.log" "https://127.0.0.1:$PORT/small" >"$OUT/$tag.h2load" 2>&1 || {
    [[ $? == 124 ]] && hung=yes || true; }
  t1=$(date +%s.%N); c1=$(cpu_ticks "$ARM_PID")
  local rss cpu conns=-
  rss=$(peak_rss_kib "$ARM_PID")
  if [[ -n $ARM_PID ]]; then
    conns=0
    for p in $(proc_tree "$ARM_PID"); do
      conns=$((conns + $(ss -Htnp state established "( dport = :$ORIGIN_PORT )" 2>/dev/null | grep -c "pid=$p," || true)))
    done
  fi
  cpu=$(python3 -c "print('%.0f' % (100.0 * ($c1 - $c0) / $HZ / ($t1 - $t0)))")
  [[ -n $ARM_PID ]] || { cpu=-; rss=0; }
  stop_pid "$ARM_PID"; ARM_PID=""
  python3 - "$OUT/$tag.h2load" "$OUT/$tag.log" "$proto" "$round" "$arm" "$cpu" "$rss" "$load1" "$DURATION" "$conns" "$hung" <<'EOF' | tee -a "$RUNS" >&2
import re, sys
out, logf, proto, rnd, arm, cpu, rss, load1, dur, conns, hung = sys.argv[1:]
text = open(out).read()
m = re.search(r"finished in [\d.]+m?s, ([\d.]+) req/s", text)
rps = float(m.group(1)) if m else 0.0
m = re.search(r"requests: (\d+) total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout", text)
total, ok, failed, errored, timeout = m.groups() if m else ("0",) * 5
# log lines: start (us since epoch), status, duration (us). Keep the last DURATION
# seconds of starts: h2load logs warm-up requests too.
rows = []
try:
    for line in open(logf):
        p = line.split()
        if len(p) >= 3:
            rows.append((int(p[0]), int(p[1]), int(p[2])))
except OSError:
    pass
if rows:
    end = max(r[0] for r in rows)
    rows = [r for r in rows if r[0] >= end - float(dur) * 1e6]
d = sorted(r[2] for r in rows)
pct = lambda q: d[min(len(d) - 1, int(q * len(d)))] / 1000.0 if d else float("nan")
mean = sum(d) / len(d) / 1000.0 if d else float("nan")
rss_mib = "%.0f" % (int(rss) / 1024.0) if rss != "0" else "-"
print("\t".join([proto, rnd, arm, "%.0f" % rps, total, ok, failed, errored, timeout,
                 "%.2f" % pct(0.50), "%.2f" % pct(0.99), "%.2f" % mean, cpu, rss_mib, load1, conns, hung]))
EOF
  rm -f "$OUT/$tag.log"
}

log "origin nginx on :$ORIGIN_PORT, proxies on :$PROXY_PORT; arms: $ARMS; protocols: $PROTOS; $ROUNDS rounds"
log "h2load -c $CONNS -m $STREAMS (h2) / --h1 -c $CONNS, -D $DURATION --warm-up-time $WARMUP after a ${PREWARM}s pre-warm run; results in $OUT"
read -r -a arm_list <<<"$ARMS"
for proto in $PROTOS; do
  for ((r = 1; r <= ROUNDS; r++)); do
    order=("${arm_list[@]}")
    if ((r % 2 == 0)); then
      order=(); for ((i = ${#arm_list[@]} - 1; i >= 0; i--)); do order+=("${arm_list[$i]}"); done
    fi
    for arm in "${order[@]}"; do run_one "$proto" "$r" "$arm"; done
  done
done

# --- summary: medians per protocol and arm, ratios
python3 - "$RUNS" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
def med(xs):
    xs = [float(x) for x in xs if x not in ("-", "nan")]
    return statistics.median(xs) if xs else float("nan")
print("| client | arm | runs | req/s (median) | req/s per run | p50 ms | p99 ms | errors (failed+errored+timeout) | proxy CPU % | proxy peak RSS MiB | conns to origin | ÷ nginx | ÷ mitmdump | ÷ direct |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for proto in dict.fromkeys(r["proto"] for r in rows):
    arms = list(dict.fromkeys(r["arm"] for r in rows if r["proto"] == proto))
    meds = {a: med([r["req_s"] for r in rows if r["proto"] == proto and r["arm"] == a]) for a in arms}
    for a in arms:
        rs = [r for r in rows if r["proto"] == proto and r["arm"] == a]
        errs = sum(int(r["failed"]) + int(r["errored"]) + int(r["timeout"]) for r in rs)
        ratio = lambda b: "%.2f" % (meds[a] / meds[b]) if b in meds and meds[b] else "-"
        hung = sum(r["hung"] == "yes" for r in rs)
        print("| %s | %s | %d | %.0f | %s | %.2f | %.2f | %d%s | %s | %s | %s | %s | %s | %s |" % (
            proto, a, len(rs), meds[a], " / ".join(r["req_s"] for r in rs),
            med([r["p50_ms"] for r in rs]), med([r["p99_ms"] for r in rs]), errs,
            " (%d hung)" % hung if hung else "",
            "%.0f" % med([r["proxy_cpu_pct"] for r in rs]) if a != "direct" else "-",
            "%.0f" % max(float(r["proxy_peak_rss_mib"]) for r in rs) if a != "direct" else "-",
            " / ".join(r["upstream_conns"] for r in rs) if a != "direct" else "-",
            ratio("nginx"), ratio("mitmdump"), ratio("direct")))
print()
print("load average (1 min) at the start of each run: %s" % " ".join(r["load1"] for r in rows))
EOF
