#!/usr/bin/env bash
# Interop test: real curl -> Loupe (headless) -> real nginx origins, all on 127.0.0.1,
# then real HTTP/2 clients (curl --http2, nghttp, h2load) through Loupe's regular
# mode and against a second Loupe in reverse mode (--mode reverse:https://ORIGIN), then
# independent HTTP/3 implementations: the ngtcp2 example client (gtlsclient) and headless
# Chromium (forced onto QUIC) against that reverse Loupe's QUIC listener, and Caddy as an
# HTTP/3 origin that a third Loupe (--upstream-protocol h3) reaches over QUIC for curl.
#
#   scripts/interop.sh            (expects app/target/loupe.jar; build it with
#                                  mvn -B -q install -DskipTests)
#   LOUPE_JAR=/path/loupe.jar scripts/interop.sh
#   KEEP_WORK=1 scripts/interop.sh   keep the temp work dir for inspection
#
# Installs nginx-light, curl, openssl, python3, nodejs, nghttp2-client (nghttp,
# h2load), ngtcp2-client (gtlsclient), caddy with apt-get when missing (needs root), and
# chromium-headless-shell when it can (optional: its checks SKIP without it). Prints a
# PASS/FAIL/SKIP line per check and a summary; exits non-zero when any check fails.
set -Eeuo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
HELPERS="$SCRIPT_DIR/interop"
LOUPE_JAR="${LOUPE_JAR:-$REPO_ROOT/app/target/loupe.jar}"
START_TIME=$SECONDS

log()  { printf '[interop] %s\n' "$*"; }
warn() { printf '[interop] WARNING: %s\n' "$*" >&2; }
die()  { printf '[interop] ERROR: %s\n' "$*" >&2; exit 2; }

# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------
PASSED=0
FAILED=0
SKIPPED=0
FAILED_NAMES=()
report() { # report PASS|FAIL|SKIP NAME [DETAIL]
  local status=$1 name=$2 detail=${3:-}
  if [[ $status == PASS ]]; then
    PASSED=$((PASSED + 1))
  elif [[ $status == SKIP ]]; then
    SKIPPED=$((SKIPPED + 1))
  else
    FAILED=$((FAILED + 1))
    FAILED_NAMES+=("$name")
  fi
  printf '%s  %s%s\n' "$status" "$name" "${detail:+  -- $detail}"
}
check() { # check NAME DETAIL CMD... : PASS when CMD succeeds
  local name=$1 detail=$2
  shift 2
  if "$@"; then report PASS "$name" "$detail"; else report FAIL "$name" "$detail"; fi
}

# ---------------------------------------------------------------------------
# Prerequisites
# ---------------------------------------------------------------------------
find_nginx() {
  if command -v nginx >/dev/null 2>&1; then command -v nginx
  elif [[ -x /usr/sbin/nginx ]]; then echo /usr/sbin/nginx
  else return 1
  fi
}

install_prereqs() {
  local missing=() pair bin pkg
  for pair in nginx:nginx-light curl:curl openssl:openssl python3:python3 node:nodejs \
      nghttp:nghttp2-client h2load:nghttp2-client gtlsclient:ngtcp2-client caddy:caddy java:-; do
    bin=${pair%%:*}
    pkg=${pair#*:}
    if [[ $bin == nginx ]]; then
      find_nginx >/dev/null && continue
    elif command -v "$bin" >/dev/null 2>&1; then
      continue
    fi
    [[ $pkg == - ]] && die "'$bin' not found on PATH (a JDK 17+ is required)"
    [[ " ${missing[*]} " == *" $pkg "* ]] || missing+=("$pkg")
  done
  # npm is only needed for the optional HAR schema validation, Chromium for the optional
  # browser-over-QUIC check.
  local want_npm=0 want_chromium=0
  command -v npm >/dev/null 2>&1 || want_npm=1
  find_chromium >/dev/null || want_chromium=1
  if ((${#missing[@]} == 0 && want_npm == 0 && want_chromium == 0)); then
    return 0
  fi
  if ((${#missing[@]} == 0)); then
    # Only optional tools missing: try them, but never fail for them.
    install_optional "$want_npm" "$want_chromium"
    return 0
  fi
  [[ $(id -u) -eq 0 ]] || die "missing packages: ${missing[*]} (run as root to install them, or install them yourself)"
  command -v apt-get >/dev/null 2>&1 || die "missing packages: ${missing[*]} and no apt-get"
  log "installing: ${missing[*]}"
  apt_install "${missing[@]}" || die "apt-get install ${missing[*]} failed"
  install_optional "$want_npm" "$want_chromium"
}

install_optional() { # install_optional WANT_NPM WANT_CHROMIUM
  [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1 || return 0
  if (($1)); then
    log "installing npm (optional, for HAR schema validation)"
    apt_install npm || warn "could not install npm; HAR schema validation will be skipped"
  fi
  if (($2)); then
    log "installing chromium-headless-shell (optional, for the browser-over-QUIC check)"
    apt_install chromium-headless-shell || warn "could not install chromium-headless-shell; its check will be skipped"
  fi
}

# find_chromium: a headless-capable Chromium and the flag that makes it headless
find_chromium() {
  if command -v chromium-headless-shell >/dev/null 2>&1; then echo "chromium-headless-shell"
  elif command -v chromium >/dev/null 2>&1; then echo "chromium --headless=new"
  else return 1
  fi
}

APT_UPDATED=0
apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  # Keep package maintainer scripts from starting the system nginx (port 80).
  local policy=/usr/sbin/policy-rc.d created_policy=0 rc=0
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && created_policy=1
  fi
  if ((APT_UPDATED == 0)); then
    apt-get update -qq || rc=$?
    APT_UPDATED=1
  fi
  if ((rc == 0)); then
    apt-get install -y -qq --no-install-recommends "$@" >/dev/null || rc=$?
  fi
  ((created_policy)) && rm -f "$policy"
  return "$rc"
}

install_prereqs
NGINX=$(find_nginx)
[[ -f $LOUPE_JAR ]] || die "Loupe jar not found: $LOUPE_JAR
  build it first:  (cd $REPO_ROOT && mvn -B -q install -DskipTests)
  or point LOUPE_JAR at it"

# ---------------------------------------------------------------------------
# Work dir, process bookkeeping, cleanup
# ---------------------------------------------------------------------------
W=$(mktemp -d "${TMPDIR:-/tmp}/loupe-interop.XXXXXX")
LOUPE_PID=""
REV_PID=""
NGINX_PID=""
ECHO_PID=""
H3_PID=""
CADDY_PID=""

stop_pid() { # stop_pid PID NAME : SIGTERM, then SIGKILL after 10 s
  local pid=$1 name=$2 i
  [[ -n $pid ]] || return 0
  kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    warn "$name (pid $pid) did not stop on SIGTERM; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

dump_logs() {
  local f
  for f in loupe.out loupe.err loupe-rev.out loupe-rev.err loupe-h3.out loupe-h3.err nginx/error.log echo.log \
      caddy/caddy.log; do
    if [[ -s $W/$f ]]; then
      printf '\n----- %s (last 40 lines) -----\n' "$f" >&2
      tail -n 40 "$W/$f" >&2 || true
    fi
  done
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  stop_pid "$LOUPE_PID" loupe
  stop_pid "$REV_PID" loupe-reverse
  stop_pid "$NGINX_PID" nginx
  stop_pid "$ECHO_PID" echo-server
  stop_pid "$H3_PID" loupe-h3
  stop_pid "$CADDY_PID" caddy
  if ((rc != 0)); then dump_logs; fi
  if [[ ${KEEP_WORK:-0} == 1 ]]; then
    log "work dir kept: $W"
  else
    rm -rf "$W"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'printf "[interop] ERROR: line %s: command failed: %s\n" "$LINENO" "$BASH_COMMAND" >&2' ERR
trap 'warn "interrupted (SIGINT)"; exit 130' INT
trap 'warn "interrupted (SIGTERM)"; exit 143' TERM

mkdir -p "$W/pki" "$W/www" "$W/nginx/tmp" "$W/conf" "$W/got"

# Free ports: bind them all at once so they are distinct, then release. Each is free on
# UDP too (the reverse Loupe's QUIC listener and Caddy's HTTP/3 share their TCP port number).
read -r HTTP_PORT HTTPS_PORT UNTRUSTED_PORT ECHO_PORT LOUPE_PORT REV_PORT H3_PORT CADDY_PORT < <(python3 - <<'EOF'
import socket
ports, held = [], []
while len(ports) < 8:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    held.append(s)  # held until the end so no port comes up twice
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        u.bind(("127.0.0.1", s.getsockname()[1]))
    except OSError:
        u.close()
        continue
    held.append(u)
    ports.append(s.getsockname()[1])
print(" ".join(map(str, ports)))
for s in held:
    s.close()
EOF
)
log "work dir $W"
log "ports: nginx http=$HTTP_PORT https=$HTTPS_PORT untrusted=$UNTRUSTED_PORT echo=$ECHO_PORT loupe=$LOUPE_PORT loupe-reverse=$REV_PORT loupe-h3=$H3_PORT caddy=$CADDY_PORT"

# ---------------------------------------------------------------------------
# PKI: origin CA + leaf, untrusted CA + leaf
# ---------------------------------------------------------------------------
make_ca() { # make_ca NAME CN
  openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$W/pki/$1-key.pem" -out "$W/pki/$1.pem" -days 30 -subj "/CN=$2" \
    -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -addext "subjectKeyIdentifier=hash" 2>/dev/null
}
make_leaf() { # make_leaf NAME CA_NAME
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$W/pki/$1-key.pem" -out "$W/pki/$1.csr" -subj "/CN=localhost" 2>/dev/null
  cat >"$W/pki/$1.ext" <<'EOF'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
EOF
  openssl x509 -req -in "$W/pki/$1.csr" -CA "$W/pki/$2.pem" -CAkey "$W/pki/$2-key.pem" \
    -set_serial "0x$(openssl rand -hex 16)" -days 30 -extfile "$W/pki/$1.ext" \
    -out "$W/pki/$1.pem" 2>/dev/null
}
make_ca origin-ca "Loupe interop origin CA"
make_leaf origin origin-ca
make_ca untrusted-ca "Loupe interop UNTRUSTED CA"
make_leaf untrusted untrusted-ca
ORIGIN_CA=$W/pki/origin-ca.pem
UNTRUSTED_CA=$W/pki/untrusted-ca.pem

# ---------------------------------------------------------------------------
# Content
# ---------------------------------------------------------------------------
printf 'Loupe interop static file\nline 2: \xc3\xa9\xe2\x82\xac \x01\x02 binary-ish bytes\n' >"$W/www/static.txt"
head -c 1048576 /dev/urandom >"$W/www/big.bin"
printf 'hello, world\n' >"$W/www/small"   # 13 bytes, for h2load
# For headless Chromium: fetches the 1 MiB file and writes its status, length and SHA-256
# into the page, which --dump-dom then prints.
cat >"$W/www/h3-fetch.html" <<'EOF'
<!doctype html><html><body><p id="r">pending</p><script>
fetch('/big.bin?chromium').then(r => r.arrayBuffer().then(b => crypto.subtle.digest('SHA-256', b).then(h => {
  document.getElementById('r').textContent = 'status=' + r.status + ' bytes=' + b.byteLength + ' sha256=' +
    Array.from(new Uint8Array(h), x => x.toString(16).padStart(2, '0')).join('');
}))).catch(e => { document.getElementById('r').textContent = 'error=' + e; });
</script></body></html>
EOF
head -c 5242880 /dev/urandom >"$W/upload.bin"
head -c 307200 /dev/urandom >"$W/chunked.bin"
sha() { sha256sum "$1" | cut -d' ' -f1; }
oneline() { # oneline FILE [MAXBYTES] : file content on one line, for messages
  if [[ -f $1 ]]; then head -c "${2:-400}" "$1" | tr '\n\r' '  '; fi
}
BIG_SHA=$(sha "$W/www/big.bin")
UPLOAD_SHA=$(sha "$W/upload.bin")

# ---------------------------------------------------------------------------
# Origins: node echo server + nginx
# ---------------------------------------------------------------------------
node "$HELPERS/echo-server.js" "$ECHO_PORT" "$W/chunked.bin" >"$W/echo.log" 2>&1 &
ECHO_PID=$!

NGINX_USER=""
[[ $(id -u) -eq 0 ]] && NGINX_USER="user root;"
cat >"$W/nginx/nginx.conf" <<EOF
$NGINX_USER
worker_processes 1;
pid $W/nginx/nginx.pid;
error_log $W/nginx/error.log error;
events { worker_connections 256; }
http {
    access_log $W/nginx/access.log;
    client_body_temp_path $W/nginx/tmp/body;
    proxy_temp_path $W/nginx/tmp/proxy;
    fastcgi_temp_path $W/nginx/tmp/fastcgi;
    uwsgi_temp_path $W/nginx/tmp/uwsgi;
    scgi_temp_path $W/nginx/tmp/scgi;
    types { text/plain txt; application/octet-stream bin; text/html html; }
    default_type application/octet-stream;
    sendfile on;
    ssl_protocols TLSv1.2 TLSv1.3;

    server {
        listen 127.0.0.1:$HTTP_PORT;
        listen 127.0.0.1:$HTTPS_PORT ssl http2;
        server_name localhost 127.0.0.1;
        ssl_certificate $W/pki/origin.pem;
        ssl_certificate_key $W/pki/origin-key.pem;
        root $W/www;

        location / { try_files \$uri =404; }
        location = /upload {
            client_max_body_size 64m;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_pass http://127.0.0.1:$ECHO_PORT;
        }
        location = /chunked {
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffering off;
            proxy_pass http://127.0.0.1:$ECHO_PORT;
        }
    }

    server {
        listen 127.0.0.1:$UNTRUSTED_PORT ssl http2;
        server_name localhost 127.0.0.1;
        ssl_certificate $W/pki/untrusted.pem;
        ssl_certificate_key $W/pki/untrusted-key.pem;
        root $W/www;
        location / { try_files \$uri =404; }
    }
}
EOF
"$NGINX" -p "$W/nginx" -c "$W/nginx/nginx.conf" -g 'daemon off;' >"$W/nginx/stdout.log" 2>&1 &
NGINX_PID=$!

# direct_curl: straight to the origin, never through any proxy
direct_curl() { curl --noproxy '*' -sS --max-time 30 "$@"; }

wait_until() { # wait_until SECONDS PID DESCRIPTION CMD...
  local timeout=$1 pid=$2 what=$3 deadline=$((SECONDS + $1))
  shift 3
  until "$@" >/dev/null 2>&1; do
    kill -0 "$pid" 2>/dev/null || die "$what exited before it was ready"
    ((SECONDS < deadline)) || die "$what not ready after ${timeout}s"
    sleep 0.2
  done
}
wait_until 10 "$ECHO_PID" "echo server" direct_curl -f "http://127.0.0.1:$ECHO_PORT/healthz"
wait_until 10 "$NGINX_PID" "nginx" direct_curl -f --cacert "$ORIGIN_CA" "https://127.0.0.1:$HTTPS_PORT/static.txt"
wait_until 10 "$NGINX_PID" "nginx (untrusted listener)" direct_curl -f --cacert "$UNTRUSTED_CA" "https://127.0.0.1:$UNTRUSTED_PORT/static.txt"
log "origins up: nginx pid $NGINX_PID ($("$NGINX" -v 2>&1 | sed 's/.*: //')), echo server pid $ECHO_PID (node $(node --version))"

# ---------------------------------------------------------------------------
# Origin sanity (direct, no proxy) -- proves the fixtures, not Loupe
# ---------------------------------------------------------------------------
echo
log "== origin sanity (direct) =="
v=$(direct_curl --cacert "$ORIGIN_CA" -o "$W/got/direct-big.bin" -w '%{http_code} %{http_version}' \
  "https://127.0.0.1:$HTTPS_PORT/big.bin" || true)
check "origin: direct HTTPS GET 1 MiB (origin CA)" "status/version $v" \
  test "${v%% *}" = 200 -a "$(sha "$W/got/direct-big.bin")" = "$BIG_SHA"

v=$(direct_curl --cacert "$UNTRUSTED_CA" -o /dev/null -w '%{http_code}' \
  "https://127.0.0.1:$UNTRUSTED_PORT/static.txt" || true)
check "origin: untrusted listener is valid under its own CA" "status $v" test "$v" = 200

direct_curl --http1.1 --cacert "$ORIGIN_CA" -v -o "$W/got/direct-chunked-https.bin" \
  "https://127.0.0.1:$HTTPS_PORT/chunked" 2>"$W/got/direct-chunked-https.verbose" || true
check "origin: /chunked over HTTPS/1.1 is Transfer-Encoding: chunked" \
  "$(grep -i '^< transfer-encoding' "$W/got/direct-chunked-https.verbose" | tr -d '\r' || echo 'no transfer-encoding header')" \
  bash -c 'grep -qi "^< transfer-encoding: chunked" "$1" && ! grep -qi "^< content-length" "$1" && cmp -s "$2" "$3"' _ \
  "$W/got/direct-chunked-https.verbose" "$W/got/direct-chunked-https.bin" "$W/chunked.bin"

direct_curl -v -o "$W/got/direct-chunked-http.bin" "http://127.0.0.1:$HTTP_PORT/chunked" \
  2>"$W/got/direct-chunked-http.verbose" || true
check "origin: /chunked over plain HTTP is Transfer-Encoding: chunked" \
  "$(grep -i '^< transfer-encoding' "$W/got/direct-chunked-http.verbose" | tr -d '\r' || echo 'no transfer-encoding header')" \
  bash -c 'grep -qi "^< transfer-encoding: chunked" "$1" && ! grep -qi "^< content-length" "$1" && cmp -s "$2" "$3"' _ \
  "$W/got/direct-chunked-http.verbose" "$W/got/direct-chunked-http.bin" "$W/chunked.bin"

v=$(direct_curl --cacert "$ORIGIN_CA" --data-binary "@$W/upload.bin" -H 'Content-Type: application/octet-stream' \
  "https://127.0.0.1:$HTTPS_PORT/upload" || true)
check "origin: direct 5 MiB upload echoes the right SHA-256" "$v" \
  grep -q "\"sha256\":\"$UPLOAD_SHA\"" <<<"$v"

# ---------------------------------------------------------------------------
# Loupe
# ---------------------------------------------------------------------------
echo
log "== starting Loupe =="
java -jar "$LOUPE_JAR" --headless --listen "127.0.0.1:$LOUPE_PORT" --confdir "$W/conf" \
  --trust-ca "$ORIGIN_CA" --har "$W/session.har" >"$W/loupe.out" 2>"$W/loupe.err" &
LOUPE_PID=$!
deadline=$((SECONDS + 30))
until grep -q "listening on http://127.0.0.1:$LOUPE_PORT" "$W/loupe.out" 2>/dev/null; do
  kill -0 "$LOUPE_PID" 2>/dev/null || die "Loupe exited before it was listening"
  ((SECONDS < deadline)) || die "Loupe printed no listening line within 30 s"
  sleep 0.2
done
log "$(grep -m1 'listening on' "$W/loupe.out")"
LOUPE_CA=$(sed -n 's/^CA certificate: //p' "$W/loupe.out" | head -n1)
[[ -n $LOUPE_CA && -f $LOUPE_CA ]] || die "no usable 'CA certificate: PATH' line in Loupe's output"

# The CLI's view of the CA agrees with what the running proxy printed.
cli_path=$(java -jar "$LOUPE_JAR" ca path --confdir "$W/conf" 2>&1 | tail -n1 || true)
java -jar "$LOUPE_JAR" ca export --confdir "$W/conf" --format pem "$W/loupe-ca-export.pem" >/dev/null 2>&1 || true
fp() { openssl x509 -in "$1" -noout -fingerprint -sha256 2>/dev/null | cut -d= -f2; }
check "loupe: 'ca path' and 'ca export' match the running proxy's CA" \
  "ca path: $cli_path" \
  test "$cli_path" = "$LOUPE_CA" -a -n "$(fp "$LOUPE_CA")" -a "$(fp "$W/loupe-ca-export.pem")" = "$(fp "$LOUPE_CA")"

# ---------------------------------------------------------------------------
# Through Loupe
# ---------------------------------------------------------------------------
# via_loupe METHOD URL OUTFILE REQ_BYTES RESP_CHECK_BYTES [curl args...]
#   Sets CODE, HTTPV and LOUPE_ERR (X-Loupe-Error of the response, "-" if none);
#   response headers go to OUTFILE.headers, curl's stderr to OUTFILE.stderr.
#   Records the request (and the HTTP version curl negotiated) for the HAR check.
REQUESTS=$W/requests.tsv
: >"$REQUESTS"
CODE=000
HTTPV=0
via_loupe() {
  local method=$1 url=$2 outfile=$3 req_bytes=$4 resp_bytes=$5 w
  shift 5
  if w=$(curl --noproxy '' --proxy "http://127.0.0.1:$LOUPE_PORT" --cacert "$LOUPE_CA" -sS \
      --max-time 30 -o "$outfile" -D "$outfile.headers" -w '%{http_code} %{http_version}' "$@" "$url" \
      2>"$outfile.stderr"); then
    :
  else
    warn "curl $method $url failed: $(cat "$outfile.stderr")"
  fi
  CODE=${w%% *}
  HTTPV=${w##* }
  [[ -n $CODE ]] || CODE=000
  LOUPE_ERR=$(grep -i '^x-loupe-error:' "$outfile.headers" 2>/dev/null | tail -n1 | tr -d '\r' | sed 's/^[^:]*: *//' || true)
  [[ -n $LOUPE_ERR ]] || LOUPE_ERR=-
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$method" "$url" "$CODE" "$req_bytes" "$resp_bytes" "$LOUPE_ERR" "${HTTPV:-0}" >>"$REQUESTS"
}

echo
log "== through Loupe =="

# 1. plain HTTP GET of the static file
via_loupe GET "http://127.0.0.1:$HTTP_PORT/static.txt" "$W/got/static.txt" -1 "$(stat -c %s "$W/www/static.txt")"
check "1. HTTP GET static file is byte-equal" "status $CODE, HTTP/$HTTPV" \
  bash -c '[[ $1 == 200 ]] && cmp -s "$2" "$3"' _ "$CODE" "$W/got/static.txt" "$W/www/static.txt"

# 2. HTTPS GET 1 MiB (curl's default protocol choice)
via_loupe GET "https://127.0.0.1:$HTTPS_PORT/big.bin" "$W/got/big.bin" -1 1048576
got_sha=$(sha "$W/got/big.bin" 2>/dev/null || echo none)
check "2. HTTPS GET 1 MiB has the right SHA-256" "status $CODE, HTTP/$HTTPV, sha256 ${got_sha:0:16}..." \
  test "$CODE" = 200 -a "$got_sha" = "$BIG_SHA"

# 3. HTTPS 5 MiB uploads: POST without Expect, PUT with curl's default Expect: 100-continue
#    (nginx answers it with an interim "100 Continue" that Loupe relays).
via_loupe POST "https://127.0.0.1:$HTTPS_PORT/upload" "$W/got/upload-post.json" 5242880 -1 \
  --data-binary "@$W/upload.bin" -H 'Content-Type: application/octet-stream' -H 'Expect:'
check "3a. HTTPS POST 5 MiB (no Expect) arrives intact (echoed SHA-256)" "status $CODE, HTTP/$HTTPV, echo: $(oneline "$W/got/upload-post.json")" \
  bash -c '[[ $1 == 200 ]] && grep -q "\"bytes\":5242880,\"sha256\":\"$2\"" "$3"' _ "$CODE" "$UPLOAD_SHA" "$W/got/upload-post.json"

via_loupe PUT "https://127.0.0.1:$HTTPS_PORT/upload" "$W/got/upload-put.json" 5242880 -1 \
  -T "$W/upload.bin" -H 'Content-Type: application/octet-stream'
check "3b. HTTPS PUT 5 MiB (Expect: 100-continue) arrives intact" "status $CODE, HTTP/$HTTPV, echo: $(oneline "$W/got/upload-put.json")" \
  bash -c '[[ $1 == 200 ]] && grep -q "\"bytes\":5242880,\"sha256\":\"$2\"" "$3"' _ "$CODE" "$UPLOAD_SHA" "$W/got/upload-put.json"

# 4. chunked responses through the proxy
framing() { # what framing Loupe used towards curl (informational)
  if grep -qi '^< transfer-encoding: chunked' "$1"; then echo "client leg chunked"
  elif grep -qi '^< content-length' "$1"; then echo "client leg $(grep -i '^< content-length' "$1" | tr -d '\r' | sed 's/^< //')"
  else echo "client leg close-delimited or HTTP/2"; fi
}
via_loupe GET "https://127.0.0.1:$HTTPS_PORT/chunked" "$W/got/chunked-https.bin" -1 307200 --http1.1 -v
check "4a. HTTPS chunked response body is correct" "status $CODE, HTTP/$HTTPV, $(framing "$W/got/chunked-https.bin.stderr")" \
  bash -c '[[ $1 == 200 ]] && cmp -s "$2" "$3"' _ "$CODE" "$W/got/chunked-https.bin" "$W/chunked.bin"

via_loupe GET "http://127.0.0.1:$HTTP_PORT/chunked" "$W/got/chunked-http.bin" -1 307200 -v
check "4b. plain HTTP chunked response body is correct" "status $CODE, HTTP/$HTTPV, $(framing "$W/got/chunked-http.bin.stderr")" \
  bash -c '[[ $1 == 200 ]] && cmp -s "$2" "$3"' _ "$CODE" "$W/got/chunked-http.bin" "$W/chunked.bin"

# 5. untrusted origin -> 502 naming the cause
via_loupe GET "https://127.0.0.1:$UNTRUSTED_PORT/static.txt" "$W/got/untrusted.txt" -1 -1
err_hdr=$LOUPE_ERR
check "5. HTTPS to an untrusted origin gives 502 'not trusted' (X-Loupe-Error: tls-verify)" \
  "status $CODE, X-Loupe-Error: $err_hdr, body: $(oneline "$W/got/untrusted.txt" 160)" \
  bash -c '[[ $1 == 502 && $2 == tls-verify ]] && grep -q "not trusted" "$3"' _ "$CODE" "$err_hdr" "$W/got/untrusted.txt"

# 6. explicit --http1.1
via_loupe GET "https://127.0.0.1:$HTTPS_PORT/big.bin" "$W/got/big-h1.bin" -1 1048576 --http1.1
got_sha=$(sha "$W/got/big-h1.bin" 2>/dev/null || echo none)
check "6a. HTTPS GET --http1.1 negotiates 1.1 and the body is right" "status $CODE, http_version $HTTPV" \
  test "$CODE" = 200 -a "$HTTPV" = 1.1 -a "$got_sha" = "$BIG_SHA"

via_loupe GET "http://127.0.0.1:$HTTP_PORT/static.txt" "$W/got/static-h1.txt" -1 "$(stat -c %s "$W/www/static.txt")" --http1.1
check "6b. HTTP GET --http1.1 reports 1.1 and the body is right" "status $CODE, http_version $HTTPV" \
  bash -c '[[ $1 == 200 && $2 == 1.1 ]] && cmp -s "$3" "$4"' _ "$CODE" "$HTTPV" "$W/got/static-h1.txt" "$W/www/static.txt"

# 8. HTTP/2 explicitly: curl --http2 through the proxy to the h2 origin.
#    The query strings make these flows' printed lines unique (nginx ignores them).
# wait_flow_line OUTFILE REGEX : the flow line matching REGEX, waiting up to 10 s
#   (Loupe prints a flow's line when it completes, which can trail the client).
wait_flow_line() {
  local file=$1 re=$2 deadline=$((SECONDS + 10)) line
  while :; do
    line=$(grep -m1 -E "$re" "$file" 2>/dev/null || true)
    if [[ -n $line || $SECONDS -ge $deadline ]]; then
      printf '%s' "$line"
      return 0
    fi
    sleep 0.2
  done
}
re_escape() { printf '%s' "$1" | sed 's/[][\.*^$?+(){}|]/\\&/g'; }

H2_GET_URL="https://127.0.0.1:$HTTPS_PORT/big.bin?h2-get"
via_loupe GET "$H2_GET_URL" "$W/got/big-h2.bin" -1 1048576 --http2
got_sha=$(sha "$W/got/big-h2.bin" 2>/dev/null || echo none)
check "8a. HTTPS GET 1 MiB --http2 negotiates HTTP/2 and has the right SHA-256" \
  "status $CODE, http_version $HTTPV, sha256 ${got_sha:0:16}..." \
  test "$CODE" = 200 -a "$HTTPV" = 2 -a "$got_sha" = "$BIG_SHA"

H2_POST_URL="https://127.0.0.1:$HTTPS_PORT/upload?h2-post"
via_loupe POST "$H2_POST_URL" "$W/got/upload-h2.json" 5242880 -1 --http2 \
  --data-binary "@$W/upload.bin" -H 'Content-Type: application/octet-stream'
check "8b. HTTPS POST 5 MiB --http2 (curl's default Expect) arrives intact over HTTP/2" \
  "status $CODE, http_version $HTTPV, echo: $(oneline "$W/got/upload-h2.json")" \
  bash -c '[[ $1 == 200 && $2 == 2 ]] && grep -q "\"bytes\":5242880,\"sha256\":\"$3\"" "$4"' _ \
  "$CODE" "$HTTPV" "$UPLOAD_SHA" "$W/got/upload-h2.json"

line=$(wait_flow_line "$W/loupe.out" " GET $(re_escape "$H2_GET_URL") ")
check "8c. Loupe's flow line for the --http2 GET says h2 on both legs (h2/h2)" "${line:-no flow line}" \
  grep -qE ' 200 .* h2/h2( |$)' <<<"$line"
line=$(wait_flow_line "$W/loupe.out" " POST $(re_escape "$H2_POST_URL") ")
check "8d. Loupe's flow line for the --http2 POST says h2/h2" "${line:-no flow line}" \
  grep -qE ' 200 .* h2/h2( |$)' <<<"$line"

# ---------------------------------------------------------------------------
# Stop Loupe (SIGTERM) and check its outputs
# ---------------------------------------------------------------------------
echo
log "== stopping Loupe (SIGTERM) =="
n_requests=$(wc -l <"$REQUESTS")
kill -TERM "$LOUPE_PID"
loupe_rc=0
wait "$LOUPE_PID" || loupe_rc=$?
LOUPE_PID=""
log "Loupe exited with status $loupe_rc"

flow_lines=$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)? (GET|POST|PUT) ' "$W/loupe.out" || true)
check "loupe: one printed line per completed flow" "$flow_lines flow lines for $n_requests requests" \
  test "$flow_lines" -eq "$n_requests"

check "7a. HAR file written on SIGTERM" "$(stat -c '%s bytes' "$W/session.har" 2>/dev/null || echo 'no file')" \
  test -s "$W/session.har"

if [[ -s $W/session.har ]]; then
  while IFS=$'\t' read -r status name detail; do
    report "$status" "7. $name" "$detail"
  done < <(python3 "$HELPERS/check-har.py" "$W/session.har" "$REQUESTS")

  # Bonus: JSON-schema validation with har-validator (skipped when npm is unavailable).
  if command -v npm >/dev/null 2>&1; then
    if timeout 120 npm install --prefix "$W/npm" --no-audit --no-fund --no-save --loglevel=error \
        har-validator@5.1.5 >"$W/npm.log" 2>&1; then
      if node -e '
          const validate = require(process.argv[1]);
          const har = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));
          validate.har(har).then(() => console.log("valid HAR 1.2"), (e) => {
            console.log(JSON.stringify(e.errors || e.message).slice(0, 600));
            process.exit(1);
          });' "$W/npm/node_modules/har-validator" "$W/session.har" >"$W/har-validator.out" 2>&1; then
        report PASS "7. har-validator@5.1.5 accepts the HAR" "$(cat "$W/har-validator.out")"
      else
        report FAIL "7. har-validator@5.1.5 accepts the HAR" "$(cat "$W/har-validator.out")"
      fi
    else
      warn "npm install har-validator@5.1.5 failed (network?); skipping HAR schema validation: $(tail -n 2 "$W/npm.log" | tr '\n' ' ')"
    fi
  else
    warn "npm not available; skipping HAR schema validation"
  fi
fi

# ---------------------------------------------------------------------------
# Reverse mode: a second Loupe (same confdir, so the same CA) in front of the same
# nginx origin, driven by nghttp, curl and h2load
# ---------------------------------------------------------------------------
echo
log "== Loupe in reverse mode (nghttp, h2load) =="
REV_ORIGIN="https://127.0.0.1:$HTTPS_PORT"
java -jar "$LOUPE_JAR" --headless --listen "127.0.0.1:$REV_PORT" --confdir "$W/conf" \
  --trust-ca "$ORIGIN_CA" --mode "reverse:$REV_ORIGIN" >"$W/loupe-rev.out" 2>"$W/loupe-rev.err" &
REV_PID=$!
deadline=$((SECONDS + 30))
until grep -q "listening on http://127.0.0.1:$REV_PORT" "$W/loupe-rev.out" 2>/dev/null; do
  kill -0 "$REV_PID" 2>/dev/null || die "Loupe (reverse mode) exited before it was listening"
  ((SECONDS < deadline)) || die "Loupe (reverse mode) printed no listening line within 30 s"
  sleep 0.2
done
log "$(grep -m1 'listening on' "$W/loupe-rev.out")"
REV_CA=$(sed -n 's/^CA certificate: //p' "$W/loupe-rev.out" | head -n1)
[[ -n $REV_CA && -f $REV_CA ]] || die "no usable 'CA certificate: PATH' line in the reverse-mode Loupe's output"
# Request lines name the origin URL (the reverse target), e.g.
#   GET https://127.0.0.1:ORIGIN/big.bin?tls 200 1.0M 220ms h2/h2 relay
rev_flow_re() { printf ' %s %s ' "$1" "$(re_escape "$REV_ORIGIN$2")"; }

# nghttp: HTTP/2 only (it fails when ALPN does not select h2), body to stdout.
# It checks the chain against the default trust store and only warns on failure;
# SSL_CERT_FILE makes that store Loupe's CA, so the warning means a bad chain.
rev_nghttp() { # rev_nghttp OUTFILE URL [nghttp args...] : stderr to OUTFILE.stderr
  local outfile=$1 url=$2
  shift 2
  SSL_CERT_FILE=$REV_CA timeout 60 nghttp -t 30 "$@" "$url" >"$outfile" 2>"$outfile.stderr" \
    || warn "nghttp $url failed (exit $?): $(oneline "$outfile.stderr")"
}

# 9a. nghttp over TLS (ALPN h2), 1 MiB
rev_nghttp "$W/got/rev-tls.bin" "https://127.0.0.1:$REV_PORT/big.bin?tls"
got_sha=$(sha "$W/got/rev-tls.bin" 2>/dev/null || echo none)
cert_warn=$(grep -m1 -i 'verification failed' "$W/got/rev-tls.bin.stderr" || true)
check "9a. reverse TLS: nghttp GET 1 MiB over h2 has the right SHA-256, chain valid under Loupe's CA" \
  "sha256 ${got_sha:0:16}..., ${cert_warn:-no certificate warning}" \
  test "$got_sha" = "$BIG_SHA" -a -z "$cert_warn"

# 9b. nghttp with an http:// URL speaks h2c with prior knowledge (-u would ask for
#     an Upgrade instead), 1 MiB
rev_nghttp "$W/got/rev-h2c.bin" "http://127.0.0.1:$REV_PORT/big.bin?h2c"
got_sha=$(sha "$W/got/rev-h2c.bin" 2>/dev/null || echo none)
check "9b. reverse h2c prior knowledge: nghttp GET 1 MiB has the right SHA-256" "sha256 ${got_sha:0:16}..." \
  test "$got_sha" = "$BIG_SHA"

# 9c. nghttp upload over TLS, 5 MiB
rev_nghttp "$W/got/rev-upload.json" "https://127.0.0.1:$REV_PORT/upload?tls" -d "$W/upload.bin"
check "9c. reverse TLS: nghttp POST 5 MiB arrives intact (echoed SHA-256)" "echo: $(oneline "$W/got/rev-upload.json")" \
  grep -q "\"bytes\":5242880,\"sha256\":\"$UPLOAD_SHA\"" "$W/got/rev-upload.json"

# 9d/9e. curl: TLS h2 with hostname verification of the minted certificate, and
#        cleartext HTTP/1.1 on the same port.
v=$(curl --noproxy '*' -sS --max-time 30 --cacert "$REV_CA" --http2 -o "$W/got/rev-curl-h2.txt" \
  -w '%{http_code} %{http_version}' "https://127.0.0.1:$REV_PORT/static.txt?curl-h2" 2>"$W/got/rev-curl-h2.stderr" || true)
check "9d. reverse TLS: curl --http2 (verifying the minted certificate) gets HTTP/2 and the right body" \
  "status/version ${v:-none} $(oneline "$W/got/rev-curl-h2.stderr" 160)" \
  bash -c '[[ $1 == "200 2" ]] && cmp -s "$2" "$3"' _ "$v" "$W/got/rev-curl-h2.txt" "$W/www/static.txt"
v=$(curl --noproxy '*' -sS --max-time 30 --http1.1 -o "$W/got/rev-curl-h1.txt" \
  -w '%{http_code} %{http_version}' "http://127.0.0.1:$REV_PORT/static.txt?cleartext-h1" 2>"$W/got/rev-curl-h1.stderr" || true)
check "9e. reverse cleartext: curl HTTP/1.1 on the same port gets the right body" \
  "status/version ${v:-none} $(oneline "$W/got/rev-curl-h1.stderr" 160)" \
  bash -c '[[ $1 == "200 1.1" ]] && cmp -s "$2" "$3"' _ "$v" "$W/got/rev-curl-h1.txt" "$W/www/static.txt"

# 9f. the printed flow lines name the protocols of both legs
rev_lines=""
for spec in "GET /big.bin?tls h2/h2" "GET /big.bin?h2c h2/h2" "POST /upload?tls h2/h2" \
    "GET /static.txt?curl-h2 h2/h2" "GET /static.txt?cleartext-h1 h1/"; do
  read -r m path proto <<<"$spec"
  line=$(wait_flow_line "$W/loupe-rev.out" "$(rev_flow_re "$m" "$path")")
  if grep -qE " 200 .* $(re_escape "$proto")" <<<"$line"; then
    rev_lines+="$m $path: ${proto%/}; "
  else
    rev_lines+="$m $path: want $proto, got '${line:-no flow line}'; "
    rev_bad=1
  fi
done
check "9f. reverse: flow lines say h2 on both legs for nghttp/curl --http2 (h1 client for cleartext)" \
  "${rev_lines%; }" test "${rev_bad:-0}" = 0

# 10. h2load: 2000 requests, 16 connections, 10 streams each, zero errors
H2LOAD_N=2000
timeout 120 h2load -n "$H2LOAD_N" -c 16 -m 10 "https://127.0.0.1:$REV_PORT/small" >"$W/h2load.out" 2>&1 \
  || warn "h2load exited with status $?: $(tail -n 3 "$W/h2load.out" | tr '\n' ' ')"
h2_req=$(grep -m1 '^requests:' "$W/h2load.out" || true)
h2_codes=$(grep -m1 '^status codes:' "$W/h2load.out" || true)
h2_fin=$(grep -m1 '^finished in' "$W/h2load.out" || true)
h2_proto=$(sed -n 's/^Application protocol: //p' "$W/h2load.out" | head -n1)
check "10a. reverse TLS: h2load -n $H2LOAD_N -c 16 -m 10 completes with zero errors over h2" \
  "${h2_req:-no requests line}; ${h2_codes:-no status line}; protocol ${h2_proto:-?}; ${h2_fin%%,*}" \
  bash -c '[[ $2 == h2 ]] && [[ $1 =~ ^requests:\ ([0-9]+)\ total,\ ([0-9]+)\ started,\ ([0-9]+)\ done,\ ([0-9]+)\ succeeded,\ ([0-9]+)\ failed,\ ([0-9]+)\ errored(,\ ([0-9]+)\ timeout)? ]] &&
           (( BASH_REMATCH[1] == $4 && BASH_REMATCH[2] == $4 && BASH_REMATCH[3] == $4 && BASH_REMATCH[4] == $4 &&
              BASH_REMATCH[5] == 0 && BASH_REMATCH[6] == 0 && ${BASH_REMATCH[8]:-0} == 0 )) &&
           [[ $3 == "status codes: $4 2xx,"* ]]' _ "$h2_req" "$h2_proto" "$h2_codes" "$H2LOAD_N"

# Each h2load request is a flow of its own with its own printed line.
small_re="$(rev_flow_re GET /small)200 .* h2/h2"
deadline=$((SECONDS + 15))
while n_small=$(grep -cE "$small_re" "$W/loupe-rev.out" || true); ((n_small < H2LOAD_N && SECONDS < deadline)); do
  sleep 0.5
done
check "10b. reverse: one printed 200 h2/h2 flow line per h2load request" "$n_small of $H2LOAD_N" \
  test "$n_small" -eq "$H2LOAD_N"

# ---------------------------------------------------------------------------
# HTTP/3 clients from independent implementations against the same reverse Loupe's QUIC
# listener (UDP, same port number)
# ---------------------------------------------------------------------------
echo
log "== reverse mode over HTTP/3: ngtcp2 client, headless Chromium =="
# gtlsclient (ngtcp2's example client, GnuTLS): it takes no CA file and checks no certificate
# (it loads the system trust store but never verifies the peer, and has no option to), so the
# QUIC listener's certificate is checked by Chromium below; here the body and Loupe's flow line.
rev_ngtcp2() { # rev_ngtcp2 DIR URL [gtlsclient args...] : the body lands in DIR/<last path segment>
  local dir=$1 url=$2
  shift 2
  mkdir -p "$dir"
  timeout 60 gtlsclient -q --exit-on-all-streams-close --timeout=30s --download="$dir" --sni=localhost \
    "$@" 127.0.0.1 "$REV_PORT" "$url" >"$dir.stdout" 2>"$dir.stderr" \
    || warn "gtlsclient $url failed (exit $?): $(oneline "$dir.stderr")"
}
rev_ngtcp2 "$W/got/ngtcp2-get" "https://localhost:$REV_PORT/big.bin?ngtcp2"
got_sha=$(sha "$W/got/ngtcp2-get/big.bin?ngtcp2" 2>/dev/null || echo none)
check "11a. reverse QUIC: ngtcp2 gtlsclient GET 1 MiB over HTTP/3 has the right SHA-256 (client verifies no certificate)" \
  "sha256 ${got_sha:0:16}...$(oneline "$W/got/ngtcp2-get.stderr" 160)" test "$got_sha" = "$BIG_SHA"

rev_ngtcp2 "$W/got/ngtcp2-post" "https://localhost:$REV_PORT/upload?ngtcp2" -m POST -d "$W/upload.bin"
check "11b. reverse QUIC: ngtcp2 gtlsclient POST 5 MiB over HTTP/3 arrives intact (echoed SHA-256)" \
  "echo: $(oneline "$W/got/ngtcp2-post/upload?ngtcp2")$(oneline "$W/got/ngtcp2-post.stderr" 160)" \
  grep -q "\"bytes\":5242880,\"sha256\":\"$UPLOAD_SHA\"" "$W/got/ngtcp2-post/upload?ngtcp2"

h3_lines=""
h3_bad=0
for spec in "GET /big.bin?ngtcp2" "POST /upload?ngtcp2"; do
  read -r m path <<<"$spec"
  line=$(wait_flow_line "$W/loupe-rev.out" "$(rev_flow_re "$m" "$path")")
  if grep -qE " 200 .* h3/h[12]( |$)" <<<"$line"; then
    h3_lines+="$m $path: $(grep -oE 'h3/h[12]' <<<"$line"); "
  else
    h3_lines+="$m $path: want h3/..., got '${line:-no flow line}'; "
    h3_bad=1
  fi
done
check "11c. reverse QUIC: Loupe's flow lines for the ngtcp2 requests say client h3" "${h3_lines%; }" test "$h3_bad" = 0

# Headless Chromium forced onto QUIC for localhost:REV_PORT. It trusts no private CA for QUIC,
# so --ignore-certificate-errors-spki-list pins Loupe's CA key: the chain must lead to it (the
# second run pins another key and must fail). localhost is mapped to 127.0.0.1 (Loupe listens
# on IPv4 only; Chromium would try ::1 first).
spki() { openssl x509 -in "$1" -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64; }
CHROMIUM=$(find_chromium || true)
chromium_run() { # chromium_run OUTFILE SPKI URL : DOM to OUTFILE, stderr to OUTFILE.stderr, net log to OUTFILE.netlog
  local out=$1 pin=$2 url=$3
  # shellcheck disable=SC2086 # $CHROMIUM may carry its --headless flag
  timeout 60 $CHROMIUM --no-sandbox --disable-gpu --no-first-run --disable-dev-shm-usage \
    --user-data-dir="$W/chromium" --host-resolver-rules="MAP localhost 127.0.0.1" \
    --origin-to-force-quic-on="localhost:$REV_PORT" --ignore-certificate-errors-spki-list="$pin" \
    --log-net-log="$out.netlog" --virtual-time-budget=30000 --dump-dom "$url" >"$out" 2>"$out.stderr" || true
}
chromium_skip=""
if [[ -z $CHROMIUM ]]; then
  chromium_skip="no chromium-headless-shell or chromium on PATH (apt-get install chromium-headless-shell)"
else
  # Can it run here at all? (A page that needs no network.)
  chromium_run "$W/got/chromium-selftest.html" "" "data:text/html,<p>chromium-selftest-ok</p>"
  grep -q chromium-selftest-ok "$W/got/chromium-selftest.html" \
    || chromium_skip="$CHROMIUM cannot render a data: page here: $(oneline "$W/got/chromium-selftest.html.stderr" 300)"
fi
if [[ -n $chromium_skip ]]; then
  report SKIP "12. reverse QUIC: headless Chromium over HTTP/3" "$chromium_skip"
else
  chromium_run "$W/got/chromium.html" "$(spki "$REV_CA")" "https://localhost:$REV_PORT/h3-fetch.html"
  result=$(sed -n 's|.*<p id="r">\([^<]*\)</p>.*|\1|p' "$W/got/chromium.html" | head -n1)
  check "12a. reverse QUIC: headless Chromium (--origin-to-force-quic-on, Loupe's CA pinned) loads a page whose fetch of 1 MiB has the right SHA-256" \
    "${result:-no result: $(grep -m1 -o 'net::[A-Z_]*' "$W/got/chromium.html.stderr" || echo 'no DOM')}" \
    test "$result" = "status=200 bytes=1048576 sha256=$BIG_SHA"
  h3_lines=""
  h3_bad=0
  for path in /h3-fetch.html /big.bin?chromium; do
    line=$(wait_flow_line "$W/loupe-rev.out" "$(rev_flow_re GET "$path")")
    if grep -qE " 200 .* h3/h[12]( |$)" <<<"$line"; then
      h3_lines+="GET $path: $(grep -oE 'h3/h[12]' <<<"$line"); "
    else
      h3_lines+="GET $path: want h3/..., got '${line:-no flow line}'; "
      h3_bad=1
    fi
  done
  check "12b. reverse QUIC: Loupe's flow lines for Chromium's requests say client h3" "${h3_lines%; }" test "$h3_bad" = 0
  rm -rf "$W/chromium"
  chromium_run "$W/got/chromium-wrong-pin.html" "$(spki "$ORIGIN_CA")" "https://localhost:$REV_PORT/h3-fetch.html?wrong-pin"
  # Chromium does not always print the page's net:: error on stderr (it did not in one CI run
  # while the net log held the refusal), so it is reported, not required. What must hold: the
  # QUIC session's close reason in the net log names the certificate check, the page's fetch got
  # no result, and no request reached Loupe.
  err=$(grep -m1 -oE 'net::[A-Z_]+' "$W/got/chromium-wrong-pin.html.stderr" || true)
  why=$(grep -m1 -oE 'SSL routines:OPENSSL_internal:[A-Z_]+' "$W/got/chromium-wrong-pin.html.netlog" || true)
  leaked=$(grep -cE "$(rev_flow_re GET '/h3-fetch.html?wrong-pin')" "$W/loupe-rev.out" || true)
  check "12c. reverse QUIC: Chromium pinning another CA's key refuses the listener's certificate" \
    "${why:-no TLS error in the net log}, ${err:-no net:: error on stderr}, ${leaked:-0} request(s) reached Loupe" \
    bash -c '[[ $1 == *CERTIFICATE_VERIFY_FAILED && ${2:-0} == 0 ]] && ! grep -q "status=" "$3"' _ "$why" "$leaked" "$W/got/chromium-wrong-pin.html"
fi

kill -TERM "$REV_PID"
rev_rc=0
wait "$REV_PID" || rev_rc=$?
REV_PID=""
log "Loupe (reverse mode) exited with status $rev_rc"

# ---------------------------------------------------------------------------
# Caddy as an HTTP/3 origin: a third Loupe (regular mode, --upstream-protocol h3) reaches it
# over QUIC for curl (HTTP/1.1 and HTTP/2 clients)
# ---------------------------------------------------------------------------
echo
log "== Caddy as an HTTP/3 origin (Loupe --upstream-protocol h3) =="
mkdir -p "$W/caddy"
# Caddy serves the origin CA's leaf (localhost) over TCP and, on the same UDP port, HTTP/3;
# /upload goes on to the echo server. Its access log records each request's protocol.
cat >"$W/caddy/Caddyfile" <<EOF
{
	admin off
	auto_https disable_redirects
	skip_install_trust
	storage file_system $W/caddy/data
	servers {
		protocols h1 h2 h3
	}
}
https://localhost:$CADDY_PORT {
	bind 127.0.0.1
	tls $W/pki/origin.pem $W/pki/origin-key.pem
	log {
		output file $W/caddy/access.log
		format json
	}
	handle /upload {
		reverse_proxy 127.0.0.1:$ECHO_PORT
	}
	handle {
		root * $W/www
		file_server
	}
}
EOF
HOME=$W/caddy XDG_DATA_HOME=$W/caddy/data XDG_CONFIG_HOME=$W/caddy/config \
  caddy run --config "$W/caddy/Caddyfile" --adapter caddyfile >"$W/caddy/caddy.log" 2>&1 &
CADDY_PID=$!
wait_until 15 "$CADDY_PID" "caddy" direct_curl -f --cacert "$ORIGIN_CA" \
  --resolve "localhost:$CADDY_PORT:127.0.0.1" "https://localhost:$CADDY_PORT/static.txt"
log "caddy up: pid $CADDY_PID ($(caddy version 2>/dev/null | cut -d' ' -f1))"

# caddy_proto PATH_AND_QUERY : the protocol of that request in Caddy's access log
caddy_proto() {
  python3 - "$W/caddy/access.log" "$1" <<'EOF'
import json, sys
proto = "none"
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    try:
        req = json.loads(line).get("request", {})
    except ValueError:
        continue
    if req.get("uri") == sys.argv[2]:
        proto = req.get("proto", "?")
print(proto)
EOF
}

# Fixture: Caddy really serves HTTP/3 (ngtcp2's client, straight to it).
mkdir -p "$W/got/caddy-direct"
timeout 60 gtlsclient -q --exit-on-all-streams-close --timeout=30s --download="$W/got/caddy-direct" \
  --sni=localhost 127.0.0.1 "$CADDY_PORT" "https://localhost:$CADDY_PORT/big.bin?direct" \
  >"$W/got/caddy-direct.stdout" 2>"$W/got/caddy-direct.stderr" || warn "gtlsclient to caddy failed (exit $?)"
got_sha=$(sha "$W/got/caddy-direct/big.bin?direct" 2>/dev/null || echo none)
check "origin: Caddy serves 1 MiB over HTTP/3 (ngtcp2 client, direct)" \
  "sha256 ${got_sha:0:16}..., Caddy logged $(caddy_proto '/big.bin?direct')" \
  test "$got_sha" = "$BIG_SHA" -a "$(caddy_proto '/big.bin?direct')" = HTTP/3.0

java -jar "$LOUPE_JAR" --headless --listen "127.0.0.1:$H3_PORT" --confdir "$W/conf" \
  --trust-ca "$ORIGIN_CA" --upstream-protocol h3 >"$W/loupe-h3.out" 2>"$W/loupe-h3.err" &
H3_PID=$!
deadline=$((SECONDS + 30))
until grep -q "listening on http://127.0.0.1:$H3_PORT" "$W/loupe-h3.out" 2>/dev/null; do
  kill -0 "$H3_PID" 2>/dev/null || die "Loupe (--upstream-protocol h3) exited before it was listening"
  ((SECONDS < deadline)) || die "Loupe (--upstream-protocol h3) printed no listening line within 30 s"
  sleep 0.2
done
log "$(grep -m1 'listening on' "$W/loupe-h3.out")"

via_h3() { # via_h3 OUTFILE URL [curl args...] : sets CODE and HTTPV
  local outfile=$1 url=$2 w
  shift 2
  w=$(curl --noproxy '' --proxy "http://127.0.0.1:$H3_PORT" --cacert "$LOUPE_CA" -sS --max-time 60 \
    -o "$outfile" -w '%{http_code} %{http_version}' "$@" "$url" 2>"$outfile.stderr") \
    || warn "curl $url via Loupe (h3 upstream) failed: $(oneline "$outfile.stderr")"
  CODE=${w%% *}
  HTTPV=${w##* }
  [[ -n $CODE ]] || CODE=000
}
CADDY_ORIGIN="https://localhost:$CADDY_PORT"
via_h3 "$W/got/caddy-h1.bin" "$CADDY_ORIGIN/big.bin?h1-h3" --http1.1
got_sha=$(sha "$W/got/caddy-h1.bin" 2>/dev/null || echo none)
check "13a. curl HTTP/1.1 via Loupe to Caddy over QUIC: GET 1 MiB has the right SHA-256" \
  "status $CODE, HTTP/$HTTPV, sha256 ${got_sha:0:16}..." \
  test "$CODE" = 200 -a "$HTTPV" = 1.1 -a "$got_sha" = "$BIG_SHA"

via_h3 "$W/got/caddy-post.json" "$CADDY_ORIGIN/upload?h1-h3" --http1.1 \
  --data-binary "@$W/upload.bin" -H 'Content-Type: application/octet-stream'
check "13b. curl HTTP/1.1 via Loupe to Caddy over QUIC: POST 5 MiB (curl's default Expect) arrives intact" \
  "status $CODE, HTTP/$HTTPV, echo: $(oneline "$W/got/caddy-post.json")" \
  bash -c '[[ $1 == 200 ]] && grep -q "\"bytes\":5242880,\"sha256\":\"$2\"" "$3"' _ "$CODE" "$UPLOAD_SHA" "$W/got/caddy-post.json"

via_h3 "$W/got/caddy-h2.bin" "$CADDY_ORIGIN/big.bin?h2-h3" --http2
got_sha=$(sha "$W/got/caddy-h2.bin" 2>/dev/null || echo none)
check "13c. curl --http2 via Loupe to Caddy over QUIC: GET 1 MiB has the right SHA-256" \
  "status $CODE, HTTP/$HTTPV, sha256 ${got_sha:0:16}..." \
  test "$CODE" = 200 -a "$HTTPV" = 2 -a "$got_sha" = "$BIG_SHA"

h3_lines=""
h3_bad=0
for spec in "GET /big.bin?h1-h3 h1/h3" "POST /upload?h1-h3 h1/h3" "GET /big.bin?h2-h3 h2/h3"; do
  read -r m path proto <<<"$spec"
  line=$(wait_flow_line "$W/loupe-h3.out" " $m $(re_escape "$CADDY_ORIGIN$path") ")
  logged=$(caddy_proto "$path")
  if grep -qE " 200 .* $proto( |$)" <<<"$line" && [[ $logged == HTTP/3.0 ]]; then
    h3_lines+="$m $path: $proto, Caddy saw $logged; "
  else
    h3_lines+="$m $path: want $proto and HTTP/3.0 at Caddy, got '${line:-no flow line}', Caddy saw $logged; "
    h3_bad=1
  fi
done
check "13d. Loupe's flow lines say server h3, and Caddy's access log says HTTP/3.0" "${h3_lines%; }" test "$h3_bad" = 0

stop_pid "$H3_PID" loupe-h3
H3_PID=""
stop_pid "$CADDY_PID" caddy
CADDY_PID=""

# ---------------------------------------------------------------------------
# Summary
# ---------------------------------------------------------------------------
echo
log "summary: $PASSED passed, $FAILED failed, $SKIPPED skipped, $((SECONDS - START_TIME)) s"
if ((FAILED > 0)); then
  for n in "${FAILED_NAMES[@]}"; do log "  FAILED: $n"; done
  exit 1
fi
log "all interop checks passed"
