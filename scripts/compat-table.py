#!/usr/bin/env python3
"""The table of libspur_compat's symbols, per release and per consumer.

Reads what `make compat` leaves in target/compat/RELEASE/ (the library and
symbols.tsv, the library's own account of which functions it serves) and
the dynamic symbol tables of the real consumers installed on this machine
(Debian's Perl API, libpmi; pyslurm when a build is found), and prints a
Markdown section. With --write FILE it replaces the part of FILE between
the markers `<!-- compat-table -->` and `<!-- /compat-table -->`.

Public symbols of a release are the functions its slurm.h, slurmdb.h and
slurm_errno.h declare that Slurm's own library of that release exports
(Debian 12's libslurm.so.38 here; Debian 13's libslurm.so.42, which
scripts/slurm-headers.sh unpacks beside the 24.11 headers).
"""

import argparse
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASES = {
    "22.05": ("libslurm.so.38", ["/usr/lib/x86_64-linux-gnu/libslurm.so.38.0.0.slurm",
                                 "/usr/lib/x86_64-linux-gnu/libslurm.so.38.0.0"]),
    "24.11": ("libslurm.so.42", [os.path.join(ROOT, "target/slurm-headers/24.11/usr/lib/x86_64-linux-gnu/libslurm.so.42.0.0")]),
}
DATA = ["slurm_conf", "working_cluster_rec"]


def nm(path, undefined=False):
    args = ["nm", "-D", "--undefined-only" if undefined else "--defined-only", path]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}


def real_library(release):
    for p in RELEASES[release][1]:
        if os.path.exists(p) and not is_ours(p):
            return p
    return None


def is_ours(path):
    return "spur_compat_served" in nm(path)


def read_symbols(release):
    path = os.path.join(ROOT, "target/compat", release, "symbols.tsv")
    rows = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, kind, how = line.rstrip("\n").split("\t")
            rows[name] = (kind, how)
    return rows


def consumers():
    """(name, path) of the consumers installed here, for the 22.05 library."""
    found = []
    for name, pattern in [
        ("Perl API `Slurm.so` (libslurm-perl; the torque wrappers run on it)",
         "/usr/lib/x86_64-linux-gnu/perl5/*/auto/Slurm/Slurm.so"),
        ("Perl API `Slurmdb.so` (libslurmdb-perl)", "/usr/lib/x86_64-linux-gnu/perl5/*/auto/Slurmdb/Slurmdb.so"),
        ("Slurm's `libpmi.so` (PMI-1)", "/usr/lib/x86_64-linux-gnu/slurm-wlm/libpmi.so*"),
    ]:
        paths = sorted(glob.glob(pattern))
        if paths:
            found.append((name, [paths[0]]))
    py = sorted(glob.glob(os.path.join(ROOT, "target/pyslurm-*/build/**/*.so"), recursive=True))
    if py:
        found.append(("pyslurm 22.5 (every extension module)", py))
    return found


def short(names, limit=40):
    names = sorted(names)
    text = ", ".join("`%s`" % n for n in names[:limit])
    if len(names) > limit:
        text += ", and %d more" % (len(names) - limit)
    return text or "none"


def table():
    lines = ["| release | library | public functions exported | served for real | failing as unsupported |"
             " internal helpers served | data symbols |",
             "|---|---|---|---|---|---|---|"]
    notes = []
    per_release = {}
    for release, (soname, _) in RELEASES.items():
        lib = os.path.join(ROOT, "target/compat", release, soname)
        if not os.path.exists(lib):
            sys.exit("compat-table: %s is missing: run make compat" % lib)
        ours = nm(lib)
        syms = read_symbols(release)
        declared = {n for n, (k, _) in syms.items() if k == "declared"}
        real = real_library(release)
        public = declared & nm(real) if real else declared
        exported = public & ours
        served = {n for n in public if syms.get(n, ("", ""))[1] == "served"}
        internal = {n for n, (k, h) in syms.items() if k == "internal" and h == "served"} & ours
        data = [d for d in DATA if d in ours]
        lines.append("| %s | `%s` | %d / %d | %d | %d | %d | %s |" % (
            release, soname, len(exported), len(public), len(served & ours), len(exported - served),
            len(internal), ", ".join("`%s`" % d for d in data)))
        if not real:
            notes.append("%s: Slurm's own library was not found here, so every declared function counts as public."
                         % release)
        per_release[release] = (ours, syms, real)
    out = ["Made by `scripts/compat-table.py` from `make compat`'s libraries "
           "and the consumers installed on the machine.", ""] + lines + [""]
    out += ["- " + n for n in notes]
    ours, syms, real = per_release["22.05"]
    real_exports = nm(real) if real else set()
    out += ["", "Consumers on this machine (Debian 12, linked with `libslurm.so.38`): what they import "
            "from libslurm, and how the 22.05 library answers.", "",
            "| consumer | imports | served for real | failing as unsupported | not exported |",
            "|---|---|---|---|---|"]
    details = []
    for name, paths in consumers():
        imports = set()
        for p in paths:
            imports |= nm(p, undefined=True)
        imports = {s for s in imports if s in real_exports} if real_exports else \
            {s for s in imports if re.match(r"^(slurm|slurmdb|islurm)_", s)}
        served = {s for s in imports if s in ours and syms.get(s, ("", "served"))[1] == "served"}
        stub = {s for s in imports if s in ours and syms.get(s, ("", ""))[1] == "unserved"}
        missing = imports - ours
        out.append("| %s | %d | %d | %d | %d |" % (name, len(imports), len(served), len(stub), len(missing)))
        if stub or missing:
            details.append("- %s: failing as unsupported: %s; not exported: %s." % (name, short(stub), short(missing)))
    return "\n".join(out + [""] + details) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", help="replace the marked part of this file")
    a = ap.parse_args()
    text = table()
    if not a.write:
        sys.stdout.write(text)
        return
    with open(a.write) as f:
        doc = f.read()
    start, end = "<!-- compat-table -->", "<!-- /compat-table -->"
    if start not in doc or end not in doc:
        sys.exit("compat-table: %s has no %s ... %s markers" % (a.write, start, end))
    head, rest = doc.split(start, 1)
    _, tail = rest.split(end, 1)
    with open(a.write, "w") as f:
        f.write(head + start + "\n" + text + end + tail)


if __name__ == "__main__":
    main()
