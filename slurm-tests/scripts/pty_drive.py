#!/usr/bin/env python3
"""Run a command under a pseudo-terminal and drive it like a user at a
terminal: `pty_drive.py SCRIPT -- CMD ARGS...`, where SCRIPT is a JSON list
of steps, each `["send", TEXT]`, `["expect", TEXT, SECONDS]` (wait until the
terminal output so far contains TEXT) or `["sleep", SECONDS]`. Prints the
whole terminal output, then a last line `EXIT <code>` (128+signal for a
signal); a failed expect prints `EXPECT-FAILED <text>` and ends the command."""
import json, os, pty, select, signal, sys, time

def main():
    i = sys.argv.index("--")
    steps = json.loads(sys.argv[1])
    cmd = sys.argv[i + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    out = b""

    def pump(timeout):
        nonlocal out
        end = time.time() + timeout
        while True:
            left = end - time.time()
            if left <= 0:
                return
            r, _, _ = select.select([fd], [], [], left)
            if not r:
                return
            try:
                b = os.read(fd, 4096)
            except OSError:
                return
            if not b:
                return
            out += b
            return

    failed = None
    for st in steps:
        if st[0] == "send":
            os.write(fd, st[1].encode())
        elif st[0] == "sleep":
            end = time.time() + st[1]
            while time.time() < end:
                pump(end - time.time())
        elif st[0] == "expect":
            end = time.time() + st[2]
            while st[1].encode() not in out and time.time() < end:
                pump(min(0.2, max(0.0, end - time.time())))
            if st[1].encode() not in out:
                failed = st[1]
                break
    if failed is not None:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    # the rest of the output, until the command ends
    end = time.time() + 60
    code = None
    while time.time() < end:
        pump(0.2)
        wpid, status = os.waitpid(pid, os.WNOHANG)
        if wpid == pid:
            code = os.waitstatus_to_exitcode(status)
            break
    while True:
        r, _, _ = select.select([fd], [], [], 0.2)
        if not r:
            break
        try:
            b = os.read(fd, 4096)
        except OSError:
            break
        if not b:
            break
        out += b
    sys.stdout.write(out.decode(errors="replace"))
    if failed is not None:
        sys.stdout.write("\nEXPECT-FAILED %s\n" % failed)
    if code is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        code = -9
    if code < 0:
        code = 128 - code
    sys.stdout.write("\nEXIT %d\n" % code)

main()
