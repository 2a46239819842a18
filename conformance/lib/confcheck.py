"""What Slurm (24.11, or the host's 22.05) prints when slurm.conf is wrong: slurmctld -D (foreground, log to
stderr) and a client (sinfo) reading the same bad file.

Each case is written to recorded/<version>/slurmconf-errors/ as
    NN.cmd  what was changed and the command run     NN.conf  the full slurm.conf used
    NN.out / NN.err / NN.rc                          stdout, stderr, exit code
slurmctld is started in the foreground with a 15 s timeout; if it does start
(the config was accepted) it is stopped with SIGTERM and rc is recorded as "started".
"""

import os
import shutil
import signal
import subprocess
import time

import slurmchroot as sc

SHAPE = {"nodes": 4, "cpus": 2, "memory": 2000, "gpus": 0, "conf": []}

# (id, description, function(conf_lines) -> conf_lines)
def _add(line):
    return lambda ls: ls + [line]


def _sub(old, new):
    return lambda ls: [l.replace(old, new) for l in ls]


CASES = [
    ("unknown-key", "append an unknown key 'FooBarBaz=1'", _add("FooBarBaz=1")),
    ("bad-cpus", "NodeName line with CPUs=abc", _sub("CPUs=2", "CPUs=abc")),
    ("undefined-node", "partition naming a node that no NodeName defines (Nodes=node[1-4],nosuch)",
     _sub("Nodes=node[1-4]", "Nodes=node[1-4],nosuch")),
    ("bad-realmemory", "NodeName line with RealMemory=lots", _sub("RealMemory=2000", "RealMemory=lots")),
    ("bad-maxtime", "partition with MaxTime=abc", _sub("MaxTime=INFINITE", "MaxTime=abc")),
    ("bad-defmem", "DefMemPerCPU=abc", _sub("DefMemPerCPU=500", "DefMemPerCPU=abc")),
    ("no-equals", "a line that is not key=value ('JustAWord')", _add("JustAWord")),
    ("bad-selecttype", "SelectType=select/nosuch", _sub("select/cons_tres", "select/nosuch")),
    ("bad-state", "partition State=SIDEWAYS", _sub("State=UP", "State=SIDEWAYS")),
]


def record(outdir, port_base, cdir_base, root=None):
    cdir = cdir_base + "-confcheck"
    c = sc.Cluster(SHAPE, port_base=port_base, cdir=cdir, root=root)
    c.prepare()
    c.start_munge()
    base = sc.gen_conf(SHAPE, cdir, port_base, c.hostname).rstrip("\n").split("\n")
    # foreground: no log file, so everything goes to stderr
    base = [l for l in base if not l.startswith("SlurmctldLogFile=")]
    if os.path.isdir(outdir):
        shutil.rmtree(outdir)
    os.makedirs(outdir)
    index = []
    for n, (cid, desc, fn) in enumerate(CASES, 1):
        conf = "\n".join(fn(list(base))) + "\n"
        c.write_config(conf)
        for sub in ("state",):
            shutil.rmtree(f"{c.hdir}/{sub}", ignore_errors=True)
            os.makedirs(f"{c.hdir}/{sub}")
        for prog, argv in (("slurmctld", ["/usr/sbin/slurmctld", "-D"]), ("sinfo", ["sinfo"])):
            sid = f"{n:02d}{'a' if prog == 'slurmctld' else 'b'}"
            p = subprocess.Popen(c.cmd(argv, cwd="/"), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, start_new_session=True)
            try:
                out, err = p.communicate(timeout=15)
                rc = str(p.returncode)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGTERM)   # our own process group only
                out, err = p.communicate()
                rc = "started"
            with open(f"{outdir}/{sid}.cmd", "w") as f:
                f.write(f"# {cid}: {desc}\n{' '.join(argv)}\n")
            with open(f"{outdir}/{sid}.conf", "w") as f:
                f.write(conf)
            open(f"{outdir}/{sid}.out", "wb").write(out)
            open(f"{outdir}/{sid}.err", "wb").write(err)
            open(f"{outdir}/{sid}.rc", "w").write(rc + "\n")
            index.append(f"{sid}  rc={rc:<7} {cid:<16} {' '.join(argv)}")
            sc.log(f"slurmconf-errors {sid} {cid} {prog}: rc={rc}")
    with open(f"{outdir}/index.txt", "w") as f:
        f.write("\n".join(index) + "\n")
    with open(f"{outdir}/meta.json", "w") as f:
        import json
        json.dump({"side": "slurm", "hostname": c.hostname, "slurm_conf": c.conf, "cluster_dir": cdir,
                   "workdir": sc.WORKDIR, "scenario": "slurmconf-errors", "slurm_version": c.version(),
                   "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}, f, indent=1, sort_keys=True)
        f.write("\n")
    c.stop(quiet=True)
