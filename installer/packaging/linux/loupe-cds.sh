#!/bin/sh
# Makes lib/app/loupe.jsa, the application class-data-sharing archive the launcher maps at start
# (-XX:SharedArchiveFile in Loupe.cfg): the classes a launch loads (lib/app/loupe.classlist, recorded
# when the package was built), already parsed and verified, so the window and the proxy come up sooner.
# JDK 17 accepts an archive only with the exact class path it was made with, so it is made here, where
# the files finally are: at install time, and by installer/build.sh for an app image used in place.
# A runtime of JDK 25 or newer carries an ahead-of-time cache instead (lib/app/loupe.aot, made when the
# package was built, see AotTraining): it records the jars' and the runtime image's modification times
# and is refused when they differ, so here they get the time the build gave them (LauncherOptions.AOT_MTIME)
# in case the package manager did not keep it.
set -e
APPDIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$(dirname "$APPDIR")")
CFG="$APPDIR/Loupe.cfg"
AOT_MTIME=946684800
if [ -f "$APPDIR/loupe.aot" ]; then
  for f in "$APPDIR"/*.jar "$ROOT/lib/runtime/lib/modules"; do
    touch -m -d "@$AOT_MTIME" "$f"
  done
  exit 0
fi
# The launcher's class path: the app.classpath lines of Loupe.cfg, in order, $APPDIR expanded.
CP=$(sed -n 's/^app\.classpath=//p' "$CFG" | sed "s|\$APPDIR|$APPDIR|g" | paste -s -d: -)
[ -n "$CP" ] || { echo "loupe-cds: no app.classpath in $CFG" >&2; exit 1; }
rm -f "$APPDIR/loupe.jsa.tmp"
"$ROOT/lib/runtime/bin/java" -Xshare:dump -XX:SharedClassListFile="$APPDIR/loupe.classlist" \
  -XX:SharedArchiveFile="$APPDIR/loupe.jsa.tmp" -Xlog:cds=off -Xlog:cds+dynamic=off -cp "$CP" >/dev/null
chmod 0644 "$APPDIR/loupe.jsa.tmp"
mv -f "$APPDIR/loupe.jsa.tmp" "$APPDIR/loupe.jsa"
