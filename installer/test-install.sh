#!/usr/bin/env bash
# Installs Loupe's .deb on this machine and uses it as a user would, then removes it and checks that
# nothing is left. Needs root and Debian/Ubuntu (CI runs it; on a workstation it changes /usr and /opt).
#   1. checks the app image and the .rpm's contents (files, maintainer scripts, dependencies)
#   2. apt-get install ./loupe_*.deb (pulls in GTK and xdg-utils); `loupe --version` from the PATH;
#      `man loupe`; the class-data-sharing archive made at install time is used
#   3. `loupe --headless --har` with real curl traffic: HTTPS intercepted (curl trusts Loupe's CA,
#      Loupe trusts the origin's CA), the bodies compared by SHA-256, the HAR written on SIGTERM
#   4. the window under Xvfb: its title checked, a screenshot saved
#   5. apt-get remove: every file the package installed, and what its scripts made, is gone
# Artefacts (logs, HAR, screenshot) go to installer/target/test-install/.
# Usage: installer/test-install.sh [--build]   (--build runs installer/build.sh first, after mvn -B verify)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT="$ROOT/installer/target/test-install"
TARGET="$ROOT/installer/target"
rm -rf "$OUT"
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/loupe-test-install.XXXXXX)
PIDS=()
made_dirs=()
fails=0

say() { printf '== %s\n' "$*"; }
ok() { printf '   ok: %s\n' "$*"; }
fail() { printf '   FAIL: %s\n' "$*"; fails=$((fails + 1)); }
check() { # check "what" command...
  local what=$1
  shift
  if "$@" >>"$OUT/checks.log" 2>&1; then ok "$what"; else fail "$what"; fi
}
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  if dpkg -s loupe >/dev/null 2>&1 && [[ ${KEEP_INSTALLED:-} != 1 ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq loupe >/dev/null 2>&1 || true
  fi
  rm -rf "$WORK"
  local d
  for d in "${made_dirs[@]}"; do rmdir "$d" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ $(id -u) != 0 ]]; then
  echo "test-install.sh installs a package: run it as root (CI does)" >&2
  exit 2
fi
need=()
for tool in xvfb-run:xvfb import:imagemagick xwininfo:x11-utils openssl:openssl curl:curl \
  python3:python3 rpm:rpm fakeroot:fakeroot rsvg-convert:librsvg2-bin objcopy:binutils man:man-db; do
  command -v "${tool%%:*}" >/dev/null || need+=("${tool#*:}")
done
if ((${#need[@]})); then
  say "apt-get install ${need[*]}"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}") >"$OUT/apt.log" 2>&1
fi
if [[ ${1:-} == --build ]]; then
  # what mvn -B verify left (app/target/loupe.jar, installer/target/app-jars); the five platform jars are
  # PlatformJarsIT's; gzip makes the .deb several times faster to build than dpkg's default xz
  say "installer/build.sh --skip-maven --no-platform-jars (DPKG_DEB_COMPRESSOR_TYPE=gzip)"
  start=$SECONDS
  DPKG_DEB_COMPRESSOR_TYPE=gzip installer/build.sh --skip-maven --no-platform-jars >"$OUT/build.log" 2>&1 ||
    { tail -30 "$OUT/build.log"; exit 1; }
  grep '^== ' "$OUT/build.log" | sed 's/^/   /'
  ok "built in $((SECONDS - start)) s"
fi
DEB=$(ls "$TARGET"/loupe_*.deb 2>/dev/null | head -n 1)
RPM=$(ls "$TARGET"/loupe-*.rpm 2>/dev/null | head -n 1)
IMAGE="$TARGET/app-image/Loupe"
[[ -n $DEB && -n $RPM && -d $IMAGE ]] || { echo "no .deb, .rpm or app image in $TARGET: run installer/build.sh" >&2; exit 1; }

say "sizes"
printf '   %s: %s bytes\n' "$(basename "$DEB")" "$(stat -c %s "$DEB")" "$(basename "$RPM")" "$(stat -c %s "$RPM")"
printf '   app image: %s\n' "$(du -sh "$IMAGE" | cut -f1)"

say "app image"
check "bin/Loupe --version" sh -c "'$IMAGE/bin/Loupe' --version | grep -q '^Loupe '"
check "JavaFX natives are the runtime's libraries" test -f "$IMAGE/lib/runtime/lib/libglassgtk3.so"
check "no other platform's natives in lib/app" sh -c "! ls '$IMAGE/lib/app' | grep -E 'osx|windows|aarch'"
# signed jars (Bouncy Castle's) are packaged without signature files and without their manifests' per-entry
# digests, which the JVM would keep parsed in the heap (PlatformJars.filteredCopy; docs/PERFORMANCE.md)
check "no signature files or per-entry digests in lib/app's jars" python3 -c '
import sys, zipfile, re
bad = []
for j in sys.argv[1:]:
    with zipfile.ZipFile(j) as z:
        names = z.namelist()
        bad += [j + "!" + n for n in names if re.fullmatch(r"META-INF/[^/]+\.(SF|RSA|DSA|EC)", n, re.I)]
        if "META-INF/MANIFEST.MF" in names and re.search(rb"(?im)^[A-Za-z0-9-]+-Digest:", z.read("META-INF/MANIFEST.MF")):
            bad.append(j + ": per-entry digests")
print("\n".join(bad))
sys.exit(1 if bad else 0)' "$IMAGE"/lib/app/*.jar
check "no JDK tools but java in the runtime" sh -c "[ \"\$(ls '$IMAGE/lib/runtime/bin')\" = java ]"
# A runtime of JDK 25+ carries an ahead-of-time cache made at build time; an older one a class list for a
# CDS archive made at install time (Build, AotTraining, loupe-cds.sh).
if [[ -f $IMAGE/lib/app/loupe.aot ]]; then
  AOT=true
  check "runtime is JDK 25 or newer" sh -c "grep -Eq '^JAVA_VERSION=\"(2[5-9]|[3-9][0-9])' '$IMAGE/lib/runtime/release'"
  check "its ahead-of-time cache is used (-XX:AOTMode=on would fail otherwise)" sh -c \
    "JAVA_TOOL_OPTIONS=-XX:AOTMode=on '$IMAGE/bin/Loupe' --version 2>&1 | grep -q '^Loupe '"
  check "--version prints nothing but the version" sh -c "[ \"\$('$IMAGE/bin/Loupe' --version 2>&1)\" = \"\$('$IMAGE/bin/Loupe' --version 2>&1 | grep '^Loupe ')\" ]"
else
  AOT=false
  check "its own class-data-sharing archive is used" sh -c \
    "JAVA_TOOL_OPTIONS=-Xshare:on '$IMAGE/bin/Loupe' --version 2>&1 | grep -q '^Loupe '"
fi

say "rpm contents"
rpm -qlp "$RPM" >"$OUT/rpm-files.txt" 2>/dev/null
rpm -qp --scripts "$RPM" >"$OUT/rpm-scripts.txt" 2>/dev/null
rpm -qpR "$RPM" >"$OUT/rpm-requires.txt" 2>/dev/null
if $AOT; then startup=/opt/loupe/lib/app/loupe.aot; else startup=/opt/loupe/lib/app/loupe.classlist; fi
for f in /opt/loupe/bin/Loupe /opt/loupe/lib/app/loupe.1.gz $startup \
  /opt/loupe/lib/runtime/lib/libglass.so /opt/loupe/lib/app/loupe-integration.sh /opt/loupe/lib/Loupe.png; do
  check "rpm holds $f" grep -qx "$f" "$OUT/rpm-files.txt"
done
check "rpm holds no CDS archive (made at install)" sh -c "! grep -q 'loupe.jsa' '$OUT/rpm-files.txt'"
check "rpm %post runs loupe-integration.sh install" grep -q "loupe-integration.sh install" "$OUT/rpm-scripts.txt"
check "rpm %preun runs loupe-integration.sh remove on erase" grep -q 'then /opt/loupe/lib/app/loupe-integration.sh remove' "$OUT/rpm-scripts.txt"
check "rpm requires gtk3" grep -q gtk3 "$OUT/rpm-requires.txt"

say "apt-get install $(basename "$DEB")"
# A desktop has menu directories (from its menu packages); a bare CI machine does not, and there the
# package installs without a menu entry. Make them, as a desktop has them, so the menu entry is tested.
made_dirs=()
for d in /etc/xdg/menus /usr/share/desktop-directories; do
  [[ -d $d ]] || { mkdir -p "$d"; made_dirs+=("$d"); }
done
dpkg-deb -f "$DEB" >"$OUT/deb-control.txt"
cp "$DEB" "$WORK/"
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$WORK/$(basename "$DEB")" >"$OUT/install.log" 2>&1; then
  tail -20 "$OUT/install.log"
  exit 1
fi
dpkg -L loupe >"$OUT/installed-files.txt"
ok "installed: $(wc -l <"$OUT/installed-files.txt") paths, $(du -sh /opt/loupe | cut -f1) in /opt/loupe"
check "loupe is on the PATH" test "$(command -v loupe)" = /usr/bin/loupe
check "loupe --version" sh -c "loupe --version | grep -q '^Loupe '"
check "loupe --help names the options" sh -c "loupe --help | grep -q -- '--headless'"
check "loupe with a bad option exits 2" sh -c "loupe --no-such-option; [ \$? -eq 2 ]"
check "man loupe" sh -c "MANPAGER=cat man loupe 2>/dev/null | grep -q -- '--listen'"
check "desktop entry" sh -c "grep -l '^Exec=/opt/loupe/bin/Loupe' /usr/share/applications/*.desktop"
check "desktop entry's icon exists" sh -c "test -f \"\$(sed -n 's/^Icon=//p' /usr/share/applications/loupe-*.desktop)\""
check ".har and .loupe open in Loupe (MIME types in the desktop entry)" sh -c \
  "grep -q 'MimeType=.*application/x-har' /usr/share/applications/loupe-*.desktop && grep -q 'application/x-loupe-session' /usr/share/applications/loupe-*.desktop"
check "the .har glob is registered" sh -c "grep -rqs '\\*\\.har' /usr/share/mime/packages/"
if $AOT; then
  check "ahead-of-time cache installed" test -s /opt/loupe/lib/app/loupe.aot
  check "the launcher maps it (-XX:AOTMode=on would fail otherwise)" sh -c \
    "JAVA_TOOL_OPTIONS=-XX:AOTMode=on loupe --version 2>&1 | grep -q '^Loupe '"
else
  check "CDS archive made at install time" test -s /opt/loupe/lib/app/loupe.jsa
  check "the launcher maps it (-Xshare:on would fail otherwise)" sh -c \
    "JAVA_TOOL_OPTIONS=-Xshare:on loupe --version 2>&1 | grep -q '^Loupe '"
fi
grep -h '^Depends' "$OUT/deb-control.txt" | sed 's/^/   /'

say "headless: curl through loupe, HTTPS intercepted, HAR written"
cd "$WORK"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=Test origin CA" \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign -keyout origin-ca.key \
  -out origin-ca.pem 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 -keyout origin.key \
  -out origin.csr 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >origin.ext
openssl x509 -req -in origin.csr -CA origin-ca.pem -CAkey origin-ca.key -CAcreateserial -days 2 \
  -extfile origin.ext -out origin.pem 2>/dev/null
mkdir www
head -c 3000000 /dev/urandom >www/blob.bin
echo "hello through loupe" >www/hello.txt
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
OPORT=$(port)
(cd www && exec openssl s_server -quiet -WWW -accept "127.0.0.1:$OPORT" -cert ../origin.pem -key ../origin.key) \
  >"$OUT/origin.log" 2>&1 &
PIDS+=($!)
PPORT=$(port)
loupe --headless --listen "127.0.0.1:$PPORT" --confdir "$WORK/conf" --trust-ca origin-ca.pem \
  --har "$WORK/session.har" >"$OUT/headless.log" 2>&1 &
LOUPE=$!
PIDS+=($LOUPE)
for _ in $(seq 1 150); do grep -q "listening on" "$OUT/headless.log" && break; sleep 0.2; done
check "loupe --headless is listening" grep -q "listening on http://127.0.0.1:$PPORT" "$OUT/headless.log"
check "its CA was created owner-only" sh -c "[ \"\$(stat -c %a '$WORK/conf/ca-key.pem')\" = 600 ]"
for f in hello.txt blob.bin; do
  curl -sS --noproxy '' --proxy "http://127.0.0.1:$PPORT" --cacert "$WORK/conf/ca-cert.pem" \
    -o "$WORK/got-$f" "https://127.0.0.1:$OPORT/$f" 2>>"$OUT/curl.log" || true
  check "HTTPS $f through loupe, same SHA-256" sh -c \
    "[ \"\$(sha256sum <'$WORK/www/$f')\" = \"\$(sha256sum <'$WORK/got-$f')\" ]"
done
check "the certificate curl saw was minted by Loupe's CA" sh -c \
  "curl -sS -v --noproxy '' --proxy http://127.0.0.1:$PPORT --cacert '$WORK/conf/ca-cert.pem' -o /dev/null https://127.0.0.1:$OPORT/hello.txt 2>&1 | grep -q 'issuer: .*Loupe'"
kill -TERM "$LOUPE"
wait "$LOUPE" 2>/dev/null || true
check "HAR written on SIGTERM with both requests" python3 - "$WORK/session.har" "$OPORT" <<'PY'
import json, sys
har = json.load(open(sys.argv[1]))
urls = [e["request"]["url"] for e in har["log"]["entries"]]
need = ["https://127.0.0.1:%s/%s" % (sys.argv[2], f) for f in ("hello.txt", "blob.bin")]
missing = [u for u in need if u not in urls]
assert not missing, "missing %s in %s" % (missing, urls)
assert all(e["response"]["status"] == 200 for e in har["log"]["entries"] if e["request"]["url"] in need)
PY
cp "$WORK/session.har" "$OUT/" 2>/dev/null || true

say "the window under Xvfb"
DISPLAY_NUM=$((90 + RANDOM % 100))
Xvfb ":$DISPLAY_NUM" -screen 0 1280x800x24 -nolisten tcp >"$OUT/xvfb.log" 2>&1 &
PIDS+=($!)
sleep 1
DISPLAY=":$DISPLAY_NUM" loupe --listen 127.0.0.1:0 --confdir "$WORK/conf" >"$OUT/window.log" 2>&1 &
WINDOW=$!
PIDS+=($WINDOW)
title=""
for _ in $(seq 1 150); do
  title=$(DISPLAY=":$DISPLAY_NUM" xwininfo -root -tree 2>/dev/null | grep -o '"Loupe[^"]*"' | head -n 1 || true)
  [[ -n $title ]] && break
  sleep 0.2
done
check "a window titled Loupe opened ($title)" test -n "$title"
colours=0
for _ in $(seq 1 30); do # until it has painted: a blank screen has one or two colours
  DISPLAY=":$DISPLAY_NUM" import -window root "$OUT/window.png" 2>>"$OUT/checks.log" || true
  colours=$(convert "$OUT/window.png" -format %k info: 2>/dev/null || echo 0)
  ((colours > 64)) && break
  sleep 2
done
check "screenshot saved, the window painted ($colours colours)" test "$colours" -gt 64
check "no 'Unsupported JavaFX configuration' warning" sh -c "! grep -q 'Unsupported JavaFX' '$OUT/window.log' '$OUT/headless.log'"
check "no JVM warnings (native access, Unsafe, AOT cache)" sh -c \
  "! grep -Eq '^WARNING: (A restricted method|A terminally deprecated method)|\\]\\[(warning|error) *\\]\\[(aot|cds)' '$OUT/window.log' '$OUT/headless.log'"
check "no JavaFX native library unpacked into the home directory" sh -c "! ls -d ~/.openjfx/cache/*/libglass* 2>/dev/null | grep -q ."
kill -TERM "$WINDOW"
wait "$WINDOW" 2>/dev/null || true

say "apt-get remove loupe"
extra="/usr/bin/loupe /usr/share/man/man1/loupe.1.gz /opt/loupe/lib/app/loupe.jsa"
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq loupe >"$OUT/remove.log" 2>&1 || fail "apt-get remove"
left=()
while read -r f; do
  [[ -e $f || -L $f ]] || continue
  [[ -d $f && ! -L $f ]] && [[ ! $f == /opt/loupe* ]] && continue # shared directories (/usr/share/...) stay
  left+=("$f")
done < <(cat "$OUT/installed-files.txt"; tr ' ' '\n' <<<"$extra")
check "nothing the package installed or made is left (${#left[@]} left: ${left[*]:0:5})" test ${#left[@]} -eq 0
check "no desktop entry left" sh -c "! ls /usr/share/applications/loupe-*.desktop 2>/dev/null | grep -q ."
check "no MIME registration left" sh -c "! grep -rqs 'x-loupe-session\\|x-har' /usr/share/mime/packages/"
check "no default-application entry left" sh -c "! grep -qs 'loupe' /usr/share/applications/defaults.list"
check "the user's configuration directory is kept" test -s "$WORK/conf/ca-cert.pem"
# apt-get remove leaves dpkg's record of the package ("rc"); purge drops it (the package has no conffiles)
check "dpkg --purge loupe" dpkg --purge loupe

echo
if ((fails)); then
  echo "test-install.sh: $fails check(s) FAILED (see $OUT/checks.log)"
  exit 1
fi
echo "test-install.sh: all checks passed (artefacts in $OUT)"
