#!/bin/bash
# Install what building and testing Spur needs on a Debian 12 machine.
# Idempotent and quiet when everything is already there.
set -euo pipefail
need=()
command -v cc >/dev/null || need+=(build-essential)
# libFuzzer (make test's bounded fuzzing, scripts/fuzz.sh) is C++
command -v c++ >/dev/null || need+=(g++)
command -v python3 >/dev/null || need+=(python3)
command -v useradd >/dev/null || need+=(passwd)
command -v pkg-config >/dev/null || need+=(pkg-config)
command -v pgrep >/dev/null || need+=(procps)
command -v runuser >/dev/null || need+=(util-linux)
command -v openssl >/dev/null || need+=(openssl)  # the TLS test makes its certificates
# the MPI tests (slurm-tests/tests/mpi.rs): MPICH, run with srun --mpi=pmi2;
# Open MPI, run with srun --mpi=pmix and mpirun; Slurm's own libpmi2 client
command -v mpicc.mpich >/dev/null || need+=(mpich libmpich-dev)
command -v mpicc.openmpi >/dev/null || need+=(openmpi-bin libopenmpi-dev)
[ -e /usr/include/slurm/pmi2.h ] || need+=(libpmi2-0-dev)
[ -e /usr/include/slurm/pmi.h ] || need+=(libpmi0 libpmi0-dev)  # Slurm's libpmi (PMI-1) on libspur_compat: tests/compat_pmi.rs
# the step daemon hosts a PMIx server through libpmix, bound by bindgen (libclang)
[ -e /usr/lib/x86_64-linux-gnu/pmix2/include/pmix_server.h ] || [ -e /usr/include/pmix_server.h ] || need+=(libpmix-dev)
[ -n "$(ls /usr/lib/llvm-*/lib/libclang.so* 2>/dev/null)" ] || need+=(libclang-dev)
# AuthType=auth/munge: libmunge (bound by bindgen in crates/spur-munge) and
# munged for slurm-tests/tests/munge.rs
[ -e /usr/include/munge.h ] || need+=(libmunge-dev)
[ -x /usr/sbin/munged ] || need+=(munge)
# libspur_compat is built against each Slurm release's own headers (bindgen):
# 22.05's are Debian 12's libslurm-dev; 24.11's are fetched below
[ -e /usr/include/slurm/slurm.h ] || need+=(libslurm-dev)
# the consumers libspur_compat is tested with (slurm-tests/tests/compat_consumers.rs):
# Debian's Perl API and the torque wrappers on it, and valgrind for a C consumer
[ -e /usr/share/perl5/Slurm.pm ] || [ -n "$(ls /usr/lib/x86_64-linux-gnu/perl5/*/Slurm.pm 2>/dev/null)" ] || need+=(libslurm-perl)
[ -n "$(ls /usr/lib/x86_64-linux-gnu/perl5/*/Slurmdb.pm 2>/dev/null)" ] || need+=(libslurmdb-perl)
[ -e /usr/bin/qstat ] || need+=(slurm-wlm-torque)
command -v valgrind >/dev/null || need+=(valgrind)
# 24.11's consumers run in a Debian 13 chroot (scripts/compat-chroot.sh)
command -v debootstrap >/dev/null || need+=(debootstrap)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "setup: please install: ${need[*]}" >&2; exit 1
  fi
fi
if ! command -v cargo >/dev/null; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    echo "setup: cargo is in ~/.cargo/bin: add it to PATH" >&2; exit 1
  fi
  echo "setup: installing Debian's cargo"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cargo >/dev/null
fi
# `make test` checks formatting and clippy first: a rustup toolchain has both
# as components (Debian's cargo is too old to build Spur anyway).
if ! cargo fmt --version >/dev/null 2>&1 || ! cargo clippy --version >/dev/null 2>&1; then
  if command -v rustup >/dev/null; then
    echo "setup: adding rustup components rustfmt and clippy"
    rustup component add rustfmt clippy >/dev/null
  else
    echo "setup: cargo fmt and cargo clippy are needed (rustup component add rustfmt clippy)" >&2; exit 1
  fi
fi
bash "$(dirname "$0")/slurm-headers.sh"
# The tests run jobs as a normal user: create it when we can.
if [ "$(id -u)" = 0 ] && ! id spurtest >/dev/null 2>&1; then
  groupadd -g 1500 spurtest 2>/dev/null || groupadd spurtest
  useradd -u 1500 -g spurtest -m -s /bin/bash spurtest 2>/dev/null || useradd -g spurtest -m -s /bin/bash spurtest
fi
exit 0
