//! Issue 16, point 1: `AuthType=auth/munge`. Users' commands prove who they
//! are through the site's running munged and its key, as Slurm's do: the
//! controller and the node agents check each credential with their munged
//! (the same key), so a user's job runs as that user, a credential from a
//! munged with another key is refused, and with munged stopped a user's
//! command cannot get one (root's commands and the daemons sign with the
//! cluster key and go on). Without slurm.key (`--no-key`, a site with munge
//! only) the daemons and root's commands sign through munged as well, and a
//! daemon's credential counts only from root or SlurmUser. One cluster for
//! the file, with a munged of its own (its own key and socket) and a second
//! munged with another key.

use slurm_tests::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

/// A munged of the test's own: key, socket, log and pid in `dir`.
struct Munged {
    dir: PathBuf,
}

impl Munged {
    fn start(tag: &str) -> Munged {
        let dir = std::env::temp_dir().join(format!("spur-munge-{}-{}", tag, std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // (munged wants the socket's directory not writable by others)
        Command::new("chmod").args(["755", &dir.to_string_lossy()]).status().unwrap();
        use std::io::{Read, Write};
        use std::os::unix::fs::OpenOptionsExt;
        let mut key = [0u8; 1024];
        std::fs::File::open("/dev/urandom").unwrap().read_exact(&mut key).unwrap();
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(dir.join("key")).unwrap();
        f.write_all(&key).unwrap();
        let p = |n: &str| format!("{}", dir.join(n).display());
        let o = Command::new("/usr/sbin/munged")
            .arg(format!("--socket={}", p("socket")))
            .arg(format!("--key-file={}", p("key")))
            .arg(format!("--pid-file={}", p("pid")))
            .arg(format!("--log-file={}", p("log")))
            .arg(format!("--seed-file={}", p("seed")))
            .arg("--force")
            .output()
            .expect("munged (apt-get install munge: scripts/setup.sh)");
        assert!(o.status.success(), "munged: {}", String::from_utf8_lossy(&o.stderr));
        Munged { dir }
    }
    fn socket(&self) -> PathBuf {
        self.dir.join("socket")
    }
    fn stop(&self) {
        if let Ok(p) = std::fs::read_to_string(self.dir.join("pid")) {
            let _ = Command::new("kill").arg(p.trim()).status();
            wait_for("munged to stop", T, || !self.socket().exists());
        }
    }
}

impl Drop for Munged {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A copy of the cluster's slurm.conf whose `AuthInfo` names another socket.
fn conf_with_socket(c: &Cluster, socket: &Path, dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(&c.conf).unwrap();
    let text: String = text
        .lines()
        .map(|l| {
            if l.starts_with("AuthInfo=") {
                let spur = l.split(',').find(|kv| kv.starts_with("spur_socket=")).unwrap_or("");
                format!("AuthInfo=socket={},{}\n", socket.display(), spur)
            } else {
                format!("{}\n", l)
            }
        })
        .collect();
    let p = dir.join("other.conf");
    std::fs::write(&p, text).unwrap();
    Command::new("chmod").args(["644", &p.to_string_lossy()]).status().unwrap();
    p
}

/// A credential munged at `socket` makes, as Spur's commands send it: `m2.`
/// and munged's text around `spur-v2`, the receiver, the method and the
/// SHA-256 of the gRPC body.
fn munge_cred<M: prost::Message>(socket: &Path, audience: &str, method: &str, msg: &M) -> String {
    let b = msg.encode_to_vec();
    let mut framed = vec![0u8];
    framed.extend_from_slice(&(b.len() as u32).to_be_bytes());
    framed.extend_from_slice(&b);
    let hash = spur_auth::cred::body_hash(&framed);
    let payload = format!("spur-v2\n{}\n{}\n{}", audience, method, spur_auth::hex(&hash));
    format!("m2.{}", spur_munge::encode(socket, payload.as_bytes()).expect("munged"))
}

fn crafted(c: &Cluster, socket: &Path) {
    use spur_proto::controller_client::ControllerClient;
    let ctl = format!("127.0.0.1:{}", c.ctld_port());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let ch = tonic::transport::Channel::from_shared(format!("http://{}", ctl)).unwrap().connect().await.unwrap();
        let mut ctl_c = ControllerClient::new(ch);
        let query = spur_proto::QueryRequest { jobs: true, ..Default::default() };
        let q = "/spur.v1.Controller/Query";
        let tok = munge_cred(socket, &ctl, q, &query);
        ctl_c.query(with_cred(query.clone(), &tok)).await.expect("a good credential");
        refused(ctl_c.query(with_cred(query.clone(), &tok)).await, "Replayed credential");
        let other = spur_proto::QueryRequest { jobs: true, nodes: true, ..Default::default() };
        let tok = munge_cred(socket, &ctl, q, &query);
        refused(ctl_c.query(with_cred(other, &tok)).await, "does not match the request");
        let tok = munge_cred(socket, "127.0.0.2:1", q, &query);
        refused(ctl_c.query(with_cred(query.clone(), &tok)).await, "does not match the request");
        let reg = spur_proto::RegisterRequest::default();
        let tok = munge_cred(socket, &ctl, "/spur.v1.Controller/Register", &reg);
        refused(ctl_c.register(with_cred(reg, &tok)).await, "wrong kind");
        refused(ctl_c.query(with_cred(query.clone(), "m2.MUNGE:garbage:")).await, "munge");
    });
}

/// A munge credential made by the test user that claims an agent's kind,
/// at the controller's Register: refused.
fn daemon_claim(c: &Cluster, socket: &Path) {
    use spur_proto::controller_client::ControllerClient;
    let ctl = format!("127.0.0.1:{}", c.ctld_port());
    let reg = spur_proto::RegisterRequest::default();
    let b = prost::Message::encode_to_vec(&reg);
    let mut framed = vec![0u8];
    framed.extend_from_slice(&(b.len() as u32).to_be_bytes());
    framed.extend_from_slice(&b);
    let payload = format!(
        "spur-v2 a\n{}\n/spur.v1.Controller/Register\n{}",
        ctl,
        spur_auth::hex(&spur_auth::cred::body_hash(&framed))
    );
    let o = Command::new("runuser")
        .args(["-u", TEST_USER, "--", "munge", "--socket", &socket.to_string_lossy(), "--string", &payload])
        .output()
        .unwrap();
    assert!(o.status.success(), "munge as {}: {}", TEST_USER, String::from_utf8_lossy(&o.stderr));
    let tok = format!("m2.{}", String::from_utf8_lossy(&o.stdout).trim());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let ch = tonic::transport::Channel::from_shared(format!("http://{}", ctl)).unwrap().connect().await.unwrap();
        refused(ControllerClient::new(ch).register(with_cred(reg, &tok)).await, "wrong kind");
    });
}

#[test]
fn users_authenticate_through_munged() {
    ensure_test_user();
    let m = Munged::start("site");
    let other = Munged::start("other");
    let c = Cluster::up("munge", 2, &["--munge", &m.socket().to_string_lossy()]);
    let conf = std::fs::read_to_string(&c.conf).unwrap();
    assert!(conf.contains("AuthType=auth/munge\n"), "{conf}");

    // a user's job, submitted through munged, runs as that user
    let j = c.sbatch_as(TEST_USER, &["-o", "id.out", "--wrap", "id -u"]);
    c.wait_state(&j, "COMPLETED", T);
    assert_eq!(c.read_work("id.out"), format!("{}\n", uid_of(TEST_USER)));
    let o = c.run_as(TEST_USER, "squeue", &["-h", "-t", "all", "-o", "%i %u", "-j", &j]);
    assert_eq!(o.stdout, format!("{j} {TEST_USER}\n"), "{}", o.stderr);
    // an interactive step too (the node agents check the credentials)
    let o = c.run_as(TEST_USER, "srun", &["-N2", "id", "-u"]);
    assert_eq!((o.code, o.stdout.clone()), (0, format!("{0}\n{0}\n", uid_of(TEST_USER))), "{}", o.stderr);
    // and what it says about the job is checked as that user's: not root's
    let o = c.run_as(TEST_USER, "scontrol", &["update", "NodeName=node1", "State=DRAIN", "Reason=x"]);
    assert_ne!(o.code, 0, "{}", o.stdout);
    assert_eq!(o.stderr, "slurm_update error: Invalid user id\n");

    // what munged's credential binds, checked at the controller: one
    // receiver, method and body, once, and only ever as a user's (root's
    // too: a daemon's methods take the cluster key's credentials only)
    crafted(&c, &m.socket());

    // a credential from a munged with another key is refused
    let bad = conf_with_socket(&c, &other.socket(), &other.dir);
    let o = c.run_env(Some(TEST_USER), &[("SLURM_CONF", &bad.to_string_lossy())], "squeue", &["-h"], None);
    assert_ne!(o.code, 0, "{}", o.stdout);
    assert!(o.stderr.contains("Protocol authentication error"), "{}", o.stderr);

    // a site with munge only, no slurm.key: the daemons and root's commands
    // sign through munged too, and a user's job and steps run as before
    c.down();
    let key = c.dir.join("slurm.key");
    std::fs::remove_file(&key).unwrap();
    let o = c.restart_with(&["--no-key"]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert!(!key.exists());
    let j2 = c.sbatch_as(TEST_USER, &["-o", "id2.out", "--wrap", "id -u"]);
    c.wait_state(&j2, "COMPLETED", T);
    assert_eq!(c.read_work("id2.out"), format!("{}\n", uid_of(TEST_USER)));
    let o = c.run_as(TEST_USER, "srun", &["-N2", "id", "-u"]);
    assert_eq!((o.code, o.stdout.clone()), (0, format!("{0}\n{0}\n", uid_of(TEST_USER))), "{}", o.stderr);
    let o = c.run("scontrol", &["update", "NodeName=node1", "State=DRAIN", "Reason=munge"]);
    assert_eq!(o.code, 0, "root's command through munged: {}", o.stderr);
    assert_eq!(c.run("sinfo", &["-h", "-n", "node1", "-o", "%T"]).stdout, "drained\n");
    // a daemon's credential counts only from root or SlurmUser: a user's
    // munge credential that says it is an agent's is refused
    daemon_claim(&c, &m.socket());
    // (the key again, for root's commands once munged stops, below)
    c.down();
    assert_eq!(c.restart_missing().code, 0);
    assert!(key.exists());

    // munged stopped: a user's command cannot get a credential; root's
    // commands (the cluster key) and the daemons go on
    m.stop();
    // (22.05's squeue says the same, but for a line naming its RPC)
    let o = c.run_as(TEST_USER, "squeue", &["-h"]);
    assert_eq!(
        (o.code, o.stderr),
        (
            1,
            format!(
                "squeue: error: If munged is up, restart with --num-threads=10\n\
                 squeue: error: Munge encode failed: Failed to access \"{}\": No such file or directory \
                 (Did you start munged?)\nslurm_load_jobs error: Protocol authentication error\n",
                m.socket().display()
            )
        )
    );
    let o = c.run_as(TEST_USER, "sbatch", &["--wrap", "true"]);
    assert!(
        o.stderr.ends_with("sbatch: error: Batch job submission failed: Protocol authentication error\n"),
        "{}",
        o.stderr
    );
    let o = c.run("squeue", &["-h", "-t", "all", "-o", "%i", "-j", &j]);
    assert_eq!((o.code, o.stdout), (0, format!("{j}\n")));
    c.down();
}
