#!/bin/bash
# Run pyslurm 24.11's test suites on Spur through libspur_compat's Slurm 24.11
# library (target/compat/24.11/libslurm.so.42), in a Debian 13 (trixie)
# chroot, against a Spur cluster on the host.
#
# Usage: scripts/pyslurm24.sh PYSLURM_SOURCE_DIR
#   PYSLURM_SOURCE_DIR  a pyslurm checkout at tag v24.11.0 (GitHub only: PyPI
#                       has no 24.11 release), e.g.
#                       git clone -b v24.11.0 https://github.com/PySlurm/pyslurm
# Environment: CHROOT (default /var/tmp/spur-compat-trixie, made by
# scripts/compat-chroot.sh when missing), CLUSTER (default /tmp/py24c),
# PYSLURM_REBUILD=1 rebuilds pyslurm even when the chroot holds a build.
# Needs root (chroot, mounts) and network access to Debian's and Python's
# package registries the first time.
#
# pyslurm 24.11 links libslurmfull.so (Slurm's private library), not
# libslurm.so.42: a directory on LD_LIBRARY_PATH holding links libslurmfull.so
# and libslurm.so.42 to a copy of Spur's library stands in for it (the loader
# finds NEEDED entries by file name, and LD_LIBRARY_PATH before RUNPATH).
#
# pyslurm loads its modules with RTLD_DEEPBIND: their `environ` then binds to
# libc's own copy, which Debian's python3 (a copy relocation of __environ)
# never fills, so a job submitted with the default environment ("ALL") has
# none and is refused (ESLURM_ENVIRONMENT_MISSING) -- with Slurm's own library
# as with Spur's. The suites run twice: as they are, and with a
# sitecustomize.py that points libc's copy at the live environment.
#
# The suites: tests/unit and tests/integration (pyslurm 24.11 has no legacy
# tests). Integration tests of pyslurm.db need slurmdbd, which Spur has not:
# counted apart. Jobs run on the host's Spur nodes: the suites' PATH has the
# chroot's commands (/opt/pysl/bin24) first and the cluster's (valid on the
# host) after, so a job script's `srun` resolves on the host.
set -uo pipefail

src="${1:?usage: scripts/pyslurm24.sh PYSLURM_SOURCE_DIR}"
root="$(cd "$(dirname "$0")/.." && pwd)"
R="${CHROOT:-/var/tmp/spur-compat-trixie}"
cluster="${CLUSTER:-/tmp/py24c}"
src="$(cd "$src" && pwd)" || exit 2
[ -f "$src/setup.py" ] && [ -d "$src/tests/unit" ] || { echo "pyslurm24.sh: $src is no pyslurm source tree" >&2; exit 2; }
grep -q '24\.11' "$src/pyslurm/version.py" "$src/pyslurm/__version__.py" 2>/dev/null ||
  echo "pyslurm24.sh: warning: $src does not look like pyslurm 24.11" >&2
logs="$root/target/pyslurm24"
mkdir -p "$logs"

step() { printf '\n== %s\n' "$*"; }
in_chroot() { chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }

cleanup() {
  "$root/target/debug/spur" cluster down --dir "$cluster" >/dev/null 2>&1
  mountpoint -q "$R$cluster" && umount "$R$cluster"
  mountpoint -q "$R/proc" && umount "$R/proc"
}
trap cleanup EXIT

step "Spur: commands, daemons, the 24.11 library"
(cd "$root" && cargo build -q --workspace --bins && bash scripts/compat.sh 24.11) || exit 1

step "chroot $R with the build packages"
SPUR_COMPAT_CHROOT="$R" bash "$root/scripts/compat-chroot.sh" >"$logs/chroot.log" 2>&1 || { tail -20 "$logs/chroot.log"; exit 1; }
mountpoint -q "$R/proc" || mount -t proc proc "$R/proc" || exit 1
cp /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null
in_chroot bash -c 'dpkg -s python3-dev gcc libslurm-dev python3-venv >/dev/null 2>&1 ||
  (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-dev python3-venv gcc libslurm-dev ca-certificates)' \
  >"$logs/apt.log" 2>&1 || { tail -20 "$logs/apt.log"; exit 1; }
grep -q 'SLURM_VERSION_NUMBER 0x180b' "$R/usr/include/slurm/slurm_version.h" ||
  { echo "pyslurm24.sh: the chroot's libslurm-dev is not Slurm 24.11" >&2; exit 1; }

step "venv /opt/pysl/venv"
mkdir -p "$R/opt/pysl/certs"
cp "$R/etc/ssl/certs/ca-certificates.crt" "$R/opt/pysl/certs/" 2>/dev/null
[ -x "$R/opt/pysl/venv/bin/python" ] || in_chroot python3 -m venv /opt/pysl/venv || exit 1
in_chroot PIP_CERT=/opt/pysl/certs/ca-certificates.crt /opt/pysl/venv/bin/pip install -q \
  "Cython==3.0.12" setuptools pytest >"$logs/pip.log" 2>&1 || { tail -20 "$logs/pip.log"; exit 1; }

step "pyslurm from $src"
build=/opt/pysl/src24/build/lib.linux-x86_64-cpython-313
if [ ! -d "$R$build" ] || [ "${PYSLURM_REBUILD:-0}" = 1 ]; then
  rm -rf "$R/opt/pysl/src24"
  cp -a "$src" "$R/opt/pysl/src24" && rm -rf "$R/opt/pysl/src24/build" || exit 1
  in_chroot bash -c "cd /opt/pysl/src24 && SLURM_LIB_DIR=/usr/lib/x86_64-linux-gnu SLURM_INCLUDE_DIR=/usr/include \
    ../venv/bin/python setup.py build -j 2" >"$logs/build.log" 2>&1 || { tail -30 "$logs/build.log"; exit 1; }
  build="$(cd "$R" && ls -d opt/pysl/src24/build/lib.* | head -1)"
  build="/$build"
fi
# the tests run outside the source tree, whose pyslurm/ would shadow the build
rm -rf "$R/opt/pysl/run24" && mkdir -p "$R/opt/pysl/run24" && cp -a "$src/tests" "$R/opt/pysl/run24/" || exit 1

step "Spur's library as libslurmfull.so, Spur's commands, the environ fix"
L="$R/opt/pysl/lib24"
rm -rf "$L" && mkdir -p "$L" && cp "$root/target/compat/24.11/libslurm.so.42" "$L/libspur-slurm.so" || exit 1
ln -s libspur-slurm.so "$L/libslurm.so.42" && ln -s libspur-slurm.so "$L/libslurmfull.so"
missing="$(for f in $(find "$R$build" -name '*.so'); do nm -D --undefined-only "$f"; done | awk '{print $2}' | sort -u |
  comm -12 - <(nm -D --defined-only "$R/usr/lib/x86_64-linux-gnu/slurm-wlm/libslurmfull.so" | awk '{print $3}' | sort -u) |
  comm -23 - <(nm -D --defined-only "$L/libspur-slurm.so" | awk '{print $3}' | sort -u))"
[ -z "$missing" ] || { echo "pyslurm24.sh: Spur's library lacks pyslurm's imports:" $missing >&2; exit 1; }
B="$R/opt/pysl/bin24"
rm -rf "$B" && mkdir -p "$B" && cp "$root/target/debug/spur" "$B/spur" || exit 1
for c in sacct sacctmgr salloc sbatch scancel scontrol sinfo sprio squeue srun sstat; do ln -s spur "$B/$c"; done
mkdir -p "$R/opt/pysl/envfix"
cat >"$R/opt/pysl/envfix/sitecustomize.py" <<'EOF'
# pyslurm loads its modules with RTLD_DEEPBIND: their `environ` binds to
# libc's own copy, which an executable with a copy relocation of __environ
# (Debian's python3) never fills; point it at the live environment
import ctypes
try:
    live = ctypes.c_void_p.in_dll(ctypes.CDLL(None), "environ")
    stale = ctypes.c_void_p.in_dll(ctypes.CDLL("libc.so.6"), "environ")
    if ctypes.addressof(live) != ctypes.addressof(stale):
        stale.value = live.value
except (OSError, ValueError):
    pass
EOF
cat >"$R/opt/pysl/run24.sh" <<EOF
#!/bin/bash
cd /opt/pysl/run24 || exit 2
export SLURM_CONF=$cluster/slurm.conf LD_LIBRARY_PATH=/opt/pysl/lib24
export PYTHONPATH=\${EXTRA_PYTHONPATH:-}$build PATH=/opt/pysl/bin24:$cluster/bin:\$PATH
exec timeout 1800 /opt/pysl/venv/bin/python -m pytest -q -p no:cacheprovider -rfE "\$@"
EOF
chmod +x "$R/opt/pysl/run24.sh"

step "Spur cluster in $cluster"
"$root/target/debug/spur" cluster down --dir "$cluster" >/dev/null 2>&1
rm -rf "$cluster"
"$root/target/debug/spur" cluster up --dir "$cluster" --nodes 2 --cpus 24 --memory 64000 --compat 24.11 \
  >"$logs/cluster.log" 2>&1 || { cat "$logs/cluster.log"; exit 1; }
mkdir -p "$R$cluster" && mount --bind "$cluster" "$R$cluster" || exit 1
in_chroot SLURM_CONF="$cluster/slurm.conf" LD_LIBRARY_PATH=/opt/pysl/lib24 PYTHONPATH="$build" /opt/pysl/venv/bin/python -c '
import pyslurm
m = sorted({l.split()[-1] for l in open("/proc/self/maps") if "slurm" in l and "pyslurm" not in l})
print("pyslurm", pyslurm.__version__, "on", m)' || exit 1

declare -A summary
run_suite() {
  local name="$1" extra="$2"; shift 2
  step "suite $name"
  SLURM_CONF="$cluster/slurm.conf" "$cluster/bin/scancel" -u root >/dev/null 2>&1
  in_chroot EXTRA_PYTHONPATH="$extra" /opt/pysl/run24.sh "$@" >"$logs/$name.log" 2>&1
  grep -E '^(FAILED|ERROR) ' "$logs/$name.log" | sed 's/^/  /'
  local line db
  line="$(grep -E '^(=+ )?[0-9]+ (passed|failed)|^(=+ )?[0-9]+ .*in [0-9.]+s' "$logs/$name.log" | tail -1 | tr -d '=')"
  db="$(grep -cE '^(FAILED|ERROR) tests/integration/test_db_' "$logs/$name.log")"
  summary[$name]="${line:-did not finish (see $logs/$name.log)}; of them test_db_* (slurmdbd): $db"
  echo "  ${summary[$name]}"
}
run_suite unit "" tests/unit
run_suite integration "" tests/integration
run_suite integration-envfix "/opt/pysl/envfix:" tests/integration

step "summary (logs in $logs)"
for s in unit integration integration-envfix; do printf '  %-20s %s\n' "$s" "${summary[$s]}"; done
