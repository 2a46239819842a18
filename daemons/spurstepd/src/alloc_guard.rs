//! Test builds only: the global allocator ends a forked supervisor child
//! that allocates (or frees) before its execve, with [`ALLOCATED`] as its
//! exit code and a line on its stderr. The supervisor tests run the real
//! `run()` through every path of the child (exec, exec failure, chdir
//! failure, missing output directory), so an allocation there fails them.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};

/// Exit code of a child that allocated between fork and execve.
pub const ALLOCATED: i32 = 97;

static IN_CHILD: AtomicBool = AtomicBool::new(false);

/// Called by the child right after fork.
pub fn forked() {
    IN_CHILD.store(true, Ordering::SeqCst);
}

fn check() {
    if IN_CHILD.load(Ordering::SeqCst) {
        let _ = nix::unistd::write(std::io::stderr(), b"spurstepd: allocation between fork and execve\n");
        // SAFETY: _exit(2) is async-signal-safe and runs no exit handler.
        unsafe { libc::_exit(ALLOCATED) }
    }
}

struct Guard;

// SAFETY: every method forwards its arguments unchanged to the system
// allocator, after a check that allocates nothing.
unsafe impl GlobalAlloc for Guard {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        check();
        // SAFETY: the caller's guarantees for `layout` are System's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        check();
        // SAFETY: as for alloc.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        check();
        // SAFETY: `ptr` came from System with this layout (every allocation
        // of this process goes through Guard to System).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        check();
        // SAFETY: as for dealloc.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GUARD: Guard = Guard;

#[test]
fn an_allocation_after_fork_ends_the_child() {
    use nix::sys::wait::{waitpid, WaitStatus};
    use nix::unistd::{fork, ForkResult};
    // SAFETY: the child only sets a flag and allocates, which the guard
    // turns into write(2) and _exit(2) before the allocator is entered.
    match unsafe { fork() }.unwrap() {
        ForkResult::Child => {
            forked();
            let v = std::hint::black_box(vec![1u8; 64]);
            // not reached
            // SAFETY: as above.
            unsafe { libc::_exit(v.len() as i32) }
        }
        ForkResult::Parent { child } => {
            assert_eq!(waitpid(child, None).unwrap(), WaitStatus::Exited(child, ALLOCATED));
        }
    }
}
