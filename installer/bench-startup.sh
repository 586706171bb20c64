#!/usr/bin/env bash
# Start-up of the packaged launcher against the plain jar, medians of N launches (default 5) each:
#   version   `--version` answered (no JavaFX, no proxy)
#   headless  `--headless`: launch until the port accepts a connection, and until a first request
#             through it has its answer (curl via the proxy to a local origin)
#   window    the window: launch until a window titled Loupe is mapped on an Xvfb display
# Variants: jar = `java -jar app/target/loupe.jar` (the system JDK, with its default CDS archive);
#   image-nocds = the app image without its class-data-sharing archive; image = the app image with it
#   (installer/target/app-image/Loupe, as installer/build.sh leaves it: the archive made for where it is).
# Also prints the package sizes. Needs xvfb, x11-utils, curl, python3.
# Usage: installer/bench-startup.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-5}
JAR=app/target/loupe.jar
IMAGE=installer/target/app-image/Loupe
JSA=$IMAGE/lib/app/loupe.jsa
[[ -f $JAR && -x $IMAGE/bin/Loupe && -f $JSA ]] || { echo "build first: installer/build.sh" >&2; exit 1; }
WORK=$(mktemp -d /tmp/loupe-bench-startup.XXXXXX)
PIDS=()
CURRENT= # the Loupe being measured
cleanup() {
  local p
  for p in $CURRENT "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  [[ -f $WORK/loupe.jsa ]] && mv "$WORK/loupe.jsa" "$JSA"
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { date +%s%N; }
ms() { echo $((($2 - $1) / 1000000)); }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
cmd() { # the launch command of a variant
  case $1 in
    jar) echo "java -jar $JAR" ;;
    image|image-nocds) echo "$IMAGE/bin/Loupe" ;;
  esac
}
use() { # put the image's archive in place, or away
  if [[ $1 == image-nocds ]]; then
    [[ -f $JSA ]] && mv "$JSA" "$WORK/loupe.jsa"
  else
    [[ -f $WORK/loupe.jsa ]] && mv "$WORK/loupe.jsa" "$JSA"
  fi
  return 0
}

mkdir -p "$WORK/www" && echo hello >"$WORK/www/hello.txt"
OPORT=$(port)
python3 -m http.server --bind 127.0.0.1 --directory "$WORK/www" "$OPORT" >/dev/null 2>&1 &
PIDS+=($!)
DISPLAY_NUM=$((200 + RANDOM % 100))
Xvfb ":$DISPLAY_NUM" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
PIDS+=($!)
sleep 1
CONF=$WORK/conf
java -jar "$JAR" ca path --confdir "$CONF" >/dev/null # the CA exists before the first timed launch

deadline() { # give up on a launch after 180 s
  if (($(now) - $1 > 180000000000)); then echo "no $2 after 180 s" >&2; exit 1; fi
}

version() {
  local t0 t1
  t0=$(now)
  $(cmd "$1") --version >/dev/null
  t1=$(now)
  ms "$t0" "$t1"
}

headless() { # prints "listening firstRequest"
  local p t0 t1 t2 pid
  p=$(port)
  t0=$(now)
  $(cmd "$1") --headless -q --listen "127.0.0.1:$p" --confdir "$CONF" >"$WORK/headless.log" 2>&1 &
  pid=$!
  CURRENT=$pid
  until (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do sleep 0.01; deadline "$t0" headless; done
  t1=$(now)
  until curl -sf --noproxy '' --max-time 2 --proxy "http://127.0.0.1:$p" -o /dev/null "http://127.0.0.1:$OPORT/hello.txt"; do
    sleep 0.01
    deadline "$t0" "first request"
  done
  t2=$(now)
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null || true
  echo "$(ms "$t0" "$t1") $(ms "$t0" "$t2")"
}

window() {
  local t0 t1 pid
  t0=$(now)
  DISPLAY=":$DISPLAY_NUM" $(cmd "$1") --listen 127.0.0.1:0 --confdir "$CONF" >"$WORK/window.log" 2>&1 &
  pid=$!
  CURRENT=$pid
  until DISPLAY=":$DISPLAY_NUM" xwininfo -root -tree 2>/dev/null | grep -q '"Loupe'; do
    sleep 0.01
    deadline "$t0" window
  done
  t1=$(now)
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null || true
  ms "$t0" "$t1"
}

echo "Loupe start-up, medians of $N launches, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| variant | --version | headless: listening | headless: first request answered | window mapped |\n'
printf '|---|---|---|---|---|\n'
for v in jar image-nocds image; do
  use "$v"
  version "$v" >/dev/null # warm the page cache
  : >"$WORK/v"; : >"$WORK/l"; : >"$WORK/f"; : >"$WORK/w"
  for _ in $(seq 1 "$N"); do
    version "$v" >>"$WORK/v"
    read -r l f < <(headless "$v")
    echo "$l" >>"$WORK/l"
    echo "$f" >>"$WORK/f"
    window "$v" >>"$WORK/w"
  done
  printf '| %s | %s ms | %s ms | %s ms | %s ms |\n' "$v" "$(median <"$WORK/v")" "$(median <"$WORK/l")" \
    "$(median <"$WORK/f")" "$(median <"$WORK/w")"
done
use image
echo
for f in installer/target/*.deb installer/target/*.rpm; do
  [[ -f $f ]] && printf '%s: %.1f MB\n' "$(basename "$f")" "$(echo "$(stat -c %s "$f") / 1000000" | bc -l)"
done
printf 'app image: %s (with the CDS archive), runtime %s, archive %s\n' "$(du -sh "$IMAGE" | cut -f1)" \
  "$(du -sh "$IMAGE/lib/runtime" | cut -f1)" "$(du -sh "$JSA" | cut -f1)"
