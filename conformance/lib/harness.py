"""Executors (real Slurm in the chroot or on the host, Spur on the host) and the recording writer.

A recording directory (conformance/recorded/24.11/NAME/, or a temporary one when
replaying) holds, per recorded step NN:
    NN.cmd   the step as written in the scenario (first line: kind and options)
    NN.out   stdout, raw bytes          NN.err   stderr, raw bytes
    NN.rc    exit code and newline
plus index.txt (one line per step: id, rc, resolved command) and meta.json (what the
normaliser needs to know about the side that produced it: host name, paths, ports).
Outputs are stored raw; normalisation happens only when comparing.
"""

import json
import os
import shutil
import subprocess
import time

import scenario as scn
import slurmchroot as sc

WORKDIR = sc.WORKDIR


def uname():
    u = os.uname()
    return f"{u.sysname} {u.release} {u.version}"


class ChrootSlurm:
    """Run steps against a real Slurm cluster (in the chroot, or the host's own Slurm)."""

    def __init__(self, cluster):
        self.cluster = cluster

    def run(self, text, user):
        argv = self.cluster.cmd(["bash", "-c", text], env=self._env(user), user=user, cwd=WORKDIR)
        p = subprocess.run(argv, capture_output=True, timeout=600, stdin=subprocess.DEVNULL)
        return p.stdout, p.stderr, p.returncode

    def _env(self, user):
        e = {"SLURM_CONF": self.cluster.conf, "TERM": "dumb"}
        if user and user != "root":
            e.update({"HOME": f"/home/{user}", "USER": user, "LOGNAME": user})
        else:
            e.update({"USER": "root", "LOGNAME": "root"})
        return e

    def read_file(self, path):
        p = os.path.join(WORKDIR, path)          # same path on host and chroot (bind mount)
        try:
            return open(p, "rb").read()
        except OSError:
            return None

    def meta(self):
        c = self.cluster
        if not hasattr(self, "_version"):
            self._version = c.version()
        return {"side": "slurm", "slurm_version": self._version, "hostname": c.hostname, "slurm_conf": c.conf, "cluster_dir": c.cdir,
                "workdir": WORKDIR, "uname": uname(), "ctld_port": c.port_base,
                "node_ports": list(range(c.port_base + 1, c.port_base + 1 + c.shape["nodes"]))}


class HostSpur:
    """Run steps against a Spur cluster on the host (env from `spur cluster up`)."""

    def __init__(self, env, dirpath, hostname):
        self.env, self.dir, self.hostname = env, dirpath, hostname

    def run(self, text, user):
        e = dict(self.env)
        e["TERM"] = "dumb"
        if user and user != "root":
            e.update({"HOME": f"/home/{user}", "USER": user, "LOGNAME": user})
            argv = ["/usr/sbin/runuser", "-u", user, "--", "/usr/bin/env", "-i"]
        else:
            e.update({"HOME": "/root", "USER": "root", "LOGNAME": "root"})
            argv = ["/usr/bin/env", "-i"]
        # like the Slurm side (chroot_cmd): a shell that cd's into the work dir, then exec's the
        # step's shell, so OLDPWD (exported by cd) is the same on both sides
        argv += [f"{k}={v}" for k, v in e.items()] + [
            "/bin/bash", "-c", 'cd / && cd "$0" && exec "$@"', WORKDIR, "bash", "-c", text]
        p = subprocess.run(argv, capture_output=True, timeout=600, cwd=WORKDIR, stdin=subprocess.DEVNULL)
        return p.stdout, p.stderr, p.returncode

    def read_file(self, path):
        try:
            return open(os.path.join(WORKDIR, path), "rb").read()
        except OSError:
            return None

    def meta(self):
        return {"side": "spur", "hostname": self.hostname, "slurm_conf": self.env.get("SLURM_CONF", ""),
                "cluster_dir": self.dir, "workdir": WORKDIR, "uname": uname()}


def run_scenario(executor, scen, outdir, log, soft_waits=False):
    """Run scen through executor, writing a recording directory. Returns seconds taken.
    soft_waits: a timed-out wait is logged (meta.json "wait_timeouts") instead of aborting."""
    t0 = time.time()
    if os.path.isdir(outdir):
        shutil.rmtree(outdir)
    os.makedirs(outdir)
    index = []
    runner = scn.Runner(executor, scen, log=log, soft_waits=soft_waits)
    for st, res in runner.run():
        base = os.path.join(outdir, st.id)
        with open(base + ".cmd", "w") as f:
            f.write(st.header() + "\n" + st.text + "\n")
        with open(base + ".out", "wb") as f:
            f.write(res.out)
        with open(base + ".err", "wb") as f:
            f.write(res.err)
        with open(base + ".rc", "w") as f:
            f.write(f"{res.rc}\n")
        first = res.resolved.split("\n")[0] + (" <<..." if "\n" in res.resolved else "")
        who = st.opts.get("as", "root")
        index.append(f"{st.id}  rc={res.rc:<3} {st.kind:<4} {who:<8} {first}")
    meta = executor.meta()
    meta.update({"scenario": scen.name, "shape": scen.shape,
                 "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                 "seconds": round(time.time() - t0, 1),
                 "captures": runner.captures})
    if runner.wait_timeouts:
        meta["wait_timeouts"] = runner.wait_timeouts
    with open(os.path.join(outdir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    with open(os.path.join(outdir, "index.txt"), "w") as f:
        f.write("\n".join(index) + "\n")
    return time.time() - t0
