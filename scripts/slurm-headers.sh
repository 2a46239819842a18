#!/bin/bash
# Slurm's public headers for each release libspur_compat is built against
# (libspur_compat/build.rs reads them through bindgen; nothing of Slurm's is
# kept in the repository):
#   22.05: Debian 12's libslurm-dev, installed by scripts/setup.sh (/usr/include/slurm)
#   24.11: Debian 13's libslurm-dev package, downloaded with apt from Debian's
#          archive into a private apt state and unpacked under
#          target/slurm-headers/24.11 (the host's own apt state is not touched),
#          with Debian 13's libslurm42t64 beside it (Slurm's own libslurm.so.42:
#          the list of the release's exported symbols, scripts/compat-table.py)
# Idempotent: does nothing when the headers are there.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/target/slurm-headers/24.11"
[ -e "$dest/usr/include/slurm/slurm.h" ] && [ -e "$dest/usr/lib/x86_64-linux-gnu/libslurm.so.42.0.0" ] && exit 0
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" > "$work/sources.list"
apt=(apt-get -qq -o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Dir::State::status=/dev/null
     -o APT::Architecture=amd64 -o APT::Sandbox::User=root)
echo "slurm-headers: fetching Debian 13's libslurm-dev (Slurm 24.11's headers)"
"${apt[@]}" update
(cd "$work" && "${apt[@]}" download libslurm-dev libslurm42t64)
mkdir -p "$dest.tmp"
for deb in "$work"/libslurm-dev_24.11*_amd64.deb "$work"/libslurm42t64_24.11*_amd64.deb; do
  dpkg-deb -x "$deb" "$dest.tmp"
done
rm -rf "$dest" && mv "$dest.tmp" "$dest"
grep -q 'SLURM_VERSION_NUMBER 0x180b' "$dest/usr/include/slurm/slurm_version.h"
