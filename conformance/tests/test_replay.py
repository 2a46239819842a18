"""Tests of the conformance harness itself: `python3 -m unittest discover -s conformance/tests`.

The replay must never read as a pass when it could not run.
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


if __name__ == "__main__":
    unittest.main()
