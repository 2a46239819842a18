//! Leader following and retries against fake controllers: real gRPC servers
//! on loopback addresses (127.0.0.1-3, one port), behind the real credential
//! gate (spur_auth::grpc), each answering as told.

use super::*;
use spur_proto::controller_server::{Controller, ControllerServer};
use std::sync::Mutex;
use tonic::{Request, Response, Status};

/// How a fake controller answers every call.
#[derive(Clone)]
enum Mode {
    /// Answers (submit: job id 42, noting the request id).
    Leader,
    /// "not the leader", naming this `addr:port`.
    NotLeader(String),
    /// "not the leader" without a name (an election).
    Election,
    /// As `Election` for the first `n` calls, then `Leader`.
    ElectionThenLeader(usize),
    Unauthenticated,
    PermissionDenied,
}

struct Fake {
    mode: Mode,
    calls: Arc<Mutex<usize>>,
    /// Request ids of the submissions it answered or refused.
    seen: Arc<Mutex<Vec<String>>>,
}

impl Fake {
    fn gate(&self) -> Result<(), Status> {
        let n = {
            let mut c = self.calls.lock().unwrap();
            *c += 1;
            *c
        };
        match &self.mode {
            Mode::Leader => Ok(()),
            Mode::NotLeader(a) => {
                let mut st = Status::unavailable("not the leader");
                st.metadata_mut().insert(LEADER_KEY, a.parse().unwrap());
                Err(st)
            }
            Mode::Election => Err(Status::unavailable("no leader")),
            Mode::ElectionThenLeader(k) if n <= *k => Err(Status::unavailable("no leader")),
            Mode::ElectionThenLeader(_) => Ok(()),
            Mode::Unauthenticated => Err(Status::unauthenticated("bad credential")),
            Mode::PermissionDenied => Err(Status::permission_denied("no")),
        }
    }
}

type R<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl Controller for Fake {
    async fn submit(&self, req: Request<pb::SubmitRequest>) -> R<pb::SubmitReply> {
        let desc: JobDesc = spur_core::records::decode_job_desc(&req.get_ref().job_desc, &"test").unwrap();
        spur_auth::grpc::identity(&req).expect("every call carries a credential the gate admits");
        self.seen.lock().unwrap().push(desc.request_id.clone().unwrap_or_default());
        self.gate()?;
        Ok(Response::new(pb::SubmitReply { job_id: 42, ..Default::default() }))
    }
    async fn query(&self, _: Request<pb::QueryRequest>) -> R<pb::QueryReply> {
        self.gate()?;
        let view =
            spur_core::records::encode_view(&ClusterView { cluster_name: "fake".into(), ..Default::default() }, 1)
                .unwrap();
        Ok(Response::new(pb::QueryReply { status: None, view, plans: vec![], fair_share: vec![] }))
    }
    async fn cancel(&self, _: Request<pb::CancelRequest>) -> R<pb::CancelReply> {
        self.gate()?;
        Ok(Response::new(pb::CancelReply::default()))
    }
    async fn job_control(&self, _: Request<pb::JobControlRequest>) -> R<pb::JobControlReply> {
        self.gate()?;
        Ok(Response::new(pb::JobControlReply::default()))
    }
    async fn node_control(&self, _: Request<pb::NodeControlRequest>) -> R<pb::NodeControlReply> {
        self.gate()?;
        let status = pb::Status { code: errors::ESLURM_USER_ID_MISSING, message: String::new() };
        Ok(Response::new(pb::NodeControlReply { status: Some(status) }))
    }
    async fn reservation(&self, _: Request<pb::ReservationRequest>) -> R<pb::ReservationReply> {
        self.gate()?;
        Ok(Response::new(pb::ReservationReply { status: None, name: "r_1".into() }))
    }
    async fn register(&self, _: Request<pb::RegisterRequest>) -> R<pb::RegisterReply> {
        self.gate()?;
        Ok(Response::new(pb::RegisterReply { status: None, kill_jobs: vec![3] }))
    }
    async fn job_complete(&self, _: Request<pb::JobCompleteRequest>) -> R<pb::JobCompleteReply> {
        self.gate()?;
        Ok(Response::new(pb::JobCompleteReply::default()))
    }
    async fn ping(&self, _: Request<pb::PingRequest>) -> R<pb::PingReply> {
        self.gate()?;
        Ok(Response::new(pb::PingReply { host: "fake".into(), role: "leader".into(), ..Default::default() }))
    }
    async fn membership(&self, _: Request<pb::MembershipRequest>) -> R<pb::MembershipReply> {
        self.gate()?;
        Ok(Response::new(pb::MembershipReply::default()))
    }
    async fn step_create(&self, _: Request<pb::StepCreateRequest>) -> R<pb::StepCreateReply> {
        self.gate()?;
        Ok(Response::new(pb::StepCreateReply::default()))
    }
    async fn step_complete(&self, _: Request<pb::StepCompleteRequest>) -> R<pb::StepCompleteReply> {
        self.gate()?;
        Ok(Response::new(pb::StepCompleteReply::default()))
    }
    async fn accounting(&self, _: Request<pb::AccountingRequest>) -> R<pb::AccountingReply> {
        self.gate()?;
        Ok(Response::new(pb::AccountingReply::default()))
    }
    async fn step_stat(&self, _: Request<pb::StepStatRequest>) -> R<pb::StepStatReply> {
        self.gate()?;
        Ok(Response::new(pb::StepStatReply::default()))
    }
    async fn qos(&self, _: Request<pb::QosRequest>) -> R<pb::QosReply> {
        self.gate()?;
        Ok(Response::new(pb::QosReply::default()))
    }
    async fn assoc(&self, _: Request<pb::AssocRequest>) -> R<pb::AssocReply> {
        self.gate()?;
        Ok(Response::new(pb::AssocReply::default()))
    }
    async fn reconfigure(&self, _: Request<pb::ReconfigureRequest>) -> R<pb::ReconfigureReply> {
        self.gate()?;
        Ok(Response::new(pb::ReconfigureReply::default()))
    }
}

const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

/// What a controller slot of the test cluster is.
enum Slot {
    Fake(Mode),
    /// Accepts connections and never answers.
    Silent,
    /// Nothing listens.
    Dead,
}

struct Cluster {
    dir: PathBuf,
    calls: Vec<Arc<Mutex<usize>>>,
    seen: Vec<Arc<Mutex<Vec<String>>>>,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A port free on 127.0.0.1, .2 and .3 (all of the loopback network).
fn free_port() -> u16 {
    loop {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let p = l.local_addr().unwrap().port();
        if (2..=3).all(|i| std::net::TcpListener::bind((format!("127.0.0.{}", i).as_str(), p)).is_ok()) {
            return p;
        }
    }
}

impl Cluster {
    async fn start(slots: Vec<Slot>) -> Cluster {
        Cluster::start_with(|_| slots).await
    }

    /// The slots made knowing the port (to name a leader's address).
    async fn start_with(slots: impl FnOnce(u16) -> Vec<Slot>) -> Cluster {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("spur-client-test-{}-{}", std::process::id(), n));
        std::fs::create_dir_all(&dir).unwrap();
        let port = free_port();
        let slots = slots(port);
        let mut conf = format!("ClusterName=fake\nSlurmctldPort={}\n", port);
        let mut calls = vec![];
        let mut seen = vec![];
        for (i, slot) in slots.into_iter().enumerate() {
            let addr = format!("127.0.0.{}", i + 1);
            conf.push_str(&format!("SlurmctldHost=c{}({})\n", i + 1, addr));
            let c = Arc::new(Mutex::new(0));
            let s = Arc::new(Mutex::new(vec![]));
            calls.push(c.clone());
            seen.push(s.clone());
            match slot {
                Slot::Fake(mode) => {
                    let l = tokio::net::TcpListener::bind((addr.as_str(), port)).await.unwrap();
                    let gate = spur_auth::grpc::Gate::new(
                        KEY.to_vec(),
                        vec![format!("{}:{}", addr, port)],
                        Arc::new(spur_auth::replay::ReplayCache::in_memory()),
                        false,
                        spur_auth::grpc::Limits::new(16, 16, None, vec![]),
                        None,
                    );
                    let svc = spur_auth::grpc::Authenticated::new(
                        ControllerServer::new(Fake { mode, calls: c, seen: s }),
                        gate,
                        |_| spur_auth::grpc::ANYONE,
                        1 << 20,
                    );
                    let incoming = tonic::transport::server::TcpIncoming::from(l);
                    tokio::spawn(tonic::transport::Server::builder().add_service(svc).serve_with_incoming(incoming));
                }
                Slot::Silent => {
                    let l = tokio::net::TcpListener::bind((addr.as_str(), port)).await.unwrap();
                    tokio::spawn(async move {
                        let mut held = vec![];
                        while let Ok((sock, _)) = l.accept().await {
                            held.push(sock);
                        }
                    });
                }
                Slot::Dead => {}
            }
        }
        std::fs::write(dir.join("slurm.conf"), &conf).unwrap();
        std::fs::write(dir.join("slurm.key"), KEY).unwrap();
        // (a key others can read is refused, as by Slurm)
        std::fs::set_permissions(dir.join("slurm.key"), std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
        Cluster { dir, calls, seen }
    }

    fn client(&self) -> Client {
        Client::from_conf_path(&self.dir.join("slurm.conf"))
            .unwrap()
            .with_timeouts(Duration::from_millis(500), Duration::from_secs(4))
    }

    fn port(&self) -> u16 {
        let conf = std::fs::read_to_string(self.dir.join("slurm.conf")).unwrap();
        conf.lines().find_map(|l| l.strip_prefix("SlurmctldPort=")).unwrap().parse().unwrap()
    }

    fn calls(&self, i: usize) -> usize {
        *self.calls[i].lock().unwrap()
    }
}

fn desc(id: &str) -> JobDesc {
    JobDesc { request_id: Some(id.into()), ..Default::default() }
}

#[tokio::test]
async fn follows_the_leader_named_by_a_follower() {
    // the follower names 127.0.0.2 (same port) as the leader
    let c = Cluster::start_with(|port| {
        vec![Slot::Fake(Mode::NotLeader(format!("127.0.0.2:{}", port))), Slot::Fake(Mode::Leader)]
    })
    .await;
    let client = c.client();
    let out = client.submit(&desc("r1"), false).await.unwrap();
    assert_eq!(out.job_id, 42);
    assert_eq!((c.calls(0), c.calls(1)), (1, 1));
    // the leader is remembered: the next call goes straight to it
    client.ping().await.unwrap();
    assert_eq!((c.calls(0), c.calls(1)), (1, 2));
}

#[tokio::test]
async fn a_leader_hint_outside_slurm_conf_is_not_followed() {
    // the follower names an address that is no SlurmctldHost of slurm.conf
    // (a program on it would receive the client's credentials): the client
    // goes to the next controller of slurm.conf instead
    let c = Cluster::start_with(|port| {
        vec![Slot::Fake(Mode::NotLeader(format!("127.0.0.9:{}", port))), Slot::Fake(Mode::Leader)]
    })
    .await;
    let hijack = tokio::net::TcpListener::bind(("127.0.0.9", c.port())).await.unwrap();
    let out = c.client().submit(&desc("r9"), false).await.unwrap();
    assert_eq!(out.job_id, 42);
    assert_eq!((c.calls(0), c.calls(1)), (1, 1));
    let none = tokio::time::timeout(Duration::from_millis(100), hijack.accept()).await;
    assert!(none.is_err(), "the client connected to the address of the hint");
}

#[tokio::test]
async fn a_leader_added_to_slurm_conf_since_is_followed() {
    // the client starts from a slurm.conf with the first controller only; the
    // second is added to slurm.conf (as by an administrator adding a
    // controller) and becomes leader: the hint naming it is followed
    let c = Cluster::start_with(|port| {
        vec![Slot::Fake(Mode::NotLeader(format!("127.0.0.2:{}", port))), Slot::Fake(Mode::Leader)]
    })
    .await;
    let path = c.dir.join("slurm.conf");
    let full = std::fs::read_to_string(&path).unwrap();
    let first: String =
        full.lines().filter(|l| !l.starts_with("SlurmctldHost=c2")).map(|l| format!("{}\n", l)).collect();
    std::fs::write(&path, first).unwrap();
    let client = c.client();
    std::fs::write(&path, full).unwrap();
    let out = client.submit(&desc("r10"), false).await.unwrap();
    assert_eq!(out.job_id, 42);
    assert_eq!((c.calls(0), c.calls(1)), (1, 1));
}

#[tokio::test]
async fn an_election_is_retried_on_the_next_controller() {
    let c = Cluster::start(vec![Slot::Fake(Mode::Election), Slot::Fake(Mode::Leader)]).await;
    let out = c.client().submit(&desc("r2"), false).await.unwrap();
    assert_eq!(out.job_id, 42);
    assert!(c.calls(0) >= 1 && c.calls(1) == 1);
}

#[tokio::test]
async fn a_dead_controller_is_skipped() {
    let c = Cluster::start(vec![Slot::Dead, Slot::Fake(Mode::Leader)]).await;
    assert_eq!(c.client().ping().await.unwrap().host, "fake");
    assert_eq!(c.calls(1), 1);
}

#[tokio::test]
async fn a_silent_controller_times_out_and_the_next_answers() {
    let c = Cluster::start(vec![Slot::Silent, Slot::Fake(Mode::Leader)]).await;
    let t = std::time::Instant::now();
    assert_eq!(c.client().ping().await.unwrap().host, "fake");
    // given up after the message timeout (500 ms here), not the retry time
    assert!(t.elapsed() >= Duration::from_millis(400), "{:?}", t.elapsed());
    assert!(t.elapsed() < Duration::from_secs(4), "{:?}", t.elapsed());
}

/// With the message timeout as long as the retry time (the defaults: 10 s
/// each), a stopped first controller used up the whole retry time and every
/// command failed, the leader behind it never tried.
#[tokio::test]
async fn a_silent_controller_does_not_use_up_the_retry_time() {
    let c = Cluster::start_with(|port| {
        vec![Slot::Silent, Slot::Fake(Mode::NotLeader(format!("127.0.0.3:{}", port))), Slot::Fake(Mode::Leader)]
    })
    .await;
    let client = c.client().with_timeouts(Duration::from_millis(300), Duration::from_millis(300));
    assert_eq!(client.ping().await.unwrap().host, "fake");
    assert_eq!(c.calls(2), 1);
    // every controller silent: unreachable, after one message timeout each
    let c = Cluster::start(vec![Slot::Silent, Slot::Silent]).await;
    let client = c.client().with_timeouts(Duration::from_millis(200), Duration::from_millis(200));
    assert!(matches!(client.ping().await.unwrap_err(), ClientError::Unreachable));
}

#[tokio::test]
async fn nobody_answering_is_unreachable_after_the_retry_time() {
    let c = Cluster::start(vec![Slot::Dead, Slot::Fake(Mode::Election)]).await;
    let client = c.client().with_timeouts(Duration::from_millis(300), Duration::from_millis(800));
    let e = client.ping().await.unwrap_err();
    assert!(matches!(e, ClientError::Unreachable), "{:?}", e);
    assert_eq!(e.code(), errors::SLURM_COMMUNICATIONS_CONNECTION_ERROR);
    assert_eq!(e.to_string(), "Unable to contact slurm controller (connect failure)");
}

#[tokio::test]
async fn a_retried_submission_keeps_its_request_id() {
    // one controller in an election for two calls, then leader; the other dead
    let c = Cluster::start(vec![Slot::Fake(Mode::ElectionThenLeader(2)), Slot::Dead]).await;
    let out = c.client().submit(&desc("same-id"), false).await.unwrap();
    assert_eq!(out.job_id, 42);
    let seen = c.seen[0].lock().unwrap().clone();
    assert_eq!(seen, ["same-id", "same-id", "same-id"]);
    // a description without an id gets a random one, kept across retries
    let c = Cluster::start(vec![Slot::Fake(Mode::ElectionThenLeader(1)), Slot::Dead]).await;
    c.client().submit(&JobDesc::default(), false).await.unwrap();
    let seen = c.seen[0].lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0], seen[1]);
    assert_eq!(seen[0].len(), 24);
    assert_ne!(seen[0], "0".repeat(24));
}

#[tokio::test]
async fn refusals_map_to_slurm_errors() {
    let c = Cluster::start(vec![Slot::Fake(Mode::Unauthenticated)]).await;
    let e = c.client().ping().await.unwrap_err();
    assert_eq!(e.code(), errors::SLURM_PROTOCOL_AUTHENTICATION_ERROR);
    assert_eq!(c.calls(0), 1, "not retried");
    let c = Cluster::start(vec![Slot::Fake(Mode::PermissionDenied)]).await;
    let e = c.client().register(&NodeRegistration::default()).await.unwrap_err();
    assert_eq!(e.code(), errors::ESLURM_ACCESS_DENIED);
    assert_eq!(e.to_string(), "Access/permission denied");
    // an answer with a Slurm error number
    let c = Cluster::start(vec![Slot::Fake(Mode::Leader)]).await;
    let e = c.client().update_node(&NodeUpdate { nodes: "n1".into(), ..Default::default() }).await.unwrap_err();
    assert_eq!(e.code(), errors::ESLURM_USER_ID_MISSING);
    assert_eq!(c.client().register(&NodeRegistration::default()).await.unwrap(), [3]);
    assert_eq!(c.client().reservation(&ReservationRequest::Delete { name: "x".into() }).await.unwrap(), "r_1");
}

#[test]
fn the_blocking_client_works_from_plain_and_async_threads() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let c = rt.block_on(Cluster::start(vec![Slot::Fake(Mode::Leader)]));
    // the fake's server runs on `rt`: drive it from a thread of its own
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop2 = stop.clone();
    let server = std::thread::spawn(move || {
        rt.block_on(async move {
            while !stop2.load(std::sync::atomic::Ordering::SeqCst) {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
    });
    let client = blocking::Client::from_conf_path(&c.dir.join("slurm.conf"))
        .unwrap()
        .with_timeouts(Duration::from_millis(500), Duration::from_secs(4));
    // from several plain threads at once (as C callers would)
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let cl = client.clone();
            std::thread::spawn(move || cl.submit(&desc(&format!("t{}", i)), false).unwrap().job_id)
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), 42);
    }
    // and from inside an async runtime
    let inner = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let view = inner.block_on(async { client.query(&Query::default()) }).unwrap();
    assert_eq!(view.cluster_name, "fake");
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    server.join().unwrap();
}
