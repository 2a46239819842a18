#!/bin/bash
# A Debian 12 (bookworm) chroot with Debian's Slurm 22.05 installed as a site
# has it: slurmctld, slurmd, the commands, munge, the Perl API and MPICH's
# runtime, for packaging/upgrade-test.sh, which runs each test in an overlay
# of it (so this base stays as Debian left it). Idempotent; prints the
# chroot's path. About two minutes the first time (scripts/debian-chroot.sh:
# debootstrap, then apt-get from Debian's archive); the .debs stay in its apt
# cache, so that the test can reinstall Slurm without the network.
#   SPUR_UPGRADE_CHROOT  where (default /var/tmp/spur-upgrade-bookworm)
set -euo pipefail
root="${SPUR_UPGRADE_CHROOT:-/var/tmp/spur-upgrade-bookworm}"
ready="$root/var/lib/spur-upgrade-base-ready"
if [ ! -e "$ready" ]; then
  bash "$(dirname "$0")/../scripts/debian-chroot.sh" bookworm "$root" slurm-wlm munge libslurm-perl libmpich12 procps
  touch "$ready"
fi
echo "$root"
