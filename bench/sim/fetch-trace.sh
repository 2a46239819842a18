#!/bin/bash
# The UniLu Gaia 2014 log of the Parallel Workloads Archive, taken from the
# source distribution of the Python package evalys 4.0.7 (PyPI is reachable
# where the archive's own site may not be), checked against its SHA-256.
# Usage: bench/sim/fetch-trace.sh DIR  ->  DIR/UniLu-Gaia-2014-2.swf
set -euo pipefail
dir=${1:?usage: fetch-trace.sh DIR}
want=56fce4136ef8eec4e8403fb07e194e96bd5d6a519fef87ca7b6111d169e62646
out="$dir/UniLu-Gaia-2014-2.swf"
mkdir -p "$dir"
if [ -f "$out" ] && echo "$want  $out" | sha256sum -c --quiet 2>/dev/null; then
    exit 0
fi
if ! python3 -m pip --version >/dev/null 2>&1; then
    apt-get install -y -q python3-pip >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download -q --no-deps --no-binary :all: -d "$tmp" evalys==4.0.7
tar -xzf "$tmp"/evalys-4.0.7.tar.gz -C "$tmp" evalys-4.0.7/examples/UniLu-Gaia-2014-2.swf
echo "$want  $tmp/evalys-4.0.7/examples/UniLu-Gaia-2014-2.swf" | sha256sum -c --quiet
mv "$tmp/evalys-4.0.7/examples/UniLu-Gaia-2014-2.swf" "$out"
