"""Tests of the conformance harness itself: `python3 -m unittest discover -s conformance/tests`.

The replay must never read as a pass when it could not run, and the scenario
runner's waits must poll their condition and report a timeout.
"""

import glob
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CONF = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(CONF, "lib"))

import scenario as scn  # noqa: E402


def replay(*args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([sys.executable, os.path.join(CONF, "replay"), *args],
                       capture_output=True, text=True, env=e, timeout=120)
    return p.returncode, p.stdout, p.stderr


class ReplayHarnessErrors(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.missing = os.path.join(self.tmp.name, "no-such-spur")

    def tearDown(self):
        self.tmp.cleanup()

    def test_a_missing_binary_fails_every_step_and_exits_2(self):
        steps = len(glob.glob(os.path.join(CONF, "recorded", "24.11", "job_ids", "*.cmd")))
        self.assertGreater(steps, 0)
        for extra in ([], ["--allow-fail"]):
            rc, out, err = replay("job_ids", *extra, env={"SPUR_BIN": self.missing})
            self.assertEqual(rc, 2, out + err)
            self.assertIn(f"==== HARNESS ERROR: job_ids: no Spur binary at {self.missing}", out)
            self.assertEqual(out.rstrip("\n").splitlines()[-1], f"0 passed, {steps} failed")

    def test_a_directory_is_not_a_binary(self):
        rc, out, _ = replay("job_ids", env={"SPUR_BIN": self.tmp.name})
        self.assertEqual(rc, 2)
        self.assertIn("no Spur binary at", out)

    def test_no_scenario_is_an_error(self):
        rc, out, _ = replay("--recorded", self.tmp.name, env={"SPUR_BIN": self.missing})
        self.assertEqual(rc, 2)
        self.assertIn("HARNESS ERROR: no scenario to replay", out)

    def test_an_unknown_scenario_is_an_error(self):
        rc, out, _ = replay("no_such_scenario", env={"SPUR_BIN": self.missing})
        self.assertEqual(rc, 2)
        self.assertIn("HARNESS ERROR: no_such_scenario", out)

    def test_nothing_to_compare_is_an_error(self):
        steps = len(glob.glob(os.path.join(CONF, "recorded", "24.11", "job_ids", "*.cmd")))
        rc, out, _ = replay("job_ids", "--compare-only", self.tmp.name)
        self.assertEqual(rc, 2)
        self.assertEqual(out.rstrip("\n").splitlines()[-1], f"0 passed, {steps} failed")


class FakeExecutor:
    """Answers `run` with the exit codes given, in turn (the last one repeats)."""

    def __init__(self, codes):
        self.codes, self.cmds = list(codes), []

    def run(self, text, user):
        self.cmds.append(text)
        rc = self.codes.pop(0) if len(self.codes) > 1 else self.codes[0]
        return b"", b"", rc

    def read_file(self, path):
        return None


class WaitUntil(unittest.TestCase):
    def scenario(self, text):
        with tempfile.NamedTemporaryFile("w", suffix=".scn", delete=False) as f:
            f.write(text)
        try:
            return scn.parse(f.name)
        finally:
            os.unlink(f.name)

    def test_parsed_as_an_unrecorded_step_with_its_options(self):
        sc = self.scenario("run capture=J sbatch x\nwait_until timeout=3 grep -qx started out-$J.txt\nrun squeue\n")
        kinds = [(s.id, s.kind, s.records) for s in sc.steps]
        self.assertEqual(kinds, [("01", "run", True), ("02", "wait_until", False), ("03", "run", True)])
        self.assertEqual(sc.steps[1].opts, {"timeout": "3"})
        self.assertEqual(sc.steps[1].text, "grep -qx started out-$J.txt")
        with self.assertRaises(scn.ScenarioError):
            self.scenario("wait_until\n")

    def test_polls_until_the_command_succeeds(self):
        sc = self.scenario("wait_until test -e $X\n")
        ex = FakeExecutor([1, 1, 0])
        r = scn.Runner(ex, sc)
        r.captures["X"] = "f1"
        self.assertEqual(list(r.run()), [])
        self.assertEqual(ex.cmds, ["test -e f1"] * 3)
        self.assertEqual(r.wait_timeouts, [])

    def test_a_timeout_is_reported(self):
        sc = self.scenario("wait_until timeout=0.3 false\n")
        r = scn.Runner(FakeExecutor([1]), sc, log=lambda m: None, soft_waits=True)
        list(r.run())
        self.assertEqual(len(r.wait_timeouts), 1)
        self.assertIn("`false` still exits 1", r.wait_timeouts[0])
        # when recording, it stops the scenario
        with self.assertRaises(scn.ScenarioError):
            list(scn.Runner(FakeExecutor([1]), sc).run())


class Scenarios(unittest.TestCase):
    def test_every_scenario_parses_and_matches_its_recording(self):
        for path in sorted(glob.glob(os.path.join(CONF, "scenarios", "*.scn"))):
            sc = scn.parse(path)
            for version in ("24.11", "22.05"):
                rec = os.path.join(CONF, "recorded", version, sc.name)
                if not os.path.isdir(rec):
                    continue
                want = sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(rec, "*.cmd")))
                have = [s.id for s in sc.steps if s.records]
                self.assertEqual(have, want, f"{sc.name}: the steps and {rec} disagree (re-record?)")


class TimeColumns(unittest.TestCase):
    """R4b masks the elapsed time under squeue's TIME header, of jobs and of steps."""

    def test_job_and_step_tables(self):
        import normalize
        jobs = "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n" \
               "                 1     debug    alpha     root  R       0:14      1 node1\n"
        self.assertIn("       N:NN      1 node1", normalize._time_columns(jobs))
        steps = "         STEPID     NAME PARTITION     USER      TIME NODELIST\n" \
                "        1.batch    batch     debug     root      0:12 node1\n"
        self.assertIn("     root      N:NN node1", normalize._time_columns(steps))
        other = "NODELIST TIME\nnode1 0:12\n"
        self.assertEqual(normalize._time_columns(other), other)

    def test_squeue_verbose_update_time(self):
        import normalize
        out = normalize.normalize(b"last_update_time=1796152363 records=5\n", {})
        self.assertEqual(out, "last_update_time=<EPOCH> records=5\n")


class MachineLimits(unittest.TestCase):
    """R6: the machine's process limit, which follows its memory."""

    def test_nproc(self):
        import normalize
        out = normalize.normalize(b"sbatch: debug:  propagating RLIMIT_NPROC=96363\nSLURM_RLIMIT_NPROC=12\n", {})
        self.assertEqual(out, "sbatch: debug:  propagating RLIMIT_NPROC=<NPROC>\nSLURM_RLIMIT_NPROC=<NPROC>\n")


class SrunRules(unittest.TestCase):
    """R5: srun's ports in the task environment and its pid in scontrol show step."""

    def test_ports_and_pids(self):
        import normalize
        env = b"0: SLURM_SRUN_COMM_PORT=43427\n0: SLURM_STEP_LAUNCHER_PORT=43427\n0: SLURM_TASK_PID=3948\n"
        self.assertEqual(normalize.normalize(env, {}), "0: SLURM_SRUN_COMM_PORT=<PORT>\n"
                         "0: SLURM_STEP_LAUNCHER_PORT=<PORT>\n0: SLURM_TASK_PID=<PID>\n")
        step = b"   CPUFreqReq=Default Dist=Block\n   SrunHost:Pid=vm:16096\n"
        self.assertEqual(normalize.normalize(step, {"hostname": "vm"}),
                         "   CPUFreqReq=Default Dist=Block\n   SrunHost:Pid=<HOST>:<PID>\n")
        batch = b"   SrunHost:Pid=(null):0\n"
        self.assertEqual(normalize.normalize(batch, {}), batch.decode())


if __name__ == "__main__":
    unittest.main()


class AccountingTables(unittest.TestCase):
    """R8: time used, clock readings and usage figures in sacct/sstat tables, by column,
    in the accounting scenarios only."""

    CTX = {"scenario": "sacct"}

    def test_fixed_width_cells_keep_width_and_emptiness(self):
        import normalize
        t = ("JobID            MaxRSS    Elapsed      State \n"
             "------------ ---------- ---------- ---------- \n"
             "15                        00:00:05  COMPLETED \n"
             "15.0            110692K   00:00:04  COMPLETED \n")
        self.assertEqual(normalize.normalize(t, self.CTX),
                         "JobID            MaxRSS    Elapsed      State \n"
                         "------------ ---------- ---------- ---------- \n"
                         "15                        NN:NN:NN  COMPLETED \n"
                         "15.0          <N><SIZE>   NN:NN:NN  COMPLETED \n")

    def test_parsable_and_other_scenarios(self):
        import normalize
        t = "JobID|MaxRSS|TotalCPU|ExitCode\n15.0|108.10M|00:00.055|0:0\n15||00:00.064|3:0\n"
        self.assertEqual(normalize.normalize(t, self.CTX),
                         "JobID|MaxRSS|TotalCPU|ExitCode\n15.0|<N><SIZE>|NN:NN.NNN|0:0\n15||NN:NN.NNN|3:0\n")
        # (a size's unit depends on whether it is a multiple of 512K: both read the same)
        self.assertEqual(normalize.normalize("JobID|MaxVMSize\n1.batch|483.50M\n", self.CTX),
                         normalize.normalize("JobID|MaxVMSize\n1.batch|219220K\n", self.CTX))
        self.assertEqual(normalize.normalize(t, {"scenario": "steps"}), t)
        f = "JobID|AveCPUFreq\n1.batch|0\n1.0|2.60M\n1.1|\n"
        self.assertEqual(normalize.normalize(f, self.CTX), "JobID|AveCPUFreq\n1.batch|<FREQ>\n1.0|<FREQ>\n1.1|\n")
        # a table without such a column, and a header-less one, are left alone
        b = "JobID|State|ExitCode\n1|TIMEOUT|0:0\n"
        self.assertEqual(normalize.normalize(b, self.CTX), b)


class AccountingHeader(unittest.TestCase):
    def test_accounting_adds_the_conf_lines(self):
        with tempfile.NamedTemporaryFile("w", suffix=".scn", delete=False) as f:
            f.write("cluster nodes=2\naccounting\nconf JobAcctGatherFrequency=5\nrun sacct\n")
        try:
            sc = scn.parse(f.name)
        finally:
            os.unlink(f.name)
        self.assertTrue(sc.shape["accounting"])
        self.assertEqual(sc.shape["conf"], list(scn.ACCOUNTING_CONF) + ["JobAcctGatherFrequency=5"])
        import slurmchroot
        conf = slurmchroot.gen_conf(sc.shape, "/c", 47800, "h")
        self.assertIn("AccountingStoragePort=47891\n", conf)
        self.assertNotIn("accounting_storage/none", conf)
        self.assertEqual(conf.count("JobAcctGatherFrequency="), 2)   # both conf lines, in order
