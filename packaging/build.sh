#!/bin/bash
# `make package`: Spur's .deb and .rpm packages, in place of Slurm's, into
# target/package/:
#   spur-client       the commands (spur under every Slurm command name), man
#                     pages and bash completion    (replaces slurm-client / slurm)
#   spur-controller   spurctld and spurctld.service  (slurmctld / slurm-slurmctld)
#   spur-node         spurd, spurstepd, spurd.service, spur-authd.service
#                                                     (slurmd / slurm-slurmd)
#   libspur-compat38  libslurm.so.38 (22.05's ABI)   (libslurm38 / slurm-libs)
#   libspur-compat42  libslurm.so.42 (24.11's ABI)   (libslurm42)
# The .debs are made by cargo-deb from each crate's [package.metadata.deb],
# the .rpms by cargo-generate-rpm from [package.metadata.generate-rpm];
# lintian must report no error on the .debs.
#   SPUR_PACKAGE_NO_BUILD=1   use the release build already in target/
#   SPUR_PACKAGE_PROFILE=dev  package the debug build already in target/debug
#                             and target/compat (make test: the upgrade test
#                             then needs no second, release, build)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
CARGO="${CARGO:-cargo}"
out=target/package
export PATH="$HOME/.cargo/bin:$PATH"

# the tools, pinned
command -v cargo-deb > /dev/null && cargo-deb --version | grep -q ' 3\.8\.0' ||
  $CARGO install -q --locked cargo-deb@3.8.0
command -v cargo-generate-rpm > /dev/null || $CARGO install -q --locked cargo-generate-rpm@0.21.1
need=()
command -v lintian > /dev/null || need+=(lintian)
command -v dpkg-shlibdeps > /dev/null || need+=(dpkg-dev)
command -v rpm > /dev/null || need+=(rpm)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" > /dev/null
fi

profile="${SPUR_PACKAGE_PROFILE:-release}"
case "$profile" in
  release)
    bin=target/release lib=target/compat-release
    if [ -z "${SPUR_PACKAGE_NO_BUILD:-}" ]; then
      $CARGO build -q --release --workspace --bins
      CARGO_PROFILE=release bash scripts/compat.sh
    fi
    ;;
  dev) bin=target/debug lib=target/compat fast=--fast ;;
  *) echo "package: SPUR_PACKAGE_PROFILE is release or dev" >&2; exit 2 ;;
esac
for f in $bin/spur $bin/spurctld $bin/spurd $bin/spurstepd $lib/22.05/libslurm.so.38 $lib/24.11/libslurm.so.42; do
  [ -e "$f" ] || { echo "package: no $f (build first)" >&2; exit 1; }
done

# man pages and completion from the commands' own option tables
rm -rf "$out"
mkdir -p "$out/man" "$out/completion"
for cmd in sacct sacctmgr salloc sbatch scancel scontrol sinfo sprio squeue srun sshare sstat; do
  $bin/spur man "$cmd" | gzip -9n > "$out/man/$cmd.1.gz"
done
$bin/spur completion bash > "$out/completion/spur"
# the libraries, stripped as cargo-deb strips what it builds
mkdir -p "$out/lib"
strip --strip-unneeded -o "$out/lib/libslurm.so.38" $lib/22.05/libslurm.so.38
strip --strip-unneeded -o "$out/lib/libslurm.so.42" $lib/24.11/libslurm.so.42

# .deb
for p in spur-cli spurctld spurd; do
  cargo-deb -q --no-build --profile "$profile" ${fast:-} -p "$p" -o "$out/"
done
for v in 38 42; do
  cargo-deb -q --no-build --profile "$profile" ${fast:-} -p spur-compat --variant "slurm$v" -o "$out/"
  # cargo-deb writes no shlibs file: add libslurm's (what a package built
  # against this library would depend on)
  deb=("$out"/libspur-compat${v}_*.deb)
  tmp="$out/tmp-$v"
  rm -rf "$tmp"
  dpkg-deb -R "${deb[0]}" "$tmp"
  echo "libslurm $v libspur-compat$v (>= 0.1.0)" > "$tmp/DEBIAN/shlibs"
  dpkg-deb -Zxz --root-owner-group -b "$tmp" "${deb[0]}" > /dev/null
  rm -rf "$tmp"
done

# .rpm
for p in crates/spur-cli daemons/spurctld daemons/spurd; do
  cargo-generate-rpm --profile "$profile" -p "$p" -o "$out/"
done
for v in slurm38 slurm42; do
  cargo-generate-rpm --profile "$profile" -p libspur_compat --variant "$v" -o "$out/"
done

# lintian: no errors (its warnings and notes are printed)
lintian --fail-on error "$out"/*.deb
ls -l "$out"/*.deb "$out"/*.rpm
