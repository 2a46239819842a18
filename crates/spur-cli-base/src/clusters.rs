//! `-M/--clusters` and `SLURM_CLUSTERS`: Slurm resolves cluster names through
//! slurmdbd (`slurmdb_get_info_cluster`), and a cluster without one (Spur
//! has no accounting database) cannot resolve any name, its own included.
//! squeue, sinfo and scancel then print two errors and exit 1
//! (recorded/24.11/query_surface and recorded/22.05/query_surface:
//! `squeue -M spur`, `sinfo -M nosuch`, `-M all`, `SLURM_CLUSTERS=spur`,
//! `scancel -M nosuch`): the database's, then common/proc_args.c's
//! `print_db_notok`, which names `--cluster` or `SLURM_CLUSTERS` (scancel
//! says `--cluster` for both). 24.11 then ends with `fatal: Could not get
//! cluster information` and names `--cluster` for the variable as well
//! (`Profile::clusters_error_fatal`).

use crate::output::Output;

/// What `prog` prints for the cluster list `names` it cannot resolve;
/// `from_env` when the list came from `SLURM_CLUSTERS`.
pub fn unreachable(prog: &str, names: &str, from_env: bool) -> Output {
    let fatal = spur_core::compat::profile().clusters_error_fatal;
    let from_env = from_env && !fatal;
    let second = if names.eq_ignore_ascii_case("all") {
        "No clusters can be reached now. Contact your admin to resolve the problem.".to_string()
    } else {
        format!(
            "'{}' can't be reached now, or it is an invalid entry for {}.  Use 'sacctmgr list clusters' to see available clusters.",
            names,
            if from_env { "SLURM_CLUSTERS" } else { "--cluster" }
        )
    };
    let mut text = format!("{prog}: error: Problem talking to database\n{prog}: error: {second}\n");
    if fatal {
        text.push_str(&format!("{prog}: fatal: Could not get cluster information\n"));
    }
    Output::err(text, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts() {
        // 24.11 (recorded/24.11/query_surface/029, 104)
        assert_eq!(
            unreachable("squeue", "spur", false).stderr,
            "squeue: error: Problem talking to database\nsqueue: error: 'spur' can't be reached now, or it is an invalid entry for --cluster.  Use 'sacctmgr list clusters' to see available clusters.\nsqueue: fatal: Could not get cluster information\n"
        );
        assert!(unreachable("sinfo", "nosuch", true).stderr.contains("invalid entry for --cluster."));
        assert!(unreachable("sinfo", "ALL", false)
            .stderr
            .contains("No clusters can be reached now. Contact your admin to resolve the problem.\n"));
        assert_eq!(unreachable("scancel", "x", false).code, 1);
    }
}
