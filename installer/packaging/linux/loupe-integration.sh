#!/bin/sh
# Loupe's links into the system and its class-data-sharing archive. Run as root by the package's
# maintainer scripts: "install" after the files are unpacked (deb postinst, rpm %post), "remove" before
# they go (deb prerm, rpm %preun on erase), "tidy" after jpackage's desktop clean-up. Everything the
# install made is taken away: after the package is removed nothing of Loupe is left but each user's own
# ~/.config/loupe.
set -e
APPDIR=$(cd "$(dirname "$0")" && pwd)        # <install dir>/lib/app
ROOT=$(dirname "$(dirname "$APPDIR")")        # <install dir>, /opt/loupe

ours() { # $1 is a symbolic link into this installation
  [ -L "$1" ] && case "$(readlink "$1")" in "$ROOT"/*) return 0 ;; *) return 1 ;; esac
}

case "$1" in
  install)
    # the same command and options as java -jar loupe.jar, on the PATH
    if [ -e /usr/bin/loupe ] && ! ours /usr/bin/loupe; then
      echo "loupe: /usr/bin/loupe exists and is not Loupe's; not replacing it (run $ROOT/bin/Loupe)" >&2
    else
      ln -sfn "$ROOT/bin/Loupe" /usr/bin/loupe
    fi
    mkdir -p /usr/share/man/man1
    ln -sfn "$APPDIR/loupe.1.gz" /usr/share/man/man1/loupe.1.gz
    "$APPDIR/loupe-cds.sh" ||
      echo "loupe: no class-data-sharing archive was made; Loupe starts slower but works the same" >&2
    ;;
  remove)
    for link in /usr/bin/loupe /usr/share/man/man1/loupe.1.gz; do
      if ours "$link"; then rm -f "$link"; fi
    done
    rm -f "$APPDIR/loupe.jsa" "$APPDIR/loupe.jsa.tmp"
    ;;
  tidy)
    # xdg-desktop-menu creates defaults.list when it registers Loupe for .har/.loupe; jpackage's
    # uninstall takes Loupe's lines out but leaves the file: if nothing else is in it, remove it
    defaults=/usr/share/applications/defaults.list
    if [ -f "$defaults" ] && ! grep -qv '^\[Default Applications\]$' "$defaults"; then rm -f "$defaults"; fi
    ;;
  *)
    echo "usage: $0 install|remove|tidy" >&2
    exit 2
    ;;
esac
