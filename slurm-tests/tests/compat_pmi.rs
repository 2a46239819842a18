//! Slurm's PMI-1 library (Debian's libpmi0, `libpmi.so.0`) on Spur: a C
//! program written to Slurm's `slurm/pmi.h`, linked with `-lpmi`, whose
//! `libslurm_pmi.so` is libspur_compat (`make compat` builds it as
//! target/compat/22.05/libslurm.so.38; a directory in `LD_LIBRARY_PATH`
//! names it `libslurm_pmi.so`, found before libpmi's RUNPATH):
//! * `srun -N2 -n3 --mpi=pmi2`: every rank puts a pair, commits, passes the
//!   barrier and reads its neighbour's pair, twice (the second time a
//!   value of 1000 bytes, which crosses in several chunks);
//! * `--mpi=none` (Slurm's default MpiDefault): the same with no `PMI_FD`,
//!   through the step daemon's socket for libpmi on demand, as Slurm's srun
//!   answers libpmi in every step; and outside srun (no step at all) one
//!   process is a step of one task and needs no server;
//! * `PMI_Abort` of one rank ends the step while the others wait in the
//!   barrier, under either.
//!
//! One cluster, one test.

use slurm_tests::*;
use std::path::{Path, PathBuf};

/// The test program: `rank R of N kvs J.S: kN=VALUE round2 ok`, the
/// library libpmi's functions came from on rank 0's line `lib PATH`; with
/// the argument `abort`, the last rank calls PMI_Abort instead.
const PROG: &str = r#"
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slurm/pmi.h>

#define CHECK(call) do { int rc_ = (call); if (rc_ != PMI_SUCCESS) { \
    fprintf(stderr, "rank %d: %s failed: %d\n", rank, #call, rc_); return 2; } } while (0)

int main(int argc, char **argv)
{
    int spawned = 0, rank = -1, size = 0, next;
    char kvs[256], key[64], val[1024], got[1024];
    Dl_info info;

    CHECK(PMI_Init(&spawned));
    CHECK(PMI_Get_rank(&rank));
    CHECK(PMI_Get_size(&size));
    CHECK(PMI_KVS_Get_my_name(kvs, sizeof(kvs)));
    if (argc > 1 && !strcmp(argv[1], "abort") && rank == size - 1) {
        PMI_Abort(7, "rank gives up");
        return 3;
    }
    next = (rank + 1) % size;

    /* round 1: a short value with what a PMI-1 line cannot hold as is */
    snprintf(key, sizeof(key), "k%d", rank);
    snprintf(val, sizeof(val), "v%d:with spaces,commas;=%%", rank);
    CHECK(PMI_KVS_Put(kvs, key, val));
    CHECK(PMI_KVS_Commit(kvs));
    CHECK(PMI_Barrier());
    snprintf(key, sizeof(key), "k%d", next);
    CHECK(PMI_KVS_Get(kvs, key, got, sizeof(got)));

    /* round 2: a long value, after a second barrier */
    char want[1001];
    memset(want, 'a' + next, 1000);
    want[1000] = 0;
    memset(val, 'a' + rank, 1000);
    val[1000] = 0;
    snprintf(key, sizeof(key), "long%d", rank);
    CHECK(PMI_KVS_Put(kvs, key, val));
    CHECK(PMI_KVS_Commit(kvs));
    CHECK(PMI_Barrier());
    char got2[1024];
    snprintf(key, sizeof(key), "long%d", next);
    CHECK(PMI_KVS_Get(kvs, key, got2, sizeof(got2)));

    printf("rank %d of %d kvs %s: k%d=%s round2 %s\n", rank, size, kvs, next, got,
           strcmp(got2, want) ? "WRONG" : "ok");
    if (rank == 0) {
        void *f = dlsym(RTLD_DEFAULT, "slurm_pmi_get_kvs_comm_set");
        if (f && dladdr(f, &info))
            printf("lib %s\n", info.dli_fname);
    }
    fflush(stdout);
    CHECK(PMI_Finalize());
    return 0;
}
"#;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

struct Setup {
    c: Cluster,
    prog: Option<String>,
    /// The directory where `libslurm_pmi.so` is ours.
    lib: String,
}

fn setup() -> Setup {
    let ours = root().join("target/compat/22.05/libslurm.so.38");
    assert!(
        ours.exists(),
        "{} is missing: `make compat` (bash scripts/compat.sh 22.05) builds it; make test does so first",
        ours.display()
    );
    let c = Cluster::up("compat_pmi", 2, &["--cpus", "4"]);
    let lib = c.work.join("pmi-lib");
    std::fs::create_dir_all(&lib).unwrap();
    std::os::unix::fs::symlink(&ours, lib.join("libslurm_pmi.so")).unwrap();
    let src = c.work.join("libpmi_client.c");
    std::fs::write(&src, PROG).unwrap();
    let out = c.work.join("libpmi_client");
    let o = std::process::Command::new("cc").arg("-o").arg(&out).arg(&src).args(["-lpmi", "-ldl"]).output();
    let prog = match o {
        Ok(o) if o.status.success() => Some(out.display().to_string()),
        other => {
            // (scripts/setup.sh installs libpmi0-dev)
            assert!(std::env::var_os("CI").is_none(), "Slurm's libpmi0-dev is needed (scripts/setup.sh): {:?}", other);
            eprintln!("skipped: no libpmi (libpmi0-dev)");
            None
        }
    };
    Setup { lib: lib.display().to_string(), c, prog }
}

fn srun(s: &Setup, args: &[&str]) -> Out {
    s.c.run_env(Some(TEST_USER), &[("LD_LIBRARY_PATH", &s.lib)], "srun", args, None)
}

fn sorted(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.lines().map(String::from).collect();
    v.sort();
    v
}

/// The lines of ranks `0..n` of a step whose kvs name is `kvs`.
fn want(n: usize, kvs: &str, lib: &str) -> Vec<String> {
    let mut v: Vec<String> = (0..n)
        .map(|r| {
            let next = (r + 1) % n;
            format!("rank {} of {} kvs {}: k{}=v{}:with spaces,commas;=% round2 ok", r, n, kvs, next, next)
        })
        .collect();
    v.push(format!("lib {}/libslurm_pmi.so", lib));
    v.sort();
    v
}

/// The kvs name the ranks printed (libpmi's `JOBID.STEPID`).
fn kvs_name(out: &str) -> String {
    let l = out.lines().find(|l| l.starts_with("rank 0 ")).unwrap_or_else(|| panic!("no rank 0: {}", out));
    l.split(" kvs ").nth(1).and_then(|r| r.split(':').next()).unwrap_or("").to_string()
}

#[test]
fn libpmi() {
    let s = setup();
    let Some(prog) = &s.prog else { return };
    ranks_exchange_through_the_step_daemon(&s, prog);
    under_mpi_none_the_step_daemon_answers_on_demand(&s, prog);
    a_rank_aborts_the_step(&s, prog, "--mpi=pmi2");
    a_rank_aborts_the_step(&s, prog, "--mpi=none");
}

fn ranks_exchange_through_the_step_daemon(s: &Setup, prog: &str) {
    let o = srun(s, &["-N2", "-n3", "--mpi=pmi2", prog]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    let kvs = kvs_name(&o.stdout);
    assert!(kvs.ends_with(".0") && kvs.len() > 2, "{}", o.stdout);
    assert_eq!(sorted(&o.stdout), want(3, &kvs, &s.lib), "{}", o.stderr);
    eprintln!("{}", o.stdout);
}

fn under_mpi_none_the_step_daemon_answers_on_demand(s: &Setup, prog: &str) {
    for args in [&["-N1", "-n1"][..], &["-N2", "-n3"], &["-N1", "-n4"]] {
        let mut a = args.to_vec();
        a.extend(["--mpi=none", prog]);
        let o = srun(s, &a);
        assert_eq!(o.code, 0, "{:?}: {}{}", args, o.stdout, o.stderr);
        let kvs = kvs_name(&o.stdout);
        let n: usize = args[1][2..].parse().unwrap();
        assert_eq!(sorted(&o.stdout), want(n, &kvs, &s.lib), "{}", o.stderr);
        assert!(o.stderr.is_empty(), "{}", o.stderr);
    }
    // no step at all: one process, its own barrier (libpmi's singleton)
    let o = std::process::Command::new("runuser")
        .args(["-u", TEST_USER, "--", "env", &format!("LD_LIBRARY_PATH={}", s.lib), prog])
        .env_remove("PMI_FD")
        .current_dir(&s.c.work)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}{}", out, String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("rank 0 of 1 kvs "), "{}", out);
}

fn a_rank_aborts_the_step(s: &Setup, prog: &str, mpi: &str) {
    let t = std::time::Instant::now();
    // (--time: should the abort not end the step, the limit does)
    let o = srun(s, &["-N2", "-n3", mpi, "--time=2", prog, "abort"]);
    assert_ne!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert!(o.stderr.contains("In: PMI_Abort(7, rank gives up)"), "{}", o.stderr);
    // (through the step daemon's PMI server: srun hears of the abort)
    assert!(o.stderr.contains("srun: Job step aborted"), "{}", o.stderr);
    assert!(t.elapsed() < std::time::Duration::from_secs(60), "the abort took {:?}: {}", t.elapsed(), o.stderr);
    assert!(o.stdout.is_empty(), "{}", o.stdout);
    eprintln!("{}", o.stderr);
}
