#!/usr/bin/env bash
# Makes the third-party HAR fixtures in proxy-engine/src/test/resources/har/tools/ from real tools on
# this machine, all capturing the same local origin (origin.js): headless Chromium over the DevTools
# protocol (HAR by chrome-har), Playwright's recordHar on the same Chromium, and mitmproxy's
# har_dump.py (mitmdump as a proxy for curl). See the README there.
#
# Needs: node + npm (chrome-har, chrome-remote-interface, playwright-core are installed into a temp
# directory), chromium, mitmproxy (Debian's, with /usr/share/doc/mitmproxy/examples/contrib/har_dump.py), curl.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../../proxy-engine/src/test/resources/har/tools}"
mkdir -p "$out"
work="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

(cd "$work" && npm init -y >/dev/null && npm install --no-audit --no-fund --silent \
  chrome-har@1.3.1 chrome-remote-interface@0.34.0 playwright-core@1.65.1)
export NODE_PATH="$work/node_modules"

node "$here/origin.js" 0 > "$work/origin.log" &
pids+=($!)
for _ in $(seq 50); do grep -q listening "$work/origin.log" && break; sleep 0.1; done
port="$(awk '/listening/ {print $2}' "$work/origin.log")"
page="http://127.0.0.1:$port/"

# 1. Chromium (DevTools protocol events -> chrome-har)
chromium --headless=new --no-sandbox --no-proxy-server --disable-gpu --user-data-dir="$work/profile" \
  --remote-debugging-port=9333 about:blank > "$work/chromium.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do curl -s http://127.0.0.1:9333/json/version > /dev/null && break; sleep 0.1; done
node "$here/chromium-cdp.js" 9333 "$page" "$out/chromium-chrome-har.har"

# 2. Playwright recordHar (its own Chromium launch)
node "$here/playwright.js" "$(command -v chromium)" "$page" "$out/playwright-chromium.har"

# 3. mitmproxy's har_dump.py, mitmdump as the proxy of curl
mitmdump --listen-host 127.0.0.1 -p 9334 -q -s /usr/share/doc/mitmproxy/examples/contrib/har_dump.py \
  --set hardump="$out/mitmproxy-har_dump.har" > "$work/mitm.log" 2>&1 &
mitm=$!
pids+=($mitm)
for _ in $(seq 100); do curl -s -o /dev/null -x http://127.0.0.1:9334 "$page" && break; sleep 0.2; done
c() { curl -s -o /dev/null -x http://127.0.0.1:9334 "$@"; }
c "${page}api/items?page=1"
c -H 'Content-Type: application/json' --data '{"name":"café","count":2}' "${page}api/echo"
c "${page}img.png"
c -L "${page}redirect"
c "${page}missing"
c --compressed "${page}gzip"
kill -INT "$mitm"
wait "$mitm" || true

ls -l "$out"
