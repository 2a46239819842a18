//! What the fuzz targets share: turning the fuzzer's bytes into text, a
//! command line and environment, and the small cluster the targets that need
//! records or a state run against.

use spur_cli_base::fixtures;
use spur_core::model::{ClusterView, Job, JobState};
use std::collections::HashMap;

/// The input as text (invalid UTF-8 replaced, as a file read lossily is).
pub fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// A command line and environment: the input split on NUL bytes; a word
/// that starts with `\x01` is an environment entry `NAME=VALUE`, every other
/// word an argument (without `argv[0]`).
pub fn command_line(data: &[u8]) -> (Vec<String>, HashMap<String, String>) {
    let mut args = Vec::new();
    let mut env = HashMap::new();
    for w in text(data).split('\0') {
        match w.strip_prefix('\x01') {
            Some(e) => {
                let (k, v) = e.split_once('=').unwrap_or((e, ""));
                env.insert(k.to_string(), v.to_string());
            }
            None => args.push(w.to_string()),
        }
    }
    (args, env)
}

/// The recorded `basic` scenario's jobs on four nodes of one partition.
pub fn view() -> ClusterView {
    let mut v = fixtures::basic_view();
    v.cluster_name = "cluster".into();
    v.nodes = (1..=4).map(|i| fixtures::node(i, 0)).collect();
    v.partitions = vec![fixtures::debug_part()];
    v
}

/// A controller's state of [`view`]'s nodes and partition, with no job.
pub fn state() -> spur_state::State {
    let v = view();
    spur_state::State::new(v.cluster_name, v.nodes, v.partitions, 1, 67_043_328)
}

/// [`state`] with two jobs of uid 1000 (5, pending, and 6, running on
/// node1), and those jobs as the state holds them.
pub fn state_with_jobs() -> (spur_state::State, Vec<Job>) {
    use spur_state::Command;
    let v = view();
    let mut st = spur_state::State::new(v.cluster_name, v.nodes, v.partitions, 5, 67_043_328);
    for _ in 0..2 {
        let job = Job { user_id: 1000, time_limit: Some(30), ..fixtures::base_job(0, JobState::Pending) };
        st.apply(&Command::Submit { job: Box::new(job) }).expect("submitted");
    }
    let allocs = vec![spur_core::model::NodeAlloc { node: "node1".into(), cpus: 1, mem_mb: 500, gres: vec![] }];
    st.apply(&Command::Start {
        job_id: 6,
        task: None,
        allocs,
        now: 10_000,
        pass_ms: 0,
        extern_step: false,
        backfill: false,
    })
    .expect("started");
    let jobs = st.jobs().values().cloned().collect();
    (st, jobs)
}

/// What sbatch does with a description it parsed: checks its GRES against
/// `GresTypes`, and sends it as a `spur_format` record that the controller
/// reads back whole.
pub fn sent_as_sbatch_sends(d: &spur_core::model::JobDesc) {
    let _ = spur_cli_submit::sbatch::check_gres(d, &["gpu".to_string()]);
    let bytes = spur_core::records::encode_job_desc(d, spur_format::FORMAT_VERSION).expect("encodes");
    let back = spur_core::records::decode_job_desc(&bytes, &"fuzz").expect("decodes");
    assert_eq!(&back, d);
}

/// The controller's side of each `Controller` RPC after authentication, as
/// `daemons/spurctld/src/server.rs` runs it: the message decoded into
/// spur-core's typed request (`spur_proto::convert`), validated
/// (`spurctld::validate`, `spurctld::resv`), and where that yields a command,
/// the command applied to a small state. The translation is checked to be
/// the one both ends use: a request read from the wire and written again
/// reads back the same.
pub mod controller {
    use spur_core::request as rq;
    use spur_grammar::jobref::{parse_job_str, split_list};
    use spur_proto::{convert, v1 as pb};
    use spur_state::Command;
    use spurctld::validate::{self, Action, Caller};

    const USER: Caller = Caller { uid: 1000, operator: false, super_user: false, slurm_user: false };
    const ROOT: Caller = Caller { uid: 0, operator: true, super_user: true, slurm_user: true };
    const NOW: i64 = 1_700_000_000;
    /// slurm.conf's defaults: MaxArraySize, max_script_size.
    const MAX_ARRAY_SIZE: u32 = 1001;
    const MAX_SCRIPT: i64 = 4 * 1024 * 1024;

    /// A job list as the controller reads one (`squeue -j`, `scontrol hold`).
    fn job_refs(ids: &[String]) {
        for s in split_list(ids) {
            if let Some(r) = parse_job_str(&s, MAX_ARRAY_SIZE) {
                let _ = r.to_string();
            }
        }
    }

    /// A node list of a job (`--nodelist`, `--exclude`, `ReqNodeList=`): kept
    /// in a form that reads back as itself.
    fn job_node_list(expr: &str) {
        if let Ok((names, list)) = validate::job_node_list(expr) {
            assert!(names.len() as u64 <= spur_grammar::hostlist::MAX_JOB_HOSTS);
            if !names.iter().any(|n| n.contains(['[', ']'])) {
                assert_eq!(validate::job_node_list(&list), Ok((names, list.clone())), "{expr:?}");
            }
        }
    }

    pub fn submit(r: pb::SubmitRequest) {
        let Ok(desc) = spur_core::records::decode_job_desc(&r.job_desc, &"fuzz") else { return };
        for caller in [USER, ROOT] {
            let _ = validate::submit_nice(desc.nice, &caller);
        }
        for l in [&desc.req_nodes, &desc.exc_nodes].into_iter().flatten() {
            job_node_list(l);
        }
        let _ = validate::job_desc_fields(&desc, MAX_SCRIPT);
        for default_time in [None, Some(30)] {
            let _ = validate::check_deadline(&desc, default_time, NOW);
        }
        if let Some(spec) = &desc.array {
            let _ = spur_grammar::array::parse_limited(spec, MAX_ARRAY_SIZE, None);
        }
        if let Some(dep) = &desc.dependency {
            let _ = spur_grammar::dependency::parse(dep, MAX_ARRAY_SIZE, false);
        }
        let _ = (desc.reservation_name(), desc.overcommit(), desc.mincpus());
        super::sent_as_sbatch_sends(&desc);
    }

    pub fn query(r: pb::QueryRequest) {
        let q = rq::Query::from(r);
        job_refs(&q.job_ids);
        assert_eq!(rq::Query::from(pb::QueryRequest::from(&q)), q);
    }

    pub fn cancel(r: pb::CancelRequest) {
        let Ok(c) = rq::CancelRequest::try_from(r) else { return };
        job_refs(&c.job_ids);
        if let Some(l) = &c.nodelist {
            let _ = spur_grammar::hostlist::Hostlist::parse(l);
        }
        assert_eq!(rq::CancelRequest::try_from(pb::CancelRequest::from(&c)), Ok(c));
    }

    pub fn job_control(r: pb::JobControlRequest) {
        let Ok((ids, op)) = convert::job_control(r) else { return };
        assert_eq!(convert::job_control(convert::job_control_request(&ids, &op)), Ok((ids.clone(), op.clone())));
        job_refs(&ids);
        let (mut st, jobs) = super::state_with_jobs();
        for user_top in [false, true] {
            let _ = validate::authorize(&USER, Action::Top { user_top }, Some(USER.uid));
        }
        for job in &jobs {
            for caller in [USER, ROOT] {
                if validate::job_control_allowed(&op, &caller, job, false).is_err() {
                    continue;
                }
                let cmd = match &op {
                    rq::JobControl::Update(u) => {
                        if let Some(d) = &u.dependency {
                            let _ = spur_grammar::dependency::parse(d, MAX_ARRAY_SIZE, false);
                        }
                        let known = |n: &str| st.node(n).is_some();
                        let part_max = st.partition(&job.partition).and_then(|p| p.max_time);
                        let feature = |f: &str| st.nodes().iter().any(|n| n.features.iter().any(|x| x == f));
                        let gres = |g: &str| st.nodes().iter().any(|n| n.gres.iter().any(|x| x.0 == g));
                        let resv = |r: &str| st.reservations().iter().find(|x| x.name == r).map(|_| true);
                        let qos_of = |q: &str| spur_core::qos::find(&st.qos(), q).map(|q| q.name.clone());
                        let look = validate::Lookups {
                            feature_known: &feature,
                            gres_known: &gres,
                            reservation: &resv,
                            owner: USER,
                            qos: Some(&qos_of),
                        };
                        match validate::job_update(u, job, &caller, NOW, &known, part_max, &look) {
                            Ok(u) => Command::UpdateJob { job_id: job.job_id, update: Box::new(u) },
                            Err(_) => continue,
                        }
                    }
                    rq::JobControl::Hold { .. } => {
                        Command::Hold { job_id: job.job_id, reason: spur_core::model::Reason::JobHeldUser }
                    }
                    rq::JobControl::Release => Command::Release { job_id: job.job_id },
                    rq::JobControl::Requeue { hold, .. } => {
                        Command::Requeue { job_id: job.job_id, hold: *hold, now: NOW }
                    }
                    rq::JobControl::Suspend => Command::Suspend { job_id: job.job_id, now: NOW, preempted: false },
                    rq::JobControl::Resume => Command::Resume { job_id: job.job_id, now: NOW },
                    rq::JobControl::Top => continue,
                };
                let _ = st.apply(&cmd);
            }
        }
    }

    pub fn node_control(r: pb::NodeControlRequest) {
        let _ = validate::authorize(&USER, Action::UpdateNode, None);
        let mut st = super::state();
        match convert::node_control(r) {
            Ok(convert::NodeControl::Node(n)) => {
                assert_eq!(convert::node_control((&n).into()), Ok(convert::NodeControl::Node(n.clone())));
                // (the names of a node update are the cluster's: expanded
                // only when they are few, as a cluster's are)
                if spur_grammar::hostlist::count(&n.nodes).is_ok_and(|c| c > 100_000) {
                    return;
                }
                let Ok(updates) = validate::node_update(&n, &["gpu".to_string()], true, NOW) else { return };
                for (name, update) in updates {
                    let _ = st.apply(&Command::NodeUpdate { name, update, uid: 0, now: NOW });
                }
            }
            Ok(convert::NodeControl::Partition(p)) => {
                assert_eq!(convert::node_control((&p).into()), Ok(convert::NodeControl::Partition(p.clone())));
                if let Ok(u) = validate::partition_update(&p) {
                    let _ = st.apply(&Command::PartitionUpdate { name: p.name.clone(), update: u });
                }
            }
            Err(_) => {}
        }
    }

    pub fn reservation(r: pb::ReservationRequest) {
        let Ok(req) = rq::ReservationRequest::try_from(r) else { return };
        assert_eq!(rq::ReservationRequest::try_from(pb::ReservationRequest::from(&req)), Ok(req.clone()));
        let unknown = spurctld::resv::UnknownUsers::of(&req);
        let mut st = super::state();
        if let Ok(cmd) = spurctld::resv::plan(&st, &req, &unknown, NOW) {
            let _ = st.apply(&cmd);
            let _ = st.view(NOW);
        }
    }

    pub fn register(r: pb::RegisterRequest) {
        let mut st = super::state();
        let reg = spur_state::NodeReg {
            cpus: r.cpus,
            real_memory: r.real_memory,
            boot_time: r.boot_time,
            start_time: r.start_time,
            os: r.os.clone(),
            arch: r.arch.clone(),
            version: r.version.clone(),
            running_jobs: r.running_jobs.clone(),
        };
        let _ = st.apply(&Command::NodeRegistered { name: r.node.clone(), reg, now: NOW });
        let _ = st.heard_from(&r.node, r.cpu_load, r.free_mem, NOW);
        let _ = st.view(NOW);
    }

    pub fn job_complete(r: pb::JobCompleteRequest) {
        let (mut st, _) = super::state_with_jobs();
        let _ = st.apply(&Command::Complete {
            job_id: r.job_id,
            exit_status: r.exit_status,
            launch_failed: r.launch_failed,
            now: NOW,
        });
    }

    pub fn membership(r: pb::MembershipRequest) {
        let Ok(m) = rq::MembershipChange::try_from(r) else { return };
        assert_eq!(rq::MembershipChange::try_from(pb::MembershipRequest::from(&m)), Ok(m.clone()));
        let _ = validate::authorize(&USER, Action::ChangeControllers, None);
    }
}
