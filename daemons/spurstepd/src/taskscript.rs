//! Task prologs and epilogs, as slurmstepd runs them (Slurm 24.11's
//! `task.c`, `mgr.c`, `run_command.c`; recorded/24.11/srun_stepopts):
//!
//! | | prolog (`TaskProlog`, then `--task-prolog`) | epilog (`--task-epilog`, then `TaskEpilog`) |
//! |---|---|---|
//! | when | before each task's exec; a failure ends the task with its status | after each task ends, before its exit is reported |
//! | as | the job's owner, in the task's working directory and environment, `SLURM_SCRIPT_CONTEXT=prolog_task` (left in the task's environment) | the same, `SLURM_SCRIPT_CONTEXT=epilog_task`; the prolog's changes are not seen |
//! | path | must be absolute and executable by the user (`run_command`), else `run_command: user task_prolog is not a fully qualified pathname (P)` / `can not be executed (P) ERRNO` and the task fails with 1 | executed as given (relative to the working directory); `execve(P): ERRNO` and status 127 when it cannot be |
//! | output | stdout and stderr read together: `export NAME=value` sets, `unset NAME` removes a variable of the task, `print TEXT` writes TEXT to the task's stdout, anything else is ignored | stdout discarded, stderr to the task's stderr |
//! | time | no limit | `--task-epilog` 5 s, then its process group is killed |
//! | errors | `user task_prolog did not exit normally. reason: R` (killed), `--task-prolog failed status=N` (`TaskProlog failed` for the configured one) | `TaskEpilog failed status=N` (`--task-epilog failed` for the configured one: Slurm's messages are swapped) |
//!
//! slurmstepd runs the prolog in the task's own child; here the step daemon
//! runs it just before forking the task, so that the task's child still
//! only makes async-signal-safe calls. As everywhere here, the script's
//! child makes only async-signal-safe calls on data built before the fork.

use crate::step::Common;
use crate::supervisor::{c_array, cstr};
use nix::errno::Errno;
use nix::sys::signal::{self, Signal};
use nix::unistd::{self, ForkResult, Pid};
use std::ffi::CString;
use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

/// A prolog's or epilog's owner: the cluster's (slurm.conf) or the user's (srun).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Origin {
    Conf,
    User,
}

/// What a prolog leaves for its task.
#[derive(Debug, Default, PartialEq)]
pub struct PrologResult {
    /// `print` lines, for the task's stdout.
    pub print: Vec<u8>,
    /// slurmstepd's error lines (without the `slurmstepd-NODE: error: `
    /// prefix) and the status the task ends with, when a prolog failed.
    pub failed: Option<(Vec<String>, i32)>,
}

/// Apply a task prolog's output to the task's environment (slurmstepd's
/// `_proc_stdout`); returns what `print` lines write to the task's stdout.
/// Lines are matched from their first byte: `export ` NAME (leading blanks
/// skipped, trailing ones dropped) `=` VALUE (the rest of the line, as is);
/// `unset ` NAME; `print ` TEXT (leading blanks skipped, the newline kept;
/// a last line without one writes a NUL byte in its place, as Slurm's does).
pub fn apply_output(out: &[u8], env: &mut Vec<(String, String)>) -> Vec<u8> {
    let mut printed = Vec::new();
    let mut rest = out;
    // (Slurm's buffer is a C string: it ends at the first NUL)
    if let Some(i) = rest.iter().position(|&b| b == 0) {
        rest = &rest[..i];
    }
    while !rest.is_empty() {
        let (line, nl) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => (&rest[..i], true),
            None => (rest, false),
        };
        rest = if nl { &rest[line.len() + 1..] } else { &[] };
        let trim_start = |s: &[u8]| -> usize { s.iter().take_while(|b| b.is_ascii_whitespace()).count() };
        if let Some(text) = line.strip_prefix(b"print ") {
            // (a line of blanks only: Slurm skips into the next line; here it stops at the line's end)
            let text = &text[trim_start(text).min(text.len())..];
            printed.extend_from_slice(text);
            printed.push(if nl { b'\n' } else { 0 });
        } else if let Some(def) = line.strip_prefix(b"export ") {
            let def = &def[trim_start(def)..];
            let Some(eq) = def.iter().position(|&b| b == b'=') else { continue };
            let name = String::from_utf8_lossy(def[..eq].trim_ascii_end()).into_owned();
            let value = String::from_utf8_lossy(&def[eq + 1..]).into_owned();
            spur_core::launch::env_set(env, &name, value);
        } else if let Some(name) = line.strip_prefix(b"unset ") {
            let name = name.trim_ascii();
            if name.is_empty() {
                continue;
            }
            let name = String::from_utf8_lossy(name);
            env.retain(|(k, _)| *k != name);
        }
    }
    printed
}

/// Run a task's prologs in order (the configured one, then srun's) in its
/// environment `env`, which their output changes.
pub fn run_prologs(scripts: &[(Origin, String)], env: &mut Vec<(String, String)>, c: &Common) -> PrologResult {
    let mut res = PrologResult::default();
    for (origin, path) in scripts {
        let (kind, failed) = match origin {
            Origin::Conf => ("slurm task_prolog", "TaskProlog failed"),
            Origin::User => ("user task_prolog", "--task-prolog failed"),
        };
        spur_core::launch::env_set(env, "SLURM_SCRIPT_CONTEXT", "prolog_task");
        let mut lines = Vec::new();
        // run_command's own checks: a configuration error is "not exited normally"
        let status = if !path.starts_with('/') {
            // (22.05 without the article: recorded/22.05/srun_stepopts/04)
            let a = if v22() { "" } else { "a " };
            lines.push(format!("run_command: {} is not {}fully qualified pathname ({})", kind, a, path));
            Err("Run command failed - configuration error".to_string())
        } else {
            let ran = run(path, env, c, Output::Both, None, true);
            if let Some(e) = ran.access {
                lines.push(format!("run_command: {} can not be executed ({}) {}", kind, path, e.desc()));
                Err("Run command failed - configuration error".to_string())
            } else if libc::WIFEXITED(ran.status) {
                res.print.extend(apply_output(&ran.output, env));
                Ok(libc::WEXITSTATUS(ran.status))
            } else {
                Err(String::from_utf8_lossy(&ran.output).into_owned())
            }
        };
        let rc = match status {
            Ok(rc) => rc,
            Err(reason) => {
                lines.push(format!("{} did not exit normally. reason: {}", kind, reason));
                1
            }
        };
        if rc != 0 {
            lines.push(format!("{} status={}", failed, rc));
            res.failed = Some((lines, rc));
            return res;
        }
    }
    res
}

/// Run a task's epilogs in order (srun's, then the configured one) in the
/// environment `env`; returns what goes to the task's stderr (the scripts'
/// stderr and slurmstepd's error lines, prefixed with `prefix`).
pub fn run_epilogs(scripts: &[(Origin, String)], env: &[(String, String)], c: &Common, prefix: &str) -> Vec<u8> {
    let mut env = env.to_vec();
    spur_core::launch::env_set(&mut env, "SLURM_SCRIPT_CONTEXT", "epilog_task");
    let mut err = Vec::new();
    for (origin, path) in scripts {
        let (limit, failed, kind) = match origin {
            Origin::User => (Some(Duration::from_secs(5)), "TaskEpilog failed", "user task_epilog"),
            Origin::Conf => (None, "--task-epilog failed", "slurm task_epilog"),
        };
        // 22.05 checks the path in the step daemon's own directory first and
        // reports the wait status whole (recorded/22.05/srun_stepopts/08-10)
        let v22 = v22();
        if v22 && unistd::access(path.as_str(), unistd::AccessFlags::R_OK | unistd::AccessFlags::X_OK).is_err() {
            err.extend_from_slice(format!("{}Could not run {} [{}]: access denied\n", prefix, kind, path).as_bytes());
            err.extend_from_slice(format!("{}{} status=-1\n", prefix, failed).as_bytes());
            continue;
        }
        let ran = run(path, &env, c, Output::Stderr, limit, false);
        err.extend_from_slice(&ran.output);
        let rc = match ran.exec {
            Some(e) => {
                err.extend_from_slice(format!("{}execve({}): {}\n", prefix, path, e.desc()).as_bytes());
                127
            }
            None if libc::WIFEXITED(ran.status) && !v22 => libc::WEXITSTATUS(ran.status),
            None => ran.status,
        };
        if rc != 0 {
            err.extend_from_slice(format!("{}{} status={}\n", prefix, failed, rc).as_bytes());
        }
    }
    err
}

fn v22() -> bool {
    spur_core::compat::release() == spur_core::compat::Release::V22_05
}

/// Which of the script's outputs are kept.
#[derive(Clone, Copy, PartialEq)]
enum Output {
    /// stdout and stderr together (a prolog's).
    Both,
    /// stderr only, stdout to /dev/null (an epilog's).
    Stderr,
}

struct Ran {
    /// The wait status.
    status: i32,
    output: Vec<u8>,
    /// access(2) refused the user the script (checked when asked).
    access: Option<Errno>,
    /// execve(2) failed.
    exec: Option<Errno>,
}

/// Run `path` as the step's user with `env` in the task's working
/// directory, its output kept as `out` says, killed (its process group)
/// after `limit`.
fn run(path: &str, env: &[(String, String)], c: &Common, out: Output, limit: Option<Duration>, check: bool) -> Ran {
    let failed = |e: Errno| Ran { status: 127 << 8, output: Vec::new(), access: None, exec: Some(e) };
    let prog = cstr(path);
    let argv_s = [cstr(path)];
    let argv = c_array(&argv_s);
    let envp_s: Vec<CString> = env.iter().map(|(k, v)| cstr(&format!("{}={}", k, v))).collect();
    let envp = c_array(&envp_s);
    let (Ok((out_r, out_w)), Ok((rep_r, rep_w))) = (pipe(), pipe()) else {
        return failed(Errno::EMFILE);
    };
    let null = match nix::fcntl::open(c"/dev/null", nix::fcntl::OFlag::O_RDWR, nix::sys::stat::Mode::empty()) {
        Ok(fd) => fd,
        Err(e) => return failed(e),
    };
    // SAFETY: the child makes only async-signal-safe calls (signal,
    // sigprocmask, setpgid, setgroups, setgid, setuid, umask, chdir, access,
    // dup2, execve, write, _exit) on data built before the fork.
    let child = match unsafe { unistd::fork() } {
        Ok(ForkResult::Child) => {
            #[cfg(test)]
            crate::alloc_guard::forked();
            let report = |tag: u8, e: Errno| {
                let mut b = [tag, 0, 0, 0, 0];
                b[1..].copy_from_slice(&(e as i32).to_le_bytes());
                let _ = unistd::write(&rep_w, &b);
            };
            // (as the task itself: in the step's cgroup, as the user)
            c.id.reset();
            let _ = unistd::setpgid(Pid::from_raw(0), Pid::from_raw(0));
            if !c.id.become_user() {
                // SAFETY: _exit(2) is async-signal-safe.
                unsafe { libc::_exit(127) }
            }
            if unistd::chdir(c.cwd.as_c_str()).is_err() {
                let _ = unistd::chdir(c"/tmp");
            }
            if check {
                if let Err(e) = unistd::access(prog.as_c_str(), unistd::AccessFlags::R_OK | unistd::AccessFlags::X_OK) {
                    report(1, e);
                    // SAFETY: _exit(2) is async-signal-safe.
                    unsafe { libc::_exit(127) }
                }
            }
            let stdout = if out == Output::Both { out_w.as_raw_fd() } else { null.as_raw_fd() };
            if unistd::dup2(null.as_raw_fd(), 0).is_err()
                || unistd::dup2(stdout, 1).is_err()
                || unistd::dup2(out_w.as_raw_fd(), 2).is_err()
            {
                // SAFETY: _exit(2) is async-signal-safe.
                unsafe { libc::_exit(127) }
            }
            // SAFETY: `prog` is a C string; `argv` and `envp` are
            // NULL-terminated arrays of pointers to C strings alive until execve.
            unsafe {
                libc::execve(prog.as_ptr(), argv.as_ptr(), envp.as_ptr());
            }
            report(2, Errno::last());
            // SAFETY: _exit(2) is async-signal-safe.
            unsafe { libc::_exit(127) }
        }
        Ok(ForkResult::Parent { child }) => child,
        Err(e) => return failed(e),
    };
    drop((out_w, rep_w, null));
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = std::fs::File::from(out_r).read_to_end(&mut buf);
        buf
    });
    let status = wait(child, limit);
    // what the script left behind in its group goes with it (as slurmstepd's killpg)
    let _ = signal::killpg(child, Signal::SIGKILL);
    let output = reader.join().unwrap_or_default();
    let mut rep = Vec::new();
    let _ = std::fs::File::from(rep_r).read_to_end(&mut rep);
    let errno = rep.get(1..5).and_then(|b| b.try_into().ok()).map(|b| Errno::from_raw(i32::from_le_bytes(b)));
    Ran {
        status,
        output,
        access: errno.filter(|_| rep.first() == Some(&1)),
        exec: errno.filter(|_| rep.first() == Some(&2)),
    }
}

/// The wait status of `child`, killed (its process group) once `limit` has passed.
fn wait(child: Pid, limit: Option<Duration>) -> i32 {
    let start = Instant::now();
    let mut killed = false;
    loop {
        let mut status = 0;
        let flags = if limit.is_some() && !killed { libc::WNOHANG } else { 0 };
        // SAFETY: waitpid writes to the valid pointer given.
        let r = unsafe { libc::waitpid(child.as_raw(), &mut status, flags) };
        if r == child.as_raw() {
            return status;
        }
        if r < 0 && Errno::last() != Errno::EINTR {
            return 0;
        }
        if r == 0 {
            if limit.is_some_and(|l| start.elapsed() >= l) {
                let _ = signal::killpg(child, Signal::SIGKILL);
                killed = true;
            } else {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}

fn pipe() -> nix::Result<(OwnedFd, OwnedFd)> {
    unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn prolog_output_sets_unsets_and_prints() {
        let mut e = env(&[("KEEP", "1"), ("UNSET_ME", "x")]);
        let out = b"export TP_VAR=from_prolog_0\nexport  SPACED =a b\nunset UNSET_ME \nprint   hello world\n\
                    junk line\nexport NOEQUALS\nunset \nexport KEEP=2\n";
        let printed = apply_output(out, &mut e);
        assert_eq!(printed, b"hello world\n");
        assert_eq!(e, env(&[("KEEP", "2"), ("TP_VAR", "from_prolog_0"), ("SPACED", "a b")]));
        // a last line without a newline: the value runs to the end, print writes a NUL
        let mut e = vec![];
        assert_eq!(apply_output(b"export A=1\nprint x", &mut e), b"x\0");
        assert_eq!(apply_output(b"Export B=1\n print y\nexport C=2", &mut e), b"");
        assert_eq!(e, env(&[("A", "1"), ("C", "2")]));
    }
}
