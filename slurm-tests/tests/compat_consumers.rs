//! Real consumers of Slurm's library, unmodified, against a live Spur
//! cluster through libspur_compat (`make compat` builds it under Slurm's
//! names in target/compat/RELEASE/):
//! * a C program compiled against each release's real slurm.h, linked with
//!   `-lslurm`, that submits, loads, updates, cancels and frees jobs, nodes
//!   and partitions, run under valgrind: no invalid access, no definite leak;
//! * Debian's Perl API (`libslurm-perl`, linked with libslurm.so.38) and the
//!   torque wrappers built on it (`qstat`, `qstat -f`, `pbsnodes`, `qhold`,
//!   `qrls`, `qdel`), whose answers must be squeue's and sinfo's;
//! * the same Perl API with Debian's real libslurm.so.38 in place and ours
//!   put in front of it with `LD_PRELOAD`.
//!
//! One cluster for the whole file, in one test (a cluster in a static would
//! never be dropped, and its daemons would outlive the test process).

use slurm_tests::{wait_for, Cluster, Out};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// target/compat/RELEASE, as `make compat` (scripts/compat.sh) leaves it.
fn lib_dir(release: &str) -> PathBuf {
    let dir = root().join("target/compat").join(release);
    let so = if release == "22.05" { "libslurm.so.38" } else { "libslurm.so.42" };
    assert!(
        dir.join(so).exists(),
        "{} is missing: `make compat` (bash scripts/compat.sh) builds it; make test does so first",
        dir.join(so).display()
    );
    dir
}

fn include_dir(release: &str) -> PathBuf {
    if release == "22.05" {
        PathBuf::from("/usr/include")
    } else {
        root().join("target/slurm-headers/24.11/usr/include")
    }
}

/// The file's cluster (one, for every test that needs one: dropped, and so
/// stopped, when that test ends).
fn new_cluster() -> Cluster {
    {
        let c = Cluster::up("compat", 2, &[]);
        // the torque wrappers run sbatch/srun from their own directory
        // (`$FindBin::Bin`): give them the cluster's bin/ as Spur's package
        // gives them /usr/bin
        for w in ["qstat", "qsub", "qdel", "qhold", "qrls", "pbsnodes", "qalter", "qrerun"] {
            let _ = std::fs::copy(Path::new("/usr/bin").join(w), c.dir.join("bin").join(w));
        }
        c
    }
}

/// Run with our library of `release` found first by the dynamic linker.
fn with_lib(c: &Cluster, release: &str, prog: &str, args: &[&str]) -> Out {
    let dir = lib_dir(release);
    c.run_env(None, &[("LD_LIBRARY_PATH", dir.to_str().unwrap())], prog, args, None)
}

fn squeue_lines(c: &Cluster) -> Vec<String> {
    let o = c.run("squeue", &["-h", "-o", "%i %j %u %T %P"]);
    o.ok();
    let mut v: Vec<String> = o.stdout.lines().map(|l| l.trim().to_string()).collect();
    v.sort();
    v
}

const PERL_JOBS: &str = r#"
use Slurm;
my $s = Slurm::new();
my $r = $s->load_jobs() or die "load_jobs: " . $s->strerror($s->get_errno()) . "\n";
for my $j (@{$r->{job_array}}) {
    print join(" ", $j->{job_id}, $j->{name}, scalar(getpwuid($j->{user_id})),
        $s->job_state_string($j->{job_state}), $j->{partition}), "\n";
}
"#;

fn perl_lines(out: &Out) -> Vec<String> {
    assert_eq!(out.code, 0, "perl failed: {}{}", out.stdout, out.stderr);
    let mut v: Vec<String> = out.stdout.lines().map(|l| l.trim().to_string()).collect();
    v.sort();
    v
}

fn submit_sleepers(c: &Cluster, n: usize) -> Vec<u32> {
    (0..n).map(|i| c.sbatch(&["-J", &format!("perl{}", i), "--wrap", "sleep 300"])).collect()
}

fn the_perl_api_sees_what_squeue_sees(c: &Cluster) {
    let ids = submit_sleepers(c, 2);
    for id in &ids {
        c.wait_state(&id.to_string(), "RUNNING", Duration::from_secs(30));
    }
    // (the other tests of the file run at once on the same cluster: compare
    // this test's jobs; squeue shows live jobs, Slurm.pm's load_jobs all
    // the recent ones, so compare the live ones)
    let perl = with_lib(c, "22.05", "/usr/bin/perl", &["-e", PERL_JOBS]);
    let mine = |l: &String| ids.iter().any(|id| l.starts_with(&format!("{} ", id)));
    let live: Vec<String> = perl_lines(&perl)
        .into_iter()
        .filter(|l| mine(l) && (l.contains(" RUNNING ") || l.contains(" PENDING ")))
        .collect();
    let squeue: Vec<String> = squeue_lines(c).into_iter().filter(mine).collect();
    assert_eq!(squeue.len(), 2, "{:?}", squeue);
    assert_eq!(live, squeue);
    for id in ids {
        c.run("scancel", &[&id.to_string()]).ok();
    }
}

#[test]
fn use_slurm_without_a_configuration_ends_as_slurms_does() {
    // Slurm.pm's BOOT calls slurm_init(NULL): a $SLURM_CONF that cannot be
    // read ends the process with the commands' lines, exit status 1
    let lib = lib_dir("22.05");
    let o = Command::new("/usr/bin/perl")
        .args(["-MSlurm", "-e", "print qq(loaded\\n)"])
        .env("SLURM_CONF", "/nonexistent-spur/slurm.conf")
        .env("LD_LIBRARY_PATH", &lib)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "perl: error: s_p_parse_file: unable to read \"/nonexistent-spur/slurm.conf\": No such file or directory\n\
         perl: fatal: Unable to process configuration file\n"
    );
}

fn the_perl_api_loads_nodes_and_partitions_as_sinfo(c: &Cluster) {
    let script = r#"
use Slurm;
my $s = Slurm::new();
my $n = $s->load_node() or die "load_node: " . $s->strerror() . "\n";
for my $x (@{$n->{node_array}}) { print "node $x->{name} $x->{cpus} $x->{real_memory}\n"; }
my $p = $s->load_partitions() or die "load_partitions\n";
for my $x (@{$p->{partition_array}}) { print "part $x->{name} $x->{nodes} $x->{total_nodes}\n"; }
"#;
    let perl = with_lib(c, "22.05", "/usr/bin/perl", &["-e", script]);
    let got = perl_lines(&perl);
    let sinfo = c.run("sinfo", &["-h", "-N", "-o", "node %N %c %m"]);
    let part = c.run("sinfo", &["-h", "-o", "part %R %N %D"]);
    let mut want: Vec<String> = sinfo.stdout.lines().chain(part.stdout.lines()).map(|l| l.trim().to_string()).collect();
    want.sort();
    want.dedup();
    assert_eq!(got, want);
}

fn the_torque_wrappers_answer_as_squeue_and_sinfo(c: &Cluster) {
    let id = c.sbatch(&["-J", "torque1", "--wrap", "sleep 300"]);
    let ids = id.to_string();
    c.wait_state(&ids, "RUNNING", Duration::from_secs(30));
    // qstat: one line per job, with the job's id, name, user, state and queue
    let q = with_lib(c, "22.05", "qstat", &[]);
    assert_eq!(q.code, 0, "{}{}", q.stdout, q.stderr);
    let line = q.stdout.lines().find(|l| l.starts_with(&ids)).unwrap_or_else(|| panic!("qstat:\n{}", q.stdout));
    let f: Vec<&str> = line.split_whitespace().collect();
    assert_eq!((f[1], f[2], f[4]), ("torque1", "root", "R"), "{}", line);
    // qstat -f: the full record
    let qf = with_lib(c, "22.05", "qstat", &["-f", &ids]);
    assert_eq!(qf.code, 0, "{}{}", qf.stdout, qf.stderr);
    assert!(qf.stdout.lines().any(|l| l.starts_with("Job Id:") && l.ends_with(&ids)), "{}", qf.stdout);
    assert!(qf.stdout.contains("Job_Name = torque1"), "{}", qf.stdout);
    assert!(qf.stdout.contains("job_state = R"), "{}", qf.stdout);
    // pbsnodes: every node, with its processors
    let pn = with_lib(c, "22.05", "pbsnodes", &["-a"]);
    assert_eq!(pn.code, 0, "{}{}", pn.stdout, pn.stderr);
    let nodes = c.run("sinfo", &["-h", "-N", "-o", "%N %c"]);
    for l in nodes.stdout.lines() {
        let (name, cpus) = l.trim().split_once(' ').unwrap();
        assert!(pn.stdout.contains(&format!("{}\n", name)), "pbsnodes lacks {}:\n{}", name, pn.stdout);
        assert!(pn.stdout.contains(&format!("np = {}", cpus)), "{}", pn.stdout);
    }
    // qdel cancels it
    let d = with_lib(c, "22.05", "qdel", &[&ids]);
    assert_eq!(d.code, 0, "{}{}", d.stdout, d.stderr);
    c.wait_state(&ids, "CANCELLED", Duration::from_secs(30));
}

fn qhold_and_qrls_hold_and_release_a_pending_job(c: &Cluster) {
    let id = c.sbatch(&["-J", "held1", "--begin", "now+1hour", "--wrap", "true"]).to_string();
    let h = with_lib(c, "22.05", "qhold", &[&id]);
    assert_eq!(h.code, 0, "{}{}", h.stdout, h.stderr);
    let reason = || c.run("squeue", &["-h", "-j", &id, "-o", "%r"]).stdout.trim().to_string();
    wait_for("the job held", Duration::from_secs(10), || reason() == "JobHeldUser" || reason() == "JobHeldAdmin");
    let r = with_lib(c, "22.05", "qrls", &[&id]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    wait_for("the job released", Duration::from_secs(10), || reason() == "BeginTime");
    c.run("scancel", &[&id]).ok();
}

fn ld_preload_puts_the_library_before_slurms_own(c: &Cluster) {
    // Debian's real libslurm.so.38 is what Slurm.so loads by its NEEDED
    // entry; LD_PRELOAD binds libslurm's symbols to ours first
    assert!(Path::new("/usr/lib/x86_64-linux-gnu/libslurm.so.38").exists(), "Debian's libslurm38 is installed");
    let id = c.sbatch(&["-J", "preload1", "--wrap", "sleep 300"]);
    c.wait_state(&id.to_string(), "RUNNING", Duration::from_secs(30));
    let lib = lib_dir("22.05").join("libslurm.so.38");
    let perl = c.run_env(None, &[("LD_PRELOAD", lib.to_str().unwrap())], "/usr/bin/perl", &["-e", PERL_JOBS], None);
    let got = perl_lines(&perl);
    assert!(
        got.iter().any(|l| l.starts_with(&format!("{} preload1 root RUNNING", id))),
        "the preloaded library did not reach Spur:\n{:?}",
        got
    );
    c.run("scancel", &[&id.to_string()]).ok();
}

const C_CONSUMER: &str = r##"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys/wait.h>
#include <signal.h>
#include <pthread.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

/* (24.11's slurm.h no longer declares slurm_get_errno: Slurm's errors are errno) */
#define CHECK(what, cond) do { if (!(cond)) { \
    fprintf(stderr, "%s failed: %s\n", what, slurm_strerror(errno)); return 1; } } while (0)

/* several threads calling the library at once */
static void *loader(void *arg) {
    (void) arg;
    for (int i = 0; i < 5; i++) {
        node_info_msg_t *n = NULL;
        if (slurm_load_node(0, &n, SHOW_ALL) != SLURM_SUCCESS || n->record_count == 0) return (void *) 1;
        slurm_free_node_info_msg(n);
        job_info_msg_t *j = NULL;
        if (slurm_load_jobs(0, &j, SHOW_ALL) != SLURM_SUCCESS) return (void *) 1;
        slurm_free_job_info_msg(j);
    }
    return NULL;
}

int main(int argc, char **argv) {
    const char *work = argv[1];
    int with_fork = argc > 2;
    slurm_init(NULL);
    job_desc_msg_t desc;
    slurm_init_job_desc_msg(&desc);
    desc.name = "cprog";
    desc.script = "#!/bin/sh\nsleep 300\n";
    desc.user_id = getuid();
    desc.group_id = getgid();
    desc.work_dir = (char *) work;
    desc.min_nodes = 1;
    char *env[] = { "PATH=/usr/bin:/bin", NULL };
    desc.environment = env;
    desc.env_size = 1;
    submit_response_msg_t *resp = NULL;
    CHECK("slurm_submit_batch_job", slurm_submit_batch_job(&desc, &resp) == SLURM_SUCCESS && resp);
    uint32_t id = resp->job_id;
    printf("submitted %u\n", id);
    slurm_free_submit_response_response_msg(resp);

    job_info_msg_t *jobs = NULL;
    CHECK("slurm_load_job", slurm_load_job(&jobs, id, SHOW_ALL) == SLURM_SUCCESS);
    CHECK("one record", jobs->record_count == 1 && jobs->job_array[0].job_id == id);
    printf("name %s\n", jobs->job_array[0].name);
    for (int *inx = jobs->job_array[0].node_inx; *inx != -1; inx++) ;
    slurm_free_job_info_msg(jobs);

    /* hold it as scontrol hold does, through update: priority 0 */
    job_desc_msg_t upd;
    slurm_init_job_desc_msg(&upd);
    upd.job_id = id;
    upd.time_limit = 30;
    CHECK("slurm_update_job", slurm_update_job(&upd) == SLURM_SUCCESS);
    CHECK("slurm_load_job again", slurm_load_job(&jobs, id, SHOW_ALL) == SLURM_SUCCESS);
    printf("time_limit %u\n", jobs->job_array[0].time_limit);
    slurm_free_job_info_msg(jobs);

    /* a child of fork() calls the library too (it has none of the parent's threads) */
    fflush(stdout);
    pid_t child = with_fork ? fork() : -1;
    if (child == 0) {
        job_info_msg_t *mine = NULL;
        int rc = slurm_load_job(&mine, id, SHOW_ALL);
        if (rc == SLURM_SUCCESS) slurm_free_job_info_msg(mine);
        _exit(rc == SLURM_SUCCESS ? 0 : 3);
    }
    if (with_fork) {
        int status = -1;
        waitpid(child, &status, 0);
        CHECK("the call in a forked child", WIFEXITED(status) && WEXITSTATUS(status) == 0);
        printf("forked child ok\n");
    }

    pthread_t threads[4];
    for (int i = 0; i < 4; i++) pthread_create(&threads[i], NULL, loader, NULL);
    int failed = 0;
    for (int i = 0; i < 4; i++) {
        void *r = NULL;
        pthread_join(threads[i], &r);
        failed += r != NULL;
    }
    CHECK("4 threads loading at once", failed == 0);
    printf("threads ok\n");

    CHECK("slurm_load_jobs", slurm_load_jobs(0, &jobs, SHOW_ALL) == SLURM_SUCCESS);
    int found = 0;
    for (uint32_t i = 0; i < jobs->record_count; i++)
        if (jobs->job_array[i].job_id == id) found = 1;
    CHECK("the job among all", found);
    slurm_free_job_info_msg(jobs);

    node_info_msg_t *nodes = NULL;
    CHECK("slurm_load_node", slurm_load_node(0, &nodes, SHOW_ALL) == SLURM_SUCCESS);
    for (uint32_t i = 0; i < nodes->record_count; i++)
        printf("node %s %u\n", nodes->node_array[i].name, nodes->node_array[i].cpus);
    slurm_free_node_info_msg(nodes);

    partition_info_msg_t *parts = NULL;
    CHECK("slurm_load_partitions", slurm_load_partitions(0, &parts, SHOW_ALL) == SLURM_SUCCESS);
    for (uint32_t i = 0; i < parts->record_count; i++) {
        printf("partition %s %s\n", parts->partition_array[i].name, parts->partition_array[i].nodes);
        for (int *inx = parts->partition_array[i].node_inx; *inx != -1; inx++) ;
    }
    slurm_free_partition_info_msg(parts);

    int ready = slurm_job_node_ready(id);
    CHECK("slurm_job_node_ready", ready == 4 || ready == 7);
    printf("ready unknown %d\n", slurm_job_node_ready(999999));
    CHECK("slurm_kill_job", slurm_kill_job(id, SIGKILL, 0) == SLURM_SUCCESS);
    CHECK("an unknown job", slurm_kill_job(999999, SIGKILL, 0) != SLURM_SUCCESS);
    int e = errno;
    printf("unknown job: %d %s\n", e, slurm_strerror(e));
    slurm_fini();
    return 0;
}
"##;

fn c_consumer(c: &Cluster, release: &str) {
    let lib = lib_dir(release);
    let dir = c.dir.join(format!("cprog-{}", release));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("consumer.c");
    std::fs::write(&src, C_CONSUMER).unwrap();
    let exe = dir.join("consumer");
    let cc = Command::new("cc")
        .args(["-std=gnu99", "-Wall", "-Werror", "-g", "-pthread", "-o"])
        .arg(&exe)
        .arg(&src)
        .arg(format!("-I{}", include_dir(release).display()))
        .arg(format!("-L{}", lib.display()))
        .arg("-lslurm")
        .output()
        .expect("cc");
    assert!(cc.status.success(), "cc: {}", String::from_utf8_lossy(&cc.stderr));
    let work = c.work.to_str().unwrap();
    let vg = c.run_env(
        None,
        &[("LD_LIBRARY_PATH", lib.to_str().unwrap())],
        "/usr/bin/valgrind",
        &[
            "-q",
            "--error-exitcode=99",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite",
            "--show-leak-kinds=definite",
            exe.to_str().unwrap(),
            work,
        ],
        None,
    );
    assert_eq!(vg.code, 0, "the C consumer ({}) under valgrind:\n{}\n{}", release, vg.stdout, vg.stderr);
    let id: u32 = vg.stdout.lines().next().and_then(|l| l.strip_prefix("submitted ")).unwrap().parse().unwrap();
    assert!(vg.stdout.contains("name cprog\n"), "{}", vg.stdout);
    assert!(vg.stdout.contains("time_limit 30\n"), "{}", vg.stdout);
    assert!(vg.stdout.contains("threads ok\n"), "{}", vg.stdout);
    assert!(vg.stdout.contains("ready unknown -2\n"), "{}", vg.stdout);
    // a child of fork() calls the library too (it has none of its parent's
    // threads); not under valgrind, whose leak check of the child counts
    // what only the parent's vanished threads referred to
    let native =
        c.run_env(None, &[("LD_LIBRARY_PATH", lib.to_str().unwrap())], exe.to_str().unwrap(), &[work, "fork"], None);
    assert_eq!(native.code, 0, "{}\n{}", native.stdout, native.stderr);
    assert!(native.stdout.contains("forked child ok\n"), "{}", native.stdout);
    assert!(vg.stdout.contains("unknown job: 2017 Invalid job id specified"), "{}", vg.stdout);
    let sinfo = c.run("sinfo", &["-h", "-N", "-o", "node %N %c"]);
    for l in sinfo.stdout.lines() {
        assert!(vg.stdout.contains(&format!("{}\n", l.trim())), "{} missing:\n{}", l, vg.stdout);
    }
    let part = c.run("sinfo", &["-h", "-o", "partition %R %N"]);
    for l in part.stdout.lines() {
        assert!(vg.stdout.contains(&format!("{}\n", l.trim())), "{} missing:\n{}", l, vg.stdout);
    }
    c.wait_state(&id.to_string(), "CANCELLED", Duration::from_secs(30));
}

/// Everything that needs the cluster, one after the other on one cluster
/// (stopped when the test ends).
#[test]
fn consumers_on_a_live_cluster() {
    let c = new_cluster();
    the_perl_api_sees_what_squeue_sees(&c);
    the_perl_api_loads_nodes_and_partitions_as_sinfo(&c);
    the_torque_wrappers_answer_as_squeue_and_sinfo(&c);
    qhold_and_qrls_hold_and_release_a_pending_job(&c);
    ld_preload_puts_the_library_before_slurms_own(&c);
    c_consumer(&c, "22.05");
    c_consumer(&c, "24.11");
}

/// Slurm's helper functions (error texts, hostlists, bitstrings, state,
/// reason, flag and time texts, name and step lists, TRES counts, and the
/// print/sprint family on records the program builds) give,
/// byte for byte, what Debian's real libslurm.so.38 gives: one program
/// (scripts/compat_oracle.c, against 22.05's slurm.h) run with each library.
#[test]
fn helper_functions_print_what_slurms_own_library_prints() {
    let real = Path::new("/usr/lib/x86_64-linux-gnu/libslurm.so.38");
    assert!(real.exists(), "Debian's libslurm38 is installed (scripts/setup.sh)");
    let lib = lib_dir("22.05");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("compat-oracle");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("oracle");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/compat_oracle.c");
    // linked against Debian's library (/usr/lib's libslurm.so link)
    let cc = Command::new("cc").args(["-std=gnu99", "-o"]).arg(&exe).arg(&src).arg("-lslurm").output().expect("cc");
    assert!(cc.status.success(), "cc: {}", String::from_utf8_lossy(&cc.stderr));
    // a configuration for both libraries (Slurm's job printing reads
    // TrackWCKey, and without one retries for a minute): nothing runs there
    let conf = dir.join("slurm.conf");
    std::fs::write(
        &conf,
        "ClusterName=oracle\nSlurmctldHost=localhost\nTrackWCKey=yes\n\
         NodeName=n[1-4] CPUs=4 State=UNKNOWN\nPartitionName=debug Nodes=ALL Default=YES\n",
    )
    .unwrap();
    let run = |lib_path: Option<&Path>| {
        let mut c = Command::new(&exe);
        c.env_clear().env("TZ", "UTC").env("PATH", "/usr/bin:/bin").env("SLURM_CONF", &conf);
        if let Some(p) = lib_path {
            c.env("LD_LIBRARY_PATH", p);
        }
        let o = c.output().expect("run the oracle program");
        assert!(o.status.success(), "{:?}: {}", lib_path, String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let slurm = run(None);
    let spur = run(Some(&lib));
    assert!(slurm.lines().count() > 1000, "{}", slurm);
    let differ: Vec<String> = slurm
        .lines()
        .zip(spur.lines())
        .filter(|(a, b)| a != b)
        .take(20)
        .map(|(a, b)| format!("slurm: {}\n spur: {}", a, b))
        .collect();
    assert!(differ.is_empty() && slurm.lines().count() == spur.lines().count(), "{}", differ.join("\n"));
}
