#!/bin/bash
# A Debian 13 (trixie) chroot with Slurm 24.11's consumers of libslurm.so.42:
# the Perl API (libslurm-perl, libslurmdb-perl) and the torque wrappers
# (slurm-wlm-torque), for slurm-tests/tests/compat_chroot.rs, which runs them
# against a Spur cluster through target/compat/24.11/libslurm.so.42.
# Idempotent; prints the chroot's path. About a minute the first time
# (debootstrap, then apt-get from Debian's archive).
#   SPUR_COMPAT_CHROOT  where (default /var/tmp/spur-compat-trixie)
set -euo pipefail
root="${SPUR_COMPAT_CHROOT:-/var/tmp/spur-compat-trixie}"
mirror="${SPUR_CONF_MIRROR:-http://deb.debian.org/debian}"
ready="$root/usr/bin/qstat"
if [ -e "$ready" ] && [ -e "$root/usr/lib/x86_64-linux-gnu/libslurm.so.42" ]; then
  echo "$root"
  exit 0
fi
[ "$(id -u)" = 0 ] || { echo "compat-chroot: needs root" >&2; exit 1; }
command -v debootstrap > /dev/null || {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap > /dev/null
}
if [ ! -e "$root/usr/bin/apt-get" ]; then
  mkdir -p "$(dirname "$root")"
  echo "compat-chroot: debootstrap trixie into $root" >&2
  debootstrap --variant=minbase trixie "$root" "$mirror" > /dev/null
fi
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"  # never start services
chmod 0755 "$root/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mounted=()
cleanup() { for m in "${mounted[@]}"; do umount "$m" 2> /dev/null || umount -l "$m"; done; }
trap cleanup EXIT
for d in proc dev; do
  if ! mountpoint -q "$root/$d"; then
    if [ $d = proc ]; then mount -t proc proc "$root/proc"; else mount --bind /dev "$root/dev"; fi
    mounted=("$root/$d" "${mounted[@]}")
  fi
done
echo "compat-chroot: apt-get install libslurm-perl libslurmdb-perl slurm-wlm-torque in the chroot" >&2
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive bash -c \
  "apt-get update -qq && apt-get install -y -qq --no-install-recommends libslurm-perl libslurmdb-perl slurm-wlm-torque > /dev/null"
[ -e "$ready" ]
echo "$root"
