#!/bin/bash
# Build libspur_compat once per Slurm release and name it as Slurm's library
# (`make compat`):
#   target/compat/24.11/libslurm.so.42 (+ libslurm.so -> libslurm.so.42)
#   target/compat/22.05/libslurm.so.38 (+ libslurm.so -> libslurm.so.38)
# Usage: scripts/compat.sh [RELEASE...]   (both when none is named)
# The 24.11 build is made last, so the workspace's default build (24.11) is
# the one left in target/debug. CARGO_PROFILE=release builds optimised ones,
# in target/compat-release/ (the benchmarks').
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
CARGO="${CARGO:-cargo}"
profile="${CARGO_PROFILE:-dev}"
dir=debug; [ "$profile" = release ] && dir=release
releases=("$@")
[ ${#releases[@]} -eq 0 ] && releases=(22.05 24.11)
for rel in "${releases[@]}"; do
  case "$rel" in
    22.05) feature=slurm-22-05; soname=libslurm.so.38 ;;
    24.11) feature=slurm-24-11; soname=libslurm.so.42 ;;
    *) echo "compat: unknown release $rel (22.05 or 24.11)" >&2; exit 2 ;;
  esac
  $CARGO build -q --profile "$profile" -p spur-compat --no-default-features --features "$feature"
  out="target/compat/$rel"
  [ "$profile" = release ] && out="target/compat-release/$rel"
  mkdir -p "$out"
  # a copy, not a link: the next release's build overwrites target/$dir
  cp -f "target/$dir/libspur_compat.so" "$out/$soname.tmp"
  mv -f "$out/$soname.tmp" "$out/$soname"
  ln -sfn "$soname" "$out/libslurm.so"
  got="$(readelf -d "$out/$soname" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')"
  [ "$got" = "$soname" ] || { echo "compat: $out/$soname has SONAME $got" >&2; exit 1; }
  $CARGO run -q --profile "$profile" -p spur-compat --no-default-features --features "$feature" \
    --example symbols > "$out/symbols.tsv"
  echo "compat: $out/$soname ($(nm -D --defined-only "$out/$soname" | wc -l) symbols)"
done
