#!/bin/bash
# Put libspur_compat in place of Slurm's installed libslurm, or undo it.
#   scripts/compat-swap.sh install [RELEASE]   (default: the installed libslurm's release)
#   scripts/compat-swap.sh undo
#   scripts/compat-swap.sh status
# Slurm's file (Debian: /usr/lib/x86_64-linux-gnu/libslurm.so.38.0.0 for
# 22.05, libslurm.so.42.0.0 for 24.11) is moved aside with dpkg-divert, so
# that the package manager knows it: an upgrade of Slurm's package writes its
# new file to the diverted name, and `undo` (or removing the diversion by
# hand) puts Slurm's own library back. The diverted file goes to a directory
# that ldconfig does not read (spur-diverted/ beside it), or ldconfig would
# point the libslurm.so.NN link back at it. Every program linked with
# -lslurm (the Perl API, pyslurm, site tools) then loads Spur's library.
# Run `make compat` first. Needs root.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
libdir="${SPUR_SLURM_LIBDIR:-/usr/lib/x86_64-linux-gnu}"
target_of() { # release -> installed file name
  case "$1" in
    22.05) echo "$libdir/libslurm.so.38.0.0" ;;
    24.11) echo "$libdir/libslurm.so.42.0.0" ;;
    *) echo "compat-swap: unknown release $1" >&2; exit 2 ;;
  esac
}
installed_release() {
  if [ -e "$libdir/libslurm.so.42" ]; then echo 24.11
  elif [ -e "$libdir/libslurm.so.38" ]; then echo 22.05
  else echo "compat-swap: no libslurm.so.38 or .42 in $libdir (name the release)" >&2; exit 1
  fi
}
cmd="${1:-status}"
case "$cmd" in
  install)
    rel="${2:-$(installed_release)}"
    file="$(target_of "$rel")"
    ours="$root/target/compat/$rel/libslurm.so.${file##*libslurm.so.}"
    ours="${ours%.0.0}"
    [ -e "$ours" ] || { echo "compat-swap: $ours is missing: run make compat" >&2; exit 1; }
    aside="$libdir/spur-diverted/$(basename "$file")"
    if ! dpkg-divert --list "$file" | grep -q .; then
      mkdir -p "$libdir/spur-diverted"
      dpkg-divert --quiet --local --rename --divert "$aside" --add "$file"
    fi
    install -m 0644 "$ours" "$file.spur.tmp" && mv -f "$file.spur.tmp" "$file"
    ldconfig
    echo "compat-swap: $file is Spur's ($rel); Slurm's is at $aside"
    ;;
  undo)
    for rel in 22.05 24.11; do
      file="$(target_of "$rel")"
      if dpkg-divert --list "$file" | grep -q .; then
        rm -f "$file"
        dpkg-divert --quiet --local --rename --remove "$file"
        rmdir "$libdir/spur-diverted" 2> /dev/null || true
        echo "compat-swap: $file is Slurm's again"
      fi
    done
    ldconfig
    ;;
  status)
    for rel in 22.05 24.11; do
      file="$(target_of "$rel")"
      if dpkg-divert --list "$file" | grep -q .; then
        echo "$file: Spur's (Slurm's diverted to $libdir/spur-diverted/$(basename "$file"))"
      elif [ -e "$file" ]; then echo "$file: Slurm's"
      fi
    done
    ;;
  *) echo "usage: $0 install [22.05|24.11] | undo | status" >&2; exit 2 ;;
esac
