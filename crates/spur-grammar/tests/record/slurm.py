#!/usr/bin/env python3
"""Record the tests/data/*.txt tables of spur-grammar from a real Slurm.

    tests/record/slurm.py --run CMD GRAMMAR > tests/data/GRAMMAR.txt

CMD runs one Slurm client command with its arguments against a test cluster
and is split on blanks (e.g. `env SLURM24_ROOT=/var/tmp/x
.../reference/slurm-24.11/cmd.sh` for the 24.11 chroot of
../shared/reference). The cluster must have a partition that holds the
submitted jobs (`--hold` is used; every job submitted is cancelled at the
end). GRAMMAR is one of the functions below; each prints its header, then
one `OP "INPUT" => RESULT` line per case, as tests/common/mod.rs reads them.
"""
import argparse, re, subprocess, sys

RUN = []
# (gres) a copy of the cluster's slurm.conf with GresTypes=gpu,mps,shard, as the
# client sees it (a path inside the chroot)
GRES_CONF = "/tmp/slurm24/etc-gres/slurm.conf"


def run(*args):
    p = subprocess.run(RUN + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def esc(s):
    out = []
    for ch in s:
        if ch == "\\": out.append("\\\\")
        elif ch == '"': out.append('\\"')
        elif ch == "\t": out.append("\\t")
        elif ch == "\n": out.append("\\n")
        elif ord(ch) < 32 or ord(ch) == 127: out.append("\\x%02x" % ord(ch))
        elif ord(ch) > 126: out.append("\\u{%x}" % ord(ch))
        else: out.append(ch)
    return '"' + "".join(out) + '"'


def version():
    return run("sbatch", "--version")[1].strip()


def one_line(s):
    return " / ".join(l for l in s.strip().splitlines() if l)


submitted = []


def submit(*opts):
    rc, out, err = run("sbatch", "--parsable", "--hold", *opts, "--wrap", "true")
    if rc == 0:
        submitted.append(out.strip().split(";")[0])
    return rc, out.strip(), err


def show_job(jid):
    return run("scontrol", "-o", "show", "job", jid)[1]


def field(text, name):
    m = re.search(r"(?:^| )%s=(\S*)" % name, text)
    return m.group(1) if m else None


ARRAY = [
    "",
    "1-3", "1-3%2", "1-3%abc", "1-3%0", "1-3%-2", "1-3% 2", "0-6:3,10", "1,3,5", "1,,3", ",", ",,", "%5",
    "[1-2]", "[1-3]%2", "[1]", "1]", "[1,3]", "1-3]", "[1-3:2]", "1-[3]", "0", "0-", "1-", "-1", "1--3",
    "3-1", "1-3:0", "1-3:-1", "1-10:3", "1-10:3%2", "1:2", "1-3:2:1", "abc", "1x", "1-3x", "1-3:2x",
    " 1-3", "1- 3", "1-3: 2", "+1-+3", "1 -3", "1,abc", "1-3%2,5", "1%2,5-6", "1000", "1001", "0-1000",
    "999-1001", "1-5:1000", "1-5:1001", "99999999999999999999", "1-99999999999999999999", "0x10",
    "010", "1_2", "1.5", "1-3%2%3", "%", "%%", "5%", "1-3%99999999999", "1-3%4294967297", "-",
    "1-3,", ",1-3", "1-3,,,5-6", "\u00e9", "1-3%\u00e9",
]


def array():
    print("# sbatch --array, as slurmctld decides (`_valid_array_inx`, `slurm_parse_array_tok`).")
    print("# Recorded from %s (MaxArraySize=1001, the default) by tests/record/slurm.py:" % version())
    print("# `sbatch --hold --array=SPEC --wrap true`, then scontrol show job's ArrayTaskId and")
    print("# ArrayTaskThrottle; `ok no array` when the job was accepted as a plain job, else")
    print("# sbatch's stderr and exit code.")
    for spec in ARRAY:
        rc, jid, err = submit("--array=" + spec)
        if rc != 0:
            res = "err %d %s" % (rc, one_line(err))
        else:
            j = show_job(jid)
            tasks = field(j, "ArrayTaskId")
            if tasks is None:
                res = "ok no array"
            else:
                res = "ok tasks=%s throttle=%s" % (tasks.split("%")[0], field(j, "ArrayTaskThrottle") or "0")
        print("array %s => %s" % (esc(spec), res))


SIGNAL_NAMES = [
    "HUP", "INT", "QUIT", "ABRT", "KILL", "ALRM", "TERM", "CHLD", "USR1", "USR2", "PIPE", "URG", "CONT",
    "STOP", "TSTP", "TTIN", "TTOU", "XCPU", "sigusr1", "SigTerm", "SIG", "SIGSIG", "BUS", "SEGV", "WINCH",
    "IO", "SYS", "RTMIN", "USR", "USR12", "KILLX", " USR1", "USR1 ", " SIGUSR1 ", "SIG USR1", "SIGUSR1x",
    "10", " 10", "10 ", "+10", "-10", "0", "10x", "0x0a", "010", "64", "65", "99", "65535", "65536", "65546",
    "4294967306", "99999999999999999999", "", " ", "1 2", "\u00e9",
]
SIGNAL_OPTS = [
    "USR1", "B:USR1", "b:usr1", "BUSR1", "B:USR1@30", "USR1@30", "10@30", "USR1@", "USR1@0", "USR1@65535",
    "USR1@65536", "USR1@-1", "USR1@x", "USR1@30x", "USR1@ 30", "USR1@30 ", "USR1@@30", "@30", "B:", "B",
    ":USR1", "::USR1", "BB:USR1", "B:B:USR1", "0", "65535", "65536", "65537", "-1", "FOO", "SIGTERM@120",
    "B:15@5", "CHLD", "PIPE", "R:USR1", "RB:USR1", "BR:USR1", "RBR:USR1", "r:10", "X:USR1", " USR1",
]


def running_job():
    """A running job that ignores every named signal (steps get them; it has none)."""
    rc, jid, err = run("sbatch", "--parsable", "--wrap",
                       "trap '' HUP INT QUIT ABRT ALRM TERM CHLD USR1 USR2 PIPE URG TSTP TTIN TTOU XCPU; sleep 600")
    submitted.append(jid.strip())
    for _ in range(100):
        if field(show_job(jid.strip()), "JobState") == "RUNNING":
            return jid.strip()
        subprocess.run(["sleep", "0.2"])
    raise SystemExit("job %s did not start" % jid)


def signal():
    print("# Signal names and numbers: sig_name2num through `scancel -v -s NAME JOB` (the number is")
    print("# what scancel prints, `Signal N to job`; JOB is a running job with no steps, so nothing")
    print("# reaches it) and get_signal_opts through `sbatch --hold --signal=ARG --wrap true`.")
    print("# Recorded from %s by tests/record/slurm.py. The cluster runs PreemptMode=OFF, so" % version())
    print("# slurmctld refuses the R flag after sbatch accepted it.")
    jid = running_job()
    for name in SIGNAL_NAMES:
        rc, out, err = run("scancel", "-v", "-s", name, jid)
        m = re.search(r"Signal (\d+) to job", err)
        if m:
            res = "ok %s" % m.group(1)
        else:
            res = "err %d %s" % (rc, one_line(err))
        print("scancel %s => %s" % (esc(name), res))
        if field(show_job(jid), "JobState") != "RUNNING":
            jid = running_job()
    run("scancel", jid)
    for arg in SIGNAL_OPTS:
        rc, out, err = submit("--signal=" + arg)
        print("sbatch %s => %s" % (esc(arg), "ok" if rc == 0 else "err %d %s" % (rc, one_line(err))))


DEPENDENCIES = [
    "", "0", "afterok:{P}", "afterany:{P}", "after:{P}", "afternotok:{P}", "aftercorr:{P}",
    "afterburstbuffer:{P}", "afterburstb:{P}", "afterburstbXYZ:{P}", "afterburst:{P}", "expand:{P}",
    "singleton", "SINGLETON", "singleton(failed)", "singletonx", "singleton,afterok:{P}",
    "singleton?afterok:{P}", "AFTEROK:{P}", "AfterAny:{P}", "afterok:{P}:{P}", "afterok:{P},afterany:{P}",
    "afterok:{P}?afterany:{P}", "afterok:{P},afterany:{P}?after:{P}", "afterok:{P}+10", "afterok:{P}+0",
    "afterok:{P}+-5", "afterok:{P}+x", "afterok:{P}+10x", "afterok:{P}(failed)", "afterok:{P}(unfulfilled)",
    "afterok:{P}(fulfilled)", "afterok:{P}(", "afterok:{P})", "afterok:{P}x", "afterok:{P},", "afterok:{P}?",
    ",afterok:{P}", "afterok:", "afterok", "afterok:0", "afterok:-1", "afterok:abc", "afterok: {P}",
    "afterok:{A}", "afterok:{A}_*", "afterok:{A}_1", "afterok:{A}_[1-2]", "afterok:{A}_[1,3]",
    "afterok:{A}_[1-3:2]", "afterok:{A}_[]", "afterok:{A}_[x]", "afterok:{A}_[1-2", "afterok:{A}_x",
    "afterany:{A}_2+5", "{P}", "{P},{A}", "{P}:{A}", "{P}?{A}", "{P}x", "{P}_*", "{P},afterok:{P}",
    "afterok:{P},{P}", "bogus:{P}", "afterok:999999", "afternotok:999999", "afterany:999999",
    "after:999999", "aftercorr:999999", "afterok:4294967296", "afterok:{P}:999999", "afterany:{P}:999999",
    "afterok:{P}?afterok:999999", "99999", "singleton,", "afterok:{P}(failed),afterany:{P}",
    "afterok:{P},afterany:{A}(failed)", "afterany:{P}+1(failed)", "\u00e9", "afterok:{P}\u00e9",
]
KILL_ON_INVALID_DEP = ["yes", "no", "YES", "No", "kill", "nokill", "", "y", "1", "0", "true", "yes "]


def dependency():
    print("# Dependencies as slurmctld reads them (update_job_dependency and its helpers) and")
    print("# --kill-on-invalid-dep as sbatch reads it. Recorded from %s by" % version())
    print("# tests/record/slurm.py: `sbatch --hold -d DEP --wrap true`, then scontrol show job's")
    print("# Dependency= (the ok line), else sbatch's stderr and exit code. The `known` line lists")
    print("# the jobs that existed: a held job and a held array 1-3 (slurmctld shows a dependency")
    print("# on an array's job id as JOB_*).")
    rc, pend, err = submit()
    rc, arr, err = submit("--array=1-3")
    print('known "%s %s" => pending array' % (pend, arr))
    for d in DEPENDENCIES:
        dep = d.replace("{P}", pend).replace("{A}", arr)
        rc, jid, err = submit("--dependency=" + dep)
        if rc == 0:
            res = "ok Dependency=%s" % field(show_job(jid), "Dependency")
        else:
            res = "err %d %s" % (rc, one_line(err))
        print("sbatch %s => %s" % (esc(dep), res))
    for v in KILL_ON_INVALID_DEP:
        rc, jid, err = submit("--kill-on-invalid-dep=" + v)
        print("kill-on-invalid-dep %s => %s" % (esc(v), "ok" if rc == 0 else "err %d %s" % (rc, one_line(err))))


GRES = [
    "gpu", "gpu:2", "gpu:a100", "gpu:a100:2", "gpu=2", "gpu=a100", "gpu:a100=2", "gpu:", "gpu=", ":2",
    "gpu:a:b", "gpu:a100:2:3", "gpu:0", "gpu:a100:0", "gpu:2,mps:100", "gpu,,mps", "gpu,", ",gpu",
    "gres/gpu:2", "gres/gres/gpu", "gres:gpu:2", "GPU:2", "Gpu", "bogus", "bogus:1", "gpu:1,bogus:1",
    "5", "gpu:1,5", "5,bogus", "none", "NONE", "none,gpu", "gpu:none", "gpu:1k", "gpu:1K", "gpu:1kb",
    "gpu:1kib", "gpu:2m", "gpu:1p", "gpu:1x", "gpu:1.5", "gpu:-1", "gpu:+1", "gpu: 1", "gpu:0x10",
    "gpu:18446744073709551615", "gpu:18446744073709551616", "gpu:99999999999999999999", "gpu:20000000000p",
    "mps:100", "shard:4", "gpu(S:0)", "gpu:2(S:0-1)", "", "gpu:a100:x", "gpu::2", "gpu:a b",
    "gpu:\u00e9", "\u00e9",
]


def gres():
    print("# GRES requests as sbatch checks them before submitting (gres_job_state_validate, with")
    print("# slurm_get_next_tres). Recorded from %s by tests/record/slurm.py, with a" % version())
    print("# slurm.conf that adds GresTypes=gpu,mps,shard for the client only: `sbatch --hold")
    print("# --gres=REQ --wrap true`. What sbatch accepts reaches slurmctld, whose nodes have no")
    print("# GRES: it refuses a request for any (`Batch job submission failed`), and accepts one")
    print("# that asks for none.")
    conf = "SLURM_CONF=" + GRES_CONF
    for g in GRES:
        rc, out, err = run("env", conf, "sbatch", "--parsable", "--hold", "--gres=" + g, "--wrap", "true")
        if rc == 0:
            submitted.append(out.strip())
        print("sbatch %s => %s" % (esc(g), "ok" if rc == 0 else "err %d %s" % (rc, one_line(err))))


UNFMT = [
    "", "5", " 5", "5 ", "+5", "0", "-5", "abc", "5x", "4294967293", "4294967292", "99999999999999999999",
    "5_", "5_3", "5_-1", "5_x", "5_3x", "5_*", "5_[1-3]", "5_[1-3]x", "5_[1-3", "5_3+1", "5+", "5+0",
    "5+1", "5+128", "5+129", "5+-1", "5+x", "5+1_2", "5+1x", "5.", "5.0", "5.3", "5.-1", "5.4294967279",
    "5.4294967280", "5.batch", "5.BATCH", "5.batchx", "5.extern", "5.interactive", "5.TBD", "5.tbd",
    "5.3x", "5_3.2", "5+1.2", "5.2+", "5.2+1", "5.2+0", "5.2+-1", "5.2+127", "5.2+128", "5.2+x",
    "5.2+1x", "5+1.2+1", "5.batch+1", "5.2.3", "5,6", "\u00e9",
]
SCANCEL = [
    "99991", "99991_2", "99991_[1-3]", "99991_[1,3,5]", "99991_[01-03]", "99991_[1-3],99992",
    "99991_[1-3].2", "99991_[x]", "99991_[", "99991_[]", "99991_*", "99991_", "99991_-1", "99991_x",
    "99991.3", "99991.-1", "99991.batch", "99991_2.3", "99991+1", "99991+1.2", "99991+-1", "99991,99992",
    "99991,", ",99991", "99991,,99992", "99991,x", "99991x", " 99991", "+99991", "0", "-5", "abc",
    "4294967297", "99991_4294967297", "99991.4294967297",
]
SQUEUE_J = [
    "{P}", "{A}", "{A}_2", "{A}_x", "{P}x", "{P},{A}", "{P},,{A}", ",", "{P},abc", "abc", "0", "-1",
    "2147483647", "2147483648", "4294967297", "{A}_-1", " {P}", "{P} ", "+{P}", "{P}.1", "\u00e9",
]
SCONTROL_JOB = [
    "{P}", "{A}_2", "{A}_9", "{P}+0", "{P}x", "{P}.1", "{P},{A}", " {P}", "-{P}", "{P}_", "{P}__2",
    "abc", "{A}_2+1",
]


def jobref():
    print("# Job references, each as its reader takes it, recorded from %s by" % version())
    print("# tests/record/slurm.py:")
    print("# - unfmt: `scontrol -- show step REF` (unfmt_job_id_string; `ok` when it read the reference")
    print("#   and only the lookup failed; Slurm reads past its table on an unknown step name (5.x")
    print("#   crashes scontrol), so none is here: Spur refuses them);")
    print("# - scancel: `scancel -s USR1 -- REF` for jobs that do not exist: the ids scancel read,")
    print("#   as its verify step names them, else its error;")
    print("# - squeue: `squeue -h --jobs=REF` and scontrol: `scontrol -- show job REF`, with a held job and")
    print("#   a held array 1-3 (the `known` line): `ok` unless the command refused the text itself.")
    for ref in UNFMT:
        rc, out, err = run("scontrol", "--", "show", "step", ref)
        m = re.search(r"failed: (.*)$", err.strip())
        if m and m.group(1) != "Invalid job id specified":
            res = "err " + m.group(1)
        else:
            res = "ok"
        print("unfmt %s => %s" % (esc(ref), res))
    for ref in SCANCEL:
        rc, out, err = run("scancel", "-s", "USR1", "--", ref)
        ids = re.findall(r"Kill job error on job (?:step )?id (\S+):", err)
        if ids:
            res = "ok " + " ".join(ids)
        else:
            res = "err %d %s" % (rc, one_line(err))
        print("scancel %s => %s" % (esc(ref), res))
    rc, pend, err = submit()
    rc, arr, err = submit("--array=1-3")
    print('known "%s %s" => pending array' % (pend, arr))
    for r in SQUEUE_J:
        ref = r.replace("{P}", pend).replace("{A}", arr)
        rc, out, err = run("squeue", "-h", "--jobs=" + ref)
        res = "err %d %s" % (rc, one_line(err)) if "Invalid job id:" in err else "ok"
        print("squeue %s => %s" % (esc(ref), res))
    for r in SCONTROL_JOB:
        ref = r.replace("{P}", pend).replace("{A}", arr)
        rc, out, err = run("scontrol", "--", "show", "job", ref)
        res = "err %d %s" % (rc, one_line(err)) if "scontrol_print_job error" in err else "ok"
        print("scontrol %s => %s" % (esc(ref), res))


HOSTLISTS = [
    "gpu[01-03]", "n[1-3,7],m5", "a[1-2]b[3-4]", "a[1-2]b[3-4]c", "n[1-2]-ib", "n[07-10]", "n[9-11]", "[1-3]",
    "n1,n1,n2", "a,b c", "a\tb,,d", "n[1-]", "foo", "x1-2]", "n01,n1,n001", "n[00-02]", "n[1-010]", "",
    "r[1-2]n[1-2]x[5]", "n[010-9]", "n[3-1]", "n[a-b]", "n[]", "n[1,,2]", "n[-3]", "x[1-2", "n[1-3",
    "n[1--3]", "n[1x3]", "n[0-70000]", "n[0-65535]", "n[1-3],n2", "n3,n1,n2,n10,n9", "n[1-5],n[3-8]",
    "b1,a2,a1,c,a", "n01,n1,n001,n2,n02", "x,x1,x2", "n10,n9,n08", "a1b2,a1b3,a2b2", "1,2,3", "n[009-011]",
    "n5,m1,n6,m2", "n[1-2],n[1-2]", "n[1-10],n[5-6]", "[a]", "n[1-2]x[3", "n]1[2", "\u00e9[1-2]",
]
TIMES = [
    "0", "5", "5:30", "5:00", "1:02:03", "1:00:00", "2-0", "1-2", "1-2:30", "1-2:30:01", "1-", "UNLIMITED",
    "infinite", "-1", "", "abc", "1:", ":5", "1::", "1-2-3", "1:2-3", "1:2:3:4", "1-:", "5m", " 5", "-2",
    "1.5", "99999999999999999999", "59:59", "60", "0:59", "0:0:1", "1-0:0:0", "365-00:00:00", "1:60",
    "4294967295", "71582788", "71582789", "\u00e9",
]
MEMS = [
    "4G", "4g", "4GB", "512M", "512", "1T", "100K", "2048K", "2049k", "0", "0G", "", "G", "4X", "4GBB",
    "4 G", "-1", "-5G", "1.5G", "abc", "4Gx", "99999999999999999999", "9999999999999T", " 4G", "+4G",
    "4KB", "4kb", "1P", "4096", "1024K", "4Gb", "8796093022207", "8796093022208", "\u00e9",
]


def hostlist():
    print("# Hostlist expressions: `scontrol show hostnames|hostlist|hostlistsorted EXPR`, recorded")
    print("# from %s by tests/record/slurm.py. scontrol prints a bad list's error on" % version())
    print("# stderr and exits 0: `err` lines give that stderr.")
    for h in HOSTLISTS:
        for what in ("hostnames", "hostlist", "hostlistsorted"):
            rc, out, err = run("scontrol", "show", what, h)
            if err.strip():
                res = "err " + one_line(err)
            else:
                res = "ok " + " ".join(out.split())
            print("%s %s => %s" % (what, esc(h), res))


def opt_value(opt, name, value):
    """sbatch -v's line for an option (`sbatch: mem  : 4G`), or its error."""
    rc, out, err = run("sbatch", "-v", "--parsable", "--hold", "--%s=%s" % (opt, value), "--wrap", "true")
    if rc == 0:
        submitted.append(out.strip())
        m = re.search(r"^sbatch: %s\s+: (.*)$" % name, err, re.M)
        return "ok " + (m.group(1) if m else "(not shown)")
    return "err %d %s" % (rc, one_line("\n".join(l for l in err.splitlines() if "error" in l)))


def time():
    print("# Time limits (time_str2mins through sbatch --time): `sbatch -v --hold --time=T`, the")
    print("# value as sbatch -v shows it (mins2time_str), else its error. Recorded from")
    print("# %s by tests/record/slurm.py." % version())
    for t in TIMES:
        print("sbatch %s => %s" % (esc(t), opt_value("time", "time", t)))


def size():
    print("# Memory sizes (str_to_mbytes through sbatch --mem): `sbatch -v --hold --mem=M`, the")
    print("# value as sbatch -v shows it (mbytes_to_str), else its error. Recorded from")
    print("# %s by tests/record/slurm.py." % version())
    for m in MEMS:
        print("sbatch %s => %s" % (esc(m), opt_value("mem", "mem", m)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True)
    ap.add_argument("grammar")
    a = ap.parse_args()
    RUN.extend(a.run.split())
    try:
        globals()[a.grammar]()
    finally:
        for j in submitted:
            run("scancel", j)


if __name__ == "__main__":
    main()
