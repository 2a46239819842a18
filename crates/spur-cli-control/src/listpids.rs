//! `scontrol listpids [JOBID[.STEP]] [NODENAME]`, as Slurm 24.11's scontrol
//! (`scontrol_list_pids`): it runs on a compute node and asks the step
//! daemons of one node. In Spur a step daemon records its tasks in its
//! step's spool directory (`spur_spool::step_pids`), so the node's
//! `SlurmdSpoolDir` is read: NODENAME's, or without one the node whose
//! NodeHostname (or name) is this host, else the host name itself (Slurm's
//! `_guess_nodename`). Several agents on one host (tests, the demo) are told
//! apart by NODENAME.
//!
//! What Slurm prints:
//! - the header `PID      JOBID    STEPID   LOCALID GLOBALID`, then per step
//!   its running tasks (`%-8d %-8d %-8s %-7d %-8d ` with a space at the end
//!   of each line), then the rest of the step's processes, `-` for both ids
//!   (with a cgroup the step daemon first, as proctrack/cgroup lists it;
//!   without, what descends from it, as proctrack/linuxproc);
//! - a spool directory that does not exist: `scontrol: error: Domain socket
//!   directory DIR: No such file or directory`, and then as without steps;
//! - no step at all: `No job steps exist on this node.` (no job named), or
//!   `JobId=J does not exist on node NODE.` / `StepId=J.S ...` (NODE as given,
//!   `(null)` when none was); steps, none of the job: `There are no steps for
//!   job J on node NODE.` (`StepId=J.S does not exist on node NODE.` for a
//!   step); each exits 1 with nothing on stdout;
//! - `"X" does not look like a jobid` (X the part before the dot) exits 1;
//!   `"X.Y" does not look like a stepid` exits 0 and prints the header alone
//!   (scontrol's parse of the step fails without setting its exit code).
//!
//! Checked against Slurm 24.11.5 (proctrack/linuxproc, one node `cn01`):
//! `listpids`, `listpids 1`, `listpids 1.0 cn01` print the same four lines
//! (two tasks, two daemons they started with setsid) after the header;
//! `listpids 1.5 cn01`, `99`, `99 cn01`, `1.x`, `1.batch` and `abc.1` give
//! the messages and codes above.
//!
//! Only the job's owner and root see a job's steps: the step's `tasks` file
//! is the owner's, mode 0600; another user's steps are left out, as if they
//! did not run there. A batch job's `batch` step (its script, task 0, and
//! what it started: its sruns, their children) is listed from the job
//! directory's `tasks` file, which the batch supervisor writes the same way.

use spur_cli_base::output::Output;
use spur_core::config::SlurmConf;
use spur_core::model::{step_label, BATCH_STEP};
use std::path::Path;

/// The job, and the step when one is named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Want {
    pub job: u32,
    pub step: Option<u32>,
}

/// What the argument names: all steps (`None`: no argument or `*`), a job
/// or a step; `Err` is scontrol's answer to one it cannot read.
pub fn parse(arg: Option<&str>) -> Result<Option<Want>, Output> {
    let Some(a) = arg.filter(|a| !a.starts_with('*')) else {
        return Ok(None);
    };
    let (job, step) = match a.split_once('.') {
        Some((j, s)) => (j, Some(s)),
        None => (a, None),
    };
    let jnum = spur_grammar::num::strtol(job, 10);
    if !job[jnum.end..].trim().is_empty() {
        return Err(Output::err(format!("\"{}\" does not look like a jobid\n", job), 1));
    }
    let step = match step {
        None => None,
        Some(s) => {
            let n = spur_grammar::num::strtol(s, 10);
            // a heterogeneous component (`+N`) is read and ignored
            let rest = match s[n.end..].strip_prefix('+') {
                Some(r) => &r[spur_grammar::num::strtol(r, 10).end..],
                None => &s[n.end..],
            };
            if !rest.trim().is_empty() {
                let mut o = Output::err(format!("\"{}\" does not look like a stepid\n", a), 0);
                o.stdout = header();
                return Err(o);
            }
            Some(n.value as u32)
        }
    };
    Ok(Some(Want { job: jnum.value as u32, step }))
}

fn header() -> String {
    format!("{:<8} {:<8} {:<8} {:<7} {:<8}\n", "PID", "JOBID", "STEPID", "LOCALID", "GLOBALID")
}

/// The node whose step daemons are asked: the one named, else the first
/// whose NodeHostname (or name) is `host`, else `host`.
pub fn node_of_host(conf: &SlurmConf, host: &str) -> String {
    conf.nodes
        .iter()
        .find(|n| n.hostname == host || n.name == host)
        .map(|n| n.name.clone())
        .unwrap_or_else(|| host.to_string())
}

/// `scontrol listpids`: `want` as [`parse`] read it, `node` as given.
pub fn listpids(conf: &SlurmConf, want: Option<Want>, node: Option<&str>, host: &str) -> Output {
    let name = node.map(str::to_string).unwrap_or_else(|| node_of_host(conf, host));
    let spool = if conf.node(&name).is_some() {
        conf.spool_dir_for(&name)
    } else {
        spur_core::config::expand_node_pattern(&conf.slurmd_spool_dir, &name, host)
    };
    let shown = node.unwrap_or("(null)");
    let mut o = Output::ok("");
    if !Path::new(&spool).is_dir() {
        o.stderr = format!("scontrol: error: Domain socket directory {}: No such file or directory\n", spool);
    }
    // every step of this node the caller may see: the steps' directories
    // and the batch steps' (the job directories), in step id order
    let mut dirs = spur_spool::step_dirs(Path::new(&spool));
    dirs.extend(spur_spool::job_dirs(Path::new(&spool)).into_iter().map(|(j, d)| (j, BATCH_STEP, d)));
    dirs.sort();
    let steps: Vec<(u32, u32, spur_spool::StepPids)> =
        dirs.into_iter().filter_map(|(j, s, dir)| spur_spool::step_pids(&dir).map(|p| (j, s, p))).collect();
    let label = |w: &Want| match w.step {
        Some(s) => format!("StepId={}", step_label(&w.job.to_string(), s)),
        None => format!("JobId={}", w.job),
    };
    if steps.is_empty() {
        o.stderr.push_str(&match &want {
            None => "No job steps exist on this node.\n".to_string(),
            Some(w) => format!("{} does not exist on node {}.\n", label(w), shown),
        });
        o.code = 1;
        return o;
    }
    let chosen: Vec<&(u32, u32, spur_spool::StepPids)> =
        steps.iter().filter(|(j, s, _)| want.is_none_or(|w| w.job == *j && w.step.is_none_or(|ws| ws == *s))).collect();
    if let Some(w) = &want {
        if chosen.is_empty() {
            o.stderr.push_str(&match w.step {
                Some(_) => format!("{} does not exist on node {}.\n", label(w), shown),
                None => format!("There are no steps for job {} on node {}.\n", w.job, shown),
            });
            o.code = 1;
            return o;
        }
    }
    let mut out = header();
    for (j, s, p) in chosen {
        let step = step_label("", *s);
        let step = step.trim_start_matches('.');
        for (pid, local, global) in &p.tasks {
            out.push_str(&format!("{:<8} {:<8} {:<8} {:<7} {:<8} \n", pid, j, step, local, global));
        }
        for pid in &p.others {
            out.push_str(&format!("{:<8} {:<8} {:<8} {:<7} {:<8} \n", pid, j, step, "-", "-"));
        }
    }
    o.stdout = out;
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_as_scontrol_reads_them() {
        assert_eq!(parse(None).unwrap(), None);
        assert_eq!(parse(Some("*")).unwrap(), None);
        assert_eq!(parse(Some("12")).unwrap(), Some(Want { job: 12, step: None }));
        assert_eq!(parse(Some("12.3")).unwrap(), Some(Want { job: 12, step: Some(3) }));
        assert_eq!(parse(Some("12.3+1")).unwrap(), Some(Want { job: 12, step: Some(3) }));
        let e = parse(Some("abc")).unwrap_err();
        assert_eq!((e.stderr.as_str(), e.code), ("\"abc\" does not look like a jobid\n", 1));
        let e = parse(Some("1x.2")).unwrap_err();
        assert_eq!(e.stderr, "\"1x\" does not look like a jobid\n");
        let e = parse(Some("12.batch")).unwrap_err();
        assert_eq!((e.stderr.as_str(), e.code), ("\"12.batch\" does not look like a stepid\n", 0));
        assert_eq!(e.stdout, "PID      JOBID    STEPID   LOCALID GLOBALID\n");
    }

    #[test]
    fn no_spool_no_steps() {
        let text = "ClusterName=c1\nSlurmctldHost=h\nSlurmdSpoolDir=/nonexistent/spool.%n\n";
        let conf = spur_core::config::parse_str(text, Path::new("/nonexistent/slurm.conf")).unwrap();
        let o = listpids(&conf, Some(Want { job: 5, step: None }), None, "vm");
        assert_eq!(
            (o.stdout.as_str(), o.stderr.as_str(), o.code),
            (
                "",
                "scontrol: error: Domain socket directory /nonexistent/spool.vm: No such file or directory\nJobId=5 does not exist on node (null).\n",
                1
            )
        );
        let o = listpids(&conf, Some(Want { job: 5, step: Some(0) }), Some("n1"), "vm");
        assert!(o.stderr.ends_with("StepId=5.0 does not exist on node n1.\n"), "{}", o.stderr);
        let o = listpids(&conf, None, Some("n1"), "vm");
        assert!(o.stderr.ends_with("\nNo job steps exist on this node.\n"), "{}", o.stderr);
    }
}
