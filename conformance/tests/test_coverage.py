"""Tests of conformance/coverage: COVERAGE.md is current, the roff and C parsing, the step matching.

`python3 -m unittest discover -s conformance/tests` (part of `make test`).
"""

import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CONF = os.path.dirname(HERE)
SCRIPT = os.path.join(CONF, "coverage")

_loader = importlib.machinery.SourceFileLoader("coverage_script", SCRIPT)
_spec = importlib.util.spec_from_loader("coverage_script", _loader)
cov = importlib.util.module_from_spec(_spec)
_loader.exec_module(cov)


def run(*args):
    p = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


class CommittedReport(unittest.TestCase):
    def test_coverage_md_is_current(self):
        rc, out = run("--check")
        self.assertEqual(rc, 0, "COVERAGE.md is stale: run conformance/coverage\n" + out[-3000:])

    def test_without_the_mirror_the_cached_checklist_gives_the_same_report(self):
        with tempfile.TemporaryDirectory() as tmp:
            rc, out = run("--check", "--mirror", os.path.join(tmp, "no-mirror"))
        self.assertEqual(rc, 0, out[-3000:])
        self.assertIn("using the cached checklist", out)

    def test_check_fails_on_a_stale_report(self):
        with tempfile.TemporaryDirectory() as tmp:
            stale = os.path.join(tmp, "COVERAGE.md")
            with open(stale, "w") as f:
                f.write("# old\n")
            rc, out = run("--check", "--output", stale)
        self.assertEqual(rc, 1)
        self.assertIn("stale", out)


class Roff(unittest.TestCase):
    def test_option_tags(self):
        p = cov.parse_option_tag
        self.assertEqual(p(r"\fB\-A\fR, \fB\-\-account\fR=<\fIaccount\fR>"),
                         (["-A", "--account"], "required"))
        self.assertEqual(p(r"\fB\-H, \-\-hold\fR"), (["-H", "--hold"], "none"))
        self.assertEqual(p(r"\fB\-j\fR, \fB\-\-jobs\fR[=<\fIjob_id_list\fR>]"),
                         (["-j", "--jobs"], "optional"))
        self.assertEqual(p(r"\f3\-\-json\fP, \f3\-\-json\fP=\fIlist\fR, \f3\-\-json\fP=<\fIdata_parser\fR>"),
                         (["--json"], "optional"))
        self.assertEqual(p(r"\fB\-n\fR, \fB\-\-jobname\fR=\fIjob_name\fR, \fB\-\-name\fR=\fIjob_name\fR"),
                         (["-n", "--jobname", "--name"], "required"))
        self.assertEqual(p(r"\fB\-V\fR , \fB\-\-version\fR"), (["-V", "--version"], "none"))
        self.assertEqual(p(r"\fB\-w\fR, \fB\-\-nodelist=\fIhost1,host2,...\fR"),
                         (["-w", "--nodelist"], "required"))
        self.assertEqual(p(r"\fB\-\-export\fR={[ALL,]<\fIenvironment_variables\fR>|ALL|NIL|NONE}"),
                         (["--export"], "required"))
        self.assertIsNone(p(r"\fBtask\fR"))
        self.assertIsNone(p(r"Example: \fB\-\-export\fR=EDITOR"))

    MAN = "\n".join([
        '.TH "x" "1"',
        '.SH "OPTIONS"',
        ".TP",
        r"\fB\-o\fR, \fB\-\-format\fR=<\fIfmt\fR>",
        "Some text.",
        ".IP",
        ".RS",
        ".TP 15",
        r"\fI\-l, \-\-long\fR",
        "nested: a value, not an option",
        ".RE",
        ".TP",
        r"\fB\-\-me\fR",
        ".SH",
        "ARGUMENTS",
        ".TP",
        r"\fB\-\-notanoption\fR",
        '.SH "INPUT ENVIRONMENT VARIABLES"',
        ".TP 22",
        r"\fBSBATCH_CLUSTERS\fR or \fBSLURM_CLUSTERS\fR",
        r"Same as \fB\-M\fR",
        ".TP",
        r"\fBSLURM_STEP_KILLED_MSG_NODE_ID\fR=ID",
        '.SH "JOBS \\- SPECIFICATIONS FOR UPDATE COMMAND"',
        ".TP",
        r"\fBTimeLimit\fR=<\fItime\fR>",
        ".RS",
        ".TP",
        r"\fBNotAKey\fR",
        ".RE",
        ".TP",
        r"\fBNice\fR[=<\fIadjustment\fR>]",
        '.SH "JOBS \\- SPECIFICATIONS FOR SHOW COMMAND"',
        ".TP",
        r"\fBJobState\fR",
        '.SH "RESERVATIONS \\- SPECIFICATIONS FOR CREATE, UPDATE, AND DELETE COMMANDS"',
        ".TP",
        r"\fBReservationName\fR=<\fIname\fR>",
        ".TP",
        r"\fBSkip\fR",
    ])

    def test_sections_options_env_keys(self):
        secs = cov.roff_sections(self.MAN)
        self.assertEqual([t for t, _ in secs],
                         ["OPTIONS", "ARGUMENTS", "INPUT ENVIRONMENT VARIABLES",
                          "JOBS - SPECIFICATIONS FOR UPDATE COMMAND",
                          "JOBS - SPECIFICATIONS FOR SHOW COMMAND",
                          "RESERVATIONS - SPECIFICATIONS FOR CREATE, UPDATE, AND DELETE COMMANDS"])
        opts = cov.parse_options(cov.section(secs, "OPTIONS"))
        self.assertEqual(opts, [{"names": ["-o", "--format"], "arg": "required"},
                                {"names": ["--me"], "arg": "none"}])
        env = cov.parse_env(cov.section(secs, r"(INPUT )?ENVIRONMENT VARIABLES"))
        self.assertEqual(env, [["SBATCH_CLUSTERS", "SLURM_CLUSTERS"], ["SLURM_STEP_KILLED_MSG_NODE_ID"]])
        self.assertEqual(cov.parse_keys(secs), {"job": ["TimeLimit", "Nice"],
                                                "reservation": ["ReservationName", "Skip"]})

    def test_scontrol_commands_and_show_entities(self):
        body = [".TP", r"\fBhold\fR <\fIjob_list\fR>", ".IP",
                ".TP", r"\fBshow\fR <\fIENTITY\fR>", ".RS",
                ".TP", r"\fBjob\fR", "text", ".TP", r"\fBassoc_mgr\fR", ".RS", ".TP",
                r"\fBusers\fR=<\fIu\fR>", ".RE", ".RE",
                ".TP", r"\fBupdate\fR <\fISPECIFICATION\fR>",
                ".TP", r"\fBupdate\fR <SuspendExc*>[=|+=|\-=]<\fILIST\fR>",
                ".TP", r"\fBwrite batch_script\fR <\fIjob_id\fR>"]
        subs, ents = cov.parse_scontrol_commands(body)
        self.assertEqual(subs, ["hold", "show", "update", "update SuspendExc*", "write batch_script"])
        self.assertEqual(ents, ["job", "assoc_mgr"])


class CSource(unittest.TestCase):
    SRC = """
static void helper(void) { }

extern int scontrol_update_x(int argc, char **argv)
{
	for (i = 0; i < argc; i++) {
		if (!xstrncasecmp(tag, "JobId", MAX(taglen, 3))) {
			a();
		} else if (!xstrncasecmp(tag, "NumTasks", MAX(taglen, 8)) ||
			   !xstrncasecmp(tag, "ReqProcs", MAX(taglen, 8))) {
			b();
		} else if (xstrncasecmp(tag, "Features", MAX(taglen, 1)) == 0 ||
			   !xstrncasecmp(tag, "AvailableFeatures",
					 MAX(taglen, 3))) {
			c();
		} else if (!xstrncasecmp(tag, "hold", 4)) {
			d();
		}
	}
}

static void other(void)
{
	if (!xstrncasecmp(tag, "NotHere", MAX(taglen, 1)))
		e();
}
"""

    def test_chain_and_branches(self):
        chain = cov.c_chain(cov.c_function(self.SRC, "scontrol_update_x"))
        self.assertEqual(chain, [["JobId", 3, "max", 0], ["NumTasks", 8, "max", 1],
                                 ["ReqProcs", 8, "max", 1], ["Features", 1, "max", 2],
                                 ["AvailableFeatures", 3, "max", 2], ["hold", 4, "fixed", 3]])

    def test_match_like_xstrncasecmp(self):
        chain = cov.c_chain(cov.c_function(self.SRC, "scontrol_update_x"))
        name = lambda t: (cov.chain_match(chain, t) or [None])[0]  # noqa: E731
        self.assertEqual(name("job"), "JobId")       # 3 letters are enough
        self.assertEqual(name("jobid"), "JobId")
        self.assertIsNone(name("jo"))                # too short
        self.assertIsNone(name("jobidx"))            # longer than the name
        self.assertEqual(name("numtasks"), "NumTasks")
        self.assertIsNone(name("NumTask"))           # needs 8
        self.assertEqual(name("f"), "Features")
        self.assertEqual(name("avail"), "AvailableFeatures")
        self.assertEqual(name("holdxyz"), "hold")    # a fixed length compares 4 characters


class BashText(unittest.TestCase):
    def test_simple_commands(self):
        cmds = cov.simple_commands(
            "cd sub && FOO=1 squeue -h -o '%i %T' 2>&1 | sort; export SQUEUE_SORT=i\n"
            "env SINFO_FORMAT=x sinfo -N >out.txt\n"
            "sbatch --parsable <<'EOF'\n#!/bin/bash\n#SBATCH -J x\nEOF\n"
            "squeue \\\n  --me")
        self.assertEqual([c["argv"] for c in cmds],
                         [["cd", "sub"], ["squeue", "-h", "-o", "%i %T"], ["sort"],
                          ["sinfo", "-N"], ["sbatch", "--parsable"], ["squeue", "--me"]])
        self.assertEqual(cmds[1]["env"], {"FOO": "1"})
        self.assertEqual(cmds[3]["env"], {"SQUEUE_SORT": "i", "SINFO_FORMAT": "x"})
        self.assertEqual(cmds[3]["stdout_file"], "out.txt")
        self.assertEqual(cmds[4]["stdin"], "#!/bin/bash\n#SBATCH -J x\n")
        self.assertEqual(cmds[5]["env"], {"SQUEUE_SORT": "i"})

    def test_sbatch_directives(self):
        script = ("#!/bin/bash\n#SBATCH -J 'two words' --hold\n# SBATCH --nice=9\n"
                  "#SBATCH -t 3 # a comment\n\necho hi\n#SBATCH -p late\n")
        self.assertEqual(cov.sbatch_directives(script), ["-J", "two words", "--hold", "-t", "3"])
        self.assertEqual(cov.sbatch_directives("echo no shebang\n#SBATCH -J x\n"), [])


class StepMatching(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(cov.cache_path(cov.DEFAULT_TAG)) as f:
            cls.raw = json.load(f)

    def items(self, *steps):
        """Names (`cmd name`, SLURM_CONF left out) exercised by the last of these steps."""
        m = cov.Matcher(cov.Checklist(self.raw))
        files = {}
        found = set()
        for k, text in enumerate(steps):
            found = m.step_items(text, files, f"t/{k:02d}")
        self.matcher = m
        return sorted(f"{i.cmd} {i.name}" for i in found if i.name != "SLURM_CONF")

    def test_short_clusters_long_values_and_abbreviations(self):
        self.assertEqual(self.items("sbatch -vN2 --time=5 --pars --wrap true"),
                         ["sbatch --parsable", "sbatch --wrap", "sbatch -N, --nodes",
                          "sbatch -t, --time", "sbatch -v, --verbose"])
        self.assertIn(("abbrev", "`sbatch --pars` read as `--parsable`"), self.matcher.notes)

    def test_an_unknown_or_ambiguous_option_counts_for_nothing(self):
        self.assertEqual(self.items("sbatch -J x --bogus --wrap true"), [])
        self.assertEqual(self.items("sbatch -J x --no --wrap true"), [])  # --no-kill, --no-requeue

    def test_an_argument_is_not_an_option(self):
        self.assertEqual(self.items("sinfo -N -o '%N %T' -S -T"),
                         ["sinfo -N, --Node", "sinfo -S, --sort", "sinfo -o, --format"])
        self.assertEqual(self.items("scancel -u root 2>&1 | sort"), ["scancel -u, --user"])

    def test_sbatch_stops_at_the_script_and_reads_its_directives(self):
        write = "cat > job.sh <<'EOS'\n#!/bin/bash\n#SBATCH --hold\n#SBATCH -t 5\ntrue\nEOS"
        self.assertEqual(self.items(write, "sbatch --parsable job.sh -J notanoption"),
                         ["sbatch --parsable", "sbatch -H, --hold", "sbatch -t, --time"])
        self.assertEqual(self.items("sbatch <<'EOF'\n#!/bin/sh\n#SBATCH -p debug\nEOF"),
                         ["sbatch -p, --partition"])
        self.assertEqual(self.items("sbatch <<'EOF'\n#!/bin/sh\n#SBATCH --bogus\nEOF"), [])

    def test_environment_variables(self):
        self.assertEqual(self.items("SBATCH_ACCOUNT=a SLURM_CLUSTERS=c sbatch --wrap true"),
                         ["sbatch --wrap", "sbatch SBATCH_ACCOUNT", "sbatch SBATCH_CLUSTERS, SLURM_CLUSTERS"])
        self.assertEqual(self.items("export SQUEUE_FORMAT='%i'; cd x && squeue"), ["squeue SQUEUE_FORMAT"])
        m = cov.Matcher(cov.Checklist(self.raw))
        found = m.step_items("squeue", {}, "t/01")
        self.assertEqual([i.name for i in found], ["SLURM_CONF"])  # the harness sets it

    def test_scontrol_words(self):
        self.assertEqual(self.items("scontrol update job=1 TimeLimit=30"),
                         ["scontrol JobId", "scontrol TimeLimit", "scontrol update"])
        self.assertEqual(self.items("scontrol -o show jobs 5"),
                         ["scontrol -o, --oneliner", "scontrol show", "scontrol show job"])
        self.assertEqual(self.items("scontrol show job 1 2"), ["scontrol show"])  # too many words
        self.assertEqual(self.items("scontrol update NodeName=n1 State=DRAIN Reason=x"),
                         ["scontrol NodeName", "scontrol Reason", "scontrol State", "scontrol update"])
        self.assertEqual(self.items("scontrol create reservation ReservationName=r StartTime=now Nodes=n1"),
                         ["scontrol Nodes", "scontrol ReservationName", "scontrol StartTime", "scontrol create"])
        self.assertEqual(self.items("scontrol delete reservation r1"),
                         ["scontrol ReservationName", "scontrol delete"])
        self.assertEqual(self.items("scontrol write batch_script 3 -"), ["scontrol write batch_script"])
        self.assertEqual(self.items("scontrol update JobId=2 Bogus=1"), ["scontrol JobId", "scontrol update"])
        self.assertEqual(self.items("scontrol bogus"), [])
        c = cov.Checklist(self.raw)
        m = cov.Matcher(c)
        keys = {(i.kind, i.name) for i in m.step_items("scontrol update PartitionName=p State=UP", {}, "t/1")}
        self.assertIn(("update key (partition)", "State"), keys)


class KnownDifferences(unittest.TestCase):
    def test_sections_and_states(self):
        md = "\n".join([
            "# Known differences", "## Spur vs Slurm", "| scenario | step | channels | reason |",
            "|---|---|---|---|", "| basic | 017 | stdout | Spur prints it differently. |",
            "| 22.05/errors | 57 | stdout | placement |",
            "## Slurm nondeterminism (two real Slurm runs can disagree here)",
            "| basic | 088 | stdout | exit code varies |",
            "## Timing-sensitive", "| scontrol | 106 | stdout | window |"])
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "K.md")
            with open(path, "w") as f:
                f.write(md)
            diff, other = cov.load_known(path)
        self.assertEqual(set(diff), {("24.11", "basic", 17), ("22.05", "errors", 57)})
        self.assertEqual(set(other), {("24.11", "basic", 88), ("24.11", "scontrol", 106)})
        it = cov.Item("squeue", "option", "-h, --noheader", None)
        self.assertEqual(cov.state(it, "24.11", diff), ("not", []))
        it.refs["24.11"] = {"basic/088", "scontrol/106"}
        self.assertEqual(cov.state(it, "24.11", diff), ("identical", []))
        it.refs["24.11"].add("basic/017")
        self.assertEqual(cov.state(it, "24.11", diff), ("different", ["basic/017"]))
        it.refs["22.05"] = {"errors/57"}
        self.assertEqual(cov.state(it, "22.05", diff), ("different", ["errors/57"]))


if __name__ == "__main__":
    unittest.main()
