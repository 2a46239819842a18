#!/usr/bin/env python3
"""Deterministic generator of finished job records for the sacct benchmark (bench/sacct.sh).

    python3 bench/gen_jobs.py N OUT.tsv [--days D] [--users U] [--seed S] [--end T]

writes N finished jobs to OUT.tsv and their steps to OUT.steps.tsv (OUT's name with
`.tsv` replaced by `.steps.tsv`; `.steps.tsv` appended if OUT does not end in `.tsv`).
Both sides of the benchmark (Slurm's slurmdbd/MariaDB, Spur's store) load these files.

The same N, --days, --users, --seed and --end always give byte-identical files (Python's
random.Random, seeded with S; only random(), randrange() and expovariate() are used, whose
sequences Python keeps stable across versions). Jobs are streamed: memory stays flat, 10,000,000 jobs take a few
minutes.

  --days D   the jobs' submit times are spread evenly over the D days (default 90) before T
  --users U  users user0000 .. user{U-1} (default 200), uid = gid = 2000 + i
  --seed S   (default 1)
  --end T    the reference time T, unix seconds or YYYY-MM-DD[THH:MM[:SS]] in UTC
             (default: today's 00:00 UTC, so one day's runs agree). Every job ends at or
             before T.

Each file starts with one header line (the column names below, tab separated); then one
record per line, fields separated by one TAB, no quoting, no field is empty and none holds a
TAB or newline. Times are unix seconds (UTC). Names are ASCII.

OUT.tsv -- one line per job, ascending job_id (1..N), in submit order:
   1 job_id      1..N
   2 name        job name, e.g. train_17
   3 user        user0000 .. (4 digits, or more when U > 10000)
   4 uid         2000 + user number
   5 gid         = uid
   6 account     one of ACCOUNTS below; each user has a primary account (ACCOUNTS[i % 8]) and
                 charges ~10% of its jobs to a second one (ACCOUNTS[(i + 3) % 8])
   7 partition   cpu | gpu | bigmem | debug
   8 state       COMPLETED | FAILED | CANCELLED | TIMEOUT
   9 exit_code   0..255, the exit status of the batch script (Slurm's ExitCode before the colon)
  10 exit_signal 0..64, the signal that ended it (after the colon): CANCELLED 15, else 0
  11 submit      submit <= eligible <= start <= end <= T
  12 eligible
  13 start
  14 end
  15 timelimit   minutes
  16 nnodes      1..64
  17 ncpus       allocated CPUs, all nodes together (nnodes * cpus per node)
  18 mem_mb      allocated memory in MB, all nodes together (Slurm's TRES mem)
  19 nodelist    Slurm hostlist of the nodes, contiguous: cn0042 or cn[0042-0045];
                 nodes cn0001..cn1000
  20 work_dir    e.g. /home/user0042/proj3

OUT.steps.tsv -- one line per step, grouped by job in job_id order; each job has its
`batch` step first, then 0..2 numbered steps 0, 1:
   1 job_id
   2 step_id     batch | 0 | 1
   3 step_name   batch for the batch step, else the program, e.g. python
   4 state       COMPLETED | FAILED | CANCELLED
   5 exit_code   as the job's columns 9-10
   6 exit_signal
   7 start       job start <= step start <= step end <= job end; the numbered steps run one
   8 end         after the other
   9 nnodes      batch: 1; numbered steps: the job's nnodes
  10 ntasks      batch: 1
  11 ncpus       batch: the CPUs of the first node; numbered steps: the job's ncpus
  12 mem_mb      batch: the memory of the first node; numbered steps: the job's mem_mb
  13 nodelist    batch: the job's first node; numbered steps: the job's nodelist
  14 maxrss_kb   largest resident set of any task, KiB (Slurm's MaxRSS)
  15 averss_kb   average over tasks of each task's largest resident set, KiB (AveRSS)
  16 avecpu_s    average CPU time per task, seconds (AveCPU) = round(total cpu / ntasks)
  17 user_cpu_us user CPU time of all tasks together, microseconds
  18 sys_cpu_us  system CPU time of all tasks together, microseconds
                 (Slurm's TotalCPU = user + sys)

How the states go: COMPLETED jobs (~85%) have every step COMPLETED 0:0. FAILED (~8%):
exit code 1..255 on the job, on the batch step, and on its last numbered step (the others
COMPLETED). CANCELLED (~5%): job 0:15, batch step and last numbered step CANCELLED 0:15.
TIMEOUT (~2%): end = start + timelimit; job 0:0, batch step and last numbered step CANCELLED 0:15.
"""
import argparse
import calendar
import os
import random
import sys
import time

ACCOUNTS = ["physics", "chemistry", "biology", "climate", "astro", "materials", "genomics", "mlgroup"]
PARTITIONS = ["cpu", "gpu", "bigmem", "debug"]
NAMES = ["train", "sim", "analysis", "preprocess", "postproc", "md_run", "fit", "render", "bash", "wrap"]
PROGS = ["python", "a.out", "lmp", "gmx_mpi", "hostname", "bash", "julia", "vasp_std"]
NODES = 1000
NAME_WIDTH = 4


def parse_end(s):
    if s is None:
        now = int(time.time())
        return now - now % 86400
    if s.isdigit():
        return int(s)
    for fmt in ("%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d"):
        try:
            return calendar.timegm(time.strptime(s, fmt))
        except ValueError:
            pass
    sys.exit(f"gen_jobs.py: bad --end {s!r} (unix seconds or YYYY-MM-DD[THH:MM[:SS]])")


def steps_path(out):
    return out[:-4] + ".steps.tsv" if out.endswith(".tsv") else out + ".steps.tsv"


JOB_COLS = ["job_id", "name", "user", "uid", "gid", "account", "partition", "state", "exit_code",
            "exit_signal", "submit", "eligible", "start", "end", "timelimit", "nnodes", "ncpus",
            "mem_mb", "nodelist", "work_dir"]
STEP_COLS = ["job_id", "step_id", "step_name", "state", "exit_code", "exit_signal", "start", "end",
             "nnodes", "ntasks", "ncpus", "mem_mb", "nodelist", "maxrss_kb", "averss_kb", "avecpu_s",
             "user_cpu_us", "sys_cpu_us"]


def main():
    ap = argparse.ArgumentParser(description="deterministic finished-job records (see the docstring)")
    ap.add_argument("n", type=int)
    ap.add_argument("out")
    ap.add_argument("--days", type=float, default=90)
    ap.add_argument("--users", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--end", default=None)
    a = ap.parse_args()
    if a.n < 0 or a.users < 1 or a.days <= 0:
        sys.exit("gen_jobs.py: N >= 0, --users >= 1 and --days > 0 please")
    end_ref = parse_end(a.end)
    span = int(a.days * 86400)
    t0 = end_ref - span
    uw = max(NAME_WIDTH, len(str(a.users - 1)))
    users = [f"user{i:0{uw}d}" for i in range(a.users)]
    nodenames = [f"cn{i:04d}" for i in range(1, NODES + 1)]

    rng = random.Random(a.seed)
    rnd = rng.random
    rint = rng.randrange
    expo = rng.expovariate

    sp = steps_path(a.out)
    fj = open(a.out, "w", buffering=1 << 20, newline="\n")
    fs = open(sp, "w", buffering=1 << 20, newline="\n")
    fj.write("\t".join(JOB_COLS) + "\n")
    fs.write("\t".join(STEP_COLS) + "\n")
    jbuf, sbuf = [], []
    n = a.n
    per = span / n if n else 0
    nusers = a.users
    for jid in range(1, n + 1):
        # ---- who, where
        ui = rint(nusers)
        user = users[ui]
        uid = 2000 + ui
        acct = ACCOUNTS[(ui + 3) % 8] if rnd() < 0.10 else ACCOUNTS[ui % 8]
        r = rnd()
        part = "cpu" if r < 0.70 else "gpu" if r < 0.80 else "bigmem" if r < 0.90 else "debug"
        r = rnd()
        if r < 0.80:
            nn = 1
        elif r < 0.95:
            nn = 2 + rint(3)          # 2..4
        else:
            nn = 8 << rint(4)         # 8, 16, 32, 64
        cpn = 1 << rint(7)            # 1..64 CPUs per node
        mem_node = cpn * (2000 << rint(3))   # 2, 4 or 8 GB per CPU
        first = rint(NODES - nn + 1)
        if nn == 1:
            nodelist = nodenames[first]
        else:
            nodelist = f"cn[{first + 1:04d}-{first + nn:04d}]"
        ncpus = nn * cpn
        mem = nn * mem_node
        name = f"{NAMES[rint(10)]}_{rint(100)}"
        wd = f"/home/{user}/proj{rint(5)}"

        # ---- state
        r = rnd()
        if r < 0.85:
            state, ec, sig = "COMPLETED", 0, 0
        elif r < 0.93:
            state, ec, sig = "FAILED", 1 + rint(255), 0
        elif r < 0.98:
            state, ec, sig = "CANCELLED", 0, 15
        else:
            state, ec, sig = "TIMEOUT", 0, 0

        # ---- times
        submit = t0 + int((jid - 1 + rnd()) * per)
        eligible = submit if rnd() < 0.9 else submit + rint(600)
        start = eligible + int(expo(1 / 600.0)) if rnd() < 0.7 else eligible + int(expo(1 / 7200.0))
        tl = (30, 60, 120, 240, 480, 1440, 2880)[rint(7)]
        if part == "debug":
            tl = 30
        if state == "TIMEOUT":
            dur = tl * 60 + rint(60)
        else:
            dur = min(int(expo(1 / (tl * 60 * 0.3))) + 1, tl * 60)
        end = start + dur
        if end > end_ref:             # every job has ended by the reference time
            end = end_ref
            start = min(start, end)
            eligible = min(eligible, start)
            submit = min(submit, eligible)
            dur = end - start
        jbuf.append(f"{jid}\t{name}\t{user}\t{uid}\t{uid}\t{acct}\t{part}\t{state}\t{ec}\t{sig}\t"
                    f"{submit}\t{eligible}\t{start}\t{end}\t{tl}\t{nn}\t{ncpus}\t{mem}\t{nodelist}\t{wd}\n")

        # ---- steps: batch, then 0..2 numbered ones one after the other
        nsteps = rint(3)
        bad_state = "FAILED" if state == "FAILED" else "CANCELLED"
        last_ok = state == "COMPLETED"
        bec, bsig = (ec, 0) if state == "FAILED" else (0, 15) if not last_ok else (0, 0)
        util = 0.05 + 0.9 * rnd()
        # batch step: the whole job on its first node, one task
        cpu_us = int(dur * 1e6 * min(cpn, 1 + rint(2)) * util * 0.2)
        rss = 2000 + rint(max(1, mem_node * 50))     # KiB, up to ~5% of the node's memory
        sbuf.append(f"{jid}\tbatch\tbatch\t{state if last_ok else bad_state}\t{bec}\t{bsig}\t"
                    f"{start}\t{end}\t1\t1\t{cpn}\t{mem_node}\t{nodenames[first]}\t{rss}\t{rss}\t"
                    f"{round(cpu_us / 1e6)}\t{cpu_us * 9 // 10}\t{cpu_us - cpu_us * 9 // 10}\n")
        if nsteps:
            t = start + (rint(30) if dur > 60 else 0)
            left = end - t
            prog = PROGS[rint(8)]
            ntasks = nn * (cpn if rnd() < 0.6 else 1)
            for s in range(nsteps):
                if s == nsteps - 1:
                    s_end = end
                else:
                    s_end = t + int(left * (0.3 + 0.4 * rnd()))
                sdur = s_end - t
                last = s == nsteps - 1
                if last and not last_ok:
                    sst, sec, ssig = bad_state, bec, bsig
                else:
                    sst, sec, ssig = "COMPLETED", 0, 0
                tot_us = int(sdur * 1e6 * ncpus * util)
                user_us = tot_us * 9 // 10
                maxrss = 10000 + rint(max(1, mem_node * 1024 // (ntasks // nn) // 2))   # KiB, up to half a task's share
                averss = maxrss * (50 + rint(51)) // 100
                sbuf.append(f"{jid}\t{s}\t{prog}\t{sst}\t{sec}\t{ssig}\t{t}\t{s_end}\t{nn}\t{ntasks}\t"
                            f"{ncpus}\t{mem}\t{nodelist}\t{maxrss}\t{averss}\t{round(tot_us / 1e6 / ntasks)}\t"
                            f"{user_us}\t{tot_us - user_us}\n")
                t = s_end
        if len(jbuf) >= 4096:
            fj.write("".join(jbuf)); jbuf.clear()
            fs.write("".join(sbuf)); sbuf.clear()
    fj.write("".join(jbuf))
    fs.write("".join(sbuf))
    fj.close()
    fs.close()
    print(f"gen_jobs.py: {n} jobs -> {a.out}, steps -> {sp} "
          f"(from {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(t0))} "
          f"to {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(end_ref))}, seed {a.seed})", file=sys.stderr)


if __name__ == "__main__":
    main()
