"""Normalisation applied to BOTH sides before comparing (see README.md, "Normalisation").

Every rule replaces one specific value that legitimately differs between two correct
runs (a clock reading, a pid, a harness-chosen path or port, a load measurement) by
a placeholder.  No rule removes a line, a column or a field; no rule matches a whole
line; text around the value is compared byte for byte.  Job ids are NOT normalised:
both sides start from a fresh cluster with FirstJobId=1.

ctx (from the side's meta.json): hostname, slurm_conf, cluster_dir, workdir, uname.
"""

import re

# R2: clock readings
ISO_DT = re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\b")
CTIME = re.compile(r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
                   r" [ \d]\d \d\d:\d\d:\d\d \d{4}\b")
EPOCH_KEYS = re.compile(r"\b(SLURM_JOB_START_TIME|SLURM_JOB_END_TIME|last_update_time)=\d+")
# R4: elapsed durations (run time), digits masked so the width is still compared
RUNTIME = re.compile(r"\bRunTime=((?:\d+-)?\d\d:\d\d:\d\d)")
DURATION_TOKEN = re.compile(r"^(?:\d+-)?(?:\d+:)?\d+:\d\d$")
# R5: process / session ids
SID = re.compile(r"\b(AllocNode:Sid=\S+?):\d+")
PID_KEYS = re.compile(r"\b(SLURM_TASK_PID|SLURM_PRIO_PROCESS_PID)=\d+")
# R5b: the ports srun listens on for its step (chosen by the kernel), in the task environment
SRUN_PORT_KEYS = re.compile(r"\b(SLURM_SRUN_COMM_PORT|SLURM_STEP_LAUNCHER_PORT)=\d+")
# and in srun -vv's lines
SRUN_PORT_LINES = re.compile(r"(srun: debug:  (?:initialized stdio listening socket, port|port from net_stream_listen is)) \d+\b")
# the pid of the srun that launched a step (scontrol show step); a batch step's (null):0 stays
SRUN_PID = re.compile(r"\b(SrunHost:Pid=\S+?):[1-9]\d*\b")
# R6: live node measurements and harness-chosen slurmd ports
CPULOAD = re.compile(r"\bCPULoad=[\d.]+|\bCPULoad=N/A")
FREEMEM = re.compile(r"\bFreeMem=(?:\d+|N/A)")
# the machine's process limit (RLIMIT_NPROC follows its memory: sbatch -vv's
# `propagating RLIMIT_NPROC=`, SLURM_RLIMIT_NPROC)
NPROC = re.compile(r"(RLIMIT_NPROC=)\d+")
NODEPORT = re.compile(r"(\bNodeHostName=\S+ )Port=\d+")
# 22.05 batch jobs: SLURM_WORKING_CLUSTER=<cluster>:<ctld host>:<ctld port>:<protocol>:<plugin id>
WORKING_CLUSTER = re.compile(r"(\bSLURM_WORKING_CLUSTER=[^:\s]+:[^:\s]+:)\d+")

# R7: squeue/sinfo --json/--yaml (data_parser): clock readings (epoch seconds, bare or in a
# {"set","infinite","number"} object) under the named time keys only, the slurmd port, and
# node load / free memory. Each pattern names its key; nothing else in the document changes.
_EPOCH_K = ("accrue_time|eligible_time|end_time|last_sched_evaluation|start_time|submit_time|"
            "last_update|last_backfill|boot_time|last_busy|slurmd_start_time")
_NUMOBJ_J = r'\{\s*"set": true,\s*"infinite": false,\s*"number": '
_NUMOBJ_Y = (r"!!map\n\s*!!str set: !!bool true\n\s*!!str infinite: !!bool false\n"
             r"\s*!!str number: !!int ")
_ANYOBJ_J = r'\{\s*"set": (?:true|false),\s*"infinite": (?:true|false),\s*"number": '
_ANYOBJ_Y = (r"!!map\n\s*!!str set: !!bool \w+\n\s*!!str infinite: !!bool \w+\n"
             r"\s*!!str number: !!int ")
JSON_RULES = [
    (re.compile(r'("(?:' + _EPOCH_K + r')": (?:' + _NUMOBJ_J + r')?)\d{9,}\b'), "<EPOCH>"),
    (re.compile(r"(!!str (?:" + _EPOCH_K + r"): (?:" + _NUMOBJ_Y + r"|!!int ))\d{9,}\b"), "<EPOCH>"),
    (re.compile(r'("port": |!!str port: !!int )\d+\b'), "<PORT>"),
    (re.compile(r'("cpu_load": |!!str cpu_load: !!int )\d+\b'), "<LOAD>"),
    (re.compile(r'("free_memory": |!!str free_memory: !!int )\d+\b'), "<MEM>"),
]
JSON_PAIR_RULES = [   # two values: minimum and maximum
    (re.compile(r'("load": \{\s*"minimum": )\d+(,\s*"maximum": )\d+\b'), "<LOAD>"),
    (re.compile(r"(!!str load: !!map\n\s*!!str minimum: !!int )\d+(\n\s*!!str maximum: !!int )\d+\b"), "<LOAD>"),
    (re.compile(r'("free": \{\s*"minimum": ' + _ANYOBJ_J + r')\d+(\s*\},\s*"maximum": ' + _ANYOBJ_J + r')\d+\b'),
     "<MEM>"),
    (re.compile(r"(!!str free: !!map\n\s*!!str minimum: " + _ANYOBJ_Y + r")\d+(\n\s*!!str maximum: "
                + _ANYOBJ_Y + r")\d+\b"), "<MEM>"),
]


def mask_digits(s):
    return re.sub(r"\d", "N", s)


# R8: sacct/sstat tables (scenarios in ACCOUNTING_SCENARIOS only). A column is found by its
# header: in the fixed-width layout by the dash line under the header (the span of each run
# of dashes), in the -p/-P layout by the `|`-separated header line. Only the cells of the
# columns named below change, and an empty cell stays empty (a job's row without usage data
# vs a step's row with it is still compared):
#  - durations (time used, time waited) and clock readings in any SLURM_TIME_FORMAT: each
#    digit -> N (the layout, `00:00:01` or `1-02:03:04`, is still compared);
#  - usage measurements (memory, disk, CPU time, TRES usage strings): each run of digits
#    (with its decimals) -> <N>, so units (`K`, `M`) and the field layout stay;
#  - AveCPUFreq, the CPU clock frequency: the whole value -> <FREQ>. A step whose tasks used
#    no CPU since the last sample reads 0 (a batch script waiting for its srun: `0` in one
#    run, `2.60M` in the next), others the machine's frequency.
ACCOUNTING_SCENARIOS = {"sacct", "sstat"}
ACCT_DIGIT_COLUMNS = {c.lower() for c in (
    "Elapsed", "CPUTime", "TotalCPU", "UserCPU", "SystemCPU", "Reserved", "Planned", "PlannedCPU",
    "Submit", "Start", "End", "Eligible")}
ACCT_USAGE_COLUMNS = {c.lower() for c in (
    "ElapsedRaw", "CPUTimeRAW", "PlannedCPURAW", "MaxRSS", "AveRSS", "MaxVMSize", "AveVMSize",
    "MaxPages", "AvePages", "MinCPU", "AveCPU", "MaxDiskRead", "AveDiskRead",
    "MaxDiskWrite", "AveDiskWrite", "TRESUsageInAve", "TRESUsageInMax", "TRESUsageInMin",
    "TRESUsageInTot", "TRESUsageOutAve", "TRESUsageOutMax", "TRESUsageOutMin", "TRESUsageOutTot")}
# sizes (memory, disk): their unit too -> <SIZE>. Slurm's exact conversion divides by 1024
# only while the value is a multiple of 512, so a size that happens to be one (1 sample in
# 128: `483.50M` where the run before read `219220K`) changes unit from run to run; the
# conversion itself is unit-tested (spur-cli-base's convert_num_unit).
ACCT_SIZE_COLUMNS = {c.lower() for c in (
    "MaxRSS", "AveRSS", "MaxVMSize", "AveVMSize", "MaxDiskRead", "AveDiskRead", "MaxDiskWrite",
    "AveDiskWrite")}
ACCT_WHOLE_COLUMNS = {"avecpufreq": "<FREQ>"}
ACCT_COLUMNS = ACCT_DIGIT_COLUMNS | ACCT_USAGE_COLUMNS | set(ACCT_WHOLE_COLUMNS)
_DASHES = re.compile(r"^[ -]*-[ -]*$")


def _acct_cell(name, cell):
    n = name.strip().lower()
    if n in ACCT_WHOLE_COLUMNS:
        return ACCT_WHOLE_COLUMNS[n] if cell.strip() else cell
    if n in ACCT_DIGIT_COLUMNS:
        return mask_digits(cell)
    if n in ACCT_SIZE_COLUMNS:
        return re.sub(r"\d+(?:\.\d+)?[KMGTP]?", "<N><SIZE>", cell)
    if n in ACCT_USAGE_COLUMNS:
        return re.sub(r"\d+(?:\.\d+)?", "<N>", cell)
    return cell


def _acct_tables(text):
    lines = text.split("\n")
    cols, seps = None, None        # fixed-width: [(start, end, name)]; parsable: [names]
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and _DASHES.match(lines[i + 1]) and line.strip():
            cols = [(m.start(), m.end(), line[m.start():m.end()]) for m in re.finditer(r"-+", lines[i + 1])]
            seps = None
            if not any(c[2].strip().lower() in ACCT_COLUMNS for c in cols):
                cols = None
            continue
        if "|" in line and re.fullmatch(r"[A-Za-z]+(\|[A-Za-z]+)*\|?", line):
            names = line.split("|")
            seps = names if any(n.lower() in ACCT_COLUMNS for n in names) else None
            cols = None
            continue
        if not line.strip():
            cols = seps = None
            continue
        if cols:
            if _DASHES.match(line):
                continue
            for s_, e, name in reversed(cols):     # from the right: a wider cell moves no span
                cell = line[s_:e]
                new = _acct_cell(name, cell.strip())
                if new != cell.strip():
                    new = new.rjust(e - s_) if cell.startswith(" ") else new.ljust(e - s_)
                    line = line[:s_] + new + line[e:]
            lines[i] = line
        elif seps:
            cells = line.split("|")
            if len(cells) != len(seps):
                seps = None
                continue
            lines[i] = "|".join(_acct_cell(n, c) for n, c in zip(seps, cells))
    return "\n".join(lines)


def _time_columns(text):
    """R4b: in a table whose header line has a TIME column (squeue's elapsed time, of jobs
    or, under a STEPID header, of steps),
    mask the digits of the duration under that header.  squeue right-aligns TIME
    (%.10M) in its default and -l layouts; -O TimeUsed left-aligns: both handled by
    looking for a duration token that overlaps the header word's span."""
    lines = text.split("\n")
    span = None
    for i, line in enumerate(lines):
        m = re.search(r"(?<!\S)TIME(?!\S)", line)
        if m and ("JOBID" in line or "JOB_ID" in line or "STEPID" in line):
            span = (m.start(), m.end())
            continue
        if span is None:
            continue
        for t in re.finditer(r"\S+", line):
            if t.start() < span[1] and t.end() > span[0] and DURATION_TOKEN.match(t.group(0)):
                line = line[:t.start()] + mask_digits(t.group(0)) + line[t.end():]
                break
        lines[i] = line
    return "\n".join(lines)


# R1b: the command search path the harness gives each side, and where the side's commands
# are (`_=` of bash, the path of the command it ran): real Slurm's in the chroot (and on the
# 22.05 host) /usr/sbin:/usr/bin:/sbin:/bin and /usr/bin; Spur's is its cluster's bin/
# directory first, then the replayer's BASE_PATH. meta.json's `path`/`bindir` win when set.
SLURM_SIDE_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
SPUR_SIDE_BASE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
SLURM_COMMANDS = "srun|salloc|sbatch|squeue|sinfo|scancel|scontrol|sacct|sstat"


def _side_paths(ctx):
    """(search path, commands' directory) of the side, or (None, None)."""
    if ctx.get("path") and ctx.get("bindir"):
        return ctx["path"], ctx["bindir"]
    if ctx.get("side") == "spur" and ctx.get("cluster_dir"):
        b = ctx["cluster_dir"].rstrip("/") + "/bin"
        return b + ":" + SPUR_SIDE_BASE_PATH, b
    if ctx.get("side") == "slurm":
        return SLURM_SIDE_PATH, "/usr/bin"
    return None, None


def normalize(data, ctx):
    """bytes -> str, normalised with the producing side's ctx."""
    text = data.decode("utf-8", errors="surrogateescape") if isinstance(data, bytes) else data
    # R8 (before R2: the cells are sliced at the widths the command printed)
    if ctx.get("scenario") in ACCOUNTING_SCENARIOS:
        text = _acct_tables(text)
    # R1b (before R1: Spur's path contains its cluster directory)
    path, bindir = _side_paths(ctx)
    if path:
        text = re.sub(r"(?m)(?<![\w])PATH=" + re.escape(path) + r"$", "PATH=<PATH>", text)
        text = re.sub(r"(?m)(?<![\w])_=" + re.escape(bindir) + r"/(" + SLURM_COMMANDS + r")$", r"_=<BINDIR>/\1", text)
    # R1: harness-chosen paths (longest first), the kernel string of the machine
    subs = []
    for key, ph in (("slurm_conf", "<SLURM_CONF>"), ("cluster_dir", "<CLUSTER_DIR>"), ("workdir", "<WORKDIR>"),
                    ("uname", "<UNAME>")):
        v = ctx.get(key)
        if v:
            subs.append((v, ph))
    for v, ph in sorted(subs, key=lambda x: -len(x[0])):
        text = text.replace(v, ph)
    # R2
    text = ISO_DT.sub("<DATETIME>", text)
    text = CTIME.sub("<DATE>", text)
    text = EPOCH_KEYS.sub(r"\1=<EPOCH>", text)
    # R3: the machine's host name (word-bounded)
    host = ctx.get("hostname")
    if host:
        text = re.sub(r"(?<!\w)" + re.escape(host) + r"(?!\w)", "<HOST>", text)
    # R4
    text = RUNTIME.sub(lambda m: "RunTime=" + mask_digits(m.group(1)), text)
    text = _time_columns(text)
    # R5
    text = SID.sub(r"\1:<SID>", text)
    text = PID_KEYS.sub(r"\1=<PID>", text)
    text = SRUN_PORT_KEYS.sub(r"\1=<PORT>", text)
    text = SRUN_PORT_LINES.sub(r"\1 <PORT>", text)
    text = SRUN_PID.sub(r"\1:<PID>", text)
    # R6
    text = CPULOAD.sub("CPULoad=<LOAD>", text)
    text = FREEMEM.sub("FreeMem=<MEM>", text)
    text = NPROC.sub(r"\1<NPROC>", text)
    text = NODEPORT.sub(r"\1Port=<PORT>", text)
    text = WORKING_CLUSTER.sub(r"\1<PORT>", text)
    # R7
    for rx, ph in JSON_RULES:
        text = rx.sub(lambda m: m.group(1) + ph, text)
    for rx, ph in JSON_PAIR_RULES:
        text = rx.sub(lambda m: m.group(1) + ph + m.group(2) + ph, text)
    return text
