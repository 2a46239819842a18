//! Credentials (issue 9, point 1): a credential is good for one request
//! only, at one receiver, for one method and one body, once, even at a
//! restarted daemon (the host's replay cache); a user's credential never
//! passes as a daemon's, nor the reverse; a caller without a good
//! credential is answered before its body is read; a rate-limited user is
//! told to back off and Slurm's commands retry. One cluster for the file,
//! with `SlurmctldParameters=rl_enable` (root is exempt, as in Slurm).

use prost::Message;
use slurm_tests::{refused, with_cred, Cluster, TEST_USER};
use spur_auth::{cred, Identity, Kind};
use spur_proto::agent_client::AgentClient;
use spur_proto::controller_client::ControllerClient;
use std::time::{Duration, Instant};
use tonic::transport::Channel;

/// The bytes gRPC sends for `msg` (uncompressed frame: flag, length, message).
fn framed<M: Message>(msg: &M) -> Vec<u8> {
    let b = msg.encode_to_vec();
    let mut v = vec![0u8];
    v.extend_from_slice(&(b.len() as u32).to_be_bytes());
    v.extend_from_slice(&b);
    v
}

fn sign<M: Message>(key: &[u8], id: &Identity, audience: &str, method: &str, msg: &M) -> String {
    cred::sign(key, id, audience, method, &cred::body_hash(&framed(msg))).unwrap()
}

/// A body whose first frame says 60 MiB follow, and which then never sends them.
struct Stalled(bool);

impl http_body::Body for Stalled {
    type Data = bytes::Bytes;
    type Error = std::convert::Infallible;
    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<bytes::Bytes>, Self::Error>>> {
        if self.0 {
            return std::task::Poll::Pending;
        }
        self.0 = true;
        let mut head = vec![0u8];
        head.extend_from_slice(&(60u32 << 20).to_be_bytes());
        head.extend_from_slice(&[0u8; 1024]);
        std::task::Poll::Ready(Some(Ok(http_body::Frame::data(head.into()))))
    }
}

#[test]
fn a_credential_is_good_for_one_request_at_one_receiver() {
    let extra = std::env::temp_dir().join(format!("spur-cred-extra-{}.conf", std::process::id()));
    std::fs::write(&extra, "SlurmctldParameters=rl_enable,rl_bucket_size=4,rl_refill_rate=1\n").unwrap();
    let c = Cluster::up("cred", 1, &["--extra-conf", extra.to_str().unwrap()]);
    let key = std::fs::read(c.dir.join("slurm.key")).unwrap();
    let ctl = format!("127.0.0.1:{}", c.ctld_port());
    let conf = std::fs::read_to_string(&c.conf).unwrap();
    let agent_port: u16 = conf
        .lines()
        .find_map(|l| l.split(" Port=[").nth(1))
        .and_then(|p| p.split('-').next())
        .and_then(|p| p.trim_end_matches(']').parse().ok())
        .expect("the node's port");
    let agent = format!("127.0.0.1:{}", agent_port);
    let root = Identity::user(0, 0);
    let ctld_id = Identity::daemon(Kind::Controller);
    let agent_id = Identity::daemon(Kind::Agent);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let ch = |a: &str| {
        let a = a.to_string();
        rt.block_on(async move { Channel::from_shared(format!("http://{}", a)).unwrap().connect().await.unwrap() })
    };
    let (cch, ach) = (ch(&ctl), ch(&agent));
    rt.block_on(async {
        let mut ctl_c = ControllerClient::new(cch.clone());
        let mut agent_c = AgentClient::new(ach.clone());
        let ping = spur_proto::PingRequest {};
        let query = spur_proto::QueryRequest { jobs: true, ..Default::default() };

        // none, another key
        refused(ctl_c.ping(tonic::Request::new(ping)).await, "no credential");
        let other = sign(b"not the cluster key, but long enough", &root, &ctl, "/spur.v1.Controller/Ping", &ping);
        refused(ctl_c.ping(with_cred(ping, &other)).await, "invalid credential signature");

        // a good one, once
        let tok = sign(&key, &root, &ctl, "/spur.v1.Controller/Ping", &ping);
        ctl_c.ping(with_cred(ping, &tok)).await.expect("a good credential");
        refused(ctl_c.ping(with_cred(ping, &tok)).await, "credential replayed");

        // for another method, another body, another receiver
        let tok = sign(&key, &root, &ctl, "/spur.v1.Controller/Ping", &query);
        refused(ctl_c.query(with_cred(query.clone(), &tok)).await, "invalid credential signature");
        let tok = sign(&key, &root, &ctl, "/spur.v1.Controller/Query", &query);
        let other_body = spur_proto::QueryRequest { jobs: true, nodes: true, ..Default::default() };
        refused(ctl_c.query(with_cred(other_body, &tok)).await, "does not match the request");
        let tok = sign(&key, &ctld_id, &ctl, "/spur.v1.Agent/Ping", &ping);
        refused(agent_c.ping(with_cred(ping, &tok)).await, "invalid credential signature");

        // a user's credential is no agent's or controller's, nor the reverse
        let user = Identity::user(slurm_tests::uid_of(TEST_USER), 100);
        let reg = spur_proto::RegisterRequest::default();
        let tok = sign(&key, &user, &ctl, "/spur.v1.Controller/Register", &reg);
        refused(ctl_c.register(with_cred(reg.clone(), &tok)).await, "wrong kind");
        let tok = sign(&key, &user, &agent, "/spur.v1.Agent/Ping", &ping);
        refused(agent_c.ping(with_cred(ping, &tok)).await, "wrong kind");
        let tok = sign(&key, &agent_id, &ctl, "/spur.v1.Controller/Query", &query);
        refused(ctl_c.query(with_cred(query.clone(), &tok)).await, "wrong kind");
        let tok = sign(&key, &agent_id, &agent, "/spur.v1.Agent/Ping", &ping);
        refused(agent_c.ping(with_cred(ping, &tok)).await, "wrong kind");

        // a caller without a credential is answered before its body is read:
        // a body announcing 60 MiB that never come does not keep it waiting
        use tower_service::Service;
        let req = http::Request::builder()
            .method("POST")
            .uri(format!("http://{}/spur.v1.Controller/Submit", ctl))
            .header("content-type", "application/grpc")
            .header("te", "trailers")
            .body(tonic::body::Body::new(Stalled(false)))
            .unwrap();
        let mut raw = cch.clone();
        std::future::poll_fn(|cx| raw.poll_ready(cx)).await.unwrap();
        let resp = tokio::time::timeout(Duration::from_secs(20), raw.call(req))
            .await
            .expect("the controller waited for the body of an unauthenticated request")
            .unwrap();
        assert_eq!(resp.headers().get("grpc-status").map(|v| v.to_str().unwrap()), Some("16"), "{:?}", resp);
    });

    // the host's replay cache: a credential used at the agent is refused by
    // the same agent restarted (its memory gone)
    let ping = spur_proto::PingRequest {};
    let tok = sign(&key, &ctld_id, &agent, "/spur.v1.Agent/Ping", &ping);
    rt.block_on(async {
        AgentClient::new(ach.clone()).ping(with_cred(ping, &tok)).await.expect("a good credential");
    });
    c.kill9("spurd-node1");
    c.restart_missing().ok();
    let t0 = Instant::now();
    let again = loop {
        let r = rt.block_on(async {
            let ch = Channel::from_shared(format!("http://{}", agent)).unwrap().connect().await?;
            Ok::<_, Box<dyn std::error::Error>>(AgentClient::new(ch).ping(with_cred(ping, &tok)).await)
        });
        match r {
            Ok(x) => break x,
            Err(_) if t0.elapsed() < Duration::from_secs(30) => std::thread::sleep(Duration::from_millis(100)),
            Err(e) => panic!("the agent never came back: {}", e),
        }
    };
    refused(again, "credential replayed");

    // the user's commands get their credentials from the signing service
    let o = c.run_as(TEST_USER, "sbatch", &["--parsable", "--wrap", "true"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let id = o.stdout.trim().to_string();
    assert_eq!(c.run("squeue", &["-h", "-t", "all", "-j", &id, "-o", "%u"]).stdout, format!("{}\n", TEST_USER));

    // rate limiting (bucket of 4, one more a second): a user's burst of
    // commands is told to back off, and each command waits and succeeds
    for _ in 0..8 {
        let o = c.run_as(TEST_USER, "squeue", &["-h", "-j", &id]);
        assert_eq!(o.code, 0, "{}", o.stderr);
    }
    let log = c.ctld_log();
    let uid = slurm_tests::uid_of(TEST_USER);
    assert!(
        log.contains(&format!("RPC rate limit exceeded by uid {} with /spur.v1.Controller/Query", uid)),
        "no rate limiting in the log:\n{}",
        log
    );
    // root is exempt
    let before = log.matches("RPC rate limit exceeded by uid 0 ").count();
    for _ in 0..8 {
        c.run("squeue", &["-h", "-j", &id]).ok();
    }
    assert_eq!(c.ctld_log().matches("RPC rate limit exceeded by uid 0 ").count(), before);
    let _ = std::fs::remove_file(&extra);
}
