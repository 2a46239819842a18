//! What a task's process does between its fork and its execve that is the
//! same for the batch script (`supervisor`, task 0 of the batch step) and a
//! step's tasks (`step`): the signal dispositions and mask back to the
//! defaults, the step's cgroup joined, the user's groups, gid, uid and umask
//! taken, the propagated resource limits set, `SLURM_TASK_PID` filled in,
//! and the exec. Where the two differ is around it: where the standard
//! streams come from (files opened as the user, or srun's pipes and
//! terminal), the session, and what is written when something fails.
//!
//! Everything is built before the fork ([`Identity`], the argument and
//! environment vectors); in the child only async-signal-safe system calls
//! are made on it: nothing allocates, nothing takes a lock (see
//! `supervisor`'s module doc).

use crate::track::Tracker;
use nix::errno::Errno;
use nix::sys::resource::Resource;
use nix::sys::signal::{self, SigSet, SigmaskHow};
use nix::sys::stat::Mode;
use nix::unistd::{self, Gid, Uid};
use std::ffi::CStr;
use std::os::fd::RawFd;

/// Who a task runs as, and with what.
pub(crate) struct Identity {
    pub(crate) uid: u32,
    pub(crate) gid: u32,
    pub(crate) groups: Vec<Gid>,
    /// Whether to take the identity (the daemon is root, the user another).
    pub(crate) switch_user: bool,
    pub(crate) umask: Mode,
    /// The resource limits the task starts with (the job's or srun's
    /// `SLURM_RLIMIT_*`), set just before its exec.
    pub(crate) rlimits: Vec<(Resource, u64, bool)>,
    /// The step cgroup's `cgroup.procs` to join (-1: none).
    pub(crate) cgroup_fd: RawFd,
}

impl Identity {
    /// First in the child: default dispositions for every signal that has
    /// one to restore, an empty mask, the step's cgroup joined.
    pub(crate) fn reset(&self) {
        for s in 1..32 {
            if s != libc::SIGKILL && s != libc::SIGSTOP {
                // SAFETY: SIG_DFL installs no handler; signal(2) is
                // async-signal-safe.
                unsafe {
                    libc::signal(s, libc::SIG_DFL);
                }
            }
        }
        let _ = signal::sigprocmask(SigmaskHow::SIG_SETMASK, Some(&SigSet::empty()), None);
        Tracker::join_in_child(self.cgroup_fd);
    }

    /// The user's groups, gid and uid when the daemon switches to them,
    /// then the umask; false when an id could not be taken.
    pub(crate) fn become_user(&self) -> bool {
        let ok = !self.switch_user
            || unistd::setgroups(&self.groups).is_ok()
                && unistd::setgid(Gid::from_raw(self.gid)).is_ok()
                && unistd::setuid(Uid::from_raw(self.uid)).is_ok();
        if ok {
            nix::sys::stat::umask(self.umask);
        }
        ok
    }

    /// Last in the child: the limits, the task's pid into its environment
    /// (`task_pid`: the index of `SLURM_TASK_PID=` in `envp` and a buffer for
    /// it), then execve. Returns only when that failed, with its errno.
    pub(crate) fn exec(
        &self,
        prog: &CStr,
        argv: &[*const libc::c_char],
        envp: &mut [*const libc::c_char],
        task_pid: &mut Option<(usize, [u8; 32])>,
    ) -> Errno {
        crate::supervisor::set_rlimits(&self.rlimits);
        if let Some((i, buf)) = task_pid {
            crate::supervisor::fill_task_pid(buf, unistd::getpid().as_raw() as u32);
            envp[*i] = buf.as_ptr().cast();
        }
        // SAFETY: `prog` is a C string; `argv` and `envp` are NULL-terminated
        // arrays of pointers to C strings the caller owns (the task pid's
        // buffer included), alive until execve replaces the process.
        unsafe {
            libc::execve(prog.as_ptr(), argv.as_ptr(), envp.as_ptr());
        }
        Errno::last()
    }
}
