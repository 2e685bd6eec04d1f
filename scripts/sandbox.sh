#!/usr/bin/env bash
# sandbox.sh DIR CMD...: runs CMD in a private mount namespace (unshare -m) where every mount is
# read-only except a fresh tmpfs at DIR (and /proc, whose files cannot be deleted; /sys and the
# cgroup filesystems under it are made read-only too, as an empty cgroup directory could be). A destructive
# request that a server under test wrongly obeyed (overwrite of "/", of $HOME, a checkpoint under
# /etc) then fails with EROFS instead of deleting this machine's files. TMPDIR points inside DIR.
# Build binaries and install packages before entering: caches are read-only in there.
# Needs root (unshare -m, mount); refuses to run CMD unless every other mount is read-only.
set -euo pipefail
if [ "$#" -lt 2 ]; then
  echo "usage: $0 DIR CMD..." >&2
  exit 2
fi
if [ "$(id -u)" != 0 ]; then
  echo "$0: needs root (unshare -m and mount); not running $2 unsandboxed" >&2
  exit 1
fi
dir=$(realpath -m "$1"); shift
case "$dir" in
  /|/proc|/proc/*|/sys|/sys/*) echo "$0: refusing DIR $dir" >&2; exit 2 ;;
esac
exec unshare -m bash -c '
  set -euo pipefail
  dir=$1; shift
  mount --make-rprivate /
  mkdir -p "$dir"
  mount -t tmpfs -o size="${SANDBOX_TMPFS:-2g}" tmpfs "$dir"
  inside() { case "$1" in /proc|/proc/*|"$dir"|"$dir"/*) return 0 ;; esac; return 1; }
  awk "{print \$2}" /proc/self/mounts | while read -r m; do
    inside "$m" || mount -o remount,bind,ro "$m" 2>/dev/null || true
  done
  # Check, do not trust: every other mount must now be read-only (the top one of a stacked
  # mount point, the one paths reach).
  writable=$(awk "{o[\$2] = \$4} END {for (m in o) print m, o[m]}" /proc/self/mounts | while read -r m opts; do
    inside "$m" || case ",$opts," in *,ro,*) ;; *) echo "$m" ;; esac
  done)
  if [ -n "$writable" ]; then
    echo "sandbox.sh: these mounts stayed writable, not running the command: $writable" >&2
    exit 1
  fi
  if touch /.weir-sandbox-probe 2>/dev/null; then
    rm -f /.weir-sandbox-probe
    echo "sandbox.sh: / is still writable, not running the command" >&2
    exit 1
  fi
  mkdir -p "$dir/tmp"
  export TMPDIR="$dir/tmp" PYTHONDONTWRITEBYTECODE=1 WEIR_SANDBOX="$dir"
  exec "$@"
' sandbox "$dir" "$@"
