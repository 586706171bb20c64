#!/usr/bin/env bash
# Interop test: real curl -> Loupe (headless) -> real nginx origins, all on 127.0.0.1,
# then real HTTP/2 clients (curl --http2, nghttp, h2load) through Loupe's regular
# mode and against a second Loupe in reverse mode (--mode reverse:https://ORIGIN).
#
#   scripts/interop.sh            (expects app/target/loupe.jar; build it with
#                                  mvn -B -q install -DskipTests)
#   LOUPE_JAR=/path/loupe.jar scripts/interop.sh
#   KEEP_WORK=1 scripts/interop.sh   keep the temp work dir for inspection
#
# Installs nginx-light, curl, openssl, python3, nodejs, nghttp2-client (nghttp,
# h2load) with apt-get when missing (needs root). Prints a PASS/FAIL line per check and a summary; exits non-zero
# when any check fails.
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
FAILED_NAMES=()
report() { # report PASS|FAIL NAME [DETAIL]
  local status=$1 name=$2 detail=${3:-}
  if [[ $status == PASS ]]; then
    PASSED=$((PASSED + 1))
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
      nghttp:nghttp2-client h2load:nghttp2-client java:-; do
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
  # npm is only needed for the optional HAR schema validation.
  local want_npm=0
  command -v npm >/dev/null 2>&1 || want_npm=1
  if ((${#missing[@]} == 0 && want_npm == 0)); then
    return 0
  fi
  if ((${#missing[@]} == 0)); then
    # Only npm missing: try it, but never fail for it.
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
      log "installing npm (optional, for HAR schema validation)"
      apt_install npm || warn "could not install npm; HAR schema validation will be skipped"
    fi
    return 0
  fi
  [[ $(id -u) -eq 0 ]] || die "missing packages: ${missing[*]} (run as root to install them, or install them yourself)"
  command -v apt-get >/dev/null 2>&1 || die "missing packages: ${missing[*]} and no apt-get"
  log "installing: ${missing[*]}"
  apt_install "${missing[@]}" || die "apt-get install ${missing[*]} failed"
  if ((want_npm)); then
    apt_install npm || warn "could not install npm; HAR schema validation will be skipped"
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
  for f in loupe.out loupe.err loupe-rev.out loupe-rev.err nginx/error.log echo.log; do
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

# Free ports: bind them all at once so they are distinct, then release.
read -r HTTP_PORT HTTPS_PORT UNTRUSTED_PORT ECHO_PORT LOUPE_PORT REV_PORT < <(python3 - <<'EOF'
import socket
socks = []
for _ in range(6):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks:
    s.close()
EOF
)
log "work dir $W"
log "ports: nginx http=$HTTP_PORT https=$HTTPS_PORT untrusted=$UNTRUSTED_PORT echo=$ECHO_PORT loupe=$LOUPE_PORT loupe-reverse=$REV_PORT"

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
    types { text/plain txt; application/octet-stream bin; }
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

kill -TERM "$REV_PID"
rev_rc=0
wait "$REV_PID" || rev_rc=$?
REV_PID=""
log "Loupe (reverse mode) exited with status $rev_rc"

# ---------------------------------------------------------------------------
# Summary
# ---------------------------------------------------------------------------
echo
log "summary: $PASSED passed, $FAILED failed, $((SECONDS - START_TIME)) s"
if ((FAILED > 0)); then
  for n in "${FAILED_NAMES[@]}"; do log "  FAILED: $n"; done
  exit 1
fi
log "all interop checks passed"
