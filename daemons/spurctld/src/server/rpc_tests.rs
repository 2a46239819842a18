//! Every Controller RPC, called in-process on a real single-member
//! controller (Raft storage in a temporary directory, no network): a
//! request no credential proved is refused, an ordinary user cannot do what only operators
//! may, and the main validation errors come back with Slurm's numbers.

use super::*;
use spur_proto::convert;

const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

const CONF: &str = "ClusterName=test\nSlurmctldHost=h(127.0.0.1)\nSlurmctldPort=6817\n\
NodeName=n[1-2] CPUs=2 RealMemory=1000 State=UNKNOWN\n\
PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=60 State=UP\n";

struct Fixture {
    svc: Service,
    dir: std::path::PathBuf,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn controller() -> Fixture {
    controller_with("").await
}

/// A controller whose slurm.conf has `extra` lines besides [`CONF`].
async fn controller_with(extra: &str) -> Fixture {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("spurctld-rpc-test-{}-{}", std::process::id(), n));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let conf = spur_core::config::parse_str(&format!("{}{}", CONF, extra), &dir.join("slurm.conf")).unwrap();
    let opened = spur_state::raft::open(&dir, |_| {
        spur_state::State::new(
            conf.cluster_name.clone(),
            crate::nodes_from_conf(&conf),
            crate::partitions_from_conf(&conf),
            conf.first_job_id,
            conf.max_job_id,
        )
    })
    .unwrap();
    // the accounting store, fed as in main.rs
    let acct = std::sync::Arc::new(spur_accounting::Store::open(&dir).unwrap());
    let mut opened = opened;
    opened.sm.set_feed(std::sync::Arc::new(spur_accounting::Feeder::start(acct.clone(), |e| panic!("{}", e))));
    let rconf = std::sync::Arc::new(
        openraft::Config {
            heartbeat_interval: 50,
            election_timeout_min: 150,
            election_timeout_max: 300,
            ..Default::default()
        }
        .validate()
        .unwrap(),
    );
    let net = crate::raftnet::Net {
        auth: spur_auth::grpc::DaemonAuth::Key(std::sync::Arc::new(KEY.to_vec())),
        wv: opened.write_version.clone(),
        local_ip: None,
        legacy: false,
        transport: Default::default(),
    };
    let raft = spur_state::raft::Raft::new(1, rconf, net, opened.log, opened.sm).await.unwrap();
    let members: std::collections::BTreeMap<u64, openraft::BasicNode> =
        [(1, openraft::BasicNode { addr: "127.0.0.1:6817".into() })].into_iter().collect();
    raft.initialize(members).await.unwrap();
    let ctld =
        Ctld::new(conf, opened.shared, raft, 1, spur_auth::grpc::DaemonAuth::Key(std::sync::Arc::new(KEY.to_vec())), 0);
    let _ = ctld.acct.set(acct);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !ctld.is_ready_leader() {
        assert!(std::time::Instant::now() < deadline, "no leader");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    Fixture { svc: Service::new(ctld), dir }
}

fn uid(name: &str) -> u32 {
    spur_auth::users::uid_of(name).unwrap_or_else(|| panic!("no user {}", name))
}

/// A request as `uid`'s credential proved it (what spur_auth::grpc's gate
/// puts in the request; the gate itself is tested in spur-auth and
/// slurm-tests/tests/credentials.rs).
fn as_uid<T>(uid: u32, msg: T) -> Request<T> {
    let mut r = Request::new(msg);
    r.extensions_mut().insert(spur_auth::Identity::user(uid, uid));
    r
}

fn root<T>(msg: T) -> Request<T> {
    as_uid(0, msg)
}

fn user<T>(msg: T) -> Request<T> {
    as_uid(uid("nobody"), msg)
}

fn other<T>(msg: T) -> Request<T> {
    as_uid(uid("daemon"), msg)
}

fn code(s: &Option<Status>) -> i32 {
    s.as_ref().map(|s| s.code).unwrap_or(0)
}

fn wrap_job(partition: Option<&str>) -> SubmitRequest {
    let desc = JobDesc {
        name: "wrap".into(),
        script: "#!/bin/sh\ntrue\n".into(),
        work_dir: "/tmp".into(),
        partition: partition.map(String::from),
        ..Default::default()
    };
    SubmitRequest {
        job_desc: spur_core::records::encode_job_desc(&desc, spur_format::FORMAT_VERSION).unwrap(),
        test_only: false,
    }
}

async fn submit(f: &Fixture, req: Request<SubmitRequest>) -> u32 {
    let r = f.svc.submit(req).await.unwrap().into_inner();
    assert_eq!(code(&r.status), 0, "{:?}", r.status);
    r.job_id
}

fn control(ids: &[u32], op: &JobControl) -> JobControlRequest {
    let ids: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
    convert::job_control_request(&ids, op)
}

fn codes(r: &JobControlReply) -> Vec<i32> {
    r.results.iter().map(|x| code(&x.status)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_no_credential_proved_is_refused_by_every_rpc() {
    let f = controller().await;
    let s = &f.svc;
    let unauth = |e: tonic::Status| assert_eq!(e.code(), tonic::Code::Unauthenticated, "{:?}", e);
    {
        let mk = |m| Request::new(m);
        unauth(s.submit(mk(()).map(|_| wrap_job(None))).await.unwrap_err());
        unauth(s.query(mk(()).map(|_| QueryRequest::default())).await.unwrap_err());
        unauth(s.cancel(mk(()).map(|_| CancelRequest::default())).await.unwrap_err());
        unauth(s.job_control(mk(()).map(|_| control(&[1], &JobControl::Release))).await.unwrap_err());
        unauth(s.node_control(mk(()).map(|_| NodeControlRequest::default())).await.unwrap_err());
        unauth(s.reservation(mk(()).map(|_| ReservationRequest::default())).await.unwrap_err());
        unauth(s.register(mk(()).map(|_| RegisterRequest::default())).await.unwrap_err());
        unauth(s.job_complete(mk(()).map(|_| JobCompleteRequest::default())).await.unwrap_err());
        unauth(s.ping(mk(()).map(|_| PingRequest {})).await.unwrap_err());
        unauth(s.membership(mk(()).map(|_| MembershipRequest::default())).await.unwrap_err());
        unauth(s.step_create(mk(()).map(|_| StepCreateRequest::default())).await.unwrap_err());
        unauth(s.step_complete(mk(()).map(|_| StepCompleteRequest::default())).await.unwrap_err());
        unauth(s.accounting(mk(()).map(|_| AccountingRequest::default())).await.unwrap_err());
        unauth(s.step_stat(mk(()).map(|_| StepStatRequest::default())).await.unwrap_err());
    }
}

/// The records sacct reads: every job's, fed from the log; with
/// `PrivateData=jobs`, another user's are left out; sstat of a job the
/// caller may not see, or of none, is an invalid job id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounting_records_follow_private_data() {
    let f = controller_with("PrivateData=jobs\n").await;
    let s = &f.svc;
    let mine = submit(&f, user(wrap_job(None))).await;
    let theirs = submit(&f, other(wrap_job(None))).await;
    let ask = |q: spur_core::acct::AcctQuery| AccountingRequest {
        query: spur_format::encode(spur_format::Kind::ACCT_QUERY, spur_format::FORMAT_VERSION, &q).unwrap(),
        max_format_version: u32::from(spur_format::FORMAT_VERSION),
    };
    let ids = |r: AccountingReply| {
        assert_eq!(code(&r.status), 0);
        let (v, _): (Vec<spur_core::acct::AcctJob>, _) =
            spur_format::decode(spur_format::Kind::ACCT_JOB, &r.records, &"reply").unwrap();
        v.iter().map(|j| j.job_id).collect::<Vec<_>>()
    };
    // the writer thread commits a moment after the entry is applied
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let got = ids(s.accounting(root(ask(Default::default()))).await.unwrap().into_inner());
        if got == [mine, theirs] {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "records: {:?}", got);
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(ids(s.accounting(user(ask(Default::default()))).await.unwrap().into_inner()), [mine]);
    assert_eq!(ids(s.accounting(other(ask(Default::default()))).await.unwrap().into_inner()), [theirs]);
    // a query that cannot be read
    let bad = AccountingRequest { query: vec![1, 2, 3], max_format_version: 7 };
    assert_ne!(code(&s.accounting(user(bad)).await.unwrap().into_inner().status), 0);
    let stat = |job_id| StepStatRequest { job_id, step_id: spur_core::model::BATCH_STEP, with_pids: false };
    assert_eq!(code(&s.step_stat(user(stat(theirs))).await.unwrap().into_inner().status), ESLURM_INVALID_JOB_ID);
    assert_eq!(code(&s.step_stat(user(stat(999_999))).await.unwrap().into_inner().status), ESLURM_INVALID_JOB_ID);
}

/// Without PrivateData, another user's running job is seen, but its steps'
/// use is refused as slurmd refuses it (sstat: `rc = Invalid user id`), and
/// its processes too (libslurm's slurm_job_step_get_pids).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_users_step_use_is_refused() {
    let f = controller().await;
    let s = &f.svc;
    let theirs = submit(&f, other(wrap_job(None))).await;
    let stat = StepStatRequest { job_id: theirs, step_id: spur_core::model::BATCH_STEP, with_pids: true };
    // (pending: no step runs yet, and the owner check comes first for another user)
    assert_eq!(code(&s.step_stat(user(stat)).await.unwrap().into_inner().status), ESLURM_USER_ID_MISSING);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn submission_and_query_rules() {
    let f = controller().await;
    let s = &f.svc;
    // an unknown partition
    let r = s.submit(user(wrap_job(Some("nosuch")))).await.unwrap().into_inner();
    assert_eq!(code(&r.status), ESLURM_INVALID_PARTITION_NAME);
    // a deadline before the job could end
    let desc =
        JobDesc { time_limit: Some(120), deadline: now() + 60, script: "#!/bin/sh\n".into(), ..Default::default() };
    let r = s
        .submit(user(SubmitRequest {
            job_desc: spur_core::records::encode_job_desc(&desc, spur_format::FORMAT_VERSION).unwrap(),
            test_only: false,
        }))
        .await
        .unwrap();
    assert_eq!(code(&r.into_inner().status), ESLURM_INVALID_TIME_LIMIT);
    // a record that is not a job description
    let r = s.submit(user(SubmitRequest { job_desc: vec![1, 2, 3], test_only: false })).await.unwrap();
    assert_eq!(code(&r.into_inner().status), SLURM_UNEXPECTED_MSG_ERROR);
    // an unknown reservation
    let desc = JobDesc { reservation: Some("nosuch".into()), script: "#!/bin/sh\n".into(), ..Default::default() };
    let r = s
        .submit(user(SubmitRequest {
            job_desc: spur_core::records::encode_job_desc(&desc, spur_format::FORMAT_VERSION).unwrap(),
            test_only: false,
        }))
        .await
        .unwrap();
    assert_eq!(code(&r.into_inner().status), ESLURM_RESERVATION_INVALID);
    // a job, and its script: its owner's and the operators' only
    let jid = submit(&f, user(wrap_job(None))).await;
    let q =
        |with_script| QueryRequest { jobs: true, job_ids: vec![jid.to_string()], with_script, ..Default::default() };
    assert_eq!(code(&s.query(other(q(true))).await.unwrap().into_inner().status), ESLURM_USER_ID_MISSING);
    assert_eq!(code(&s.query(user(q(true))).await.unwrap().into_inner().status), 0);
    assert_eq!(code(&s.query(root(q(true))).await.unwrap().into_inner().status), 0);
    let view: ClusterView =
        spur_core::records::decode_view(&s.query(other(q(false))).await.unwrap().into_inner().view, &"test").unwrap();
    assert_eq!(view.jobs.len(), 1);
    // the same request id gets the first job back
    let desc = JobDesc { request_id: Some("abc".into()), script: "#!/bin/sh\n".into(), ..Default::default() };
    let req = || SubmitRequest {
        job_desc: spur_core::records::encode_job_desc(&desc, spur_format::FORMAT_VERSION).unwrap(),
        test_only: false,
    };
    let first = submit(&f, user(req())).await;
    assert_eq!(submit(&f, user(req())).await, first);
    // more tasks than the CPUs of the nodes -N allows: refused, unless
    // --overcommit (Slurm 22.05: `sbatch -n10 -N1` on 8-CPU nodes, issue 9),
    // which asks one CPU per node
    let tasks_on_one = |overcommit: bool| {
        let desc = JobDesc {
            num_tasks: Some(3),
            min_nodes: Some(1),
            max_nodes: Some(1),
            accepted: overcommit.then(|| Box::new(AcceptedOptions { overcommit: true, ..Default::default() })),
            script: "#!/bin/sh\n".into(),
            ..Default::default()
        };
        SubmitRequest {
            job_desc: spur_core::records::encode_job_desc(&desc, spur_format::FORMAT_VERSION).unwrap(),
            test_only: false,
        }
    };
    let r = s.submit(user(tasks_on_one(false))).await.unwrap().into_inner();
    assert_eq!(code(&r.status), ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE);
    let jid = submit(&f, user(tasks_on_one(true))).await;
    let g = f.svc.ctld.lock();
    let j = g.state.jobs().get(&jid).unwrap();
    assert_eq!((j.num_nodes, j.num_tasks, j.num_cpus), (1, 3, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_and_job_control_rules() {
    let f = controller().await;
    let s = &f.svc;
    let jid = submit(&f, user(wrap_job(None))).await;
    // another user's job
    let c = |ids: Vec<String>| CancelRequest { job_ids: ids, ..Default::default() };
    let r = s.cancel(other(c(vec![jid.to_string()]))).await.unwrap().into_inner();
    assert_eq!(r.results.iter().map(|x| code(&x.status)).collect::<Vec<_>>(), [ESLURM_ACCESS_DENIED]);
    let r = s.cancel(user(c(vec!["999999".into()]))).await.unwrap().into_inner();
    assert_eq!(r.results.iter().map(|x| code(&x.status)).collect::<Vec<_>>(), [ESLURM_INVALID_JOB_ID]);
    for op in [
        JobControl::Hold { user: false },
        JobControl::Release,
        JobControl::Update(Box::new(rq::JobUpdate { comment: Some("x".into()), ..Default::default() })),
    ] {
        let r = s.job_control(other(control(&[jid], &op))).await.unwrap().into_inner();
        assert_eq!(codes(&r), [ESLURM_USER_ID_MISSING], "{:?}", op);
    }
    // operators only
    for op in [JobControl::Suspend, JobControl::Resume] {
        let r = s.job_control(user(control(&[jid], &op))).await.unwrap().into_inner();
        assert_eq!(codes(&r), [ESLURM_ACCESS_DENIED], "{:?}", op);
    }
    let r = s.job_control(user(control(&[jid], &JobControl::Top))).await.unwrap().into_inner();
    assert_eq!(code(&r.status), ESLURM_ACCESS_DENIED);
    let r =
        s.job_control(other(control(&[jid], &JobControl::Requeue { hold: false, special_exit: false }))).await.unwrap();
    assert_eq!(codes(&r.into_inner()), [ESLURM_ACCESS_DENIED]);
    // update: raise the limit (partition MaxTime 60 is the default), set a priority, bad values
    let upd = |u: rq::JobUpdate| control(&[jid], &JobControl::Update(Box::new(u)));
    let r = s.job_control(user(upd(rq::JobUpdate { time_limit: Some(120), ..Default::default() }))).await.unwrap();
    assert_eq!(codes(&r.into_inner()), [ESLURM_ACCESS_DENIED]);
    let r = s.job_control(user(upd(rq::JobUpdate { time_limit: Some(10), ..Default::default() }))).await.unwrap();
    assert_eq!(codes(&r.into_inner()), [0]);
    let r = s.job_control(user(upd(rq::JobUpdate { priority: Some(5), ..Default::default() }))).await.unwrap();
    assert_eq!(codes(&r.into_inner()), [ESLURM_ACCESS_DENIED]);
    let r = s
        .job_control(root(upd(rq::JobUpdate { partition: Some("nosuch".into()), ..Default::default() })))
        .await
        .unwrap();
    assert_eq!(codes(&r.into_inner()), [ESLURM_INVALID_PARTITION_NAME]);
    let r =
        s.job_control(root(upd(rq::JobUpdate { exc_nodes: Some("n[1-".into()), ..Default::default() }))).await.unwrap();
    assert_eq!(codes(&r.into_inner()), [ESLURM_INVALID_NODE_NAME]);
    let r = s
        .job_control(root(upd(rq::JobUpdate { unsupported: vec![rq::UnsupportedJobField::Qos], ..Default::default() })))
        .await;
    assert_eq!(codes(&r.unwrap().into_inner()), [ESLURM_NOT_SUPPORTED]);
    // the owner holds and releases; an operator's hold stays for the user
    assert_eq!(
        codes(&s.job_control(root(control(&[jid], &JobControl::Hold { user: false }))).await.unwrap().into_inner()),
        [0]
    );
    assert_eq!(
        codes(&s.job_control(user(control(&[jid], &JobControl::Release))).await.unwrap().into_inner()),
        [ESLURM_ACCESS_DENIED]
    );
    assert_eq!(codes(&s.job_control(root(control(&[jid], &JobControl::Release))).await.unwrap().into_inner()), [0]);
    // unknown ids, and a message no Spur sends
    let r = s.job_control(root(control(&[999999], &JobControl::Release))).await.unwrap().into_inner();
    assert_eq!(codes(&r), [ESLURM_INVALID_JOB_ID]);
    let r =
        s.job_control(root(JobControlRequest { job_ids: vec![jid.to_string()], op: None })).await.unwrap().into_inner();
    assert_eq!(code(&r.status), SLURM_UNEXPECTED_MSG_ERROR);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operator_rpcs() {
    let f = controller().await;
    let s = &f.svc;
    let drain = rq::NodeUpdate {
        nodes: "n1".into(),
        state: Some(rq::NodeStateChange::Drain),
        reason: Some("x".into()),
        ..Default::default()
    };
    let r = s.node_control(user(NodeControlRequest::from(&drain))).await.unwrap().into_inner();
    assert_eq!(code(&r.status), ESLURM_USER_ID_MISSING);
    let r = s.node_control(root(NodeControlRequest::from(&drain))).await.unwrap().into_inner();
    assert_eq!(code(&r.status), 0);
    let bad = rq::NodeUpdate { nodes: "nosuch".into(), ..drain.clone() };
    assert_eq!(
        code(&s.node_control(root(NodeControlRequest::from(&bad))).await.unwrap().into_inner().status),
        ESLURM_INVALID_NODE_NAME
    );
    let part = rq::PartitionUpdate { name: "debug".into(), max_time: Some(30), ..Default::default() };
    assert_eq!(
        code(&s.node_control(user(NodeControlRequest::from(&part))).await.unwrap().into_inner().status),
        ESLURM_USER_ID_MISSING
    );
    assert_eq!(code(&s.node_control(root(NodeControlRequest::from(&part))).await.unwrap().into_inner().status), 0);
    let nopart = rq::PartitionUpdate { name: "nosuch".into(), ..part };
    assert_eq!(
        code(&s.node_control(root(NodeControlRequest::from(&nopart))).await.unwrap().into_inner().status),
        ESLURM_INVALID_PARTITION_NAME
    );
    // reservations
    let spec = |users: &str| rq::ReservationSpec {
        name: "r1".into(),
        start_time: Some(now()),
        duration: Some(60),
        users: Some(rq::NameList { set: Some(vec![users.into()]), ..Default::default() }),
        nodes: Some("n2".into()),
        ..Default::default()
    };
    let create = |u: &str| ReservationRequest::from(&rq::ReservationRequest::Create(spec(u)));
    assert_eq!(code(&s.reservation(user(create("root"))).await.unwrap().into_inner().status), ESLURM_USER_ID_MISSING);
    assert_eq!(
        code(&s.reservation(root(create("no-such-user-here"))).await.unwrap().into_inner().status),
        ESLURM_USER_ID_MISSING
    );
    let r = s.reservation(root(create("root"))).await.unwrap().into_inner();
    assert_eq!((code(&r.status), r.name.as_str()), (0, "r1"));
    assert_eq!(
        code(&s.reservation(root(create("root"))).await.unwrap().into_inner().status),
        ESLURM_RESERVATION_NAME_DUP
    );
    let del = |n: &str| ReservationRequest::from(&rq::ReservationRequest::Delete { name: n.into() });
    assert_eq!(
        code(&s.reservation(root(del("nosuch"))).await.unwrap().into_inner().status),
        ESLURM_RESERVATION_INVALID
    );
    assert_eq!(code(&s.reservation(root(del("r1"))).await.unwrap().into_inner().status), 0);
    // agents' calls: operators only
    let denied = |e: tonic::Status| assert_eq!(e.code(), tonic::Code::PermissionDenied, "{:?}", e);
    denied(s.register(user(RegisterRequest { node: "n1".into(), ..Default::default() })).await.unwrap_err());
    denied(s.job_complete(user(JobCompleteRequest { job_id: 1, ..Default::default() })).await.unwrap_err());
    let r =
        s.register(root(RegisterRequest { node: "nosuch".into(), ..Default::default() })).await.unwrap().into_inner();
    assert_eq!(code(&r.status), ESLURM_INVALID_NODE_NAME);
    // membership: anyone lists, operators change
    let m = |c: rq::MembershipChange| MembershipRequest::from(&c);
    let listed = s.membership(user(m(rq::MembershipChange::List))).await.unwrap().into_inner();
    assert_eq!(listed.members.len(), 1);
    denied(s.membership(user(m(rq::MembershipChange::Remove { id: 1 }))).await.unwrap_err());
    denied(s.membership(user(m(rq::MembershipChange::Add { id: 2, addr: "127.0.0.2:1".into() }))).await.unwrap_err());
    let r = s.membership(root(m(rq::MembershipChange::Remove { id: 1 }))).await.unwrap().into_inner();
    assert_eq!(code(&r.status), SLURM_ERROR_ANY, "the last controller stays");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_lists_resolve_to_the_records_holding_the_tasks() {
    let f = controller().await;
    let s = &f.svc;
    let mut req = wrap_job(None);
    let desc = JobDesc {
        name: "arr".into(),
        script: "#!/bin/sh\ntrue\n".into(),
        work_dir: "/tmp".into(),
        array: Some("0-9".into()),
        ..Default::default()
    };
    req.job_desc = spur_core::records::encode_job_desc(&desc, spur_format::FORMAT_VERSION).unwrap();
    let id = submit(&f, user(req)).await;
    let refs = |text: &str| {
        let jref = spur_grammar::jobref::parse_job_str(text, 1001).unwrap();
        resolve(&s.ctld.lock().state, &jref)
    };
    // every task pending in the array's record; a repeated list names each once
    assert_eq!(refs(&format!("{id}_[1-3,1-3,5]")), [(id, Some(1)), (id, Some(2)), (id, Some(3)), (id, Some(5))]);
    assert_eq!(refs(&format!("{id}_[0-9]")).len(), 10);
    assert_eq!(refs(&format!("{id}_7")), [(id, Some(7))]);
    // tasks the array does not hold name nothing
    assert_eq!(refs(&format!("{id}_[10-20]")), []);
}

fn view_of(r: QueryReply) -> ClusterView {
    assert_eq!(code(&r.status), 0, "{:?}", r.status);
    spur_core::records::decode_view(&r.view, &"test").unwrap()
}

/// A reservation of n2 for an hour, each one later than the one before.
fn resv(name: &str, users: &str, flags: &[&str]) -> ReservationRequest {
    static HOURS: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(1);
    let hours = HOURS.fetch_add(2, std::sync::atomic::Ordering::SeqCst);
    let spec = rq::ReservationSpec {
        name: name.into(),
        start_time: Some(now() + hours * 3600),
        duration: Some(60),
        users: Some(rq::NameList { set: Some(vec![users.into()]), ..Default::default() }),
        nodes: Some("n2".into()),
        flags: (!flags.is_empty()).then(|| flags.iter().map(|f| f.to_string()).collect()),
        ..Default::default()
    };
    ReservationRequest::from(&rq::ReservationRequest::Create(spec))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_data_hides_other_users_jobs_and_reservations() {
    let f = controller_with("PrivateData=jobs,reservations\n").await;
    let s = &f.svc;
    let mine = submit(&f, user(wrap_job(None))).await;
    let theirs = submit(&f, other(wrap_job(None))).await;
    let all = || QueryRequest { jobs: true, all_finished: true, ..Default::default() };
    let ids = |v: ClusterView| v.jobs.iter().map(|j| j.job_id).collect::<Vec<_>>();
    assert_eq!(ids(view_of(s.query(user(all())).await.unwrap().into_inner())), [mine]);
    assert_eq!(ids(view_of(s.query(other(all())).await.unwrap().into_inner())), [theirs]);
    assert_eq!(ids(view_of(s.query(root(all())).await.unwrap().into_inner())), [mine, theirs]);
    // asked for by id: not there (squeue -j: Invalid job id specified)
    let by_id = |id: u32, with_script| QueryRequest {
        jobs: true,
        job_ids: vec![id.to_string()],
        with_script,
        ..Default::default()
    };
    assert!(view_of(s.query(user(by_id(theirs, false))).await.unwrap().into_inner()).jobs.is_empty());
    // its script: refused for the owner's sake, as without PrivateData
    let r = s.query(user(by_id(theirs, true))).await.unwrap().into_inner();
    assert_eq!(code(&r.status), ESLURM_USER_ID_MISSING);
    // scancel by filter acts on the jobs the caller sees: none of theirs
    let by_user = CancelRequest { user: Some("daemon".into()), ..Default::default() };
    assert!(s.cancel(user(by_user)).await.unwrap().into_inner().results.is_empty());
    // by id: refused as ever
    let by_id = CancelRequest { job_ids: vec![theirs.to_string()], ..Default::default() };
    let r = s.cancel(user(by_id)).await.unwrap().into_inner();
    assert_eq!(r.results.iter().map(|x| code(&x.status)).collect::<Vec<_>>(), [ESLURM_ACCESS_DENIED]);
    // reservations: those that admit the caller
    assert_eq!(code(&s.reservation(root(resv("ours", "nobody", &[]))).await.unwrap().into_inner().status), 0);
    assert_eq!(code(&s.reservation(root(resv("staff", "root", &[]))).await.unwrap().into_inner().status), 0);
    let names = |v: ClusterView| v.reservations.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
    let q = || QueryRequest::default();
    assert_eq!(names(view_of(s.query(user(q())).await.unwrap().into_inner())), ["ours"]);
    assert!(names(view_of(s.query(other(q())).await.unwrap().into_inner())).is_empty());
    assert_eq!(names(view_of(s.query(root(q())).await.unwrap().into_inner())).len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_private_data_everyone_sees_everything() {
    let f = controller().await;
    let s = &f.svc;
    let theirs = submit(&f, other(wrap_job(None))).await;
    let all = QueryRequest { jobs: true, all_finished: true, ..Default::default() };
    let v = view_of(s.query(user(all)).await.unwrap().into_inner());
    assert_eq!(v.jobs.iter().map(|j| j.job_id).collect::<Vec<_>>(), [theirs]);
    assert_eq!(code(&s.reservation(root(resv("staff", "root", &[]))).await.unwrap().into_inner().status), 0);
    assert_eq!(view_of(s.query(user(QueryRequest::default())).await.unwrap().into_inner()).reservations.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_query_for_one_users_jobs_carries_only_theirs() {
    // squeue -u USER (slurm_load_job_user): the reply holds that user's jobs
    // only, so its size is theirs, not the queue's
    let f = controller().await;
    let s = &f.svc;
    let mine = submit(&f, user(wrap_job(None))).await;
    let theirs = submit(&f, other(wrap_job(None))).await;
    let ids = |v: ClusterView| v.jobs.iter().map(|j| j.job_id).collect::<Vec<_>>();
    let of = |u: Option<u32>| QueryRequest { jobs: true, user_id: u, ..Default::default() };
    assert_eq!(ids(view_of(s.query(user(of(Some(uid("daemon"))))).await.unwrap().into_inner())), [theirs]);
    assert_eq!(ids(view_of(s.query(root(of(Some(uid("nobody"))))).await.unwrap().into_inner())), [mine]);
    assert_eq!(ids(view_of(s.query(root(of(None))).await.unwrap().into_inner())), [mine, theirs]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_users_hold_does_not_lift_an_operators() {
    let f = controller().await;
    let s = &f.svc;
    let jid = submit(&f, user(wrap_job(None))).await;
    let run = |req| async { codes(&s.job_control(req).await.unwrap().into_inner()) };
    assert_eq!(run(root(control(&[jid], &JobControl::Hold { user: false }))).await, [0]);
    // uhold and hold succeed and change nothing; the release stays refused
    for user_hold in [true, false] {
        assert_eq!(run(user(control(&[jid], &JobControl::Hold { user: user_hold }))).await, [0]);
        assert_eq!(s.ctld.lock().state.jobs()[&jid].held, Some(Reason::JobHeldAdmin));
        assert_eq!(run(user(control(&[jid], &JobControl::Release))).await, [ESLURM_ACCESS_DENIED]);
    }
    // an operator's uhold makes it the user's, to release
    assert_eq!(run(root(control(&[jid], &JobControl::Hold { user: true }))).await, [0]);
    assert_eq!(run(user(control(&[jid], &JobControl::Release))).await, [0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn top_for_owners_with_enable_user_top() {
    let f = controller_with("SchedulerParameters=enable_user_top\n").await;
    let s = &f.svc;
    let a = submit(&f, user(wrap_job(None))).await;
    let b = submit(&f, user(wrap_job(None))).await;
    let theirs = submit(&f, other(wrap_job(None))).await;
    let top = |ids: &[u32]| control(ids, &JobControl::Top);
    for (id, p) in [(a, 10), (b, 5)] {
        let u = JobControl::Update(Box::new(rq::JobUpdate { priority: Some(p), ..Default::default() }));
        assert_eq!(codes(&s.job_control(root(control(&[id], &u))).await.unwrap().into_inner()), [0]);
    }
    assert_eq!(code(&s.job_control(user(top(&[b]))).await.unwrap().into_inner().status), 0);
    {
        let g = s.ctld.lock();
        assert!(g.state.jobs()[&b].priority > g.state.jobs()[&a].priority, "the topped job goes first");
    }
    for ids in [vec![theirs], vec![b, theirs]] {
        let r = s.job_control(user(top(&ids))).await.unwrap().into_inner();
        assert_eq!(code(&r.status), ESLURM_ACCESS_DENIED, "{:?}", ids);
    }
    assert_eq!(code(&s.job_control(root(top(&[theirs]))).await.unwrap().into_inner().status), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn users_a_reservation_admits_delete_it_when_it_lets_them() {
    let f = controller().await;
    let s = &f.svc;
    for (name, users, flags) in
        [("ud", "nobody", &["USER_DELETE"][..]), ("plain", "nobody", &[]), ("theirs", "root", &["USER_DELETE"])]
    {
        assert_eq!(
            code(&s.reservation(root(resv(name, users, flags))).await.unwrap().into_inner().status),
            0,
            "{}",
            name
        );
    }
    let del = |n: &str| ReservationRequest::from(&rq::ReservationRequest::Delete { name: n.into() });
    let deleted = |r: ReservationReply| code(&r.status);
    assert_eq!(deleted(s.reservation(user(del("plain"))).await.unwrap().into_inner()), ESLURM_USER_ID_MISSING);
    assert_eq!(deleted(s.reservation(user(del("theirs"))).await.unwrap().into_inner()), ESLURM_USER_ID_MISSING);
    assert_eq!(deleted(s.reservation(other(del("ud"))).await.unwrap().into_inner()), ESLURM_USER_ID_MISSING);
    assert_eq!(deleted(s.reservation(user(del("ud"))).await.unwrap().into_inner()), 0);
    // updating is still for operators
    let upd = rq::ReservationSpec { name: "plain".into(), duration: Some(30), ..Default::default() };
    let r = s.reservation(user(ReservationRequest::from(&rq::ReservationRequest::Update(upd)))).await.unwrap();
    assert_eq!(code(&r.into_inner().status), ESLURM_USER_ID_MISSING);
    // SlurmctldParameters=user_resv_delete: any reservation that admits the user
    let f = controller_with("SlurmctldParameters=user_resv_delete\n").await;
    let s = &f.svc;
    assert_eq!(code(&s.reservation(root(resv("plain", "nobody", &[]))).await.unwrap().into_inner().status), 0);
    assert_eq!(code(&s.reservation(root(resv("theirs", "root", &[]))).await.unwrap().into_inner().status), 0);
    assert_eq!(deleted(s.reservation(user(del("theirs"))).await.unwrap().into_inner()), ESLURM_USER_ID_MISSING);
    assert_eq!(deleted(s.reservation(user(del("plain"))).await.unwrap().into_inner()), 0);
}

/// An array job as the user submits it: `--array=0-999`, held.
fn array_job(script: &str) -> SubmitRequest {
    let desc = JobDesc {
        name: "arr".into(),
        script: script.into(),
        work_dir: "/tmp".into(),
        array: Some("0-999".into()),
        hold: true,
        ..Default::default()
    };
    SubmitRequest {
        job_desc: spur_core::records::encode_job_desc(&desc, spur_format::FORMAT_VERSION).unwrap(),
        test_only: false,
    }
}

/// Issue 9, point 3: the state lock is never held across work whose cost
/// the request sets. 10,000 records (ten 1000-task arrays, every task split
/// off) and an array of 1000 pending tasks; a user's query naming 40,000
/// task ranges of that array: each reference once scanned every record under
/// the lock (seconds, and every other request waited); the records of an
/// array are now indexed, and the references resolved a bounded number at a
/// time. Meanwhile the lock is taken again and again: it never waits long.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_job_references_never_hold_the_state_lock_long() {
    let f = controller().await;
    let s = &f.svc;
    let t = now();
    for _ in 0..10 {
        let a = submit(&f, user(array_job("#!/bin/sh\ntrue\n"))).await;
        let kills: Vec<Command> = (0..1000)
            .map(|task| Command::Kill { job_id: a, task: Some(task), state: JobState::Cancelled, now: t, uid: None })
            .collect();
        s.ctld.commit(kills).await.unwrap();
    }
    let pending = submit(&f, user(array_job("#!/bin/sh\ntrue\n"))).await;
    assert_eq!(s.ctld.lock().state.jobs().len(), 10_001);
    let refs: Vec<String> =
        (0..40_000).map(|i| format!("{}_[{}-{}]", pending, i % 1000, (i % 1000) + i / 1000)).collect();
    let q = QueryRequest { jobs: true, job_ids: refs, ..Default::default() };
    let ctld = s.ctld.clone();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut longest = std::time::Duration::ZERO;
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                let w = std::time::Instant::now();
                drop(ctld.lock());
                longest = longest.max(w.elapsed());
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            longest
        })
    };
    let started = std::time::Instant::now();
    let r = s.query(user(q)).await.unwrap().into_inner();
    let took = started.elapsed();
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let longest = watcher.join().unwrap();
    eprintln!(
        "a query of 40,000 references among 10,001 records: {:?}, the lock waited for at most {:?}",
        took, longest
    );
    let view: ClusterView = spur_core::records::decode_view(&r.view, &"test").unwrap();
    assert_eq!(view.jobs.iter().map(|j| j.job_id).collect::<Vec<_>>(), [pending]);
    // (times are printed above, not asserted: speed belongs in benchmarks)
}

/// `scontrol write batch_script ID` asks for one job's script: a query with
/// the script answers it for the record of that id only, not for every
/// record of the array it heads (a 1000-task array of a 4 MB script was a
/// 4 GB answer, serialised under the state lock).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_query_answers_one_script() {
    let f = controller().await;
    let s = &f.svc;
    let a = submit(&f, user(array_job("#!/bin/sh\n# the script\ntrue\n"))).await;
    let kills: Vec<Command> = (0..1000)
        .map(|task| Command::Kill { job_id: a, task: Some(task), state: JobState::Cancelled, now: now(), uid: None })
        .collect();
    s.ctld.commit(kills).await.unwrap();
    let q = QueryRequest {
        jobs: true,
        job_ids: vec![a.to_string()],
        all_finished: true,
        with_script: true,
        ..Default::default()
    };
    let r = s.query(user(q)).await.unwrap().into_inner();
    assert_eq!(code(&r.status), 0);
    let view: ClusterView = spur_core::records::decode_view(&r.view, &"test").unwrap();
    assert_eq!(view.jobs.len(), 1000, "the array's records");
    let with: Vec<u32> = view.jobs.iter().filter(|j| !j.desc.script.is_empty()).map(|j| j.job_id).collect();
    assert_eq!(with, [a], "the script of the record asked for only");
}

/// `sbatch --uid/--gid`: root submits a job that is then the named user's
/// (recorded/24.11/sbatch_surface/172-173); anyone else is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn root_submits_for_another_user_with_uid() {
    let f = controller().await;
    let as_user = |u: &str| {
        let mut r = wrap_job(None);
        let mut d = spur_core::records::decode_job_desc(&r.job_desc, &"test").unwrap();
        d.run_as_user = Some(u.into());
        r.job_desc = spur_core::records::encode_job_desc(&d, spur_format::FORMAT_VERSION).unwrap();
        r
    };
    let jid = submit(&f, root(as_user("daemon"))).await;
    {
        let g = f.svc.ctld.read();
        let j = g.state.jobs().get(&jid).unwrap();
        assert_eq!((j.user_id, j.user_name.as_str()), (uid("daemon"), "daemon"));
    }
    let r = f.svc.submit(user(as_user("daemon"))).await.unwrap().into_inner();
    assert_eq!(code(&r.status), ESLURM_USER_ID_MISSING);
}

/// `update PartitionName=` with the keys of format version 3: refused while
/// the cluster writes an older version; then RootOnly refuses a user's
/// submission and DisableRootJobs root's (slurmctld's _part_access_check),
/// and ReqResv one without a reservation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partition_keys_need_format_version_3_and_guard_submissions() {
    let f = controller().await;
    let s = &f.svc;
    let update = |kv: &[(rq::PartKey, &str)]| {
        NodeControlRequest::from(&rq::PartitionUpdate {
            name: "debug".into(),
            settings: kv.iter().map(|(k, v)| (*k, v.to_string())).collect(),
            ..Default::default()
        })
    };
    let status = |r: Result<Response<NodeControlReply>, tonic::Status>| code(&r.unwrap().into_inner().status);
    assert_eq!(status(s.node_control(root(update(&[(rq::PartKey::RootOnly, "YES")]))).await), ESLURM_NOT_SUPPORTED);
    let r = s.ctld.commit(vec![spur_state::Command::SetFormatVersion { version: 3 }]).await.unwrap();
    assert!(r[0].is_ok());
    // only an operator updates a partition; a value scontrol would not send is refused
    assert_eq!(status(s.node_control(user(update(&[(rq::PartKey::RootOnly, "YES")]))).await), ESLURM_USER_ID_MISSING);
    assert_eq!(status(s.node_control(root(update(&[(rq::PartKey::GraceTime, "x")]))).await), ESLURM_NOT_SUPPORTED);
    assert_eq!(status(s.node_control(root(update(&[(rq::PartKey::Nodes, "nosuch")]))).await), ESLURM_INVALID_NODE_NAME);
    assert_eq!(status(s.node_control(root(update(&[(rq::PartKey::RootOnly, "YES")]))).await), 0);
    let r = s.submit(user(wrap_job(None))).await.unwrap().into_inner();
    assert_eq!(code(&r.status), ESLURM_ACCESS_DENIED);
    submit(&f, root(wrap_job(None))).await;
    let kv = [(rq::PartKey::RootOnly, "NO"), (rq::PartKey::DisableRootJobs, "YES")];
    assert_eq!(status(s.node_control(root(update(&kv))).await), 0);
    let r = s.submit(root(wrap_job(None))).await.unwrap().into_inner();
    assert_eq!(code(&r.status), ESLURM_USER_ID_MISSING);
    submit(&f, user(wrap_job(None))).await;
    let kv = [(rq::PartKey::DisableRootJobs, "NO"), (rq::PartKey::ReqResv, "YES")];
    assert_eq!(status(s.node_control(root(update(&kv))).await), 0);
    let r = s.submit(user(wrap_job(None))).await.unwrap().into_inner();
    assert_eq!(code(&r.status), ESLURM_ACCESS_DENIED);
    let p = s.ctld.read().state.partition("debug").cloned().unwrap();
    assert!(p.more.req_resv && !p.more.root_only && !p.more.disable_root_jobs);
}

/// `scontrol update JobId=A_2`, `hold A_[2-3]`: from format version 3 the
/// named pending tasks are split off their array's record and changed alone
/// (slurmctld's update_job_str); naming all of them changes the record as a
/// whole; another user may not split them off.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_update_of_some_pending_tasks_splits_them_off() {
    let f = controller().await;
    let s = &f.svc;
    let set = |v| vec![Command::SetFormatVersion { version: v }];
    s.ctld.commit(set(spur_state::SPLIT_PENDING_TASK_VERSION)).await.unwrap();
    let mut req = array_job("#!/bin/sh\ntrue\n");
    let desc = JobDesc {
        name: "arr".into(),
        script: "#!/bin/sh\ntrue\n".into(),
        work_dir: "/tmp".into(),
        array: Some("1-4".into()),
        hold: true,
        time_limit: Some(30),
        ..Default::default()
    };
    req.job_desc = spur_core::records::encode_job_desc(&desc, spur_format::FORMAT_VERSION).unwrap();
    let a = submit(&f, user(req)).await;
    let upd = |text: &str, u: spur_core::request::JobUpdate| {
        convert::job_control_request(&[text.to_string()], &JobControl::Update(Box::new(u)))
    };
    let limit = |m: u32| spur_core::request::JobUpdate { time_limit: Some(m), ..Default::default() };
    // another user: refused, nothing split
    let r = s.job_control(other(upd(&format!("{a}_2"), limit(5)))).await.unwrap().into_inner();
    assert_eq!(codes(&r), [ESLURM_USER_ID_MISSING]);
    assert_eq!(s.ctld.read().state.jobs().len(), 1);
    // the owner: task 2 alone gets the new limit
    let r = s.job_control(user(upd(&format!("{a}_2"), limit(5)))).await.unwrap().into_inner();
    assert_eq!(codes(&r), [0]);
    let (meta, task2) = {
        let g = s.ctld.read();
        let jobs = g.state.jobs();
        let t = jobs.values().find(|j| j.array.as_ref().and_then(|x| x.task_id) == Some(2)).cloned().unwrap();
        (jobs[&a].clone(), t)
    };
    assert_eq!(meta.array.as_ref().map(|x| x.pending_tasks.clone()), Some(vec![1, 3, 4]));
    assert_eq!((meta.time_limit, task2.time_limit), (Some(30), Some(5)));
    // every pending task of the record named: the record as a whole
    let r = s.job_control(user(upd(&format!("{a}_[1,3-4]"), limit(7)))).await.unwrap().into_inner();
    assert_eq!(codes(&r), [0]);
    let g = s.ctld.read();
    assert_eq!(g.state.jobs().len(), 2);
    assert_eq!(g.state.jobs()[&a].time_limit, Some(7));
}

/// `update NodeName=` keys of format version 3 (Comment, State=FAIL as a
/// flag, ...) are refused, or keep their old meaning, until the cluster
/// writes version 3; RESUME of a node that is not out of service is
/// `Invalid node state specified`; NodeAddr needs one address per node.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn node_update_keys_of_format_version_3() {
    let f = controller().await;
    let s = &f.svc;
    let call = |u: &rq::NodeUpdate| s.node_control(root(NodeControlRequest::from(u)));
    let node = |name: &str| s.ctld.read().state.node(name).cloned().unwrap();
    let n1 = rq::NodeUpdate { nodes: "n1".into(), ..Default::default() };
    let comment = rq::NodeUpdate { comment: Some("a comment".into()), ..n1.clone() };
    let fail = rq::NodeUpdate { state: Some(rq::NodeStateChange::Fail), reason: Some("f".into()), ..n1.clone() };
    let resume = rq::NodeUpdate { state: Some(rq::NodeStateChange::Resume), ..n1.clone() };
    assert_eq!(code(&call(&comment).await.unwrap().into_inner().status), ESLURM_NOT_SUPPORTED);
    assert_eq!(code(&call(&fail).await.unwrap().into_inner().status), 0);
    assert_eq!((node("n1").flags.drain, node("n1").flags.fail), (true, false));
    assert_eq!(code(&call(&resume).await.unwrap().into_inner().status), 0);
    // the cluster now writes version 3
    s.ctld.commit(vec![spur_state::Command::SetFormatVersion { version: 3 }]).await.unwrap();
    assert_eq!(code(&call(&comment).await.unwrap().into_inner().status), 0);
    assert_eq!(node("n1").comment.as_deref(), Some("a comment"));
    assert_eq!(code(&call(&fail).await.unwrap().into_inner().status), 0);
    assert_eq!((node("n1").flags.drain, node("n1").flags.fail), (false, true));
    assert_eq!(code(&call(&resume).await.unwrap().into_inner().status), 0);
    assert!(!node("n1").flags.fail);
    // n2 was never out of service
    let resume2 = rq::NodeUpdate { nodes: "n2".into(), ..resume.clone() };
    assert_eq!(code(&call(&resume2).await.unwrap().into_inner().status), ESLURM_INVALID_NODE_STATE);
    let addr = rq::NodeUpdate { node_addr: Some("10.0.0.1,10.0.0.2".into()), ..n1.clone() };
    assert_eq!(code(&call(&addr).await.unwrap().into_inner().status), ESLURM_INVALID_NODE_NAME);
    let host = rq::NodeUpdate { node_hostname: Some("h1".into()), ..n1.clone() };
    assert_eq!(code(&call(&host).await.unwrap().into_inner().status), 0);
    assert_eq!(node("n1").hostname, "h1");
}

/// A reservation's `Groups=` admits the members of those groups, its
/// `Accounts=` the jobs of those accounts (format version 3 records).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reservation_admits_its_groups_and_accounts() {
    let f = controller().await;
    let s = &f.svc;
    s.ctld.commit(vec![spur_state::Command::SetFormatVersion { version: 3 }]).await.unwrap();
    let nobody_group = spur_auth::users::groups_of(uid("nobody"))
        .into_iter()
        .find_map(spur_auth::users::group_name)
        .expect("nobody has a group");
    let spec = |name: &str, node: &str| rq::ReservationSpec {
        name: name.into(),
        start_time: Some(now()),
        duration: Some(60),
        nodes: Some(node.into()),
        ..Default::default()
    };
    let list = |v: &str| Some(rq::NameList { set: Some(vec![v.into()]), ..Default::default() });
    let create = |r: rq::ReservationSpec| ReservationRequest::from(&rq::ReservationRequest::Create(r));
    let grp = rq::ReservationSpec { groups: list(&nobody_group), ..spec("grp", "n1") };
    assert_eq!(code(&s.reservation(root(create(grp))).await.unwrap().into_inner().status), 0);
    let acct = rq::ReservationSpec { accounts: list("acct1"), ..spec("acct", "n2") };
    assert_eq!(code(&s.reservation(root(create(acct))).await.unwrap().into_inner().status), 0);
    let job = |resv: &str, account: Option<&str>| {
        let desc = JobDesc {
            name: "wrap".into(),
            script: "#!/bin/sh\ntrue\n".into(),
            work_dir: "/tmp".into(),
            reservation: Some(resv.into()),
            account: account.map(String::from),
            ..Default::default()
        };
        SubmitRequest {
            job_desc: spur_core::records::encode_job_desc(&desc, spur_format::FORMAT_VERSION).unwrap(),
            test_only: false,
        }
    };
    submit(&f, user(job("grp", None))).await;
    submit(&f, user(job("acct", Some("acct1")))).await;
    let r = s.submit(user(job("acct", Some("other")))).await.unwrap().into_inner();
    assert_ne!(code(&r.status), 0, "a job of another account");
}

/// The job keys of format version 3 (scontrol_surface 086-141): who may set
/// them, Slurm's answers for what the cluster lacks, and the value kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn job_keys_of_format_version_3() {
    let f = controller().await;
    let s = &f.svc;
    let jid = submit(&f, user(wrap_job(None))).await;
    let upd = |u: rq::JobUpdate| control(&[jid], &JobControl::Update(Box::new(u)));
    let admin = || rq::JobUpdate { admin_comment: Some("adm".into()), ..Default::default() };
    // refused while the cluster writes an older version (a member of an
    // older build would read the update without them)
    assert!(s.ctld.read().state.write_format_version() < 3);
    assert_eq!(codes(&s.job_control(root(upd(admin()))).await.unwrap().into_inner()), [ESLURM_NOT_SUPPORTED]);
    // what only follows from a request is left out then: an operator's
    // priority is set, the nice it would reset stays
    let nice = rq::JobUpdate { nice: Some(10), ..Default::default() };
    assert_eq!(codes(&s.job_control(root(upd(nice))).await.unwrap().into_inner()), [0]);
    let prio = || rq::JobUpdate { priority: Some(5), ..Default::default() };
    assert_eq!(codes(&s.job_control(root(upd(prio()))).await.unwrap().into_inner()), [0]);
    assert_eq!(s.ctld.read().state.job(jid).map(|j| (j.priority, j.desc.nice)), Some((5, Some(10))));
    s.ctld.commit(vec![spur_state::Command::SetFormatVersion { version: 3 }]).await.unwrap();
    assert_eq!(codes(&s.job_control(user(upd(admin()))).await.unwrap().into_inner()), [ESLURM_ACCESS_DENIED]);
    assert_eq!(codes(&s.job_control(root(upd(admin()))).await.unwrap().into_inner()), [0]);
    for (u, want) in [
        (rq::JobUpdate { reservation: Some("nope".into()), ..Default::default() }, ESLURM_RESERVATION_INVALID),
        (rq::JobUpdate { gres: Some("gpu:1".into()), ..Default::default() }, ESLURM_INVALID_GRES),
        (rq::JobUpdate { end_time: Some(i64::from(u32::MAX)), ..Default::default() }, ESLURM_JOB_NOT_RUNNING),
        (rq::JobUpdate { prefer: Some("fast".into()), ..Default::default() }, ESLURM_INVALID_PREFER),
        (rq::JobUpdate { shared: Some(true), ..Default::default() }, ESLURM_ACCESS_DENIED),
    ] {
        assert_eq!(codes(&s.job_control(user(upd(u.clone()))).await.unwrap().into_inner()), [want], "{:?}", u);
    }
    let u = rq::JobUpdate { cpus_per_task: Some(2), tmp_disk: Some(100), contiguous: Some(true), ..Default::default() };
    assert_eq!(codes(&s.job_control(root(upd(u))).await.unwrap().into_inner()), [0]);
    // at version 3 a new priority resets it
    let prio6 = rq::JobUpdate { priority: Some(6), ..Default::default() };
    assert_eq!(codes(&s.job_control(root(upd(prio6))).await.unwrap().into_inner()), [0]);
    assert_eq!(s.ctld.read().state.job(jid).map(|j| j.desc.nice), Some(None));
    let all = QueryRequest { jobs: true, max_format_version: 3, ..Default::default() };
    let v = view_of(s.query(root(all)).await.unwrap().into_inner());
    let j = v.jobs.iter().find(|j| j.job_id == jid).unwrap();
    assert_eq!(j.admin_comment.as_deref(), Some("adm"));
    assert_eq!((j.desc.cpus_per_task, j.desc.tmp_mb, j.desc.contiguous()), (Some(2), Some(100), true));
}

/// Steps: only the job's owner (or SlurmUser) creates and ends them, never
/// before the cluster writes version 4; a launch no agent takes ends the
/// step and names the node; `release` ends an allocation without a script
/// (a batch job's is refused).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn steps_belong_to_their_jobs_owner() {
    let f = controller().await;
    let s = &f.svc;
    let alloc = JobDesc { name: "alloc".into(), work_dir: "/tmp".into(), ..Default::default() };
    let sub = SubmitRequest {
        job_desc: spur_core::records::encode_job_desc(&alloc, spur_format::FORMAT_VERSION).unwrap(),
        test_only: false,
    };
    let jid = submit(&f, user(sub)).await;
    let batch = submit(&f, user(wrap_job(None))).await;
    let allocs = vec![NodeAlloc { node: "n1".into(), cpus: 2, ..Default::default() }];
    for id in [jid, batch] {
        let r = s
            .ctld
            .commit(vec![Command::Start {
                job_id: id,
                task: None,
                allocs: allocs.clone(),
                now: now(),
                pass_ms: 0,
                extern_step: false,
                backfill: false,
            }])
            .await
            .unwrap();
        assert!(r[0].is_ok(), "{:?}", r);
    }
    let create = |job_id: u32| StepCreateRequest {
        create: spur_core::records::encode_step_create(
            &spur_core::launch::StepCreate {
                req: spur_core::request::StepRequest {
                    job_id,
                    num_tasks: Some(1),
                    cpus_per_task: 1,
                    ..Default::default()
                },
                io: Default::default(),
            },
            spur_format::FORMAT_VERSION,
        )
        .unwrap(),
        max_format_version: spur_format::FORMAT_VERSION as u32,
    };
    let status = |r: Result<Response<StepCreateReply>, tonic::Status>| {
        let r = r.unwrap().into_inner();
        (code(&r.status), r.failed_node)
    };
    // the cluster does not write version 4 yet
    assert_eq!(status(s.step_create(user(create(jid))).await).0, ESLURM_NOT_SUPPORTED);
    s.ctld.commit(vec![Command::SetFormatVersion { version: spur_state::STEPS_VERSION }]).await.unwrap();
    assert_eq!(status(s.step_create(other(create(jid))).await).0, ESLURM_ACCESS_DENIED);
    assert_eq!(status(s.step_create(user(create(999))).await).0, ESLURM_INVALID_JOB_ID);
    let garbage = StepCreateRequest { create: vec![1, 2, 3], max_format_version: 4 };
    assert_eq!(status(s.step_create(user(garbage)).await).0, SLURM_UNEXPECTED_MSG_ERROR);
    // a request of a newer build (its envelope's version past this one's):
    // Slurm's protocol version error, as for a submission
    let mut newer = create(jid);
    let v = (spur_format::FORMAT_VERSION + 1).to_le_bytes();
    newer.create[5..7].copy_from_slice(&v);
    assert_eq!(status(s.step_create(user(newer)).await).0, SLURM_PROTOCOL_VERSION_ERROR);
    // no agent answers for n1: the step is created, does not start, and ends
    assert_eq!(status(s.step_create(user(create(jid))).await), (SLURM_COMMUNICATIONS_CONNECTION_ERROR, "n1".into()));
    assert!(s.ctld.read().state.jobs()[&jid].steps.is_empty());
    assert_eq!(s.ctld.read().state.jobs()[&jid].next_step_id, 1);
    // from version 5 the ended step is kept, and an agent's report of what
    // it used on its node reaches it; a user's own report does not
    s.ctld.commit(vec![Command::SetFormatVersion { version: spur_state::STEP_USAGE_VERSION }]).await.unwrap();
    assert_eq!(status(s.step_create(user(create(jid))).await).0, SLURM_COMMUNICATIONS_CONNECTION_ERROR);
    let usage = |rss| spur_proto::v1::StepNodeUsage { ntasks: 1, max_rss_kb: rss, ..Default::default() };
    let report = |rss| StepCompleteRequest {
        job_id: jid,
        step_id: 1,
        node: "n1".into(),
        usage: Some(usage(rss)),
        ..Default::default()
    };
    let mut agent = Request::new(report(7));
    agent.extensions_mut().insert(spur_auth::Identity::daemon(spur_auth::Kind::Agent));
    let _ = s.step_complete(user(report(99))).await.unwrap();
    let done = |s: &Service| {
        s.ctld.read().state.jobs()[&jid].done_steps.iter().map(|d| (d.step_id, d.usage.clone())).collect::<Vec<_>>()
    };
    assert_eq!(done(s), vec![(1, vec![])]);
    let _ = s.step_complete(agent).await.unwrap();
    assert_eq!(done(s), vec![(1, vec![convert::node_usage("n1", &usage(7))])]);
    // ends: the owner's only; a batch job is not an allocation to release
    let end = |job_id, release| StepCompleteRequest { job_id, step_id: 0, release, ..Default::default() };
    let st = |r: Result<Response<StepCompleteReply>, tonic::Status>| code(&r.unwrap().into_inner().status);
    assert_eq!(st(s.step_complete(other(end(jid, true))).await), ESLURM_ACCESS_DENIED);
    assert_eq!(st(s.step_complete(user(end(batch, true))).await), ESLURM_NOT_SUPPORTED);
    assert_eq!(st(s.step_complete(user(end(jid, true))).await), 0);
    assert_eq!(s.ctld.read().state.jobs()[&jid].state, JobState::Completed);
    // started before version 4 an allocation had BatchFlag=1 on every member; from it, 0
    assert_eq!(s.ctld.read().state.jobs()[&jid].batch_flag, 1);
    let sub = SubmitRequest {
        job_desc: spur_core::records::encode_job_desc(&alloc, spur_format::FORMAT_VERSION).unwrap(),
        test_only: false,
    };
    let later = submit(&f, user(sub)).await;
    s.ctld
        .commit(vec![Command::Start {
            job_id: later,
            task: None,
            allocs: allocs.clone(),
            now: now(),
            pass_ms: 0,
            extern_step: false,
            backfill: false,
        }])
        .await
        .unwrap();
    assert_eq!(s.ctld.read().state.jobs()[&later].batch_flag, 0);
    assert_eq!(s.ctld.read().state.jobs()[&batch].batch_flag, 1);
}
