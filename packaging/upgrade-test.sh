#!/bin/bash
# The administrator's path, tested (issue 16): in an overlay of a Debian 12
# chroot with Debian's Slurm 22.05 (packaging/upgrade-chroot.sh),
#  1. real Slurm runs a job (munged, slurmctld, two slurmd) and its sinfo and
#     squeue are recorded;
#  2. Spur's .debs (target/package, `make package`) are installed over it with
#     apt: Debian's slurm-client, slurmctld, slurmd and libslurm38 go, the
#     Perl API stays; the daemons start with the commands their units run;
#     the same sinfo and squeue print the same, the Perl API answers, a batch
#     job, an srun step and an MPI job (MPICH, --mpi=pmi2) run as their owner,
#     all through the same munged and key;
#  3. Spur's packages are removed and Slurm's installed again: Slurm starts
#     from the state it left (its job is there, its job ids go on).
# Then the .rpms: `rpm -qip` and an install into an empty root.
# Every step prints what it checks; the first failure stops the test.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
pkg="$root/target/package"
base="$(bash "$root/packaging/upgrade-chroot.sh")"
work="$(mktemp -d /var/tmp/spur-upgrade-test.XXXXXX)"
R="$work/root"
mkdir -p "$work/upper" "$work/w" "$R"
mount -t overlay overlay -o "lowerdir=$base,upperdir=$work/upper,workdir=$work/w" "$R"
mount -t proc proc "$R/proc"
mount --rbind /dev "$R/dev" # (with /dev/shm: MPICH's shared memory)
mount --rbind /sys "$R/sys" # (slurmd's cgroup plugin looks at /sys/fs/cgroup)
cleanup() {
  # every process whose root is the chroot
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2> /dev/null)" = "$R" ] && kill -9 "${p#/proc/}" 2> /dev/null || true
  done
  sleep 0.2
  for m in "$R/sys" "$R/dev"; do umount -R "$m" 2> /dev/null || umount -Rl "$m" 2> /dev/null || true; done
  for m in "$R/proc" "$R"; do umount "$m" 2> /dev/null || umount -l "$m" 2> /dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

step() { echo "upgrade-test: $*"; }
fail() {
  echo "upgrade-test: FAILED: $*" >&2
  for f in "$R"/var/log/slurm/*.log; do [ -e "$f" ] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }; done
  exit 1
}
# run in the chroot (as root, or as a user: ch_as alice ...)
ch() { chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C "$@"; }
ch_as() { local u=$1; shift; chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C runuser -u "$u" -- "$@"; }
start() { chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C "$@" < /dev/null > /dev/null 2>&1 & }
wait_for() { # what, seconds, command...
  local what=$1 secs=$2; shift 2
  for _ in $(seq $((secs * 10))); do "$@" > /dev/null 2>&1 && return 0; sleep 0.1; done
  fail "$what (waited ${secs}s)"
}
idle() { [ "$(ch sinfo -h -o %T | sort -u)" = idle ]; }
done_file() { [ -s "$R/home/alice/$1" ]; }
daemons() { # the pids of the chroot's Slurm or Spur daemons (never the host's)
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2> /dev/null)" = "$R" ] || continue
    case "$(cat "$p/comm" 2> /dev/null)" in slurmctld | slurmd | spurctld | spurd) echo "${p#/proc/}" ;; esac
  done
}
stop_all() { # SIGTERM, as systemctl stop; then wait for them to go
  for p in $(daemons); do kill -TERM "$p" 2> /dev/null || true; done
  for _ in $(seq 100); do
    if [ -z "$(daemons)" ]; then
      # as systemd does for Debian's units (PIDFile=): slurmctld leaves its pid
      # file, and Debian's slurmctld prerm runs scancel (and fails without a
      # controller) while /run/slurmctld.pid exists
      rm -f "$R/run/slurmctld.pid" "$R/run/slurmd.pid"
      return 0
    fi
    sleep 0.1
  done
  fail "daemons did not stop"
}

# --- the site: slurm.conf, munge, a user ------------------------------------
read -r ctld_port node_port < <(python3 -c '
import socket
def free(n):
    for p in range(20000, 30000, 7):
        if all(socket.socket().connect_ex(("127.0.0.1", q)) != 0 for q in range(p, p + n)):
            return p
print(free(1) + 3000, free(2) + 4000)')
host="$(hostname -s)"
cat > "$R/etc/slurm/slurm.conf" << EOF
ClusterName=upgrade
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$node_port
SlurmUser=slurm
AuthType=auth/munge
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd.%n
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd-%n.log
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd-%n.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
NodeName=n[1-2] NodeAddr=127.0.0.1 Port=[$node_port-$((node_port + 1))] CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
mkdir -p "$R/var/lib/slurm/slurmctld" "$R/var/lib/slurm/slurmd.n1" "$R/var/lib/slurm/slurmd.n2" "$R/var/log/slurm"
ch chown -R slurm:slurm /var/lib/slurm /var/log/slurm
ch useradd -m -s /bin/bash alice
key_sum="$(sha256sum < "$R/etc/munge/munge.key")"
mkdir -p "$R/run/munge"
ch chown munge:munge /run/munge
ch runuser -u munge -- /usr/sbin/munged
wait_for "munged" 10 test -S "$R/run/munge/munge.socket.2"

# --- 1. Debian's Slurm ------------------------------------------------------
step "Slurm $(ch dpkg-query -W -f='${Version}' slurmctld): starting slurmctld and two slurmd"
start slurmctld -D
start slurmd -D -N n1
start slurmd -D -N n2
wait_for "Slurm's nodes idle" 60 idle
slurm_sinfo="$(ch sinfo)"
slurm_squeue="$(ch squeue)"
perl_parts() {
  ch perl -MSlurm -e 'my $s = Slurm::new(); my $p = $s->load_partitions() or die Slurm->strerror();
    print join(",", map { $_->{name} . ":" . $_->{nodes} . ":" . $_->{total_nodes} } @{$p->{partition_array}}), "\n";'
}
slurm_perl="$(perl_parts)"
j1="$(ch_as alice sbatch --parsable -D /home/alice -o slurm.out --wrap 'echo from slurm $SLURM_JOB_ID; id -un')"
wait_for "Slurm's job $j1" 60 done_file slurm.out
[ "$(cat "$R/home/alice/slurm.out")" = "$(printf 'from slurm %s\nalice' "$j1")" ] || fail "slurm.out: $(cat "$R/home/alice/slurm.out")"
step "Slurm ran job $j1 as alice"
stop_all

# --- 2. Spur's packages over Slurm's ---------------------------------------
mkdir -p "$R/tmp/debs"
cp "$pkg"/spur-client_*.deb "$pkg"/spur-controller_*.deb "$pkg"/spur-node_*.deb "$pkg"/libspur-compat38_*.deb "$R/tmp/debs/"
step "apt-get install Spur's .debs"
ch bash -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /tmp/debs/*.deb' > "$work/apt.log" 2>&1 ||
  { cat "$work/apt.log"; fail "apt-get install"; }
for p in slurm-client slurmctld slurmd libslurm38; do
  s="$(ch dpkg-query -W -f='${db:Status-Status}' "$p" 2> /dev/null || echo absent)"
  [ "$s" != installed ] || fail "$p is still installed"
done
for p in spur-client spur-controller spur-node libspur-compat38 libslurm-perl; do
  [ "$(ch dpkg-query -W -f='${db:Status-Status}' "$p")" = installed ] || fail "$p is not installed"
done
step "Slurm's slurm-client, slurmctld, slurmd, libslurm38 replaced; libslurm-perl kept"
[ "$(readlink -f "$R/usr/bin/sbatch")" = "$R/usr/bin/spur" ] || fail "sbatch is not Spur's"
[ "$(sha256sum < "$R/etc/munge/munge.key")" = "$key_sum" ] || fail "the munge key changed"
# the site's one addition (docs/migration.md): the release it ran. No
# slurm.key: under auth/munge the daemons sign through munged as Slurm's do
[ ! -e "$R/etc/slurm/slurm.key" ] || fail "a slurm.key appeared"
echo 22.05 > "$R/etc/slurm/spur-compat"
# the daemons, started with the commands their units run
exec_of() { sed -n 's/^ExecStart=//p' "$R/lib/systemd/system/$1"; }
ctld_cmd="$(exec_of spurctld.service)"
node_cmd="$(exec_of spurd.service)"
step "starting: $ctld_cmd; $node_cmd (SLURMD_OPTIONS=-N n1, -N n2)"
start bash -c "SLURMCTLD_OPTIONS=; exec $ctld_cmd"
start bash -c "SLURMD_OPTIONS='-N n1'; exec $node_cmd"
start bash -c "SLURMD_OPTIONS='-N n2'; exec $node_cmd"
wait_for "Spur's nodes idle" 60 idle
[ -s "$R/run/slurmctld.pid" ] && [ -s "$R/run/slurmd-n1.pid" ] || fail "pid files"
[ "$(ch sinfo)" = "$slurm_sinfo" ] || fail "sinfo differs: $(ch sinfo) vs $slurm_sinfo"
[ "$(ch squeue)" = "$slurm_squeue" ] || fail "squeue differs: $(ch squeue)"
step "sinfo and squeue print what Slurm's printed"
perl_out="$(perl_parts)"
[ "$perl_out" = "$slurm_perl" ] || fail "Perl API: $perl_out, Slurm's: $slurm_perl"
step "the Perl API (libslurm-perl on libspur-compat38) reads the partitions as on Slurm: $perl_out"
j2="$(ch_as alice sbatch --parsable -D /home/alice -o spur.out --wrap 'echo from spur; id -un')"
wait_for "Spur's job $j2" 60 done_file spur.out
[ "$(cat "$R/home/alice/spur.out")" = "$(printf 'from spur\nalice')" ] || fail "spur.out: $(cat "$R/home/alice/spur.out")"
step "batch job $j2 ran as alice"
steps="$(ch_as alice srun -N2 -l -D /home/alice printenv SLURMD_NODENAME | sort)"
[ "$steps" = "$(printf '0: n1\n1: n2')" ] || fail "srun: $steps"
step "srun -N2 ran a step on n1 and n2"
mpicc.mpich -o "$R/home/alice/hello" "$root/slurm-tests/scripts/mpi_hello.c"
mpi="$(ch_as alice srun --mpi=pmi2 -N2 -n2 -D /home/alice ./hello | sort)"
[ "$mpi" = "$(printf 'rank 0 of 2 sum 1 on n1\nrank 1 of 2 sum 1 on n2')" ] || fail "MPI: $mpi"
step "an MPICH job ran on two nodes through srun --mpi=pmi2"
stop_all
[ ! -e "$R/run/slurmctld.pid" ] || fail "spurctld left its pid file"

# --- 3. back to Slurm -------------------------------------------------------
# (one apt transaction: Slurm's packages conflict with Spur's, so apt takes
# Spur's away as it puts Slurm's back, and the Perl API, which depends on
# libslurm38, stays installed throughout)
step "apt-get install Slurm's packages again (Spur's go)"
ch bash -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm libslurm38' \
  > "$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "the rollback"; }
for p in spur-client spur-controller spur-node libspur-compat38; do
  s="$(ch dpkg-query -W -f='${db:Status-Status}' "$p" 2> /dev/null || echo absent)"
  [ "$s" != installed ] || fail "$p is still installed"
done
[ "$(ch dpkg-query -W -f='${db:Status-Status}' libslurm-perl)" = installed ] || fail "libslurm-perl went"
[ "$(readlink -f "$R/usr/bin/sbatch")" = "$R/usr/bin/sbatch" ] || fail "sbatch is not Slurm's"
rm -f "$R/etc/slurm/spur-compat"
start slurmctld -D
start slurmd -D -N n1
start slurmd -D -N n2
wait_for "Slurm's nodes idle again" 60 idle
[ "$(ch scontrol show job "$j1" | grep -o 'JobState=[A-Z]*')" = JobState=COMPLETED ] ||
  fail "Slurm lost job $j1: $(ch scontrol show job "$j1")"
j3="$(ch_as alice sbatch --parsable -D /home/alice -o back.out --wrap 'echo back')"
[ "$j3" -gt "$j1" ] || fail "Slurm's job ids start again: $j3"
wait_for "Slurm's job $j3" 60 done_file back.out
perl_out="$(perl_parts)"
[ "$perl_out" = "$slurm_perl" ] || fail "Perl API on Slurm's library again: $perl_out"
step "Slurm is back: job $j1 still known, job $j3 ran, the Perl API answers"
stop_all

# --- the .rpms -------------------------------------------------------------
rroot="$work/rpmroot"
mkdir -p "$rroot"
for f in "$pkg"/*.rpm; do rpm -qip "$f" > /dev/null || fail "rpm -qip $f"; done
rpm -qp --provides "$pkg"/spur-controller-*.rpm | grep -q '^slurm-slurmctld' || fail "spur-controller.rpm provides"
rpm --root "$rroot" --initdb
rpm --root "$rroot" -i --nodeps --noscripts 2> "$work/rpm.log" "$pkg"/spur-client-*.rpm "$pkg"/spur-controller-*.rpm \
  "$pkg"/spur-node-*.rpm "$pkg"/libspur-compat42-*.rpm
for f in usr/bin/spur usr/sbin/spurctld usr/sbin/spurd usr/sbin/spurstepd usr/lib64/libslurm.so.42 \
  usr/lib/systemd/system/spurctld.service usr/share/man/man1/sbatch.1.gz; do
  [ -e "$rroot/$f" ] || fail "the .rpms did not install /$f"
done
step ".rpms: rpm -qip reads them; installed into an empty root"
step "passed"
