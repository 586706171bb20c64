#!/usr/bin/env bash
# Builds Loupe's packages into installer/target/ (see README "Installers" and installer/README.md):
#   Linux:   app-image/Loupe (the installed tree), loupe_<v>_<arch>.deb, loupe-<v>.<arch>.rpm
#   macOS:   app-image/Loupe.app and Loupe-<v>.dmg      (on a Mac)
#   Windows: app-image/Loupe and Loupe-<v>.msi           (on Windows, WiX 3 on the PATH)
#   all:     loupe-<platform>.jar for linux-x64, linux-aarch64, mac-x64, mac-aarch64, win-x64,
#            icons (PNG, ICO, ICNS from icons/loupe.svg), the man page loupe.1
# Each package carries a jlink'ed runtime (no JDK needed to run it) with JavaFX on the module path.
# Needs: JDK 17+ (jpackage), Maven, rsvg-convert; for .deb fakeroot and dpkg-deb, for .rpm rpmbuild;
# for the class-data-sharing class list (Linux) a display or xvfb-run.
# Usage: installer/build.sh [--skip-maven] [--jars-only] [--no-platform-jars] [--types app-image,deb,rpm]
#        [--no-cds] [--reuse-image] [--java-options "JVM options"]   (see installer/README.md)
set -euo pipefail
cd "$(dirname "$0")/.."
skip_maven=false
args=()
for a in "$@"; do
  case "$a" in
    --skip-maven) skip_maven=true ;;
    *) args+=("$a") ;;
  esac
done
if ! $skip_maven; then
  mvn -B -q -pl installer -am package -DskipTests
fi
sep=':'
case "$(uname -s)" in MINGW*|MSYS*|CYGWIN*) sep=';' ;; esac
exec java -cp "installer/target/classes${sep}installer/target/app-jars/*" dev.loupe.installer.Build installer ${args[@]+"${args[@]}"}
