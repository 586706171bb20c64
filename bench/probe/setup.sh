#!/usr/bin/env bash
# Installs what the load probe needs, with apt-get, only when missing. Idempotent and quiet:
# prints one line per package it installs, nothing when all is there.
#   nginx (origin and TLS reverse-proxy peer), nghttp2-client (h2load), wrk, mitmproxy
#   (mitmdump peer), caddy (HTTP/3 reverse-proxy peer of the h3 arms), curl, openssl,
#   python3. Java 17 and Maven are the project's own prerequisites and are only checked.
set -Eeuo pipefail

declare -A want=(
  [nginx]=nginx
  [h2load]=nghttp2-client
  [wrk]=wrk
  [mitmdump]=mitmproxy
  [caddy]=caddy
  [curl]=curl
  [openssl]=openssl
  [python3]=python3
  [taskset]=util-linux
)
missing=()
for bin in "${!want[@]}"; do
  if [[ $bin == nginx ]]; then
    command -v nginx >/dev/null 2>&1 || [[ -x /usr/sbin/nginx ]] || missing+=("${want[$bin]}")
  else
    command -v "$bin" >/dev/null 2>&1 || missing+=("${want[$bin]}")
  fi
done

if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  echo "[setup] installing: ${missing[*]}" >&2
  # Another apt-get may hold the lock (e.g. a background install): wait for it.
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get -qq -o DPkg::Lock::Timeout=900 update >/dev/null
  $SUDO apt-get -qq -o DPkg::Lock::Timeout=900 install -y --no-install-recommends "${missing[@]}" >/dev/null
fi

# The Debian nginx package starts a system nginx on :80; the probe runs its own instances and
# needs nothing from it, so leave it as the package set it up.
command -v java >/dev/null 2>&1 || { echo "[setup] java (17+) not found: install a JDK" >&2; exit 1; }
exit 0
