//! The library's account of its symbols, for scripts/compat-table.py:
//! one line per function, `NAME<TAB>declared|internal<TAB>served|unserved`
//! (declared: in the release's slurm.h/slurmdb.h/slurm_errno.h; served: a
//! real implementation; unserved: exported to fail with ESLURM_NOT_SUPPORTED).

fn main() {
    use spur_compat::unserved::{DECLARED, SERVED, UNSERVED};
    println!("# Slurm {} ({})", spur_compat::sys::RELEASE, spur_compat::sys::SONAME);
    for name in DECLARED {
        let how = if SERVED.binary_search(name).is_ok() { "served" } else { "unserved" };
        println!("{}\tdeclared\t{}", name, how);
    }
    for name in SERVED.iter().filter(|n| DECLARED.binary_search(n).is_err()) {
        println!("{}\tinternal\tserved", name);
    }
    debug_assert!(UNSERVED.iter().all(|u| DECLARED.binary_search(u).is_ok()));
}
