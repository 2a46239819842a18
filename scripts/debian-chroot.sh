#!/bin/bash
# A minimal Debian chroot with some packages, for the tests that run Debian's
# own programs (scripts/compat-chroot.sh, packaging/upgrade-chroot.sh):
#   scripts/debian-chroot.sh SUITE ROOT PACKAGE...
# debootstrap SUITE into ROOT (once), a policy-rc.d that starts no service,
# every downloaded .deb kept in its apt cache, then apt-get install the
# packages (without recommends) with /proc and /dev mounted for the time of
# it. Needs root; installs debootstrap on the host when it is missing.
set -euo pipefail
suite="$1" root="$2"
shift 2
mirror="${SPUR_CONF_MIRROR:-http://deb.debian.org/debian}"
me="$(basename "$0" .sh)"
[ "$(id -u)" = 0 ] || { echo "$me: needs root" >&2; exit 1; }
command -v debootstrap > /dev/null || {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap > /dev/null
}
if [ ! -e "$root/usr/bin/apt-get" ]; then
  mkdir -p "$(dirname "$root")"
  echo "$me: debootstrap $suite into $root" >&2
  debootstrap --variant=minbase "$suite" "$root" "$mirror" > /dev/null
fi
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d" # never start services
chmod 0755 "$root/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$root/etc/resolv.conf"
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
echo "$me: apt-get install $* in the $suite chroot" >&2
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive bash -c \
  "apt-get update -qq && apt-get install -y -qq --no-install-recommends $* > /dev/null"
