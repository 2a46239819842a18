"""Scenario files (conformance/scenarios/NAME.scn): parsing and running.

Format (see conformance/README.md for the full description):

    # comment
    cluster nodes=4 cpus=2 memory=2000 gpus=0      header; every key optional
    conf PartitionName=other Nodes=node[1-2]        extra slurm.conf line (optional, repeatable)
    accounting                                      slurmdbd + MariaDB (sacct, sstat); adds conf lines

    run [as=USER] [compare=stdout,stderr,rc] [capture=VAR] COMMAND LINE...
    run capture=J1 sbatch --parsable --wrap 'sleep 300'
    run sbatch --parsable <<'EOF'                   a here-document continues the command
    #!/bin/bash
    echo hi
    EOF
    wait_state JOBREF STATE [timeout=SECONDS]       every record of JOBREF in STATE
    wait_done JOBREF [timeout=SECONDS]              finished and no longer COMPLETING
    wait_idle [timeout=SECONDS]                     all nodes idle, no job in squeue
    wait_until [timeout=SECONDS] COMMAND LINE...    until the bash text exits 0 (polled)
    sleep SECONDS                                   only where the time itself matters
    file [compare=...] PATH                         record a file (relative to the work dir)

COMMAND LINE is bash text run in the work dir (pipes, quotes and redirections work).
$VAR / ${VAR} are replaced by captured values before running; only captured names
are replaced, every other $ is left to bash.  A line ending in '\\' continues.
"""

import re
import shlex
import time

DEFAULT_SHAPE = {"nodes": 4, "cpus": 2, "memory": 2000, "gpus": 0}
CHANNELS = ("stdout", "stderr", "rc")
# what the `accounting` header line adds to slurm.conf (and to Spur's --extra-conf):
# jobs and steps recorded by slurmdbd, tasks sampled every second (sstat, MaxRSS & co)
ACCOUNTING_CONF = ("AccountingStorageType=accounting_storage/slurmdbd",
                   "JobAcctGatherType=jobacct_gather/linux",
                   "JobAcctGatherFrequency=1")
TERMINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY",
            "BOOT_FAIL", "DEADLINE", "PREEMPTED", "REVOKED"}
OPT_RE = re.compile(r"^(as|compare|capture|timeout)=(\S+)\s*")
HEREDOC_RE = re.compile(r"<<-?\s*(['\"]?)(\w+)\1")


class ScenarioError(Exception):
    pass


class Step:
    def __init__(self, kind, lineno, opts, text, args=None):
        self.kind, self.lineno, self.opts, self.text = kind, lineno, opts, text
        self.args = args or []
        self.num = None

    @property
    def compare(self):
        c = self.opts.get("compare", "stdout,stderr,rc")
        if c == "none":
            return ()
        chans = tuple(x.strip() for x in c.split(",") if x.strip())
        for ch in chans:
            if ch not in CHANNELS:
                raise ScenarioError(f"line {self.lineno}: compare= takes {','.join(CHANNELS)} or none")
        return chans

    @property
    def records(self):
        return self.kind in ("run", "file")

    def header(self):
        o = " ".join(f"{k}={v}" for k, v in self.opts.items())
        return f"{self.kind}{' ' + o if o else ''}"

    def command_name(self):
        """The program a step exercises, for the per-command table."""
        if self.kind == "file":
            return "file"
        for tok in re.split(r"\s+", self.text.strip()):
            if "=" in tok and not tok.startswith("-"):
                continue  # VAR=value prefix
            return tok.split("/")[-1]
        return "?"


class Scenario:
    def __init__(self, name, path):
        self.name, self.path = name, path
        self.shape = dict(DEFAULT_SHAPE)
        self.shape["conf"] = []
        self.steps = []


def parse(path, name=None):
    import os
    name = name or os.path.basename(path).rsplit(".", 1)[0]
    sc = Scenario(name, path)
    lines = open(path).read().split("\n")
    i = 0
    while i < len(lines):
        lineno = i + 1
        line = lines[i]
        i += 1
        while line.endswith("\\") and i < len(lines):
            line = line + "\n" + lines[i]       # keep the backslash-newline: bash continues the line
            i += 1
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        kw, _, rest = s.partition(" ")
        rest = rest.strip()
        if kw == "cluster":
            for tok in rest.split():
                k, _, v = tok.partition("=")
                if k not in ("nodes", "cpus", "memory", "gpus"):
                    raise ScenarioError(f"{path}:{lineno}: unknown cluster key {k}")
                sc.shape[k] = int(v)
            continue
        if kw == "conf":
            sc.shape["conf"].append(rest)
            continue
        if kw == "accounting":
            if rest:
                raise ScenarioError(f"{path}:{lineno}: accounting takes no argument")
            # job accounting through slurmdbd: the workload manager's settings are `conf` lines
            # (Spur gets them with --extra-conf); the recorder adds where slurmdbd runs
            sc.shape["accounting"] = True
            sc.shape["conf"].extend(l for l in ACCOUNTING_CONF if l not in sc.shape["conf"])
            continue
        opts = {}
        while True:
            m = OPT_RE.match(rest)
            if not m:
                break
            opts[m.group(1)] = m.group(2)
            rest = rest[m.end():]
        if kw == "wait_until":
            if not rest:
                raise ScenarioError(f"{path}:{lineno}: wait_until without a command")
            sc.steps.append(Step(kw, lineno, opts, rest))
        elif kw == "run":
            m = HEREDOC_RE.search(rest)
            if m:
                delim = m.group(2)
                body = []
                while i < len(lines) and lines[i] != delim:
                    body.append(lines[i])
                    i += 1
                if i >= len(lines):
                    raise ScenarioError(f"{path}:{lineno}: here-document without {delim}")
                i += 1
                rest = rest + "\n" + "\n".join(body) + "\n" + delim
            if not rest:
                raise ScenarioError(f"{path}:{lineno}: run without a command")
            sc.steps.append(Step("run", lineno, opts, rest))
        elif kw in ("wait_state", "wait_done", "wait_idle", "sleep", "file"):
            args = []
            for tok in shlex.split(rest):
                m = OPT_RE.match(tok)
                if m and kw != "file":
                    opts[m.group(1)] = m.group(2)
                else:
                    args.append(tok)
            need = {"wait_state": 2, "wait_done": 1, "wait_idle": 0, "sleep": 1, "file": 1}[kw]
            if len(args) != need:
                raise ScenarioError(f"{path}:{lineno}: {kw} takes {need} argument(s)")
            sc.steps.append(Step(kw, lineno, opts, rest, args))
        else:
            raise ScenarioError(f"{path}:{lineno}: unknown step '{kw}'")
    n = 0
    for st in sc.steps:
        n += 1
        st.num = n
    width = max(2, len(str(n)))
    for st in sc.steps:
        st.id = str(st.num).zfill(width)
    return sc


def substitute(text, captures):
    def rep(m):
        name = m.group(1) or m.group(2)
        return captures[name] if name in captures else m.group(0)
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", rep, text)


class Result:
    def __init__(self, out=b"", err=b"", rc=0, resolved=""):
        self.out, self.err, self.rc, self.resolved = out, err, rc, resolved


class Runner:
    """Runs a scenario through an executor with methods
         run(bash_text, user) -> (stdout bytes, stderr bytes, rc)
         read_file(path) -> bytes or None
    and yields (step, Result) for each recording step."""

    def __init__(self, executor, scenario, log=print, soft_waits=False):
        self.ex, self.sc, self.log = executor, scenario, log
        self.captures = {}
        # soft_waits (replay side): a wait that times out is logged and remembered in
        # wait_timeouts, and the scenario goes on (its later steps show the difference)
        self.soft_waits = soft_waits
        self.wait_timeouts = []

    def _timeout(self, msg):
        if not self.soft_waits:
            raise ScenarioError(msg)
        self.log(f"WARNING: {msg}; continuing")
        self.wait_timeouts.append(msg)

    def _q(self, text):
        r = self.ex.run(text, None)
        return r[0].decode(errors="replace")

    def job_states(self, ref):
        out = self._q(f"scontrol -o show job {shlex.quote(ref)} 2>/dev/null")
        return re.findall(r"\bJobState=(\S+)", out)

    def run(self):
        for st in self.sc.steps:
            timeout = float(st.opts.get("timeout", 120))
            if st.kind == "run":
                cmd = substitute(st.text, self.captures)
                out, err, rc = self.ex.run(cmd, st.opts.get("as"))
                if "capture" in st.opts:
                    m = re.search(rb"\d+", out)
                    if not m:
                        raise ScenarioError(f"line {st.lineno}: capture={st.opts['capture']}: no number in "
                                            f"stdout {out!r} (stderr {err!r})")
                    self.captures[st.opts["capture"]] = m.group(0).decode()
                yield st, Result(out, err, rc, cmd)
            elif st.kind == "file":
                path = substitute(st.args[0], self.captures)
                data = self.ex.read_file(path)
                yield st, Result(data or b"", b"", 0 if data is not None else 1, path)
            elif st.kind == "sleep":
                time.sleep(float(st.args[0]))
            elif st.kind == "wait_until":
                cmd = substitute(st.text, self.captures)
                end = time.time() + timeout
                while True:
                    out, err, rc = self.ex.run(cmd, st.opts.get("as"))
                    if rc == 0:
                        break
                    if time.time() > end:
                        self._timeout(f"line {st.lineno}: `{cmd}` still exits {rc} after {timeout}s "
                                      f"(stdout {out[-200:]!r}, stderr {err[-200:]!r})")
                        break
                    time.sleep(0.2)
            elif st.kind == "wait_state":
                ref = substitute(st.args[0], self.captures)
                want = st.args[1]
                end = time.time() + timeout
                while True:
                    states = self.job_states(ref)
                    if states and all(s == want for s in states):
                        break
                    if time.time() > end:
                        self._timeout(f"line {st.lineno}: job {ref} not {want} after {timeout}s "
                                            f"(states {states})")
                        break
                    time.sleep(0.2)
            elif st.kind == "wait_done":
                ref = substitute(st.args[0], self.captures)
                end = time.time() + timeout
                while True:
                    states = self.job_states(ref)
                    sq = self._q(f"squeue -h -o %T -j {shlex.quote(ref)} 2>/dev/null").split()
                    if states and all(s in TERMINAL for s in states) and not (set(sq) - TERMINAL):
                        break
                    if time.time() > end:
                        self._timeout(f"line {st.lineno}: job {ref} not done after {timeout}s "
                                            f"(states {states}, squeue {sq})")
                        break
                    time.sleep(0.2)
            elif st.kind == "wait_idle":
                end = time.time() + timeout
                while True:
                    nodes = self._q("sinfo -h -N -o '%N %T'").split("\n")
                    nodes = [l.split() for l in nodes if l.strip()]
                    jobs = self._q("squeue -h -o %i").split()
                    # a node in several partitions is listed once per partition
                    if (len({n[0] for n in nodes}) == self.sc.shape["nodes"] and all(n[1] == "idle" for n in nodes)
                            and not jobs):
                        break
                    if time.time() > end:
                        self._timeout(f"line {st.lineno}: not idle after {timeout}s "
                                            f"(nodes {nodes}, jobs {jobs})")
                        break
                    time.sleep(0.2)
