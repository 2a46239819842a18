#!/bin/bash
# A Debian 13 (trixie) chroot with Slurm 24.11's consumers of libslurm.so.42:
# the Perl API (libslurm-perl, libslurmdb-perl) and the torque wrappers
# (slurm-wlm-torque), for slurm-tests/tests/compat_chroot.rs, which runs them
# against a Spur cluster through target/compat/24.11/libslurm.so.42.
# Idempotent; prints the chroot's path. About a minute the first time
# (debootstrap, then apt-get from Debian's archive: scripts/debian-chroot.sh).
#   SPUR_COMPAT_CHROOT  where (default /var/tmp/spur-compat-trixie)
set -euo pipefail
root="${SPUR_COMPAT_CHROOT:-/var/tmp/spur-compat-trixie}"
ready="$root/usr/bin/qstat"
if [ ! -e "$ready" ] || [ ! -e "$root/usr/lib/x86_64-linux-gnu/libslurm.so.42" ]; then
  bash "$(dirname "$0")/debian-chroot.sh" trixie "$root" libslurm-perl libslurmdb-perl slurm-wlm-torque
fi
[ -e "$ready" ]
echo "$root"
