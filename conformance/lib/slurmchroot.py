"""Real Slurm, run by hand: 24.11 (Debian 13 trixie) in a debootstrap chroot, or the
host's own apt-installed Slurm (22.05 on Debian 12) with Cluster(..., root="").

One controller plus one `slurmd -N nodeX` per node, all on 127.0.0.1 with their
own ports.  Everything this module starts is recorded in <cluster>/run/started.pids
and stop() kills only those pids.

Paths (chroot path == host path under ROOT):
  ROOT                       SPUR_CONF_CHROOT, default /var/tmp/spur-conformance/trixie-root
  <cluster dir>              /tmp/spur-conf-cluster (inside the chroot) by default
  <work dir>                 /tmp/spur-conf-work: the SAME absolute path on the host and in
                             the chroot (host directory bind-mounted into the chroot), so
                             recorded paths are the ones Spur sees when replaying on the host.
"""

import os
import shlex
import shutil
import subprocess
import sys
import time

ROOT = os.environ.get("SPUR_CONF_CHROOT", "/var/tmp/spur-conformance/trixie-root")
MIRROR = os.environ.get("SPUR_CONF_MIRROR", "http://deb.debian.org/debian")
WORKDIR = "/tmp/spur-conf-work"
TEST_USER, TEST_UID, TEST_GID = "spurtest", 1500, 1500
CHROOT_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"


def log(msg):
    print(f"[record {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def sh(cmd, check=True, **kw):
    return subprocess.run(cmd, shell=isinstance(cmd, str), check=check, **kw)


def chroot_cmd(argv, env=None, user=None, cwd="/", root=None):
    """argv to run `argv` inside the chroot (root="" : on the host) with a clean environment."""
    root = ROOT if root is None else root
    e = {"PATH": CHROOT_PATH, "LANG": "C.UTF-8", "HOME": "/root"}
    if env:
        e.update(env)
    envargs = [f"{k}={v}" for k, v in e.items()]
    # from "/" like chroot does, so the shell's OLDPWD is "/" on both kinds of side
    inner = ("cd / && " if not root else "") + "cd " + shlex.quote(cwd) + " && exec \"$@\""
    base = ["chroot", root] if root else []
    if user and user != "root":
        # runuser inside the chroot: uid/gid/groups of the chroot's passwd entry
        base += ["/usr/sbin/runuser", "-u", user, "--"]
    return base + ["/usr/bin/env", "-i"] + envargs + ["/bin/bash", "-c", inner, "spur-conf"] + list(argv)


# --------------------------------------------------------------------------- versions

# Where each recorded Slurm version runs.  "root" is the chroot ("" = the host itself);
# the host's apt-installed Slurm is 22.05 on Debian 12.
VERSIONS = {
    "24.11": {"root": ROOT, "port_base": 47800, "cdir": "/tmp/spur-conf-cluster",
              "port_base_b": 47850, "cdir_b": "/tmp/spur-conf-cluster-b"},
    "22.05": {"root": "", "port_base": 47900, "cdir": "/tmp/spur-conf-cluster-2205",
              "port_base_b": 47950, "cdir_b": "/tmp/spur-conf-cluster-2205-b"},
}


def host_version():
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "slurmctld"], capture_output=True, text=True)
    return r.stdout.strip()


def setup_version(version):
    """Make sure the Slurm of `version` is runnable: the chroot for 24.11, the host's
    packages for 22.05 (installed with apt-get when missing)."""
    if VERSIONS[version]["root"]:
        return setup()
    need = ("/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged", "/usr/bin/sbatch")
    if not all(os.path.exists(p) for p in need):
        log("apt-get install slurm-wlm munge on the host")
        sh("apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "
           "slurm-wlm slurm-client munge >/dev/null")
    v = host_version()
    if not v.startswith(version + "."):
        raise RuntimeError(f"the host's Slurm is {v!r}, not {version}")
    ensure_user_host()
    log(f"host Slurm ready: {v}")


# --------------------------------------------------------------------------- setup

# what a cluster with accounting (slurmdbd on MariaDB) needs, on either side
ACCOUNTING_PACKAGES = ("slurmdbd", "slurm-wlm-mysql-plugin", "mariadb-server", "mariadb-client")
ACCOUNTING_BINARIES = ("/usr/sbin/slurmdbd", "/usr/sbin/mariadbd", "/usr/bin/mariadb",
                       "/usr/bin/mariadb-install-db", "/usr/bin/sacctmgr")

def ensure_user_host():
    """spurtest (uid/gid 1500) on the host."""
    if subprocess.run(["getent", "group", TEST_USER], capture_output=True).returncode != 0:
        sh(["groupadd", "-g", str(TEST_GID), TEST_USER])
    if subprocess.run(["getent", "passwd", TEST_USER], capture_output=True).returncode != 0:
        sh(["useradd", "-u", str(TEST_UID), "-g", str(TEST_GID), "-m", "-s", "/bin/bash", TEST_USER])


def ensure_user_chroot():
    r = lambda *a: subprocess.run(["chroot", ROOT] + list(a), capture_output=True)
    if r("getent", "group", TEST_USER).returncode != 0:
        sh(["chroot", ROOT, "groupadd", "-g", str(TEST_GID), TEST_USER])
    if r("getent", "passwd", TEST_USER).returncode != 0:
        sh(["chroot", ROOT, "useradd", "-u", str(TEST_UID), "-g", str(TEST_GID), "-m", "-s", "/bin/bash", TEST_USER])


def setup():
    """Idempotent: debootstrap trixie, install Slurm 24.11 + munge, create spurtest."""
    t0 = time.time()
    if shutil.which("debootstrap") is None:
        sh("apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap")
    if not os.path.exists(f"{ROOT}/usr/bin/apt-get"):
        os.makedirs(os.path.dirname(ROOT), exist_ok=True)
        log(f"debootstrap trixie into {ROOT} (about 20 s)")
        sh(["debootstrap", "--variant=minbase", "trixie", ROOT, MIRROR], stdout=subprocess.DEVNULL)
    if not all(os.path.exists(f"{ROOT}{p}") for p in
               ("/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged", "/usr/bin/sbatch", "/usr/bin/ps",
                "/usr/bin/python3")):
        with open(f"{ROOT}/etc/apt/sources.list", "w") as f:
            f.write(f"deb {MIRROR} trixie main\ndeb {MIRROR} trixie-updates main\n"
                    f"deb {MIRROR.rsplit('/debian', 1)[0]}/debian-security trixie-security main\n")
        with open(f"{ROOT}/usr/sbin/policy-rc.d", "w") as f:
            f.write("#!/bin/sh\nexit 101\n")   # never start services in the chroot
        os.chmod(f"{ROOT}/usr/sbin/policy-rc.d", 0o755)
        shutil.copy("/etc/resolv.conf", f"{ROOT}/etc/resolv.conf")
        mount_all()
        log("apt-get install slurm-wlm munge inside the chroot (about 15 s)")
        sh(chroot_cmd(["bash", "-c",
                       "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "
                       "slurm-wlm slurm-client munge >/dev/null && DEBIAN_FRONTEND=noninteractive "
                       "apt-get install -y -qq --no-install-recommends procps iproute2 python3 >/dev/null"]))
    if not all(os.path.exists(f"{ROOT}{p}") for p in ACCOUNTING_BINARIES):
        # for the scenarios with an `accounting` header line: slurmdbd on MariaDB
        mount_all()
        log("apt-get install slurmdbd mariadb-server inside the chroot (about 20 s)")
        sh(chroot_cmd(["bash", "-c",
                       "(apt-get install -y -qq --no-install-recommends " + " ".join(ACCOUNTING_PACKAGES) +
                       " || (apt-get update -qq && apt-get install -y -qq --no-install-recommends " +
                       " ".join(ACCOUNTING_PACKAGES) + ")) >/dev/null"],
                      env={"DEBIAN_FRONTEND": "noninteractive"}))
    ensure_user_host()
    ensure_user_chroot()
    log(f"chroot ready in {time.time() - t0:.0f}s: " + subprocess.run(
        ["chroot", ROOT, "dpkg-query", "-W", "-f=${Version}", "slurmctld"],
        capture_output=True, text=True).stdout)


# --------------------------------------------------------------------------- mounts

def mount_all():
    for kind, src, dst in (("proc", "proc", "/proc"), ("sysfs", "sysfs", "/sys"),
                           ("bind", "/dev", "/dev"), ("bind", "/dev/pts", "/dev/pts")):
        d = ROOT + dst
        if subprocess.run(["mountpoint", "-q", d]).returncode == 0:
            continue
        if kind == "bind":
            sh(["mount", "--bind", src, d])
        else:
            sh(["mount", "-t", kind, src, d])
    # the work dir: same absolute path on host and in chroot
    os.makedirs(WORKDIR, exist_ok=True)
    os.chmod(WORKDIR, 0o1777)
    d = ROOT + WORKDIR
    os.makedirs(d, exist_ok=True)
    if subprocess.run(["mountpoint", "-q", d]).returncode != 0:
        sh(["mount", "--bind", WORKDIR, d])


def umount_all():
    with open("/proc/mounts") as f:
        mnts = [l.split()[1] for l in f if l.split()[1].startswith(ROOT + "/")]
    for m in sorted(mnts, reverse=True):
        if subprocess.run(["umount", m], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", m])


class workdir_lock:
    """Serialises every record/replay run on this machine: they share WORKDIR."""
    path = WORKDIR + ".lock"

    def __enter__(self):
        import fcntl
        self.f = open(self.path, "w")
        try:
            fcntl.flock(self.f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log(f"another record/replay holds {self.path}; waiting")
            fcntl.flock(self.f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *a):
        self.f.close()


def clean_workdir():
    os.makedirs(WORKDIR, exist_ok=True)
    for name in os.listdir(WORKDIR):
        p = os.path.join(WORKDIR, name)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p)
        else:
            os.unlink(p)
    os.chmod(WORKDIR, 0o1777)


# --------------------------------------------------------------------------- config

def node_names(n):
    return [f"node{i}" for i in range(1, n + 1)]


def range_str(lo, hi):
    return str(lo) if lo == hi else f"{lo}-{hi}"


def gen_conf(shape, cdir, port_base, hostname):
    """slurm.conf in the shape `spur cluster up --dir DIR --nodes N` generates."""
    n, cpus, mem, gpus = shape["nodes"], shape["cpus"], shape["memory"], shape["gpus"]
    nodes = f"node[1-{n}]" if n > 1 else "node1"
    lines = [
        "ClusterName=spur",
        f"SlurmctldHost={hostname}(127.0.0.1)",
        f"SlurmctldPort={port_base}",
        "SlurmUser=root",
        "SlurmdUser=root",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"AuthInfo=socket={cdir}/munge/munge.socket.2",
        "CommunicationParameters=NoCtldInAddrAny,NoInAddrAny",
        f"StateSaveLocation={cdir}/state",
        f"SlurmdSpoolDir={cdir}/spool/slurmd.%n",
        f"SlurmctldPidFile={cdir}/run/slurmctld.pid",
        f"SlurmdPidFile={cdir}/run/slurmd.%n.pid",
        f"SlurmctldLogFile={cdir}/log/slurmctld.log",
        f"SlurmdLogFile={cdir}/log/slurmd.%n.log",
        "SlurmctldDebug=info",
        "SlurmdDebug=info",
        "MailProg=/bin/true",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "JobCompType=jobcomp/none",
        "MpiDefault=none",
        "ReturnToService=2",
        "SlurmdParameters=config_overrides",
        "SchedulerType=sched/backfill",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core_Memory",
        "DefMemPerCPU=500",
    ]
    if shape.get("accounting"):
        # where slurmdbd is (chosen by the harness: not in the scenario's `conf` lines)
        i = lines.index("AccountingStorageType=accounting_storage/none") + 1
        lines[i:i] = [f"AccountingStorageHost=127.0.0.1",
                      f"AccountingStoragePort={port_base + DBD_PORT_OFFSET}",
                      f"AccountingStoragePass={cdir}/munge/munge.socket.2"]
    # a scenario's `conf` line replaces the default line of the same key (Slurm would take
    # the last one anyway; the saved slurm.conf then says each key once)
    over = {c.split("=", 1)[0].strip().lower() for c in shape.get("conf", [])}
    lines = [l for l in lines if l.split("=", 1)[0].lower() not in over]
    gres = ""
    if gpus:
        lines.append("GresTypes=gpu")
        gres = f" Gres=gpu:{gpus}"
    lines.append(
        f"NodeName={nodes} NodeAddr=127.0.0.1 Port={range_str(port_base + 1, port_base + n)} "
        f"CPUs={cpus} Sockets=1 CoresPerSocket={cpus} ThreadsPerCore=1 RealMemory={mem}{gres} State=UNKNOWN")
    lines.append(f"PartitionName=debug Nodes={nodes} Default=YES MaxTime=INFINITE State=UP")
    lines += shape.get("conf", [])
    return "\n".join(lines) + "\n"


# accounting (a scenario's `accounting` header line): MariaDB and slurmdbd on ports near the
# cluster's, bound to 127.0.0.1; the database lives in <cluster dir>/mysql, fresh per scenario
DB_PORT_OFFSET, DBD_PORT_OFFSET = 90, 91
ACCT_ACCOUNT = "research"       # spurtest's account (root's is the `root` account)


def gen_slurmdbd_conf(cdir, port_base):
    return "\n".join([
        "AuthType=auth/munge",
        f"AuthInfo=socket={cdir}/munge/munge.socket.2",
        "DbdHost=localhost",
        "DbdAddr=127.0.0.1",
        f"DbdPort={port_base + DBD_PORT_OFFSET}",
        "CommunicationParameters=NoInAddrAny",
        "SlurmUser=root",
        "DebugLevel=info",
        f"LogFile={cdir}/log/slurmdbd.log",
        f"PidFile={cdir}/run/slurmdbd.pid",
        "StorageType=accounting_storage/mysql",
        "StorageHost=127.0.0.1",
        f"StoragePort={port_base + DB_PORT_OFFSET}",
        "StorageUser=slurm",
        "StoragePass=slurmpw",
        "StorageLoc=slurm_acct_db",
    ]) + "\n"


def gen_my_cnf(cdir, port_base):
    m = f"{cdir}/mysql"
    return "\n".join([
        "[mysqld]",
        "user=mysql",
        f"datadir={m}/data",
        f"socket={m}/mysqld.sock",
        f"pid-file={m}/mysqld.pid",
        f"log-error={m}/mysqld.err",
        f"tmpdir={m}/tmp",
        "bind-address=127.0.0.1",
        f"port={port_base + DB_PORT_OFFSET}",
        # what slurmdbd checks for (it logs an error otherwise), kept small for a test cluster
        "innodb_buffer_pool_size=256M",
        "innodb_log_file_size=64M",
        "innodb_lock_wait_timeout=900",
        "max_allowed_packet=64M",
        "innodb_flush_log_at_trx_commit=2",
        "skip-name-resolve",
        "skip-log-bin",
        "[client]",
        f"socket={m}/mysqld.sock",
        f"port={port_base + DB_PORT_OFFSET}",
    ]) + "\n"


def gen_gres_conf(shape, cdir):
    g = shape["gpus"]
    if not g:
        return None
    files = f"{cdir}/dev/nvidia[0-{g - 1}]" if g > 1 else f"{cdir}/dev/nvidia0"
    return f"Name=gpu File={files}\n"


# --------------------------------------------------------------------------- cluster

class Cluster:
    def __init__(self, shape, port_base=47800, cdir="/tmp/spur-conf-cluster", root=None):
        self.shape = shape
        self.port_base = port_base
        self.root = ROOT if root is None else root   # "" = the host's own Slurm
        self.cdir = cdir                      # chroot path
        self.hdir = self.root + cdir          # host path
        self.conf = f"{cdir}/etc/slurm.conf"  # chroot path
        self.hostname = subprocess.run(["hostname", "-s"], capture_output=True, text=True).stdout.strip()
        self.pidfile = f"{self.hdir}/run/started.pids"

    # -- helpers
    def env(self):
        return {"SLURM_CONF": self.conf}

    def cmd(self, argv, env=None, user=None, cwd=WORKDIR):
        """argv running `argv` on this cluster's side (chroot or host), clean environment."""
        return chroot_cmd(argv, env=env if env is not None else self.env(), user=user, cwd=cwd, root=self.root)

    def client(self, argv, user=None, cwd=WORKDIR, **kw):
        return subprocess.run(self.cmd(argv, user=user, cwd=cwd), **kw)

    def version(self):
        r = subprocess.run(self.cmd(["sinfo", "-V"], cwd="/"), capture_output=True, text=True)
        return r.stdout.strip().split()[-1] if r.stdout.strip() else ""

    def _ours(self, pid, name):
        try:
            return (os.readlink(f"/proc/{pid}/root") == (self.root or "/") and
                    open(f"/proc/{pid}/comm").read().strip() == name)
        except OSError:
            return False

    def _wait_pidfile(self, path, what, timeout=20):
        for _ in range(timeout * 10):
            try:
                pid = int(open(path).read().strip())
                os.kill(pid, 0)
                return pid
            except (OSError, ValueError):
                time.sleep(0.1)
        raise RuntimeError(f"{what} did not come up (no live pid in {path}); see {self.hdir}/log")

    def _record(self, name, pid):
        with open(self.pidfile, "a") as f:
            f.write(f"{name} {pid}\n")

    def write_config(self, conf_text=None):
        os.makedirs(f"{self.hdir}/etc", exist_ok=True)
        with open(f"{self.hdir}/etc/slurm.conf", "w") as f:
            f.write(conf_text if conf_text is not None else
                    gen_conf(self.shape, self.cdir, self.port_base, self.hostname))
        # slurmd 24.11 initialises a cgroup plugin even with proctrack/linuxproc + task/none;
        # 22.05 (host) does not, and has no "disabled" value: no cgroup.conf there
        cg = f"{self.hdir}/etc/cgroup.conf"
        if self.root:
            with open(cg, "w") as f:
                f.write("CgroupPlugin=disabled\n")
        elif os.path.exists(cg):
            os.unlink(cg)
        dbd = f"{self.hdir}/etc/slurmdbd.conf"
        if self.shape.get("accounting"):
            with open(dbd, "w") as f:
                f.write(gen_slurmdbd_conf(self.cdir, self.port_base))
            os.chmod(dbd, 0o600)         # slurmdbd refuses a conf others can read
        elif os.path.exists(dbd):
            os.unlink(dbd)
        g = gen_gres_conf(self.shape, self.cdir)
        gpath = f"{self.hdir}/etc/gres.conf"
        if g:
            os.makedirs(f"{self.hdir}/dev", exist_ok=True)
            for i in range(self.shape["gpus"]):
                p = f"{self.hdir}/dev/nvidia{i}"
                if not os.path.exists(p):
                    os.mknod(p, 0o666 | 0o020000, os.makedev(195, i))  # fake char device
            with open(gpath, "w") as f:
                f.write(g)
        elif os.path.exists(gpath):
            os.unlink(gpath)

    def prepare(self):
        """Fresh state: job ids restart at 1 (FirstJobId default)."""
        self.stop(quiet=True)
        if self.root:
            mount_all()
        else:
            os.makedirs(WORKDIR, exist_ok=True)
            os.chmod(WORKDIR, 0o1777)
        for sub in ("state", "spool", "log", "run", "munge", "dev", "mysql", "lib"):
            shutil.rmtree(f"{self.hdir}/{sub}", ignore_errors=True)
        for sub in ("etc", "state", "log", "run", "munge"):
            os.makedirs(f"{self.hdir}/{sub}", exist_ok=True)
        for nn in node_names(self.shape["nodes"]):
            os.makedirs(f"{self.hdir}/spool/slurmd.{nn}", exist_ok=True)
        open(self.pidfile, "w").close()
        if not self.root:
            return                       # the host's own /etc/hosts is left alone
        hosts = f"{ROOT}/etc/hosts"
        want = f"127.0.0.1\tlocalhost\n127.0.0.1\t{self.hostname}\n::1\tlocalhost ip6-localhost ip6-loopback\n"
        if not os.path.exists(hosts) or open(hosts).read() != want:
            open(hosts, "w").write(want)

    def start_munge(self):
        m = f"{self.hdir}/munge"
        with open(f"{m}/munge.key", "wb") as f:
            f.write(os.urandom(1024))
        sh((["chroot", self.root] if self.root else []) + ["chown", "-R", "munge:munge", f"{self.cdir}/munge"])
        os.chmod(m, 0o755)
        os.chmod(f"{m}/munge.key", 0o400)
        c = f"{self.cdir}/munge"
        sh((["chroot", self.root] if self.root else []) + ["/usr/sbin/runuser", "-u", "munge", "--", "/usr/sbin/munged",
            f"--socket={c}/munge.socket.2", f"--key-file={c}/munge.key", f"--pid-file={c}/munged.pid",
            f"--log-file={c}/munged.log", f"--seed-file={c}/munged.seed"])
        self._record("munged", self._wait_pidfile(f"{m}/munged.pid", "munged"))

    def _in_root(self, argv):
        return (["chroot", self.root] if self.root else []) + argv

    def _wait(self, what, test, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            if test():
                return
            time.sleep(0.2)
        raise RuntimeError(f"{what} not ready after {timeout}s; see {self.hdir}/log and {self.hdir}/mysql")

    def start_mariadb(self):
        """A MariaDB of this cluster's own: fresh datadir, 127.0.0.1:port_base+90, as mysql."""
        m, c = f"{self.hdir}/mysql", f"{self.cdir}/mysql"
        for sub in ("data", "tmp"):
            os.makedirs(f"{m}/{sub}", exist_ok=True)
        with open(f"{m}/my.cnf", "w") as f:
            f.write(gen_my_cnf(self.cdir, self.port_base))
        sh(self._in_root(["chown", "-R", "mysql:mysql", c]))
        r = subprocess.run(self._in_root(["/usr/bin/mariadb-install-db", f"--defaults-file={c}/my.cnf",
                                          "--user=mysql", "--auth-root-authentication-method=socket",
                                          "--skip-test-db"]),
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"mariadb-install-db exited {r.returncode}: {r.stdout}{r.stderr}")
        # mariadbd stays in the foreground: started in its own session, its pid from its pid file
        with open(f"{m}/stdout.log", "wb") as out:
            subprocess.Popen(self._in_root(["/usr/bin/env", "-i", "PATH=" + CHROOT_PATH, "/usr/sbin/mariadbd",
                                            f"--defaults-file={c}/my.cnf"]),
                             stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                             start_new_session=True)
        try:
            self._record("mariadbd", self._wait_pidfile(f"{m}/mysqld.pid", "mariadbd", timeout=60))
        except RuntimeError as e:
            tail = ""
            for f in (f"{m}/mysqld.err", f"{m}/stdout.log"):
                if os.path.exists(f):
                    tail += f"\n{f}:\n" + "".join(open(f, errors="replace").readlines()[-8:])
            raise RuntimeError(f"{e}{tail}") from None
        sql = lambda q: subprocess.run(self._in_root(["/usr/bin/mariadb", f"--defaults-file={c}/my.cnf",
                                                      "-u", "root", "-e", q]), capture_output=True, text=True)
        self._wait("mariadbd", lambda: sql("select 1").returncode == 0)
        r = sql("CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurmpw'; "
                "CREATE USER 'slurm'@'localhost' IDENTIFIED BY 'slurmpw'; "
                "GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1'; "
                "GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost'; FLUSH PRIVILEGES;")
        if r.returncode != 0:
            raise RuntimeError(f"creating the database user: {r.stderr}")

    def _dbd_libdir(self):
        """Debian 13's MariaDB client library 1:11.8.9+ds-0+deb13u1 refuses every result set Slurm
        24.11.5's mysql plugin reads (`Number of columns in result (=1) set execeeds maxmimum
        allowed number of columns (=0)`: slurmdbd dies at its first query). Then slurmdbd loads
        the host's (Debian 12) libmariadb.so.3 instead, copied to <cluster>/lib: same soname,
        only the wire client between slurmdbd and MariaDB changes. None when not needed."""
        if not self.root:
            return None
        lib = "/usr/lib/x86_64-linux-gnu/libmariadb.so.3"
        try:
            broken = b"execeeds maxmimum allowed number of columns" in open(self.root + lib, "rb").read()
        except OSError:
            return None
        if not broken or not os.path.exists(lib):
            return None
        if b"execeeds maxmimum allowed number of columns" in open(lib, "rb").read():
            raise RuntimeError(f"{self.root}{lib} and the host's {lib} both refuse Slurm's queries")
        os.makedirs(f"{self.hdir}/lib", exist_ok=True)
        shutil.copy(os.path.realpath(lib), f"{self.hdir}/lib/libmariadb.so.3")
        return f"{self.cdir}/lib"

    def start_slurmdbd(self):
        # slurmdbd has no -f: it reads slurmdbd.conf beside $SLURM_CONF
        env = self.env()
        libdir = self._dbd_libdir()
        if libdir:
            env["LD_LIBRARY_PATH"] = libdir
        r = subprocess.run(self.cmd(["/usr/sbin/slurmdbd"], env=env, cwd="/"), capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"slurmdbd exited {r.returncode}: {r.stderr}")
        self._record("slurmdbd", self._wait_pidfile(f"{self.hdir}/run/slurmdbd.pid", "slurmdbd"))
        ok = lambda: self.client(["sacctmgr", "-n", "-P", "show", "cluster", "format=cluster"], cwd="/",
                                 capture_output=True).returncode == 0
        self._wait("slurmdbd", ok)

    def register_accounting(self):
        """The cluster, spurtest's account and the users, as an administrator does with sacctmgr
        before slurmctld starts (root gets the `root` account with the cluster)."""
        for argv in (["add", "cluster", "spur"],
                     ["add", "account", ACCT_ACCOUNT, "Description=research", "Organization=spur"],
                     ["add", "user", TEST_USER, f"DefaultAccount={ACCT_ACCOUNT}"]):
            r = self.client(["sacctmgr", "-i"] + argv, cwd="/", capture_output=True, text=True)
            if r.returncode != 0 and "Nothing new added" not in r.stdout + r.stderr:
                raise RuntimeError(f"sacctmgr -i {' '.join(argv)} exited {r.returncode}: {r.stdout}{r.stderr}")

    def start_ctld(self):
        r = subprocess.run(self.cmd(["/usr/sbin/slurmctld"], cwd="/"), capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"slurmctld exited {r.returncode}: {r.stderr}")
        self._record("slurmctld", self._wait_pidfile(f"{self.hdir}/run/slurmctld.pid", "slurmctld"))

    def start_slurmd(self, name):
        r = subprocess.run(self.cmd(["/usr/sbin/slurmd", "-N", name], cwd="/"),
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"slurmd -N {name} exited {r.returncode}: {r.stderr}")
        self._record("slurmd", self._wait_pidfile(f"{self.hdir}/run/slurmd.{name}.pid", f"slurmd {name}"))

    def start(self):
        t0 = time.time()
        self.prepare()
        self.write_config()
        self.start_munge()
        if self.shape.get("accounting"):
            missing = [b for b in ACCOUNTING_BINARIES if not os.path.exists(self.root + b)]
            if missing:
                raise RuntimeError(f"accounting needs {' '.join(missing)}: apt-get install "
                                   + " ".join(ACCOUNTING_PACKAGES))
            self.start_mariadb()
            self.start_slurmdbd()
            self.register_accounting()
        self.start_ctld()
        for nn in node_names(self.shape["nodes"]):
            self.start_slurmd(nn)
        self.wait_idle(timeout=60)
        log(f"cluster up ({self.shape['nodes']} nodes, ports {self.port_base}-"
            f"{self.port_base + self.shape['nodes']}) in {time.time() - t0:.1f}s")

    def node_states(self):
        r = self.client(["sinfo", "-h", "-N", "-o", "%N %T"], capture_output=True, text=True)
        return dict(l.split() for l in r.stdout.splitlines() if l.strip())

    def jobs(self):
        r = self.client(["squeue", "-h", "-o", "%i %T"], capture_output=True, text=True)
        return [l.split() for l in r.stdout.splitlines() if l.strip()]

    def wait_idle(self, timeout=120):
        """All nodes idle and no job in squeue."""
        end = time.time() + timeout
        st = {}
        while time.time() < end:
            st = self.node_states()
            if (len(st) == self.shape["nodes"] and all(v == "idle" for v in st.values())
                    and not self.jobs()):
                return
            time.sleep(0.3)
        raise RuntimeError(f"cluster not idle after {timeout}s: nodes {st}, jobs {self.jobs()}")

    def stop(self, quiet=False):
        if os.path.exists(self.pidfile):
            pids = [l.split() for l in open(self.pidfile) if l.strip()]
            ctld = [p for n, p in pids if n == "slurmctld"]
            if ctld and self._ours(int(ctld[0]), "slurmctld"):
                try:
                    ids = [j[0] for j in self.jobs()]
                    if ids:
                        self.client(["scancel"] + ids, capture_output=True, timeout=15)
                        for _ in range(50):
                            if not self.jobs():
                                break
                            time.sleep(0.2)
                except Exception:
                    pass
            for name, pid in reversed(pids):
                pid = int(pid)
                if not self._ours(pid, name):
                    continue
                os.kill(pid, 15)
                for _ in range(200):
                    if not self._ours(pid, name):
                        break
                    time.sleep(0.1)
                else:
                    os.kill(pid, 9)
            os.unlink(self.pidfile)
        # leftovers from this cluster's jobs (slurmstepd, user processes): report only
        left = []
        for p in (os.listdir("/proc") if self.root else []):   # host: nothing tells our jobs apart
            if p.isdigit():
                try:
                    if os.readlink(f"/proc/{p}/root") == self.root:
                        left.append(p + "(" + open(f"/proc/{p}/comm").read().strip() + ")")
                except OSError:
                    pass
        if left and not quiet:
            log("WARNING: processes still inside the chroot: " + " ".join(left))
