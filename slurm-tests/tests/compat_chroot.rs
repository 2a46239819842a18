//! Slurm 24.11's own consumers of libslurm.so.42 against a Spur cluster:
//! Debian 13's Perl API and torque wrappers, in a trixie chroot
//! (scripts/compat-chroot.sh makes it once), loading
//! target/compat/24.11/libslurm.so.42 (`make compat`) through
//! `LD_LIBRARY_PATH`. The cluster runs on the host; the chroot shares the
//! host's network, and the cluster's directory (its slurm.conf and key) and
//! the library's directory are bind-mounted at the same paths inside it.
//! Their answers must be squeue's and sinfo's; Slurm's helper functions
//! must print what Debian 13's own libslurm.so.42 prints (an oracle
//! program, run with each library). Then the package swap:
//! scripts/compat-swap.sh run in the chroot diverts Debian's libslurm.so.42
//! and puts ours in its place, and undoes it. One cluster for the file, and
//! one test, whose end undoes the mounts.

use slurm_tests::{Cluster, Out};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The chroot, its mounts, and the cluster they serve; unmounted at exit.
struct Env {
    chroot: PathBuf,
    lib: PathBuf,
    cluster: Cluster,
    mounts: Vec<PathBuf>,
}

impl Env {
    /// A command run in the chroot as root with the cluster's slurm.conf and our library.
    fn run(&self, prog: &str, args: &[&str]) -> Out {
        self.run_with(true, prog, args)
    }

    /// The same, with our library on `LD_LIBRARY_PATH` or not.
    fn run_with(&self, lib_path: bool, prog: &str, args: &[&str]) -> Out {
        let mut cmd = Command::new("chroot");
        cmd.arg(&self.chroot)
            .args(["/usr/bin/env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root"])
            .arg(format!("SLURM_CONF={}", self.cluster.conf.display()));
        if lib_path {
            cmd.arg(format!("LD_LIBRARY_PATH={}", self.lib.display()));
        }
        let o = cmd.arg(prog).args(args).output().expect("chroot");
        Out {
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
            code: o.status.code().unwrap_or(-1),
        }
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        for m in self.mounts.iter().rev() {
            if !Command::new("umount").arg(m).status().map(|s| s.success()).unwrap_or(false) {
                let _ = Command::new("umount").arg("-l").arg(m).status();
            }
        }
    }
}

fn bind(chroot: &Path, host: &Path, mounts: &mut Vec<PathBuf>) {
    let inside = chroot.join(host.strip_prefix("/").unwrap());
    std::fs::create_dir_all(&inside).unwrap();
    let ok = Command::new("mount").arg("--bind").arg(host).arg(&inside).status().unwrap().success();
    assert!(ok, "mount --bind {} {}", host.display(), inside.display());
    mounts.push(inside);
}

/// The chroot with its mounts (undone when the value drops: keep it local,
/// a static is never dropped).
fn env() -> Env {
    {
        let lib = root().join("target/compat/24.11");
        assert!(
            lib.join("libslurm.so.42").exists(),
            "{}/libslurm.so.42 is missing: make compat builds it",
            lib.display()
        );
        let o = Command::new("bash").arg(root().join("scripts/compat-chroot.sh")).output().expect("compat-chroot.sh");
        assert!(o.status.success(), "compat-chroot.sh: {}", String::from_utf8_lossy(&o.stderr));
        let chroot = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim().to_string());
        let cluster = Cluster::up("compatchroot", 2, &[]);
        let mut mounts = Vec::new();
        bind(&chroot, &cluster.dir, &mut mounts);
        bind(&chroot, &lib, &mut mounts);
        bind(&chroot, &root().join("scripts"), &mut mounts);
        let proc_dir = chroot.join("proc");
        if !Command::new("mountpoint").arg("-q").arg(&proc_dir).status().unwrap().success() {
            assert!(Command::new("mount").args(["-t", "proc", "proc"]).arg(&proc_dir).status().unwrap().success());
            mounts.push(proc_dir);
        }
        Env { chroot, lib, cluster, mounts }
    }
}

#[test]
fn slurm_24_11_perl_api_and_torque_wrappers_on_spur() {
    let e = env();
    let c = &e.cluster;
    let id = c.sbatch(&["-J", "chroot1", "--wrap", "sleep 300"]).to_string();
    c.wait_state(&id, "RUNNING", Duration::from_secs(30));

    // the Perl API: jobs, nodes and partitions as squeue and sinfo show them
    let script = r#"
use Slurm;
my $s = Slurm::new();
my $r = $s->load_jobs() or die "load_jobs: " . $s->strerror() . "\n";
for my $j (@{$r->{job_array}}) {
    next unless $j->{job_state} == Slurm::JOB_RUNNING || $j->{job_state} == Slurm::JOB_PENDING;
    print join(" ", "job", $j->{job_id}, $j->{name}, $s->job_state_string($j->{job_state}), $j->{partition}), "\n";
}
my $n = $s->load_node() or die "load_node\n";
for my $x (@{$n->{node_array}}) { print "node $x->{name} $x->{cpus} $x->{real_memory}\n"; }
my $p = $s->load_partitions() or die "load_partitions\n";
for my $x (@{$p->{partition_array}}) { print "part $x->{name} $x->{nodes} $x->{total_nodes}\n"; }
"#;
    let perl = e.run("/usr/bin/perl", &["-e", script]);
    assert_eq!(perl.code, 0, "perl in the chroot: {}{}", perl.stdout, perl.stderr);
    let mut got: Vec<&str> = perl.stdout.lines().collect();
    got.sort();
    let q = c.run("squeue", &["-h", "-o", "job %i %j %T %P"]);
    let n = c.run("sinfo", &["-h", "-N", "-o", "node %N %c %m"]);
    let p = c.run("sinfo", &["-h", "-o", "part %R %N %D"]);
    let text = format!("{}{}{}", q.stdout, n.stdout, p.stdout);
    let mut want: Vec<&str> = text.lines().map(str::trim).collect();
    want.sort();
    want.dedup();
    assert_eq!(got, want);

    // qstat, qstat -f, pbsnodes, qdel
    let qs = e.run("/usr/bin/qstat", &[]);
    assert_eq!(qs.code, 0, "{}{}", qs.stdout, qs.stderr);
    let line = qs.stdout.lines().find(|l| l.starts_with(&id)).unwrap_or_else(|| panic!("qstat:\n{}", qs.stdout));
    let f: Vec<&str> = line.split_whitespace().collect();
    assert_eq!((f[1], f[2], f[4], f[5]), ("chroot1", "root", "R", "debug"), "{}", line);
    let qf = e.run("/usr/bin/qstat", &["-f", &id]);
    assert_eq!(qf.code, 0, "{}{}", qf.stdout, qf.stderr);
    assert!(qf.stdout.contains("Job_Name = chroot1") && qf.stdout.contains("job_state = R"), "{}", qf.stdout);
    let pn = e.run("/usr/bin/pbsnodes", &["-a"]);
    assert_eq!(pn.code, 0, "{}{}", pn.stdout, pn.stderr);
    for l in n.stdout.lines() {
        let mut w = l.split_whitespace().skip(1);
        let (name, cpus) = (w.next().unwrap(), w.next().unwrap());
        assert!(pn.stdout.lines().any(|x| x == name), "pbsnodes lacks {}:\n{}", name, pn.stdout);
        assert!(pn.stdout.contains(&format!("np = {}", cpus)), "{}", pn.stdout);
    }
    let d = e.run("/usr/bin/qdel", &[&id]);
    assert_eq!(d.code, 0, "{}{}", d.stdout, d.stderr);
    c.wait_state(&id, "CANCELLED", Duration::from_secs(30));

    oracle(&e);
    package_swap(&e);
}

/// Slurm's helper functions give, byte for byte, what Debian 13's real
/// libslurm.so.42 gives: scripts/compat_oracle.c compiled against 24.11's
/// slurm.h, run in the chroot with Slurm's library and with ours.
fn oracle(e: &Env) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/compat_oracle.c");
    // in the cluster's directory, which the chroot sees at the same path
    let exe = e.cluster.dir.join("compat_oracle");
    let cc = Command::new("cc")
        .args(["-std=gnu99", "-o"])
        .arg(&exe)
        .arg(&src)
        .arg(format!("-I{}", root().join("target/slurm-headers/24.11/usr/include").display()))
        .arg(format!("-L{}", e.lib.display()))
        .arg("-lslurm")
        .output()
        .expect("cc");
    assert!(cc.status.success(), "cc: {}", String::from_utf8_lossy(&cc.stderr));
    let exe = exe.to_str().unwrap();
    let slurm = e.run_with(false, "/usr/bin/env", &["TZ=UTC", exe]);
    let spur = e.run_with(true, "/usr/bin/env", &["TZ=UTC", exe]);
    assert_eq!((slurm.code, spur.code), (0, 0), "{}\n{}", slurm.stderr, spur.stderr);
    assert!(slurm.stdout.lines().count() > 10000, "{}", slurm.stdout);
    let differ: Vec<String> = slurm
        .stdout
        .lines()
        .zip(spur.stdout.lines())
        .filter(|(a, b)| a != b)
        .take(20)
        .map(|(a, b)| format!("slurm: {}\n spur: {}", a, b))
        .collect();
    assert!(differ.is_empty() && slurm.stdout.lines().count() == spur.stdout.lines().count(), "{}", differ.join("\n"));
}

/// The package swap, done in the chroot where Debian 13's libslurm42t64 owns
/// /usr/lib/x86_64-linux-gnu/libslurm.so.42.0.0: scripts/compat-swap.sh
/// diverts Slurm's file and puts ours there, so a consumer with no
/// `LD_LIBRARY_PATH` reaches Spur; `undo` brings Slurm's back.
fn package_swap(e: &Env) {
    let swap = root().join("scripts/compat-swap.sh");
    let swap = swap.to_str().unwrap();
    let file = "/usr/lib/x86_64-linux-gnu/libslurm.so.42.0.0";
    let perl = ["-e", "use Slurm; my $s = Slurm::new(); my $n = $s->load_node() or die $s->strerror() . \"\\n\"; print scalar(@{$n->{node_array}}), \"\\n\";"];
    // (a run stopped half-way left the swap in place)
    e.run_with(false, "/bin/bash", &[swap, "undo"]);
    let before = e.run_with(false, "/usr/bin/perl", &perl);
    assert_ne!(before.code, 0, "Slurm's own library answered a Spur cluster?\n{}", before.stdout);
    let i = e.run_with(false, "/bin/bash", &[swap, "install", "24.11"]);
    assert_eq!(i.code, 0, "{}{}", i.stdout, i.stderr);
    let st = e.run_with(false, "/bin/bash", &[swap, "status"]);
    assert!(st.stdout.contains(&format!("{}: Spur's", file)), "{}", st.stdout);
    let during = e.run_with(false, "/usr/bin/perl", &perl);
    let u = e.run_with(false, "/bin/bash", &[swap, "undo"]);
    assert_eq!(u.code, 0, "{}{}", u.stdout, u.stderr);
    assert_eq!(during.code, 0, "after the swap: {}{}", during.stdout, during.stderr);
    assert_eq!(during.stdout.trim(), "2");
    let st = e.run_with(false, "/bin/bash", &[swap, "status"]);
    assert!(st.stdout.contains(&format!("{}: Slurm's", file)), "{}", st.stdout);
    let after = e.run_with(false, "/usr/bin/perl", &perl);
    assert_ne!(after.code, 0, "Slurm's library is not back:\n{}", after.stdout);
}
