#!/bin/bash
# A Debian 12 (bookworm) chroot with Debian's Slurm 22.05 installed as a site
# has it: slurmctld, slurmd, the commands, munge, the Perl API and MPICH's
# runtime, for packaging/upgrade-test.sh, which runs each test in an overlay
# of it (so this base stays as Debian left it). Idempotent; prints the
# chroot's path. About two minutes the first time (debootstrap, then
# apt-get from Debian's archive); the .debs stay in its apt cache, so that
# the test can reinstall Slurm without the network.
#   SPUR_UPGRADE_CHROOT  where (default /var/tmp/spur-upgrade-bookworm)
set -euo pipefail
root="${SPUR_UPGRADE_CHROOT:-/var/tmp/spur-upgrade-bookworm}"
mirror="${SPUR_CONF_MIRROR:-http://deb.debian.org/debian}"
ready="$root/var/lib/spur-upgrade-base-ready"
if [ -e "$ready" ]; then
  echo "$root"
  exit 0
fi
[ "$(id -u)" = 0 ] || { echo "upgrade-chroot: needs root" >&2; exit 1; }
command -v debootstrap > /dev/null || {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap > /dev/null
}
if [ ! -e "$root/usr/bin/apt-get" ]; then
  mkdir -p "$(dirname "$root")"
  echo "upgrade-chroot: debootstrap bookworm into $root" >&2
  debootstrap --variant=minbase bookworm "$root" "$mirror" > /dev/null
fi
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d" # never start services
chmod 0755 "$root/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# keep every downloaded .deb (Slurm's are reinstalled offline by the rollback)
rm -f "$root/etc/apt/apt.conf.d/docker-clean"
echo 'Binary::apt::APT::Keep-Downloaded-Packages "true";' > "$root/etc/apt/apt.conf.d/90keep"
mounted=()
cleanup() { for m in "${mounted[@]}"; do umount "$m" 2> /dev/null || umount -l "$m"; done; }
trap cleanup EXIT
for d in proc dev; do
  if ! mountpoint -q "$root/$d"; then
    if [ $d = proc ]; then mount -t proc proc "$root/proc"; else mount --bind /dev "$root/dev"; fi
    mounted=("$root/$d" "${mounted[@]}")
  fi
done
echo "upgrade-chroot: apt-get install slurm-wlm munge libslurm-perl mpich in the chroot" >&2
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive bash -c \
  "apt-get update -qq && apt-get install -y -qq --no-install-recommends slurm-wlm munge libslurm-perl \
     libmpich12 procps > /dev/null"
touch "$ready"
echo "$root"
