//! Issue 12 (MPI): unmodified MPI programs under srun, on one cluster of
//! eight agents, as the unprivileged test user.
//!
//! - `MpiParams=ports=`: each step's reserved ports in its tasks'
//!   `SLURM_STEP_RESV_PORTS` and `scontrol show step`.
//! - `--mpi=pmi2`: raw PMI-2 and PMI-1 clients (`scripts/pmi_client.py`: a
//!   value with `;` comes back whole, the process mapping is Slurm's), a
//!   client of Slurm's own libpmi2 (Debian's libpmi2-0), and MPICH
//!   (`scripts/mpi_hello.c` built with `mpicc.mpich`: MPI_Init, an Allreduce
//!   of the ranks, each rank's node).
//! - `--mpi=pmix`: Open MPI (`mpicc.openmpi`) direct-launched, its modex in
//!   the fence and then asked for directly (direct modex across nodes); each
//!   agent's PMIx server in a directory of its own.
//! - Open MPI's `mpirun` inside `salloc -N2` and `sbatch -N2`, its daemons
//!   started through srun (`--external-launcher`), ranks on both nodes.
//! - A rank that fails: srun reports it and `--kill-on-bad-exit` ends the
//!   others, which wait in a barrier it never reaches; a rank's MPI_Abort
//!   ends the step on every node (PMI-2 and PMIx).
//! - A torchrun-style rendezvous (`scripts/rendezvous.py`) from `SLURM_*`.
//! - 16 ranks over 4 agents, 64 ranks over 8 (PMI-2 and PMIx), the fences
//!   up a tree of step daemons three levels deep.
//!
//! Every "node" is on this one host, so Open MPI is told to use TCP on the
//! loopback (`OMPI_ENV`): its shared-memory transport names its segments
//! after the host name, which the agents here share.

use slurm_tests::*;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Open MPI on agents sharing one host: TCP over the loopback only.
const OMPI_ENV: &[(&str, &str)] =
    &[("OMPI_MCA_btl", "self,tcp"), ("OMPI_MCA_btl_tcp_if_include", "lo"), ("OMPI_MCA_oob_tcp_if_include", "lo")];

#[test]
fn mpi() {
    // steps reserve ports (MpiParams=ports=, SLURM_STEP_RESV_PORTS)
    let extra = std::env::temp_dir().join(format!("spur-mpi-{}.conf", std::process::id()));
    std::fs::write(&extra, "MpiParams=ports=12000-12999\n").unwrap();
    let c = Cluster::up("mpi", 8, &["--cpus", "8", "--memory", "4000", "--extra-conf", &extra.to_string_lossy()]);
    let _ = std::fs::remove_file(&extra);
    reserved_ports(&c);
    pmi_clients(&c);
    libpmi2_client(&c);
    let mpich = build(&c, "mpicc.mpich", "mpi_hello.c", "hello_mpich", &[]);
    let ompi = build(&c, "mpicc.openmpi", "mpi_hello.c", "hello_ompi", &[]);
    if let Some(p) = &mpich {
        mpich_hello(&c, p);
    }
    if let Some(p) = &ompi {
        ompi_direct(&c, p);
        mpirun_in_allocations(&c, p);
    }
    failing_rank(&c);
    rendezvous(&c);
    if let (Some(m), Some(o)) = (&mpich, &ompi) {
        scale(&c, m, o);
    }
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

/// Build a test program into the work directory. Without the compiler
/// (scripts/setup.sh installs them all) the parts that need it are skipped
/// where `CI` is not set, and fail where it is.
fn build(c: &Cluster, cc: &str, src: &str, out: &str, libs: &[&str]) -> Option<PathBuf> {
    let built = c.work.join(out);
    let o = std::process::Command::new(cc).arg("-o").arg(&built).arg(script(src)).args(libs).output();
    match o {
        Ok(o) if o.status.success() => Some(built),
        other => {
            assert!(std::env::var_os("CI").is_none(), "{} is needed (scripts/setup.sh): {:?}", cc, other);
            eprintln!("skipped: no {}", cc);
            None
        }
    }
}

/// `rank R of N sum S on NODE` for ranks `0..n` placed in blocks of `per`
/// tasks on node1, node2, ...
fn hello_lines(n: u32, per: u32, label: bool) -> Vec<String> {
    let sum = n * (n - 1) / 2;
    let mut v: Vec<String> = (0..n)
        .map(|r| {
            let l = format!("rank {} of {} sum {} on node{}", r, n, sum, r / per + 1);
            if label {
                format!("{}: {}", r, l)
            } else {
                l
            }
        })
        .collect();
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

/// `MpiParams=ports=`: one port more than the step's most tasks on a node,
/// the same list in every task, shown by `scontrol show step`.
fn reserved_ports(c: &Cluster) {
    let o = c.run_as(TEST_USER, "srun", &["-N2", "-n4", "-l", "printenv", "SLURM_STEP_RESV_PORTS"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        sorted(&o.stdout),
        ["0: 12000-12002", "1: 12000-12002", "2: 12000-12002", "3: 12000-12002"],
        "{}",
        o.stderr
    );
    let o = c.run_as(
        TEST_USER,
        "srun",
        &["-N1", "-n1", "bash", "-c", "scontrol show step $SLURM_JOB_ID.0 | grep -o 'ResvPorts=[^ ]*'"],
    );
    assert_eq!(o.stdout.trim(), "ResvPorts=12000-12001", "{}", o.stderr);
}

/// Slurm's own PMI-2 client library: a value with `;` put by each rank and
/// read by its neighbour comes back whole.
fn libpmi2_client(c: &Cluster) {
    let Some(prog) = build(c, "cc", "libpmi2_client.c", "libpmi2_client", &["-lpmi2"]) else { return };
    let o = c.run_as(TEST_USER, "srun", &["-N2", "-n3", "--mpi=pmi2", &prog.display().to_string()]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let mapping = "(vector,(0,1,2),(1,1,1))";
    assert_eq!(
        sorted(&o.stdout),
        [
            format!("rank 0 of 3: k1=v1;with;semicolons {}", mapping),
            format!("rank 1 of 3: k2=v2;with;semicolons {}", mapping),
            format!("rank 2 of 3: k0=v0;with;semicolons {}", mapping),
        ],
        "{}",
        o.stderr
    );
}

fn mpich_hello(c: &Cluster, prog: &Path) {
    let o = c.run_as(TEST_USER, "srun", &["-N2", "-n4", "--mpi=pmi2", "-l", &prog.display().to_string()]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(sorted(&o.stdout), hello_lines(4, 2, true), "{}", o.stderr);
}

/// Open MPI direct-launched by srun --mpi=pmix: with its modex in the fence
/// (the default), and with none there (`async_modex`), each rank's data
/// asked of the node holding it when first needed.
fn ompi_direct(c: &Cluster, prog: &Path) {
    let p = prog.display().to_string();
    let o = c.run_env(Some(TEST_USER), OMPI_ENV, "srun", &["-N2", "-n4", "--mpi=pmix", "-l", &p], None);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(sorted(&o.stdout), hello_lines(4, 2, true), "{}", o.stderr);
    let mut env = OMPI_ENV.to_vec();
    env.extend([("OMPI_MCA_pmix_base_async_modex", "1"), ("OMPI_MCA_pmix_base_collect_data", "0")]);
    let o = c.run_env(Some(TEST_USER), &env, "srun", &["-N2", "-n4", "--mpi=pmix", &p], None);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(sorted(&o.stdout), hello_lines(4, 2, false), "{}", o.stderr);
    // each agent's server has its own directory (Slurm 22.05's two step
    // daemons on one host share one and fail), gone with the step
    let o = c.run_as(
        TEST_USER,
        "srun",
        &["-N2", "-n2", "--mpi=pmix", "-l", "printenv", "PMIX_SERVER_TMPDIR", "PMIX_NAMESPACE"],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let lines = sorted(&o.stdout);
    assert_eq!(lines.len(), 4, "{}", o.stdout);
    let dir = |l: &str| PathBuf::from(l.split_once(": ").map(|x| x.1).unwrap_or(""));
    let (d0, d1) = (dir(&lines[0]), dir(&lines[2]));
    assert_ne!(d0, d1, "{}", o.stdout);
    assert!(d0.starts_with(c.dir.join("spool")) && d1.starts_with(c.dir.join("spool")), "{}", o.stdout);
    assert!(!d0.exists() && !d1.exists(), "the server directories outlive the step: {}", o.stdout);
    assert!(lines[1].starts_with("0: slurm.pmix.") && lines[1][3..] == lines[3][3..], "{}", o.stdout);
}

/// Open MPI's mpirun inside an allocation: its daemons start through srun
/// on the allocated nodes, two ranks on each.
fn mpirun_in_allocations(c: &Cluster, prog: &Path) {
    let p = prog.display().to_string();
    let o = c.run_env(Some(TEST_USER), OMPI_ENV, "salloc", &["-N2", "-n4", "mpirun.openmpi", "-n", "4", &p], None);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(sorted(&o.stdout), hello_lines(4, 2, false), "{}", o.stderr);
    let batch = c.work.join("mpirun.sh");
    std::fs::write(&batch, format!("#!/bin/bash\nmpirun.openmpi -n 4 {}\n", p)).unwrap();
    let out = c.work.join("mpirun.out");
    let o = c.run_env(
        Some(TEST_USER),
        OMPI_ENV,
        "sbatch",
        &["--parsable", "-N2", "-n4", "-o", &out.display().to_string(), &batch.display().to_string()],
        None,
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let id = o.stdout.trim().to_string();
    c.wait_state(&id, "COMPLETED", Duration::from_secs(60));
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    assert_eq!(sorted(&text), hello_lines(4, 2, false), "{}", text);
}

/// A rank that exits early while the others wait for it in a barrier:
/// srun says which task failed and --kill-on-bad-exit ends the rest.
fn failing_rank(c: &Cluster) {
    let Some(prog) = build(c, "mpicc.mpich", "mpi_fail.c", "mpi_fail", &[]) else { return };
    let o =
        c.run_as(TEST_USER, "srun", &["-N2", "-n4", "--mpi=pmi2", "--kill-on-bad-exit", &prog.display().to_string()]);
    assert_ne!(o.code, 0, "{}", o.stderr);
    assert!(o.stderr.contains("rank 1 fails"), "{}", o.stderr);
    assert!(o.stderr.contains("srun: error: node1: task 1: Exited with exit code 3"), "{}", o.stderr);
    assert!(o.stderr.contains("srun: error: node2: tasks 2-3: Terminated"), "{}", o.stderr);
    assert!(!o.stdout.contains("passed the barrier"), "{}", o.stdout);
    // MPI_Abort: the whole step ends, on both nodes, under either plugin
    let ompi = build(c, "mpicc.openmpi", "mpi_fail.c", "mpi_fail_ompi", &[]);
    for (mpi, prog) in [("--mpi=pmi2", Some(prog)), ("--mpi=pmix", ompi)] {
        let Some(prog) = prog else { continue };
        let o = c.run_env(
            Some(TEST_USER),
            OMPI_ENV,
            "srun",
            &["-N2", "-n4", mpi, &prog.display().to_string(), "abort"],
            None,
        );
        assert_ne!(o.code, 0, "{}", o.stderr);
        assert!(o.stderr.contains("srun: Job step aborted"), "{}: {}", mpi, o.stderr);
        assert!(o.stderr.contains("srun: error: node2: tasks 2-3: Killed"), "{}: {}", mpi, o.stderr);
        assert!(!o.stderr.contains("memory"), "{}: {}", mpi, o.stderr);
        // PMIx's abort code is srun's exit code, as Slurm's srun returns
        // it; PMI-2's abort leaves the tasks' SIGKILL (both measured on 22.05)
        assert_eq!(o.code, if mpi == "--mpi=pmix" { 7 } else { 137 }, "{}: {}", mpi, o.stderr);
        assert!(!o.stdout.contains("passed the barrier"), "{}", o.stdout);
    }
}

/// A launcher of the torchrun kind finds its world, its rank and its master
/// from SLURM_* and meets over TCP.
fn rendezvous(c: &Cluster) {
    let o = c.run_as(TEST_USER, "srun", &["-N2", "-n4", "python3", &script("rendezvous.py")]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        sorted(&o.stdout),
        [
            "rank 0/4 local 0 node 0 master node1 sum 6",
            "rank 1/4 local 1 node 0 master node1 sum 6",
            "rank 2/4 local 0 node 1 master node1 sum 6",
            "rank 3/4 local 1 node 1 master node1 sum 6",
        ],
        "{}",
        o.stderr
    );
}

/// 16 ranks over 4 agents, 64 over 8; the fences of the 64 go up a tree of
/// width 2 (`SLURM_PMI2_TREE_WIDTH`: srun above node1 and node2, node1 above
/// node3 and node4, ...), step daemons three levels deep.
fn scale(c: &Cluster, mpich: &Path, ompi: &Path) {
    let o = c.run_as(TEST_USER, "srun", &["-N4", "-n16", "--mpi=pmi2", &mpich.display().to_string()]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(sorted(&o.stdout), hello_lines(16, 4, false), "{}", o.stderr);
    let tree = [("SLURM_PMI2_TREE_WIDTH", "2")];
    let o =
        c.run_env(Some(TEST_USER), &tree, "srun", &["-N8", "-n64", "--mpi=pmi2", &mpich.display().to_string()], None);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(sorted(&o.stdout), hello_lines(64, 8, false), "{}", o.stderr);
    let mut env = OMPI_ENV.to_vec();
    env.extend(tree);
    let o = c.run_env(Some(TEST_USER), &env, "srun", &["-N8", "-n64", "--mpi=pmix", &ompi.display().to_string()], None);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(sorted(&o.stdout), hello_lines(64, 8, false), "{}", o.stderr);
}
