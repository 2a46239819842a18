//! Issue 12 (MPI), as far as it is built: `srun --mpi=pmi2` serves the PMI
//! wire protocol on each task's `PMI_FD`, PMI-2 and PMI-1, its fences meeting
//! at srun across nodes. On a two-node cluster, as the unprivileged test
//! user: raw PMI-2 and PMI-1 clients (`scripts/pmi_client.py`: a value with
//! `;` comes back whole, the process mapping is Slurm's) and an unmodified
//! MPICH program (`scripts/mpi_hello.c`, built with `mpicc.mpich`: MPI_Init,
//! an Allreduce of the ranks) over both nodes.

use slurm_tests::*;
use std::path::Path;

#[test]
fn pmi2_and_mpich() {
    let c = Cluster::up("mpi", 2, &["--cpus", "4", "--memory", "2000"]);
    pmi_clients(&c);
    mpich_hello(&c);
    let log = c.ctld_log();
    assert!(!log.contains("panicked"), "{}", log);
}

fn script(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts").join(name).display().to_string()
}

fn sorted(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.lines().map(String::from).collect();
    v.sort();
    v
}

fn pmi_clients(c: &Cluster) {
    let client = script("pmi_client.py");
    let o = c.run_as(TEST_USER, "srun", &["-N2", "-n3", "--mpi=pmi2", "python3", &client, "2"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let mapping = "(vector,(0,1,2),(1,1,1))";
    assert_eq!(
        sorted(&o.stdout),
        [
            format!("rank 0 of 3: k1=v1;with;semicolons on node1, {}", mapping),
            format!("rank 1 of 3: k2=v2;with;semicolons on node1, {}", mapping),
            format!("rank 2 of 3: k0=v0;with;semicolons on node2, {}", mapping),
        ],
        "{}",
        o.stderr
    );
    let o = c.run_as(TEST_USER, "srun", &["-N2", "-n4", "--mpi=pmi2", "python3", &client, "1"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let job = o.stdout.lines().next().and_then(|l| l.rsplit(", ").next()).unwrap_or_default().to_string();
    assert!(job.ends_with(".0"), "the kvs name is J.S: {}", o.stdout);
    assert_eq!(
        sorted(&o.stdout),
        [
            format!("rank 0 of 4: k1=v1 on node1, {}", job),
            format!("rank 1 of 4: k2=v2 on node1, {}", job),
            format!("rank 2 of 4: k3=v3 on node2, {}", job),
            format!("rank 3 of 4: k0=v0 on node2, {}", job),
        ],
        "{}",
        o.stderr
    );
}

/// MPICH (Debian's, which scripts/setup.sh installs): without it the test
/// is skipped where `CI` is not set, and fails where it is.
fn mpich_hello(c: &Cluster) {
    let built = c.work.join("mpi_hello");
    let cc = std::process::Command::new("mpicc.mpich").arg("-o").arg(&built).arg(script("mpi_hello.c")).output();
    match cc {
        Ok(o) if o.status.success() => {}
        other => {
            assert!(std::env::var_os("CI").is_none(), "mpicc.mpich is needed (scripts/setup.sh): {:?}", other);
            eprintln!("skipped: no mpicc.mpich");
            return;
        }
    }
    let o = c.run_as(TEST_USER, "srun", &["-N2", "-n4", "--mpi=pmi2", "-l", &built.display().to_string()]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        sorted(&o.stdout),
        ["0: rank 0 of 4 sum 6", "1: rank 1 of 4 sum 6", "2: rank 2 of 4 sum 6", "3: rank 3 of 4 sum 6"],
        "{}",
        o.stderr
    );
}
