//! The controller's gRPC service: authenticate, authorise, validate, commit.
//!
//! Requests arrive typed (spur_proto::convert turns them into spur-core's
//! request types); the rules about who may do what and which values are
//! acceptable are the pure functions of `validate` and `resv::plan`, and the
//! handlers here look up the records, ask them, commit and act.

use crate::audit::Audit;
use crate::ctld::{now, Ctld};
use crate::validate::{self, Action, Caller};
use spur_auth::Identity;
use spur_core::errors::*;
use spur_core::model::JobState;
use spur_core::model::*;
use spur_core::request::{self as rq, JobControl};
use spur_grammar::jobref::{split_list, JobRef, Tasks};
use spur_proto::controller_server::Controller;
use spur_proto::*;
use spur_state::view::Lean;
use spur_state::{Applied, Command, JobUpdate};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use tonic::{Request, Response};

pub struct Service {
    pub ctld: Arc<Ctld>,
    pub peer_names: PeerNames,
}

impl Service {
    pub fn new(ctld: Arc<Ctld>) -> Service {
        Service { ctld, peer_names: PeerNames::default() }
    }

    /// A peer's host name (getnameinfo), looked up once a minute per address.
    async fn peer_name(&self, ip: std::net::IpAddr) -> Option<String> {
        if let Some((name, at)) = self.peer_names.lock().unwrap_or_else(|e| e.into_inner()).get(&ip) {
            if at.elapsed() < PEER_NAME_TTL {
                return Some(name.clone());
            }
        }
        let name = tokio::task::spawn_blocking(move || host_of(ip)).await.ok()?;
        let mut g = self.peer_names.lock().unwrap_or_else(|e| e.into_inner());
        if g.len() > 4096 {
            g.retain(|_, (_, at)| at.elapsed() < PEER_NAME_TTL);
        }
        g.insert(ip, (name.clone(), std::time::Instant::now()));
        Some(name)
    }
}

fn st(code: i32) -> Option<Status> {
    Some(Status { code, message: if code == 0 { String::new() } else { strerror(code) } })
}

type R<T> = Result<Response<T>, tonic::Status>;

/// Which callers each method of the Controller service takes: agents
/// register and report completions, anyone pings, a step's end comes from
/// srun (a user) or from its nodes' agents, and the rest is for users (and
/// root's commands), never a daemon's credential.
pub fn policy(method: &str) -> &'static [spur_auth::Kind] {
    use spur_auth::grpc::{AGENTS, ANYONE, USERS};
    const USERS_AND_AGENTS: &[spur_auth::Kind] = &[spur_auth::Kind::User, spur_auth::Kind::Agent];
    const USERS_AND_CONTROLLERS: &[spur_auth::Kind] = &[spur_auth::Kind::User, spur_auth::Kind::Controller];
    match method.rsplit('/').next().unwrap_or("") {
        "Register" | "JobComplete" => AGENTS,
        "StepComplete" => USERS_AND_AGENTS,
        "Ping" => ANYONE,
        // (a user's to the leader, the leader's to the other controllers)
        "Reconfigure" => USERS_AND_CONTROLLERS,
        _ => USERS,
    }
}

impl Service {
    fn who<T>(&self, req: &Request<T>) -> Result<Identity, tonic::Status> {
        let id = spur_auth::grpc::identity(req)?;
        // only the leader answers; the others name it
        self.ctld.gate()?;
        Ok(id)
    }

    fn caller(&self, id: &Identity) -> Caller {
        self.caller_uid(id.uid)
    }

    /// The privileges of `uid` (a job's owner, say), as for a caller.
    fn caller_uid(&self, uid: u32) -> Caller {
        Caller::new(uid, self.ctld.is_admin(uid))
    }

    /// RPCs that only some may call at all (agents' reports, membership
    /// changes) are refused as a gRPC PermissionDenied, which the client
    /// reports as Slurm's ESLURM_ACCESS_DENIED.
    fn authorize_rpc(&self, id: &Identity, action: Action) -> Result<(), tonic::Status> {
        validate::authorize(&self.caller(id), action, None)
            .map_err(|code| tonic::Status::permission_denied(strerror(code)))
    }
}

/// A job reference as slurmctld reads one by id (`job_str_signal`:
/// `123`, `123_4`, `123_[1-3]`, `123_1-3`, `123_*`, `123+1`).
/// How slurmctld names a reference that named no record in its answer: an
/// array's tasks as the ranges of its bitmap (`1_[9,8]` is `1_8-9`), any
/// other reference as given.
fn task_label(ctld: &Ctld, s: &str) -> String {
    match parse_job_ref(ctld, s) {
        Some(JobRef { job_id, tasks: Tasks::Set(v), het: None, .. }) => {
            format!("{}_{}", job_id, spur_core::model::ranges(&v))
        }
        _ => s.to_string(),
    }
}

fn parse_job_ref(ctld: &Ctld, s: &str) -> Option<JobRef> {
    spur_grammar::jobref::parse_job_str(s, ctld.conf.max_array_size())
}

/// The records a reference names: (record id, pending task to split off).
/// Spur has no heterogeneous jobs: a `+N` component names none.
fn resolve(state: &spur_state::State, r: &JobRef) -> Vec<(u32, Option<u32>)> {
    Resolver::new(state).resolve(r)
}

/// How many job references a request resolves under one hold of the state
/// lock: a request names as many as it likes (up to its 64 MiB), so the
/// lock is taken again for each batch, and a batch costs at most this many
/// references of at most MaxArraySize tasks each.
const REFS_PER_LOCK: usize = 64;

/// Job references resolved against the state under one hold of its lock.
/// An array's records come from the state's index of them
/// (`State::array_records`), and its tasks are mapped to the records holding
/// them once, the first time a reference names one: a reference costs its
/// own tasks (and its array's records once), never every job.
struct Resolver<'a> {
    state: &'a spur_state::State,
    /// array job id -> task -> (record holding it, pending task to split off)
    by_task: HashMap<u32, HashMap<u32, (u32, Option<u32>)>>,
}

impl<'a> Resolver<'a> {
    fn new(state: &'a spur_state::State) -> Resolver<'a> {
        Resolver { state, by_task: HashMap::new() }
    }

    /// Array `id`'s tasks, each to the first record in id order that holds
    /// it (its own record, or the meta-record while it is pending there).
    fn tasks_of(&mut self, id: u32) -> &HashMap<u32, (u32, Option<u32>)> {
        let state = self.state;
        self.by_task.entry(id).or_insert_with(|| {
            let mut m = HashMap::new();
            for x in state.array_records(id) {
                let Some(ai) = x.array.as_ref() else { continue };
                match ai.task_id {
                    Some(t) => {
                        m.entry(t).or_insert((x.job_id, None));
                    }
                    None => {
                        for &t in &ai.pending_tasks {
                            m.entry(t).or_insert((x.job_id, Some(t)));
                        }
                    }
                }
            }
            m
        })
    }

    /// The record holding task `t` of array `id`.
    fn task(&mut self, id: u32, t: u32) -> Option<(u32, Option<u32>)> {
        self.tasks_of(id).get(&t).copied()
    }

    fn resolve(&mut self, r: &JobRef) -> Vec<(u32, Option<u32>)> {
        if r.het.is_some() {
            return vec![];
        }
        let id = r.job_id;
        let state = self.state;
        match &r.tasks {
            // A plain id names the job, or every record of the array it heads.
            Tasks::Job => match state.jobs().get(&id) {
                Some(j) if j.array.as_ref().map(|a| a.array_job_id == id).unwrap_or(false) => {
                    state.array_records(id).map(|x| (x.job_id, None)).collect()
                }
                Some(_) => vec![(id, None)],
                None => vec![],
            },
            Tasks::All => state.array_records(id).map(|x| (x.job_id, None)).collect(),
            Tasks::One(t) => self.task(id, *t).into_iter().collect(),
            // a lookup per task (at most MaxArraySize of them)
            Tasks::Set(ts) => {
                let m = self.tasks_of(id);
                ts.iter().filter_map(|t| m.get(t).copied()).collect()
            }
        }
    }
}

/// The records `refs` name (references that do not read name none), each
/// distinct reference read before the lock is taken, then resolved
/// [`REFS_PER_LOCK`] at a time.
/// Cancel targets with the tasks of one id that name every pending task of
/// an array's pending record (`10_[1,3,5]` for the record holding tasks 1, 3
/// and 5, as scancel sends it after filtering) become that record, whole:
/// slurmctld cancels the record as one (`10 CANCELLED` in squeue), where
/// task by task would split it into a record per task.
fn whole_records(ctld: &Ctld, targets: Vec<(String, u32, Option<u32>)>) -> Vec<(String, u32, Option<u32>)> {
    let mut named: std::collections::HashMap<(String, u32), std::collections::BTreeSet<u32>> = Default::default();
    for (label, jid, task) in &targets {
        if let Some(t) = task {
            named.entry((label.clone(), *jid)).or_default().insert(*t);
        }
    }
    let whole: std::collections::HashSet<(String, u32)> = {
        let g = ctld.read();
        named
            .into_iter()
            .filter(|((_, jid), tasks)| {
                g.state.jobs().get(jid).is_some_and(|j| {
                    j.state == JobState::Pending
                        && j.array.as_ref().is_some_and(|a| {
                            a.task_id.is_none()
                                && a.pending_tasks.len() == tasks.len()
                                && a.pending_tasks.iter().all(|t| tasks.contains(t))
                        })
                })
            })
            .map(|(k, _)| k)
            .collect()
    };
    let mut out = vec![];
    let mut done: std::collections::HashSet<(String, u32)> = Default::default();
    for (label, jid, task) in targets {
        let key = (label.clone(), jid);
        if task.is_some() && whole.contains(&key) {
            if done.insert(key) {
                out.push((label, jid, None));
            }
        } else {
            out.push((label, jid, task));
        }
    }
    out
}

fn resolve_refs(ctld: &Ctld, refs: &[String]) -> std::collections::BTreeSet<u32> {
    let distinct: std::collections::BTreeSet<&str> = refs.iter().map(|s| s.as_str()).collect();
    let parsed: Vec<JobRef> = distinct.into_iter().filter_map(|s| parse_job_ref(ctld, s)).collect();
    let mut ids = std::collections::BTreeSet::new();
    for batch in parsed.chunks(REFS_PER_LOCK) {
        let g = ctld.read();
        let mut res = Resolver::new(&g.state);
        for r in batch {
            ids.extend(res.resolve(r).into_iter().map(|(jid, _)| jid));
        }
    }
    ids
}

/// How long a looked-up peer name is reused: a burst of submissions from one
/// login node asks the resolver once.
const PEER_NAME_TTL: std::time::Duration = std::time::Duration::from_secs(60);

/// Peer names looked up lately: address → (name, when).
pub(crate) type PeerNames = std::sync::Mutex<HashMap<std::net::IpAddr, (String, std::time::Instant)>>;

/// The name of a peer address as getnameinfo(3) gives it (`localhost` for
/// 127.0.0.1 with a usual /etc/hosts), or the address itself.
fn host_of(ip: std::net::IpAddr) -> String {
    use std::ffi::CStr;
    let ip = match ip {
        std::net::IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => std::net::IpAddr::V4(v4),
            None => std::net::IpAddr::V6(v6),
        },
        v4 => v4,
    };
    let mut host = [0 as libc::c_char; 1025];
    // SAFETY: a zeroed sockaddr_in/sockaddr_in6 is a valid value (plain
    // integers and arrays); getnameinfo reads the address for the length
    // given and writes at most `host.len()` bytes into `host`, which
    // outlives the call. (Neither std nor nix wraps getnameinfo.)
    let rc = unsafe {
        match ip {
            std::net::IpAddr::V4(v4) => {
                let mut sa: libc::sockaddr_in = std::mem::zeroed();
                sa.sin_family = libc::AF_INET as libc::sa_family_t;
                sa.sin_addr = libc::in_addr { s_addr: u32::from_ne_bytes(v4.octets()) };
                libc::getnameinfo(
                    &sa as *const libc::sockaddr_in as *const libc::sockaddr,
                    std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
                    host.as_mut_ptr(),
                    host.len() as libc::socklen_t,
                    std::ptr::null_mut(),
                    0,
                    libc::NI_NAMEREQD,
                )
            }
            std::net::IpAddr::V6(v6) => {
                let mut sa: libc::sockaddr_in6 = std::mem::zeroed();
                sa.sin6_family = libc::AF_INET6 as libc::sa_family_t;
                sa.sin6_addr = libc::in6_addr { s6_addr: v6.octets() };
                libc::getnameinfo(
                    &sa as *const libc::sockaddr_in6 as *const libc::sockaddr,
                    std::mem::size_of::<libc::sockaddr_in6>() as libc::socklen_t,
                    host.as_mut_ptr(),
                    host.len() as libc::socklen_t,
                    std::ptr::null_mut(),
                    0,
                    libc::NI_NAMEREQD,
                )
            }
        }
    };
    if rc == 0 {
        // SAFETY: on success getnameinfo leaves a NUL-terminated string in
        // `host` (it was zeroed, so there is a NUL even if it did not).
        let name = unsafe { CStr::from_ptr(host.as_ptr()) }.to_string_lossy().into_owned();
        if !name.is_empty() {
            return name;
        }
    }
    ip.to_string()
}

/// Whether `owner` may run jobs in `part` (its `AllowGroups`): checked at
/// submission and when an update moves a job into another partition, for
/// the job's owner. Names are looked up outside the state lock, and not at
/// all for those exempt (root and SlurmUser).
fn partition_access(part: &spur_core::model::Partition, owner: &Caller) -> Result<(), i32> {
    let Some(groups) = &part.allow_groups else { return Ok(()) };
    let decide = |in_allowed_groups| validate::authorize(owner, Action::UsePartition { in_allowed_groups }, None);
    if groups.iter().any(|g| g.eq_ignore_ascii_case("ALL")) || decide(false).is_ok() {
        return Ok(());
    }
    let mine: Vec<String> =
        spur_auth::users::groups_of(owner.uid).into_iter().filter_map(spur_auth::users::group_name).collect();
    decide(groups.iter().any(|g| mine.contains(g)))
}

/// slurmctld's first partition checks of a submission (_part_access_check):
/// `ReqResv` wants a reservation, `RootOnly` a submission by root or
/// SlurmUser, `DisableRootJobs` a job of another user than root
/// (`Invalid user id`), `AllocNodes` a submission from one of its hosts.
fn partition_limits(
    part: &spur_core::model::Partition,
    desc: &JobDesc,
    submitter: &Caller,
    owner_uid: u32,
) -> Result<(), i32> {
    let m = &part.more;
    if m.req_resv && desc.reservation_name().is_none() {
        return Err(ESLURM_ACCESS_DENIED);
    }
    if m.root_only && !submitter.slurm_user {
        return Err(ESLURM_ACCESS_DENIED);
    }
    if m.disable_root_jobs && owner_uid == 0 {
        return Err(ESLURM_USER_ID_MISSING);
    }
    if let Some(allowed) = &m.alloc_nodes {
        let hosts = spur_grammar::hostlist::expand_bounded(allowed, 1 << 16).unwrap_or_default();
        if !desc.alloc_node.is_empty() && !hosts.contains(&desc.alloc_node) {
            return Err(ESLURM_ACCESS_DENIED);
        }
    }
    Ok(())
}

impl Service {
    fn build_job(&self, id: &Identity, desc: JobDesc) -> Result<Job, (i32, String)> {
        self.build_job_inner(id, desc).map_err(|c| (c, String::new()))
    }

    /// For a job accepted beyond its partition's CPUs (22.05): the node count
    /// slurmctld estimates for it, the tasks' CPUs over the largest node's.
    fn nodes_beyond_partition(&self, desc: &JobDesc) -> Option<u32> {
        let g = self.ctld.read();
        let st = &g.state;
        let part = match &desc.partition {
            Some(p) => st.partition(p)?,
            None => st.default_partition()?,
        };
        let nodes: Vec<&Node> = part.nodes.iter().filter_map(|n| st.node(n)).collect();
        let cpt = desc.cpus_per_task.unwrap_or(1).max(1) as u64;
        let want = desc.min_nodes.unwrap_or(1) as u64;
        let cpus = (desc.num_tasks.unwrap_or(1).max(1) as u64 * cpt).max(want);
        let total: u64 = nodes.iter().map(|n| n.cpus as u64).sum();
        let max_cpus = nodes.iter().map(|n| n.cpus as u64).max().unwrap_or(0);
        if cpus <= total || max_cpus == 0 {
            return None;
        }
        Some(cpus.div_ceil(max_cpus).min(u32::MAX as u64) as u32)
    }

    /// `MaxMemPerCPU` (the partition's, else slurm.conf's): a job asking
    /// more memory per CPU (`--mem-per-cpu`, else `DefMemPerCPU`) gets as
    /// many times more CPUs per task and as many times less memory per CPU,
    /// rounded up (slurmctld's _valid_pn_min_mem; measured on 22.05 with
    /// MaxMemPerCPU=2000: `--mem-per-cpu=5000` gives CPUs/Task=3,
    /// MinMemoryCPU=1667M; `--mem-per-cpu=3000 -c2` CPUs/Task=4, 1500M).
    /// `EnforcePartLimits=ALL|ANY|YES`: a job asking more than its
    /// partition allows is refused at once rather than left pending
    /// (slurmctld's _part_access_check, in its order: fewer nodes than
    /// MinNodes, more than MaxNodes, a time limit over MaxTime). Measured on
    /// 22.05 (MaxTime=10 MaxNodes=2): `-t 20` gives `Requested time limit is
    /// invalid (missing or exceeds some limit)`, `-N3` `Node count
    /// specification invalid`, exit 1, no job id used.
    fn enforce_part_limits(&self, desc: &JobDesc) -> Result<(), i32> {
        let on = self.ctld.conf.get("EnforcePartLimits").is_some_and(|v| {
            let v = v.trim();
            ["ALL", "ANY", "YES"].iter().any(|x| v.eq_ignore_ascii_case(x))
        });
        if !on {
            return Ok(());
        }
        let g = self.ctld.read();
        let part = match &desc.partition {
            Some(p) => g.state.partition(p),
            None => g.state.default_partition(),
        };
        // (an unknown partition gets its own error later)
        let Some(part) = part else { return Ok(()) };
        if desc.min_nodes.is_some_and(|n| n < part.min_nodes) {
            return Err(ESLURM_INVALID_NODE_COUNT);
        }
        let most = desc.max_nodes.or(desc.min_nodes);
        if let (Some(n), Some(max)) = (most, part.max_nodes) {
            if n > max {
                return Err(ESLURM_INVALID_NODE_COUNT);
            }
        }
        if let (Some(t), Some(max)) = (desc.time_limit, part.max_time) {
            if t > max {
                return Err(ESLURM_INVALID_TIME_LIMIT);
            }
        }
        Ok(())
    }

    /// Returns the CPUs per task asked for when it changed them.
    fn fit_max_mem_per_cpu(&self, desc: &mut JobDesc) -> Option<u32> {
        if desc.mem_per_node.is_some() {
            return None;
        }
        let conf = &self.ctld.conf;
        let (part_def, part_max) = {
            let g = self.ctld.read();
            let part = match &desc.partition {
                Some(p) => g.state.partition(p),
                None => g.state.default_partition(),
            };
            (def_mem_per_cpu(conf, part), part.map(|p| p.more.max_mem).filter(|m| m.mb > 0))
        };
        let mem = desc.mem_per_cpu.or(part_def).filter(|m| *m > 0)?;
        let max = match part_max {
            Some(m) if m.per_cpu => m.mb,
            Some(_) => return None,
            None => match conf.get("MaxMemPerCPU").and_then(|v| v.trim().parse::<u64>().ok()) {
                Some(m) if m > 0 => m,
                _ => return None,
            },
        };
        if mem <= max {
            return None;
        }
        let ratio = mem.div_ceil(max);
        let cpt = u64::from(desc.cpus_per_task.unwrap_or(1).max(1));
        desc.cpus_per_task = Some(cpt.saturating_mul(ratio).min(u64::from(u16::MAX)) as u32);
        desc.mem_per_cpu = Some(mem.div_ceil(ratio));
        Some(cpt as u32)
    }

    fn validate_shape(&self, desc: &JobDesc, test_only: bool) -> Result<(), (i32, String)> {
        // `--signal=R:...` needs preemption (slurmctld's _validate_job_desc;
        // recorded/24.11/srun_stepopts/27)
        let names = spur_core::compat::profile().signal_names;
        let resv = |s: &String| spur_grammar::signal::parse_signal_opts(s, true, names).is_ok_and(|o| o.resv);
        // (22.05 accepts it: recorded/22.05/srun_stepopts/29)
        let preempt_off = self.ctld.conf.get("PreemptMode").is_none_or(|m| m.eq_ignore_ascii_case("OFF"))
            && spur_core::compat::release() != spur_core::compat::Release::V22_05;
        if desc.signal.as_ref().is_some_and(resv) && preempt_off {
            return Err((ESLURM_PREEMPTION_REQUIRED, String::new()));
        }
        let g = self.ctld.read();
        let st = &g.state;
        let part = match &desc.partition {
            Some(p) => match st.partition(p) {
                Some(x) => x,
                None => return Err((ESLURM_INVALID_PARTITION_NAME, format!("invalid partition specified: {}", p))),
            },
            None => match st.default_partition() {
                Some(x) => x,
                None => return Err((ESLURM_DEFAULT_PARTITION_NOT_SET, String::new())),
            },
        };
        let mut nodes: Vec<&Node> = part.nodes.iter().filter_map(|n| st.node(n)).collect();
        let unavailable = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
        let want_nodes = desc.min_nodes.unwrap_or(1);
        // --exclude: the job may use only the rest, and is refused when they
        // could never hold it, whatever the release (22.05: `-x cn0[1-4]`,
        // `-N4 -x cn01` and `-n25 -x cn01` on four 8-CPU nodes refused,
        // `-N3 -x cn01` accepted)
        let excluded = match desc
            .exc_nodes
            .as_deref()
            .map(|e| spur_grammar::hostlist::expand_bounded(e, spur_grammar::hostlist::MAX_JOB_HOSTS))
        {
            Some(Ok(v)) if !v.is_empty() => {
                let v: std::collections::HashSet<String> = v.into_iter().collect();
                nodes.retain(|n| !v.contains(&n.name));
                true
            }
            _ => false,
        };
        // --constraint: only the partition's nodes that may serve the job
        // count, and a count asked of a feature must be there (22.05: `-p
        // gpu -C intel`, `-C 'intel&amd'`, `-C 'intel*1&amd*1'` refused with
        // "Requested node configuration is not available";
        // crates/spur-sched/tests/constraints.md)
        // (an expression that does not read, or names a feature no node has,
        // is refused later with its own error)
        let known = |f: &str| st.nodes().iter().any(|n| n.features.iter().any(|x| x == f));
        if let Some(c) = desc
            .constraint
            .as_deref()
            .filter(|c| !c.is_empty() && validate::feature_expr_ok(c, &known))
            .and_then(|c| spur_grammar::feature::parse(c, false).ok())
        {
            let choice = c.choice();
            nodes.retain(|n| c.node_may_serve(&choice, &|f: &str| n.features.iter().any(|x| x == f)));
            let mut asked = want_nodes as usize;
            if let spur_grammar::feature::Choice::Counts { each, .. } = &choice {
                for (f, k) in each {
                    if nodes.iter().filter(|n| n.features.iter().any(|x| x == f)).count() < *k as usize {
                        return Err((unavailable, String::new()));
                    }
                }
                let sum: usize = each.iter().map(|(_, k)| *k as usize).sum();
                // the counted nodes are the job's: more than -N allows is refused
                if desc.min_nodes.is_some() && desc.max_nodes.unwrap_or(want_nodes).max(want_nodes) < sum as u32 {
                    return Err((unavailable, String::new()));
                }
                asked = asked.max(sum);
            }
            if nodes.is_empty() || asked > nodes.len() {
                return Err((unavailable, String::new()));
            }
        }
        if excluded && !desc.overcommit() {
            let cpt = desc.cpus_per_task.unwrap_or(1).max(1);
            let room: u64 = nodes.iter().map(|n| u64::from(n.cpus / cpt)).sum();
            let tasks = u64::from(desc.num_tasks.unwrap_or(want_nodes).max(1));
            if want_nodes as usize > nodes.len() || tasks > room {
                return Err((unavailable, String::new()));
            }
        } else if excluded && want_nodes as usize > nodes.len() {
            return Err((unavailable, String::new()));
        }
        // 22.05 accepts a job larger than its partition and leaves it pending
        // (PartitionConfig / PartitionNodeLimit, recorded/22.05/errors/57)
        // (its will-run test still refuses them: recorded/22.05/sbatch_options/141)
        let pend = spur_core::compat::profile().oversized_jobs_pend && !test_only;
        if want_nodes as usize > nodes.len() && !pend {
            return Err((unavailable, String::new()));
        }
        let max_cpus = nodes.iter().map(|n| n.cpus).max().unwrap_or(0);
        let max_mem = nodes.iter().map(|n| n.real_memory).max().unwrap_or(0);
        let cpt = desc.cpus_per_task.unwrap_or(1).max(1);
        if cpt > max_cpus
            || desc.ntasks_per_node.is_some_and(|n| n.saturating_mul(cpt) > max_cpus && !desc.overcommit())
        {
            return Err((unavailable, "CPU count per node can not be satisfied".into()));
        }
        // MaxCPUsPerNode: what the partition's jobs may use of any node
        // (22.05, MaxCPUsPerNode=4 on 8-CPU nodes: `-c6`, `--ntasks-per-node=5`,
        // `-N1 -n3 -c2` refused without a message; `-O -N1 -n8` accepted)
        let cap = part.more.max_cpus_per_node;
        if cap.is_some_and(|c| {
            cpt > c || desc.ntasks_per_node.is_some_and(|n| n.saturating_mul(cpt) > c && !desc.overcommit())
        }) {
            return Err((unavailable, String::new()));
        }
        let usable = |n: &Node| cap.map_or(n.cpus, |c| n.cpus.min(c));
        if let Some(m) = desc.mem_per_node {
            if m > max_mem {
                return Err((unavailable, "Memory specification can not be satisfied".into()));
            }
        }
        if let Some(m) = desc.mem_per_cpu {
            if m.saturating_mul(cpt as u64) > max_mem {
                return Err((unavailable, "Memory specification can not be satisfied".into()));
            }
        }
        // with --overcommit the tasks share the job's CPUs: any number is
        // accepted (22.05: `sbatch -O -n40 -N1` on four 8-CPU nodes runs, NumCPUs=1)
        if desc.overcommit() {
            return Ok(());
        }
        let tasks = desc.num_tasks.unwrap_or(want_nodes).max(1) as u64;
        let total: u64 = nodes.iter().map(|n| (usable(n) / cpt) as u64).sum();
        if tasks > total && !pend {
            return Err((unavailable, String::new()));
        }
        // -N bounds the nodes: the tasks must fit on that many of the largest
        // nodes (22.05: `sbatch -n10 -N1` on 8-CPU nodes is refused,
        // "Requested node configuration is not available")
        // (a node count of 0, or a maximum below the minimum, is refused
        // later with its own error)
        // Without -N, the partition's MaxNodes bounds them (22.05, MaxNodes=2
        // and MaxCPUsPerNode=4: `-n9` refused, `-n8` accepted)
        let counts_valid = want_nodes > 0 && desc.max_nodes.is_none_or(|m| m >= want_nodes);
        // (a count that only --nodelist gave leaves the maximum open)
        let open = desc.max_nodes.is_none() && spur_sched::nodelist_count(desc);
        let most = match (desc.min_nodes, part.max_nodes) {
            (Some(_), m) if open => m.map(|m| m as usize),
            (Some(_), _) if counts_valid => Some(desc.max_nodes.unwrap_or(want_nodes).max(want_nodes) as usize),
            (None, Some(m)) => Some(m as usize),
            _ => None,
        };
        if let Some(most) = most.filter(|_| tasks <= total) {
            let mut per: Vec<u64> = nodes.iter().map(|n| (usable(n) / cpt) as u64).collect();
            per.sort_unstable_by(|a, b| b.cmp(a));
            if tasks > per.iter().take(most).sum::<u64>() {
                return Err((unavailable, String::new()));
            }
        }
        Ok(())
    }

    fn build_job_inner(&self, id: &Identity, mut desc: JobDesc) -> Result<Job, i32> {
        // `sbatch --uid/--gid`: root or SlurmUser submits for another user,
        // whose job it then is (recorded/24.11/sbatch_surface/172-173); the
        // checks below are the owner's, as for a job they submitted
        let submitter = self.caller(id);
        let run_as;
        let id = if desc.run_as_user.is_some() || desc.run_as_group.is_some() {
            if !self.caller(id).slurm_user {
                return Err(ESLURM_USER_ID_MISSING);
            }
            let uid = match desc.run_as_user.as_deref() {
                Some(u) => u.parse().ok().or_else(|| spur_auth::users::uid_of(u)).ok_or(ESLURM_USER_ID_MISSING)?,
                None => id.uid,
            };
            let gid = match desc.run_as_group.as_deref() {
                Some(g) => g.parse().ok().or_else(|| spur_auth::users::gid_of(g)).ok_or(ESLURM_GROUP_ID_MISSING)?,
                None if uid != id.uid => *spur_auth::users::groups_of(uid).first().ok_or(ESLURM_USER_ID_MISSING)?,
                None => id.gid,
            };
            run_as = Identity { uid, gid, ..id.clone() };
            &run_as
        } else {
            id
        };
        let user_name = spur_auth::users::user_name(id.uid).ok_or(ESLURM_USER_ID_MISSING)?;
        if self.ctld.conf.accounting_enabled() {
            // with accounting, a job that names no account charges its
            // user's default one (root's is `root`, the association slurmdbd
            // makes with every cluster: recorded/24.11/sacct/033); under
            // AccountingStorageEnforce=associations the user must be
            // associated with it (slurmctld: ESLURM_INVALID_ACCOUNT)
            let g = self.ctld.read();
            let a = g.state.assocs();
            if desc.account.is_none() {
                desc.account = a.default_account(&user_name).map(str::to_string);
            }
            if let Some(acc) = desc.account.as_mut() {
                *acc = acc.to_ascii_lowercase();
            }
            if self.ctld.enforce_assoc && desc.account.as_deref().is_none_or(|acc| a.link(&user_name, acc).is_none()) {
                return Err(ESLURM_INVALID_ACCOUNT);
            }
        }
        let g = self.ctld.read();
        let st = &g.state;
        let part = match &desc.partition {
            Some(p) => st.partition(p).ok_or(ESLURM_INVALID_PARTITION_NAME)?.clone(),
            None => st.default_partition().ok_or(ESLURM_DEFAULT_PARTITION_NOT_SET)?.clone(),
        };
        drop(g);
        let group_name = spur_auth::users::group_name(id.gid).unwrap_or_else(|| id.gid.to_string());
        let caller = self.caller(id);
        partition_limits(&part, &desc, &submitter, id.uid)?;
        partition_access(&part, &caller)?;
        // a negative nice raises priority: operators only (job_mgr.c, before
        // the job_submit plugins: ESLURM_INVALID_NICE)
        validate::submit_nice(desc.nice, &caller)?;
        if let Some(n) = desc.min_nodes {
            if n == 0 {
                return Err(ESLURM_INVALID_NODE_COUNT);
            }
        }
        if let (Some(a), Some(b)) = (desc.min_nodes, desc.max_nodes) {
            if b < a {
                return Err(ESLURM_INVALID_NODE_COUNT);
            }
        }
        // --nodelist and --exclude, read bounded and kept without duplicates
        // (slurmctld's _job_create, then _copy_nodelist_no_dup): every name of
        // --nodelist in the partition, every name of --exclude a node
        // (node_name2bitmap: `Invalid node name specified`)
        if let Some(r) = desc.req_nodes.as_deref().filter(|r| !r.is_empty()) {
            let (names, list) = validate::job_node_list(r)?;
            // a name that is no node at all (node_name2bitmap), then one outside the partition
            if names.iter().any(|n| self.ctld.read().state.node(n).is_none()) {
                return Err(ESLURM_INVALID_NODE_NAME);
            }
            let in_part: std::collections::HashSet<&str> = part.nodes.iter().map(|n| n.as_str()).collect();
            if names.iter().any(|n| !in_part.contains(n.as_str())) {
                return Err(ESLURM_REQUESTED_NODES_NOT_IN_PARTITION);
            }
            desc.req_nodes = Some(list);
        }
        if let Some(r) = desc.exc_nodes.as_deref().filter(|r| !r.is_empty()) {
            let (names, list) = validate::job_node_list(r)?;
            let g = self.ctld.read();
            if names.iter().any(|n| self.ctld.read().state.node(n).is_none()) {
                return Err(ESLURM_INVALID_NODE_NAME);
            }
            drop(g);
            desc.exc_nodes = Some(list);
        }
        if let Some(dep) = &desc.dependency {
            if self.check_dependency(dep)?.is_none() {
                desc.dependency = None;
            }
        }
        // no string past its bound, the script past max_script_size
        // (slurmctld's _test_job_desc_fields, just before _valid_array_inx)
        validate::job_desc_fields(&desc, self.ctld.conf.max_script_size())?;
        // the features asked for must be some node's; there are no licenses
        {
            let g = self.ctld.read();
            let known = |f: &str| g.state.nodes().iter().any(|n| n.features.iter().any(|x| x == f));
            if !validate::feature_expr_ok(desc.constraint.as_deref().unwrap_or(""), &known) {
                return Err(ESLURM_INVALID_FEATURE);
            }
            let acc = desc.accepted.as_deref();
            if !validate::feature_expr_ok(acc.and_then(|a| a.prefer.as_deref()).unwrap_or(""), &known) {
                return Err(ESLURM_INVALID_PREFER);
            }
            if acc.and_then(|a| a.licenses.as_deref()).is_some_and(|l| !l.is_empty()) {
                return Err(ESLURM_INVALID_LICENSES);
            }
            let conf = &self.ctld.conf;
            if !validate::batch_features_ok(acc.and_then(|a| a.batch_features.as_deref()), desc.constraint.as_deref()) {
                return Err(ESLURM_BATCH_CONSTRAINT);
            }
            if !validate::tres_per_task_ok(acc.and_then(|a| a.tres_per_task.as_deref()), &conf.gres_types) {
                return Err(ESLURM_INVALID_TRES);
            }
            let task_freq = conf.get("JobAcctGatherFrequency").map(validate::acctg_task_freq).unwrap_or(Some(30));
            if let (Some(asked), Some(limit)) =
                (acc.and_then(|a| a.acctg_freq.as_deref()).and_then(validate::acctg_task_freq), task_freq)
            {
                // memory is limited on this cluster (DefMemPerCPU or --mem):
                // slurmctld needs the task sampling at least that often
                if asked > limit
                    && (conf.def_mem_per_cpu.is_some() || desc.mem_per_node.is_some() || desc.mem_per_cpu.is_some())
                {
                    return Err(ESLURMD_INVALID_ACCT_FREQ);
                }
            }
        }
        // slurmctld's _valid_array_inx; a specification naming no task (`,`)
        // makes a plain job (recorded in spur-grammar's tests/data/array.txt)
        let array = match &desc.array {
            Some(spec) => {
                let conf = &self.ctld.conf;
                let a = spur_grammar::array::parse_limited(spec, conf.max_array_size(), conf.max_array_tasks())
                    .map_err(|_| ESLURM_INVALID_ARRAY)?;
                (!a.tasks.is_empty()).then(|| ArrayInfo {
                    array_job_id: 0,
                    task_id: None,
                    pending_tasks: a.tasks,
                    max_running: a.throttle,
                    spec: spec.clone(),
                })
            }
            None => None,
        };
        let time_limit = match desc.time_limit {
            Some(u32::MAX) => None,
            Some(t) => Some(t),
            None => part.default_time.or(part.max_time),
        };
        // An unknown reservation, or one the user is not in (slurmctld checks
        // it after the job has its id; recorded/24.11/sbatch_options/144,
        // recorded/24.11/reservations/024-025).
        if let Some(name) = desc.reservation_name() {
            // the user's groups, looked up before the lock (Groups=)
            let my_groups: Vec<String> =
                spur_auth::users::groups_of(id.uid).into_iter().filter_map(spur_auth::users::group_name).collect();
            let g = self.ctld.read();
            match g.state.reservations().iter().find(|r| r.name == name) {
                None => return Err(ESLURM_RESERVATION_INVALID),
                Some(r) => {
                    let listed = validate::resv_admits(&r.users, &user_name)
                        || r.groups.iter().any(|x| my_groups.contains(x))
                        || desc.account.as_ref().is_some_and(|a| r.accounts.contains(a));
                    validate::authorize(&caller, Action::UseReservation { listed }, Some(id.uid))?
                }
            }
        }
        validate::check_deadline(&desc, part.default_time, now())?;
        let cpt = desc.cpus_per_task.unwrap_or(1).max(1);
        // -n with --ntasks-per-node and no -N: as many nodes as that makes
        let nodes = desc
            .min_nodes
            .unwrap_or(match (desc.num_tasks, desc.ntasks_per_node) {
                (Some(n), Some(p)) if p > 0 => n.div_ceil(p),
                _ => 1,
            })
            .max(1);
        let tasks = match (desc.num_tasks, desc.ntasks_per_node) {
            (Some(n), _) => n,
            (None, Some(per)) => per.saturating_mul(nodes),
            (None, None) => nodes,
        };
        if tasks == 0 {
            return Err(ESLURM_BAD_TASK_COUNT);
        }
        // the partition's DefMemPerCPU before slurm.conf's
        let def_mem = def_mem_per_cpu(&self.ctld.conf, Some(&part)).unwrap_or(0);
        let mem_per_cpu = desc.mem_per_cpu.unwrap_or(if desc.mem_per_node.is_some() { 0 } else { def_mem });
        let t = now();
        if desc.alloc_node.is_empty() {
            desc.alloc_node = "localhost".into();
        }
        // a job submitted with priority 0 (`--hold`) is held by its user, whoever
        // that is (job_mgr.c: user_submit_priority == 0 -> WAIT_HELD_USER;
        // recorded/24.11/basic/016 shows root's `sbatch --hold` as JobHeldUser)
        let held = if desc.hold { Some(Reason::JobHeldUser) } else { None };
        if held.is_some() && desc.max_nodes.is_none() && spur_core::compat::profile().held_job_fixes_max_nodes {
            // (not in 22.05: its held job shows `NumNodes=1`, recorded/22.05/basic/051)
            // a job held at submission shows `NumNodes=1-1` (recorded/24.11/basic/047)
            desc.max_nodes = Some(nodes);
        }
        // not eligible (EligibleTime=Unknown) while held or waiting on a
        // dependency (job_independent never sets its begin time;
        // recorded/24.11/basic/047 and 052)
        let has_dep = desc.dependency.as_deref().map(|d| !d.is_empty()).unwrap_or(false);
        // a job that begins later waits with BeginTime from its submission on
        // (job_allocate asks job_independent at once, which sets WAIT_TIME),
        // not only from the scheduler's next pass
        let reason = match &held {
            Some(r) => r.clone(),
            None if !has_dep && desc.begin_time > t => Reason::BeginTime,
            None => Reason::None,
        };
        let eligible_time = if held.is_some() || has_dep {
            0
        } else if desc.begin_time > t {
            desc.begin_time
        } else {
            t
        };
        Ok(Job {
            job_id: 0,
            array,
            user_id: id.uid,
            group_id: id.gid,
            user_name,
            group_name,
            state: JobState::Pending,
            reason,
            priority: if held.is_some() { 0 } else { 1 },
            held,
            partition: part.name.clone(),
            time_limit,
            submit_time: t,
            eligible_time,
            start_time: 0,
            end_time: 0,
            suspend_time: 0,
            pre_sus_time: 0,
            allocs: vec![],
            exit_status: 0,
            derived_exit_code: 0,
            restart_count: 0,
            num_nodes: nodes,
            num_tasks: tasks,
            // --overcommit: one task's CPUs per node (sbatch's min_cpus)
            num_cpus: if desc.overcommit() { nodes.saturating_mul(cpt) } else { tasks.saturating_mul(cpt).max(nodes) },
            mem_per_node: desc.mem_per_node.unwrap_or(0),
            mem_per_cpu,
            kill_reason: None,
            // an allocation (salloc, srun's own) has no batch script: BatchFlag=0
            batch_flag: u32::from(!desc.script.is_empty()),
            start_pass_ms: 0,
            last_sched_eval: 0,
            requeued_done: false,
            tres_counted: None,
            admin_comment: None,
            submitted_cpus_per_task: None,
            steps: Vec::new(),
            next_step_id: 0,
            done_steps: Vec::new(),
            batch_usage: None,
            cancelled_by: None,
            sched_backfill: false,
            preempt_suspended: false,
            desc,
        })
    }

    /// `sbatch --test-only`: the job record is made (its id is used up, as
    /// slurmctld's will-run test does) and the scheduler is asked where and
    /// when it would start against the running jobs, without queueing it.
    async fn will_run(&self, mut job: Job) -> Result<SubmitReply, tonic::Status> {
        let jid = match self.ctld.commit(vec![Command::ConsumeJobId]).await?.into_iter().next() {
            Some(Ok(Applied::Submitted(id))) => id,
            _ => 0,
        };
        let t = now();
        let earliest = job.desc.begin_time.max(t);
        job.job_id = jid;
        job.held = None;
        job.priority = u32::MAX;
        job.reason = Reason::None;
        job.desc.begin_time = 0;
        job.desc.dependency = None;
        if job.eligible_time == 0 {
            job.eligible_time = t;
        }
        let g = self.ctld.read();
        let state = &g.state;
        let parts: Vec<&Partition> = state.partitions().iter().collect();
        let placed = |nodes: &[&Node]| {
            spur_sched::schedule(t, &[&job], nodes, &parts).into_iter().find_map(|d| match d {
                spur_sched::Decision::Start { job_id, allocs, .. } if job_id == jid => Some(allocs),
                _ => None,
            })
        };
        let nodes: Vec<&Node> = state.nodes().iter().collect();
        let (allocs, start) = match placed(&nodes) {
            Some(a) => (a, earliest),
            None => {
                // busy now: place it as if the running jobs had ended, and start
                // it when the last of them on those nodes ends
                let empty: Vec<Node> = state
                    .nodes()
                    .iter()
                    .map(|n| {
                        let mut n = n.clone();
                        n.alloc_cpus = 0;
                        n.alloc_mem = 0;
                        n.alloc_gres.clear();
                        if n.base == NodeBase::Allocated {
                            n.base = NodeBase::Idle;
                        }
                        n
                    })
                    .collect();
                let refs: Vec<&Node> = empty.iter().collect();
                match placed(&refs) {
                    Some(a) => {
                        let end = state
                            .jobs()
                            .values()
                            .filter(|j| {
                                j.state.is_active() && j.allocs.iter().any(|x| a.iter().any(|y| y.node == x.node))
                            })
                            .map(|j| if j.end_time > 0 { j.end_time } else { t + 365 * 86400 })
                            .max()
                            .unwrap_or(t);
                        (a, end.max(earliest))
                    }
                    None => (vec![], earliest),
                }
            }
        };
        drop(g);
        let names: Vec<&str> = allocs.iter().map(|a| a.node.as_str()).collect();
        Ok(SubmitReply {
            status: st(0),
            job_id: jid,
            start_time: start,
            nodes: spur_grammar::hostlist::compress(&names),
            partition: job.partition.clone(),
            cpus: allocs.iter().map(|a| a.cpus).sum::<u32>(),
            ..Default::default()
        })
    }

    /// slurmctld's update_job_dependency: the grammar (spur_grammar::dependency),
    /// then what it checks against the jobs it has. `Ok(None)` clears the
    /// dependency (empty or `0`).
    fn check_dependency(&self, dep: &str) -> Result<Option<()>, i32> {
        use spur_grammar::dependency::{DepKind, DepTask, DependencyError};
        let conf = &self.ctld.conf;
        let permit = conf
            .get("SchedulerParameters")
            .map(|p| p.to_ascii_lowercase().contains("permit_job_expansion"))
            .unwrap_or(false);
        let d = match spur_grammar::dependency::parse(dep, conf.max_array_size(), permit) {
            Ok(Some(d)) => d,
            Ok(None) => return Ok(None),
            Err(DependencyError::Invalid) => return Err(ESLURM_DEPENDENCY),
            Err(DependencyError::ExpandNotPermitted) => return Err(ESLURM_NOT_SUPPORTED),
        };
        let g = self.ctld.read();
        let st = &g.state;
        // (a task is looked up among its array's records, each array's once:
        // the dependency's items, up to 128 KiB of them, never scan every job)
        let mut res = Resolver::new(st);
        for it in &d.items {
            let job = match it.task {
                DepTask::Job | DepTask::All => st.jobs().get(&it.job_id),
                DepTask::One(t) => res.task(it.job_id, t).and_then(|(jid, _)| st.jobs().get(&jid)),
            };
            match it.kind {
                // slurmctld 24.11 refuses afterok/afternotok on a job it does not
                // know, and takes the other kinds (22.05 takes them all:
                // recorded/22.05/errors/20; spur-grammar's tests/data/dependency.txt)
                DepKind::AfterOk | DepKind::AfterNotOk
                    if job.is_none() && spur_core::compat::profile().dependency_on_unknown_job_refused =>
                {
                    return Err(ESLURM_DEPENDENCY)
                }
                // only a running job can be expanded
                DepKind::Expand if job.is_none_or(|j| j.state != JobState::Running) => return Err(ESLURM_DEPENDENCY),
                _ => {}
            }
        }
        Ok(Some(()))
    }

    /// `scontrol update PartitionName=…`.
    async fn update_partition(&self, r: &rq::PartitionUpdate) -> Result<i32, tonic::Status> {
        let u = match validate::partition_update(r) {
            Ok(u) => u,
            Err(code) => return Ok(code),
        };
        // keys a member of an older build would drop: refused, not logged without them
        let active = self.ctld.read().state.write_format_version();
        if u.min_format_version() > active {
            tracing::warn!(
                "update of partition {} refused: it needs format version {}, the cluster writes {}",
                r.name,
                u.min_format_version(),
                active
            );
            return Ok(ESLURM_NOT_SUPPORTED);
        }
        let res = self.ctld.commit(vec![Command::PartitionUpdate { name: r.name.clone(), update: u }]).await?;
        self.ctld.sched_wake.notify_one();
        Ok(match res.into_iter().next() {
            Some(Err(code)) => code,
            _ => 0,
        })
    }

    /// `scontrol top`: the listed pending jobs take the highest priorities
    /// among their owner's pending jobs of the same partition (slurmctld's
    /// job_set_top: operators, or the owner with
    /// `SchedulerParameters=enable_user_top`).
    async fn top(&self, id: &Identity, job_ids: &[String]) -> Result<i32, tonic::Status> {
        let caller = self.caller(id);
        let user_top = self.ctld.conf.enable_user_top();
        // without enable_user_top a user is refused before the ids are read
        if !user_top {
            if let Err(code) = validate::authorize(&caller, Action::Top { user_top }, None) {
                return Ok(code);
            }
        }
        let cmds: Vec<Command> = {
            let g = self.ctld.read();
            let mut top: Vec<u32> = vec![];
            let mut res = Resolver::new(&g.state);
            for s in split_list(job_ids) {
                let jref = match parse_job_ref(&self.ctld, &s) {
                    Some(r) => r,
                    None => return Ok(ESLURM_INVALID_JOB_ID),
                };
                let ids: Vec<u32> = res.resolve(&jref).into_iter().map(|x| x.0).collect();
                if ids.is_empty() {
                    return Ok(ESLURM_INVALID_JOB_ID);
                }
                top.extend(ids);
            }
            // every listed job must be the caller's (an operator's: any)
            for jid in &top {
                let owner = g.state.jobs()[jid].user_id;
                if let Err(code) = validate::authorize(&caller, Action::Top { user_top }, Some(owner)) {
                    return Ok(code);
                }
            }
            let mut rc = 0;
            top.retain(|jid| {
                let j = &g.state.jobs()[jid];
                if j.state != JobState::Pending {
                    rc = ESLURM_JOB_NOT_PENDING;
                    false
                } else if j.priority == 0 {
                    rc = ESLURM_JOB_HELD;
                    false
                } else {
                    true
                }
            });
            // each once, in the order named (a set to look them up: the
            // list is as long as the caller makes it)
            let mut listed = std::collections::HashSet::new();
            top.retain(|j| listed.insert(*j));
            let Some(first) = top.first().map(|j| g.state.jobs()[j].clone()) else { return Ok(rc) };
            let others: Vec<u32> = g
                .state
                .jobs_in_order()
                .filter(|j| {
                    j.state == JobState::Pending
                        && j.priority > 1
                        && !listed.contains(&j.job_id)
                        && j.user_id == first.user_id
                        && j.partition == first.partition
                })
                .map(|j| j.job_id)
                .collect();
            let mut prios: Vec<u32> = top.iter().chain(others.iter()).map(|j| g.state.jobs()[j].priority).collect();
            prios.sort_unstable_by(|a, b| b.cmp(a));
            let cmds: Vec<Command> = top
                .iter()
                .chain(others.iter())
                .zip(prios)
                .filter(|(j, p)| g.state.jobs()[*j].priority != *p)
                .map(|(j, p)| Command::UpdateJob {
                    job_id: *j,
                    update: Box::new(JobUpdate { priority: Some(p), ..Default::default() }),
                })
                .collect();
            cmds
        };
        if !cmds.is_empty() {
            self.ctld.commit(cmds).await?;
        }
        self.ctld.sched_wake.notify_one();
        Ok(0)
    }
}

/// Whether `caller` may see `job` (`PrivateData=jobs`, `private`, hides
/// other users' jobs from users who are not operators).
fn sees_job(caller: &Caller, private: bool, job: &Job) -> bool {
    validate::authorize(caller, Action::SeeJob { private }, Some(job.user_id)).is_ok()
}

/// The changing RPCs, each called by its `Controller` method below once
/// the caller is known; that method writes the audit line (audit.rs) for
/// whatever the call answers.
impl Service {
    async fn submit_as(&self, id: Identity, req: Request<SubmitRequest>) -> R<SubmitReply> {
        // anyone submits; the job is the caller's (its owner is the credential's)
        if let Err(code) = validate::authorize(&self.caller(&id), Action::Submit, None) {
            return Ok(Response::new(SubmitReply { status: st(code), ..Default::default() }));
        }
        let peer = req.remote_addr();
        let r = req.into_inner();
        let source = format!("submission from {}", peer.map(|p| p.to_string()).unwrap_or_else(|| "a client".into()));
        let mut desc: JobDesc = match spur_core::records::decode_job_desc(&r.job_desc, &source) {
            Ok(d) => d,
            // a newer sbatch than this controller: say so (upgrade controllers first)
            Err(e) if spur_core::records::is_too_new(&e) => {
                tracing::warn!("{}", e);
                let status = Some(Status { code: SLURM_PROTOCOL_VERSION_ERROR, message: e });
                return Ok(Response::new(SubmitReply { status, ..Default::default() }));
            }
            Err(_) => {
                return Ok(Response::new(SubmitReply { status: st(SLURM_UNEXPECTED_MSG_ERROR), ..Default::default() }))
            }
        };
        // slurmctld replaces the client's alloc_node with the host its
        // authentication reports (proc_req.c _set_hostname)
        if desc.submit_host.is_empty() {
            desc.submit_host = desc.alloc_node.clone();
        }
        if let Some(peer) = peer {
            if let Some(name) = self.peer_name(peer.ip()).await {
                desc.alloc_node = name;
            }
        }
        // Rejections slurmctld makes only after creating the job record use up
        // a job id (recorded/24.11/job_ids: -N 10, -n 9, --mem=3000, -c 3, -N 0
        // and bad dependencies do; an unknown partition or array spec does not).
        // (`--test-only` too: slurmctld's will-run test creates the record;
        // recorded/24.11/sbatch_options/141-143. An unknown reservation is
        // found after the id is set: recorded/24.11/sbatch_options/144-145.)
        // An allocation (salloc, srun: no script) refused for its node count
        // uses none (recorded/24.11/salloc/79-90 and 22.05's: `salloc -N0`).
        let allocation = desc.script.is_empty();
        macro_rules! reject {
            ($code:expr, $msg:expr) => {{
                let code: i32 = $code;
                if !(allocation && code == ESLURM_INVALID_NODE_COUNT) && matches!(
                    code,
                    ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE
                        | ESLURM_INVALID_NODE_COUNT
                        | ESLURM_DEPENDENCY
                        // (only an `expand:` dependency gives it here; measured
                        // on slurmctld 24.11.5: the refusal uses up an id)
                        | ESLURM_NOT_SUPPORTED
                        | ESLURM_RESERVATION_INVALID
                        | ESLURM_RESERVATION_ACCESS
                        // recorded/24.11/sbatch_surface/095, 161
                        | ESLURM_BATCH_CONSTRAINT
                ) || (matches!(code, ESLURM_INVALID_FEATURE | ESLURM_INVALID_PREFER)
                    && spur_core::compat::profile().feature_rejection_consumes_job_id)
                {
                    self.ctld.commit(vec![Command::ConsumeJobId]).await?;
                    if spur_core::compat::profile().node_rejection_consumes_priority
                        && matches!(code, ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE | ESLURM_INVALID_NODE_COUNT)
                    {
                        // 22.05 gives the job its priority before these checks
                        // (recorded/22.05/errors/71: 3 more used up than jobs kept)
                        self.ctld.commit(vec![Command::ConsumeBasicPriority]).await?;
                    }
                }
                return Ok(Response::new(SubmitReply { status: st(code), user_msg: $msg, ..Default::default() }));
            }};
        }
        // slurmctld's job_allocate refuses a job that MaxJobCount leaves no
        // room for before it creates the record (so before the partition and
        // size checks, and without using up an id), an array counting its
        // tasks; the apply of `Submit` checks again against the committed state
        let records = match &desc.array {
            Some(spec) => {
                let conf = &self.ctld.conf;
                spur_grammar::array::parse_limited(spec, conf.max_array_size(), conf.max_array_tasks())
                    .map(|a| a.tasks.len().max(1) as u64)
                    .unwrap_or(1)
            }
            None => 1,
        };
        let admitted = self.ctld.read().state.admits(records);
        if let Err(code) = admitted {
            return Ok(Response::new(SubmitReply { status: st(code), ..Default::default() }));
        }
        if let Err(code) = self.enforce_part_limits(&desc) {
            return Ok(Response::new(SubmitReply { status: st(code), ..Default::default() }));
        }
        if let Err(code) = self.qos_admits(&mut desc, id.uid) {
            return Ok(Response::new(SubmitReply { status: st(code), ..Default::default() }));
        }
        let cpt_before = self.fit_max_mem_per_cpu(&mut desc);
        let tasks_given = desc.num_tasks.is_some();
        if let Err((code, msg)) = self.validate_shape(&desc, r.test_only) {
            reject!(code, msg);
        }
        let over =
            if spur_core::compat::profile().oversized_jobs_pend { self.nodes_beyond_partition(&desc) } else { None };
        let mut job = match self.build_job(&id, desc) {
            Ok(j) => j,
            Err((code, msg)) => reject!(code, msg),
        };
        if let (Some(cpt), false) = (cpt_before, tasks_given) {
            // without -n, slurmctld leaves the job's CPU count as asked
            // (NumCPUs=1 for `--mem-per-cpu=5000` over MaxMemPerCPU=2000,
            // CPUs/Task=3) until it starts
            job.num_cpus = job.num_tasks.saturating_mul(cpt).max(job.num_nodes);
        }
        if let Some(n) = over {
            job.num_nodes = job.num_nodes.max(n);
        }
        if let Err(code) = self.assoc_qos(&mut job) {
            return Ok(Response::new(SubmitReply { status: st(code), ..Default::default() }));
        }
        if let Err((code, msg)) = self.qos_limits(&job) {
            return Ok(Response::new(SubmitReply { status: st(code), user_msg: msg, ..Default::default() }));
        }
        if let Err((code, msg)) = self.assoc_limits(&mut job, records) {
            return Ok(Response::new(SubmitReply { status: st(code), user_msg: msg, ..Default::default() }));
        }
        // priority/multifactor: the job's factors as it is accepted
        let prio = {
            let g = self.ctld.read();
            self.ctld.multifactor_priority(&g.state, &job, now())
        };
        if let Some(p) = prio {
            job.priority = p;
        }
        if r.test_only {
            return Ok(Response::new(self.will_run(job).await?));
        }
        // a full disk refuses new jobs and keeps the acknowledged ones
        // (slurmctld: the script and environment cannot be written)
        if let Err(code) = self.ctld.room_for(&job) {
            return Ok(Response::new(SubmitReply { status: st(code), ..Default::default() }));
        }
        // an allocation without a script (srun's own, salloc): its command
        // waits for the start, so it is scheduled without the coalescing delay
        let interactive = job.desc.script.is_empty();
        let res = self.ctld.commit(vec![Command::Submit { job: Box::new(job) }]).await?;
        self.ctld.submissions.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if interactive {
            self.ctld.sched_now.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        self.ctld.sched_wake.notify_one();
        match res.into_iter().next() {
            Some(Ok(Applied::Submitted(jid))) => {
                Ok(Response::new(SubmitReply { status: st(0), job_id: jid, ..Default::default() }))
            }
            Some(Err(code)) => Ok(Response::new(SubmitReply { status: st(code), ..Default::default() })),
            _ => Ok(Response::new(SubmitReply { status: st(ESLURM_INTERNAL), ..Default::default() })),
        }
    }

    async fn cancel_as(&self, id: Identity, req: Request<CancelRequest>) -> R<CancelReply> {
        let r = match rq::CancelRequest::try_from(req.into_inner()) {
            Ok(r) => r,
            Err(code) => return Ok(Response::new(CancelReply { status: st(code), results: vec![] })),
        };
        let mut results = vec![];
        // (job id, task) pairs to act on, after filters
        let mut targets: Vec<(String, u32, Option<u32>)> = vec![];
        // (reference, job id, step, its nodes): `scancel 5.0`
        let mut step_targets: Vec<(String, u32, u32, Vec<String>)> = vec![];
        let caller = self.caller(&id);
        let action = if r.signal != 0 && r.signal != libc::SIGKILL { Action::Signal } else { Action::Cancel };
        let may = |j: &Job| validate::authorize(&caller, action, Some(j.user_id));
        let private = self.ctld.conf.private_data().jobs;
        {
            let states = &r.states;
            let filter = |j: &Job| -> bool {
                r.user.as_ref().is_none_or(|u| j.user_name == *u || j.user_id.to_string() == *u)
                    && r.name.as_ref().is_none_or(|n| j.desc.name == *n)
                    && r.partition.as_ref().is_none_or(|p| j.partition == *p)
                    && (states.is_empty() || states.contains(&j.state))
                    && r.account.as_ref().is_none_or(|a| j.desc.account.as_deref() == Some(a.as_str()))
            };
            if r.job_ids.is_empty() {
                let g = self.ctld.read();
                // newest first, as Slurm lists them
                // (scancel picks them from the jobs it can see: with
                // PrivateData=jobs another user's are not among them)
                for j in g.state.jobs().values().rev() {
                    if !j.state.is_finished() && filter(j) && sees_job(&caller, private, j) {
                        match may(j) {
                            Ok(()) => targets.push((j.display_id(), j.job_id, None)),
                            Err(code) => results.push(CancelResult { job_id: j.display_id(), status: st(code) }),
                        }
                    }
                }
            } else {
                // a batch of references per hold of the lock (their number is the caller's)
                for batch in r.job_ids.chunks(REFS_PER_LOCK) {
                    let g = self.ctld.read();
                    let mut res = Resolver::new(&g.state);
                    for s in batch {
                        // `JOB.STEP` (scancel sends a step as typed)
                        let stepped = s.split_once('.').and_then(|(j, st)| {
                            let n = spur_grammar::num::strtol(st, 10);
                            (n.end == st.len()
                                && n.value >= 0
                                && n.value < spur_grammar::jobref::MAX_NORMAL_STEP_ID as i64)
                                .then(|| {
                                    parse_job_ref(&self.ctld, j).map(|r| JobRef {
                                        step: Some(spur_grammar::jobref::StepId::Num(n.value as u32)),
                                        ..r
                                    })
                                })
                                .flatten()
                        });
                        let jref = match stepped.or_else(|| parse_job_ref(&self.ctld, s)) {
                            Some(x) => x,
                            None => {
                                results.push(CancelResult { job_id: s.clone(), status: st(ESLURM_INVALID_JOB_ID) });
                                continue;
                            }
                        };
                        if let Some(spur_grammar::jobref::StepId::Num(step_id)) = jref.step {
                            // a step of a running job: its tasks, on its nodes
                            let whole = JobRef { step: None, step_het: None, ..jref.clone() };
                            let job =
                                res.resolve(&whole).into_iter().next().and_then(|(jid, _)| g.state.jobs().get(&jid));
                            let step = job.and_then(|j| j.steps.iter().find(|x| x.step_id == step_id).map(|x| (j, x)));
                            match step {
                                // another user's step: slurmctld's job_step_signal says
                                // `Invalid user id` (recorded/24.11/steps/36)
                                Some((j, x)) => match may(j) {
                                    Ok(()) => step_targets.push((s.clone(), j.job_id, step_id, x.node_names())),
                                    Err(_) => results
                                        .push(CancelResult { job_id: s.clone(), status: st(ESLURM_USER_ID_MISSING) }),
                                },
                                None => {
                                    results.push(CancelResult { job_id: s.clone(), status: st(ESLURM_INVALID_JOB_ID) })
                                }
                            }
                            continue;
                        }
                        let mut found = false;
                        for (jid, task) in res.resolve(&jref) {
                            found = true;
                            let j = &g.state.jobs()[&jid];
                            if !filter(j) {
                                continue;
                            }
                            if let Err(code) = may(j) {
                                results.push(CancelResult { job_id: s.clone(), status: st(code) });
                                continue;
                            }
                            targets.push((s.clone(), jid, task));
                        }
                        if !found {
                            results.push(CancelResult { job_id: s.clone(), status: st(ESLURM_INVALID_JOB_ID) });
                        }
                    }
                }
            }
        }
        for (label, jid, step_id, nodes) in step_targets {
            let cancel = r.signal == 0;
            let sig = if cancel { libc::SIGKILL } else { r.signal };
            self.ctld.signal_steps(jid, step_id, &nodes, sig, cancel).await;
            results.push(CancelResult { job_id: label, status: st(0) });
        }
        let t = now();
        let targets =
            if r.signal == 0 || r.signal == libc::SIGKILL { whole_records(&self.ctld, targets) } else { targets };
        // pending tasks of one meta-record leave it in one command (from
        // format version 3; before, a Kill per task split each off)
        let grouped = (r.signal == 0 || r.signal == libc::SIGKILL)
            && self.ctld.read().state.write_format_version() >= spur_state::CANCEL_PENDING_TASKS_VERSION;
        let mut by_record: std::collections::HashMap<u32, Option<Result<(), i32>>> = Default::default();
        for (label, jid, task) in targets.clone() {
            if !grouped || task.is_none() {
                continue;
            }
            let done = match by_record.get(&jid) {
                Some(d) => *d,
                None => {
                    let tasks: Vec<u32> =
                        targets.iter().filter(|(_, j, t)| *j == jid && t.is_some()).filter_map(|x| x.2).collect();
                    let res =
                        self.ctld.commit(vec![Command::CancelPendingTasks { job_id: jid, tasks, now: t }]).await?;
                    let d = res.into_iter().next().map(|r| r.map(|_| ()));
                    by_record.insert(jid, d);
                    d
                }
            };
            match done {
                Some(Ok(())) => results.push(CancelResult { job_id: label, status: st(0) }),
                Some(Err(code)) => results.push(CancelResult { job_id: label, status: st(code) }),
                None => {}
            }
        }
        let targets: Vec<_> = targets.into_iter().filter(|(_, _, task)| !grouped || task.is_none()).collect();
        for (label, jid, task) in targets {
            if r.signal != 0 && r.signal != libc::SIGKILL {
                // a signal, not a cancel: only running jobs, only with --batch/--full for the batch script
                // (looked up again: an earlier target's commit awaited, and
                // this job may have been purged meanwhile)
                let found = {
                    let g = self.ctld.read();
                    g.state.jobs().get(&jid).map(|j| (j.state, j.allocs.first().map(|a| a.node.clone())))
                };
                let Some((state, node)) = found else {
                    results.push(CancelResult { job_id: label, status: st(ESLURM_INVALID_JOB_ID) });
                    continue;
                };
                if state == JobState::Pending {
                    // slurmctld 22.05, measured: `scancel -s USR1 <pending>`
                    // says "Job can not be altered now, try again later"
                    results.push(CancelResult { job_id: label, status: st(ESLURM_TRANSITION_STATE_NO_UPDATE) });
                    continue;
                }
                if state.is_finished() {
                    results.push(CancelResult { job_id: label, status: st(ESLURM_ALREADY_DONE) });
                    continue;
                }
                if let Some(node) = node {
                    if r.batch || r.full {
                        self.ctld
                            .signal_job(jid, &node, r.signal, r.batch && !r.full, false, StopReason::Unspecified)
                            .await;
                    }
                }
                results.push(CancelResult { job_id: label, status: st(0) });
                continue;
            }
            let res = self
                .ctld
                .commit(vec![Command::Kill {
                    job_id: jid,
                    task,
                    state: JobState::Cancelled,
                    now: t,
                    uid: Some(id.uid),
                }])
                .await?;
            match res.into_iter().next() {
                Some(Ok(_)) => {
                    let node = {
                        let g = self.ctld.read();
                        g.state
                            .jobs()
                            .get(&jid)
                            .filter(|j| j.state == JobState::Completing)
                            .and_then(|j| j.allocs.first().map(|a| a.node.clone()))
                    };
                    if let Some(node) = node {
                        let ctld = self.ctld.clone();
                        tokio::spawn(async move {
                            ctld.signal_job(jid, &node, libc::SIGKILL, false, true, StopReason::Cancel).await;
                        });
                    }
                    results.push(CancelResult { job_id: label, status: st(0) });
                }
                Some(Err(code)) => results.push(CancelResult { job_id: label, status: st(code) }),
                None => {}
            }
        }
        self.ctld.sched_wake.notify_one();
        Ok(Response::new(CancelReply { status: st(0), results }))
    }

    /// The records a job control acts on, from the (record, pending task)
    /// pairs a reference resolved to, each record once. An update, hold or
    /// release naming some but not all of the pending tasks of an array's
    /// meta-record splits each named one off first and acts on it alone, as
    /// slurmctld's update_job_str does (from format version 3; before, and
    /// for the other controls, the meta-record as a whole). The split is
    /// made only for a caller allowed the control on the array.
    async fn split_named_tasks(
        &self,
        op: &JobControl,
        caller: &validate::Caller,
        user_top: bool,
        label: &str,
        resolved: Vec<(u32, Option<u32>)>,
        results: &mut Vec<CancelResult>,
    ) -> Result<Vec<(u32, String)>, tonic::Status> {
        let splits = matches!(op, JobControl::Update(_) | JobControl::Hold { .. } | JobControl::Release)
            && self.ctld.read().state.write_format_version() >= spur_state::SPLIT_PENDING_TASK_VERSION;
        let mut named: HashMap<u32, Vec<u32>> = HashMap::new();
        for (jid, task) in &resolved {
            if let Some(t) = task {
                named.entry(*jid).or_default().push(*t);
            }
        }
        let mut out = vec![];
        let mut seen = std::collections::HashSet::new();
        for (jid, task) in resolved {
            if !seen.insert(jid) {
                continue;
            }
            if task.is_none() {
                out.push((jid, label.to_string()));
                continue;
            }
            let job = { self.ctld.read().state.jobs().get(&jid).cloned() };
            let Some(job) = job else { continue };
            // a task still in its array's record: the answer names the record
            // by its pending tasks (`1_1,6: Job is pending execution`)
            let record = match job.array.as_ref() {
                Some(a) if a.task_id.is_none() => {
                    format!("{}_{}", a.array_job_id, spur_core::model::ranges(&a.pending_tasks))
                }
                _ => label.to_string(),
            };
            if !splits {
                out.push((jid, record));
                continue;
            }
            let tasks = named.remove(&jid).unwrap_or_default();
            let all = job.array.as_ref().is_none_or(|a| a.pending_tasks.iter().all(|t| tasks.contains(t)));
            if all {
                out.push((jid, record));
                continue;
            }
            if let Err(code) = validate::job_control_allowed(op, caller, &job, user_top) {
                results.push(CancelResult { job_id: label.to_string(), status: st(code) });
                continue;
            }
            for t in tasks {
                let res = self.ctld.commit(vec![Command::SplitPendingTask { job_id: jid, task: t }]).await?;
                match res.into_iter().next() {
                    Some(Ok(Applied::Submitted(n))) => {
                        out.push((n, format!("{}_{}", job.array.as_ref().map_or(jid, |a| a.array_job_id), t)))
                    }
                    Some(Err(code)) => results.push(CancelResult { job_id: label.to_string(), status: st(code) }),
                    _ => {}
                }
            }
        }
        Ok(out)
    }

    async fn job_control_as(&self, id: Identity, req: Request<JobControlRequest>) -> R<JobControlReply> {
        let (job_ids, op) = match convert::job_control(req.into_inner()) {
            Ok(x) => x,
            Err(code) => return Ok(Response::new(JobControlReply { status: st(code), results: vec![] })),
        };
        if op == JobControl::Top {
            let code = self.top(&id, &job_ids).await?;
            return Ok(Response::new(JobControlReply { status: st(code), results: vec![] }));
        }
        let caller = self.caller(&id);
        let user_top = self.ctld.conf.enable_user_top();
        let mut results = vec![];
        let t = now();
        // a new dependency is checked as at submission, once for the request
        // (not once per job it names: an array names a record per task)
        let dependency = match &op {
            JobControl::Update(req) => req.dependency.as_deref().map(|d| self.check_dependency(d)),
            _ => None,
        };
        for s in &split_list(&job_ids) {
            let resolved: Vec<(u32, Option<u32>)> = {
                let g = self.ctld.read();
                match parse_job_ref(&self.ctld, s) {
                    Some(jref) => resolve(&g.state, &jref),
                    None => vec![],
                }
            };
            if resolved.is_empty() {
                results.push(CancelResult { job_id: task_label(&self.ctld, s), status: st(ESLURM_INVALID_JOB_ID) });
                continue;
            }
            let targets = self.split_named_tasks(&op, &caller, user_top, s, resolved, &mut results).await?;
            for (jid, label) in targets {
                // (the answers name the record acted on, as slurmctld's do)
                let s = &label;
                let job = { self.ctld.read().state.jobs().get(&jid).cloned() };
                let Some(job) = job else { continue };
                if let Err(code) = validate::job_control_allowed(&op, &caller, &job, user_top) {
                    results.push(CancelResult { job_id: s.clone(), status: st(code) });
                    continue;
                }
                let cmd = match &op {
                    JobControl::Hold { user } => {
                        Command::Hold { job_id: jid, reason: validate::hold_reason(&caller, *user, &job) }
                    }
                    JobControl::Release => Command::Release { job_id: jid },
                    JobControl::Requeue { hold, .. } => Command::Requeue { job_id: jid, hold: *hold, now: t },
                    JobControl::Suspend => Command::Suspend { job_id: jid, now: t, preempted: false },
                    JobControl::Resume => Command::Resume { job_id: jid, now: t },
                    JobControl::Top => continue,
                    JobControl::Update(req) => {
                        // a new dependency is checked as at submission (slurmctld's
                        // update_job_dependency; spur-grammar's tests/data/dependency.txt)
                        if let Some(Err(code)) = dependency {
                            results.push(CancelResult { job_id: s.clone(), status: st(code) });
                            return Ok(Response::new(JobControlReply { status: st(0), results }));
                        }
                        let owner = self.caller_uid(job.user_id);
                        let u = {
                            let g = self.ctld.read();
                            // (under AccountingStorageEnforce=qos a user may
                            // move a job only to a QOS of its association; an
                            // operator to any: 22.05's _update_job)
                            // (`QOS=`: the association's default, else none)
                            let assocs = g.state.assocs();
                            let link = assocs.link(&job.user_name, job.desc.account.as_deref().unwrap_or(""));
                            let def = link.and_then(|l| assocs.link_qos(l).1).unwrap_or_default();
                            let link = link.filter(|_| self.ctld.enforce_qos && !caller.operator);
                            let allowed = link.map(|l| assocs.link_qos(l).0);
                            let qos_of = &|name: &str| {
                                if name.is_empty() {
                                    return Some(def.clone());
                                }
                                spur_core::qos::find(&g.state.qos(), name)
                                    .filter(|q| allowed.as_ref().is_none_or(|a| a.contains(&q.name)))
                                    .map(|q| q.name.clone())
                            };
                            validate::job_update(
                                req,
                                &job,
                                &caller,
                                t,
                                &|n| g.state.node(n).is_some(),
                                g.state.partition(&job.partition).and_then(|p| p.max_time),
                                &validate::Lookups {
                                    feature_known: &|f| {
                                        g.state.nodes().iter().any(|n| n.features.iter().any(|x| x == f))
                                    },
                                    gres_known: &|name| {
                                        g.state.nodes().iter().any(|n| n.gres.iter().any(|x| x.0 == name))
                                    },
                                    reservation: &|name| {
                                        g.state
                                            .reservations()
                                            .iter()
                                            .find(|r| r.name == name)
                                            .map(|r| validate::resv_admits(&r.users, &job.user_name))
                                    },
                                    owner,
                                    qos: self.ctld.qos.map(|_| qos_of as validate::QosLookup),
                                },
                            )
                        };
                        // a change the cluster's format version cannot carry yet
                        // (a member of an older build would read the update
                        // without it): refused, not logged without it
                        let u = u.and_then(|mut u| {
                            let active = self.ctld.read().state.write_format_version();
                            // an operator's priority that stays needs version
                            // 10: before, it is set as any other
                            if u.min_format_version() > active {
                                u.by_operator = false;
                            }
                            if u.min_format_version() > active {
                                // what only follows from the request (an
                                // operator's priority resetting nice, the CPUs
                                // recounted from a new task count) is left out
                                // rather than refuse what the user asked
                                u.reset_nice = false;
                                if req.num_cpus.is_none() && req.min_cpus_node.is_none() {
                                    u.num_cpus = None;
                                }
                            }
                            if u.min_format_version() > active {
                                tracing::warn!(
                                    "update of job {} refused: it needs format version {}, the cluster writes {}",
                                    jid,
                                    u.min_format_version(),
                                    active
                                );
                                return Err(ESLURM_NOT_SUPPORTED);
                            }
                            Ok(u)
                        });
                        let u = match u {
                            Ok(u) => u,
                            Err(code) => {
                                results.push(CancelResult { job_id: s.clone(), status: st(code) });
                                return Ok(Response::new(JobControlReply { status: st(0), results }));
                            }
                        };
                        if let Some(p) = &u.partition {
                            let part = self.ctld.read().state.partition(p).cloned();
                            let Some(part) = part else {
                                results.push(CancelResult {
                                    job_id: s.clone(),
                                    status: st(ESLURM_INVALID_PARTITION_NAME),
                                });
                                continue;
                            };
                            // the new partition must admit the job's owner, as at
                            // submission (job_mgr.c's update path runs the same
                            // partition access check)
                            if let Err(code) = partition_access(&part, &self.caller_uid(job.user_id)) {
                                results.push(CancelResult { job_id: s.clone(), status: st(code) });
                                continue;
                            }
                        }
                        // A pending job asking for more nodes than its partition has:
                        // slurmctld makes the change but answers that the partition
                        // cannot run it, for that update and every later one
                        // (recorded/24.11/scontrol/188-190, and 194: Comment=after)
                        if job.state == JobState::Pending {
                            let part_nodes = {
                                let g = self.ctld.read();
                                let pname = u.partition.clone().unwrap_or_else(|| job.partition.clone());
                                g.state.partition(&pname).map(|p| p.nodes.len() as u32).unwrap_or(0)
                            };
                            let too_big = |n: u32| part_nodes > 0 && n > part_nodes;
                            if too_big(u.num_nodes.unwrap_or(job.num_nodes)) {
                                let refused = JobUpdate { refused: true, ..u };
                                self.ctld
                                    .commit(vec![Command::UpdateJob { job_id: jid, update: Box::new(refused) }])
                                    .await?;
                                results.push(CancelResult {
                                    job_id: s.clone(),
                                    status: st(ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE),
                                });
                                continue;
                            }
                        }
                        Command::UpdateJob { job_id: jid, update: Box::new(u) }
                    }
                };
                let was_active = job.state.is_active();
                let res = self.ctld.commit(vec![cmd]).await?;
                match res.into_iter().next() {
                    Some(Ok(_)) => {
                        // SIGSTOP/SIGCONT to the job's processes on its batch host
                        let sig = match op {
                            JobControl::Suspend if job.state == JobState::Running => Some(libc::SIGSTOP),
                            JobControl::Resume => Some(libc::SIGCONT),
                            _ => None,
                        };
                        if let (Some(sig), Some(a)) = (sig, job.allocs.first()) {
                            let ctld = self.ctld.clone();
                            let node = a.node.clone();
                            tokio::spawn(async move {
                                ctld.signal_job(jid, &node, sig, false, false, StopReason::Unspecified).await;
                            });
                        }
                        if matches!(op, JobControl::Requeue { .. }) && was_active {
                            if let Some(a) = job.allocs.first() {
                                let ctld = self.ctld.clone();
                                let node = a.node.clone();
                                tokio::spawn(async move {
                                    ctld.signal_job(jid, &node, libc::SIGKILL, false, true, StopReason::Unspecified)
                                        .await;
                                });
                            }
                        }
                        // a requeued job, like a released one, keeps reason None
                        // until slurmctld's next pass (recorded/24.11/scontrol/146,
                        // 194: BeginTime only later); one that was running goes
                        // through COMPLETING on Slurm, whose end is such a pass
                        // (scontrol_surface/203: a requeued task shows BeginTime)
                        let quiet = match op {
                            JobControl::Release => true,
                            JobControl::Requeue { .. } => !was_active,
                            _ => false,
                        };
                        if quiet {
                            let subs = self.ctld.submissions.load(std::sync::atomic::Ordering::SeqCst);
                            self.ctld
                                .released
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .insert(jid, (std::time::Instant::now(), subs));
                            let ctld = self.ctld.clone();
                            tokio::spawn(async move {
                                tokio::time::sleep(crate::ctld::RELEASE_QUIET + std::time::Duration::from_millis(20))
                                    .await;
                                ctld.sched_wake.notify_one();
                            });
                        }
                        results.push(CancelResult { job_id: s.clone(), status: st(0) })
                    }
                    Some(Err(code)) => results.push(CancelResult { job_id: s.clone(), status: st(code) }),
                    None => {}
                }
            }
        }
        self.ctld.sched_wake.notify_one();
        Ok(Response::new(JobControlReply { status: st(0), results }))
    }

    async fn node_control_as(&self, id: Identity, req: Request<NodeControlRequest>) -> R<NodeControlReply> {
        let action = match &req.get_ref().op {
            Some(node_control_request::Op::Partition(_)) => Action::UpdatePartition,
            _ => Action::UpdateNode,
        };
        if let Err(code) = validate::authorize(&self.caller(&id), action, None) {
            return Ok(Response::new(NodeControlReply { status: st(code) }));
        }
        let r = match convert::node_control(req.into_inner()) {
            Ok(convert::NodeControl::Node(n)) => n,
            Ok(convert::NodeControl::Partition(p)) => {
                return Ok(Response::new(NodeControlReply { status: st(self.update_partition(&p).await?) }));
            }
            Err(code) => return Ok(Response::new(NodeControlReply { status: st(code) })),
        };
        let t = now();
        let active = self.ctld.read().state.write_format_version();
        let updates = match validate::node_update(&r, &self.ctld.conf.gres_types, active >= 3, t) {
            Ok(x) => x,
            Err(code) => return Ok(Response::new(NodeControlReply { status: st(code) })),
        };
        // a change the cluster's format version cannot carry yet: refused,
        // not logged without it (as a job update)
        if let Some(v) = updates.iter().map(|(_, u)| u.min_format_version()).max().filter(|v| *v > active) {
            tracing::warn!("node update refused: it needs format version {}, the cluster writes {}", v, active);
            return Ok(Response::new(NodeControlReply { status: st(ESLURM_NOT_SUPPORTED) }));
        }
        let reg_again = matches!(r.state, Some(rq::NodeStateChange::Resume | rq::NodeStateChange::Undrain));
        // slurmctld's _valid_node_state_change: RESUME only for a node that is
        // DOWN, FUTURE, drained or failed (else `Invalid node state
        // specified`, the other nodes resumed all the same)
        let mut refused = 0;
        let updates: Vec<_> = if r.state == Some(rq::NodeStateChange::Resume) {
            let g = self.ctld.read();
            updates
                .into_iter()
                .filter(|(name, _)| {
                    let ok = g.state.node(name).is_none_or(|n| {
                        matches!(n.base, NodeBase::Down | NodeBase::Future)
                            || n.flags.drain
                            || n.flags.fail
                            || n.flags.reboot_requested
                    });
                    if !ok {
                        refused = ESLURM_INVALID_NODE_STATE;
                    }
                    ok
                })
                .collect()
        } else {
            updates
        };
        let names: Vec<String> = updates.iter().map(|(n, _)| n.clone()).collect();
        let cmds: Vec<_> = updates
            .into_iter()
            .map(|(name, update)| spur_state::Command::NodeUpdate { name, update, uid: id.uid, now: t })
            .collect();
        let results = if cmds.is_empty() { vec![] } else { self.ctld.commit(cmds).await? };
        for res in results {
            if let Err(code) = res {
                return Ok(Response::new(NodeControlReply { status: st(code) }));
            }
        }
        if refused != 0 {
            return Ok(Response::new(NodeControlReply { status: st(refused) }));
        }
        if r.node_addr.is_some() {
            // a new address: the next call connects there (slurm_reset_alias)
            let mut agents = self.ctld.agents.lock().unwrap_or_else(|e| e.into_inner());
            for name in &names {
                agents.remove(name);
            }
        }
        if reg_again {
            // slurmctld pings such nodes on its next background pass; an answer
            // clears NOT_RESPONDING (liveness is soft state, like a heartbeat)
            for name in names {
                let ctld = self.ctld.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(std::time::Duration::from_millis(1800)).await;
                    if ctld.ping_agent(&name).await {
                        let mut g = ctld.lock();
                        if let Some(n) = g.state.node(&name) {
                            if n.flags.not_responding {
                                let (cpu_load, free_mem) = (n.cpu_load, n.free_mem);
                                g.state.heard_from(&name, cpu_load, free_mem, now());
                            }
                        }
                        drop(g);
                        ctld.sched_wake.notify_one();
                    }
                });
            }
        }
        self.ctld.sched_wake.notify_one();
        Ok(Response::new(NodeControlReply { status: st(0) }))
    }

    async fn register_as(&self, id: Identity, req: Request<RegisterRequest>) -> R<RegisterReply> {
        self.authorize_rpc(&id, Action::Register)?;
        let r = req.into_inner();
        if !r.heartbeat {
            // a (re)started agent, perhaps of another build: ask its format versions again
            crate::formats::forget_agent(&r.node);
        }
        let t = now();
        let mut kill_jobs = vec![];
        let mut register = None;
        {
            let mut g = self.ctld.lock();
            if g.state.node(&r.node).is_none() {
                return Ok(Response::new(RegisterReply { status: st(ESLURM_INVALID_NODE_NAME), kill_jobs }));
            }
            for jid in &r.running_jobs {
                let alive = g.state.jobs().get(jid).map(|j| j.state.is_active()).unwrap_or(false);
                if !alive {
                    kill_jobs.push(*jid);
                }
            }
            let needs_log = {
                let n = g.state.node(&r.node).unwrap();
                !r.heartbeat
                    || n.base == NodeBase::Unknown
                    || n.flags.not_responding
                    || (n.base == NodeBase::Down && n.reason.as_deref() == Some("Not responding"))
            };
            if needs_log {
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
                register = Some(Command::NodeRegistered { name: r.node.clone(), reg, now: t });
            } else {
                // liveness is soft state: not logged, refreshed by every heartbeat
                g.state.heard_from(&r.node, r.cpu_load, r.free_mem, t);
            }
        }
        if let Some(cmd) = register {
            self.ctld.commit(vec![cmd]).await?;
        }
        self.ctld.sched_wake.notify_one();
        Ok(Response::new(RegisterReply { status: st(0), kill_jobs }))
    }

    async fn job_complete_as(&self, id: Identity, req: Request<JobCompleteRequest>) -> R<JobCompleteReply> {
        self.authorize_rpc(&id, Action::CompleteJob)?;
        let r = req.into_inner();
        if let Some(run) = r.restarts {
            let stale = self.ctld.read().state.jobs().get(&r.job_id).map(|j| j.restart_count != run).unwrap_or(false);
            if stale {
                // the report of a run that a requeue replaced: acknowledged, ignored
                return Ok(Response::new(JobCompleteReply { status: st(0) }));
            }
        }
        let mut cmds = Vec::with_capacity(2);
        // what the script used goes into the job's record (its batch step),
        // once the cluster writes it; only an agent reports it
        if let Some(u) = r.usage.as_ref().filter(|_| id.kind == spur_auth::Kind::Agent) {
            if self.ctld.read().state.write_format_version() >= spur_state::STEP_USAGE_VERSION {
                let usage = Box::new(spur_proto::convert::node_usage(&r.node, u));
                cmds.push(Command::StepUsage { job_id: r.job_id, step_id: spur_core::model::BATCH_STEP, usage });
            }
        }
        cmds.push(Command::Complete {
            job_id: r.job_id,
            exit_status: r.exit_status,
            launch_failed: r.launch_failed,
            now: now(),
        });
        let res = self.ctld.commit(cmds).await?;
        self.ctld.sched_wake.notify_one();
        let code = match res.into_iter().last() {
            Some(Err(c)) if c != ESLURM_INVALID_JOB_ID => c,
            _ => 0,
        };
        Ok(Response::new(JobCompleteReply { status: st(code) }))
    }

    async fn reservation_as(&self, id: Identity, req: Request<ReservationRequest>) -> R<ReservationReply> {
        let refused = |code| Ok(Response::new(ReservationReply { status: st(code), name: String::new() }));
        let caller = self.caller(&id);
        let action = match &req.get_ref().op {
            Some(reservation_request::Op::Delete(name)) => {
                // a user the reservation admits may delete it when it has the
                // USER_DELETE flag or SlurmctldParameters=user_resv_delete
                // (validate_resv_uid); names are looked up outside the lock
                let me = spur_auth::users::user_name(id.uid);
                let anyone = self.ctld.conf.user_resv_delete();
                let g = self.ctld.read();
                let user_delete = g.state.reservations().iter().find(|r| r.name == *name).is_some_and(|r| {
                    (anyone || r.flags.iter().any(|f| f == "USER_DELETE"))
                        && me.as_deref().is_some_and(|me| validate::resv_admits(&r.users, me))
                });
                Action::DeleteReservation { user_delete }
            }
            Some(reservation_request::Op::Update(_)) => Action::UpdateReservation,
            _ => Action::CreateReservation,
        };
        if let Err(code) = validate::authorize(&caller, action, None) {
            return refused(code);
        }
        let r = match rq::ReservationRequest::try_from(req.into_inner()) {
            Ok(r) => r,
            Err(code) => return refused(code),
        };
        // the reply names the reservation (slurmctld's generated name when none was given)
        let mut name = match &r {
            rq::ReservationRequest::Create(s) | rq::ReservationRequest::Update(s) => s.name.clone(),
            rq::ReservationRequest::Delete { name } => name.clone(),
        };
        // no name-service lookups under the state lock
        let unknown = crate::resv::UnknownUsers::of(&r);
        let planned = {
            let g = self.ctld.read();
            // a record the cluster's format version cannot write whole: refused
            let active = g.state.write_format_version();
            crate::resv::plan(&g.state, &r, &unknown, now()).and_then(|cmd| match &cmd {
                Command::ResvCreate { resv } | Command::ResvUpdate { resv } if resv.min_format_version() > active => {
                    Err(ESLURM_NOT_SUPPORTED)
                }
                _ => Ok(cmd),
            })
        };
        let code = match planned {
            Ok(cmd) => {
                if let Command::ResvCreate { resv } = &cmd {
                    name = resv.name.clone();
                }
                match self.ctld.commit(vec![cmd]).await?.into_iter().next() {
                    Some(Err(code)) => code,
                    _ => 0,
                }
            }
            Err(code) => code,
        };
        self.ctld.sched_wake.notify_one();
        Ok(Response::new(ReservationReply { status: st(code), name }))
    }

    async fn membership_as(&self, id: Identity, req: Request<MembershipRequest>) -> R<MembershipReply> {
        let fail = |code: i32, msg: String| {
            Ok(Response::new(MembershipReply { status: Some(Status { code, message: msg }), ..Default::default() }))
        };
        let op = match rq::MembershipChange::try_from(req.into_inner()) {
            Ok(op) => op,
            Err(code) => return fail(code, strerror(code)),
        };
        let action = match op {
            rq::MembershipChange::List => Action::ListControllers,
            _ => Action::ChangeControllers,
        };
        self.authorize_rpc(&id, action)?;
        let raft = &self.ctld.raft;
        match op {
            rq::MembershipChange::List => {}
            rq::MembershipChange::Add { id: new_id, addr } => {
                let r = AddController { id: new_id, addr };
                if r.id == 0 || r.addr.is_empty() {
                    return fail(ESLURM_INVALID_NODE_NAME, "add needs an id and an address".into());
                }
                // it must read and write the cluster's format version (and no
                // version raise may slip in between this check and its addition)
                let _no_version_change = crate::formats::CHANGE.lock().await;
                if let Err(msg) = crate::formats::check_new_member(&self.ctld, r.id, &r.addr).await {
                    return fail(SLURM_ERROR_ANY, msg);
                }
                let node = openraft::BasicNode { addr: r.addr.clone() };
                let voters_now: std::collections::BTreeSet<u64> =
                    self.ctld.raft.metrics().borrow().membership_config.membership().voter_ids().collect();
                if voters_now.contains(&r.id) {
                    return fail(ESLURM_INVALID_NODE_NAME, format!("controller {} is already a member", r.id));
                }
                if let Err(e) = raft.add_learner(r.id, node, false).await {
                    return fail(SLURM_ERROR_ANY, format!("cannot add controller {}: {}", r.id, e));
                }
                // it must have caught up before it gets a vote; one that does
                // not answer is dropped again rather than left half-added
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(8);
                loop {
                    let caught_up = {
                        let m = self.ctld.raft.metrics();
                        let m = m.borrow();
                        let last = m.last_log_index.unwrap_or(0);
                        m.replication
                            .as_ref()
                            .and_then(|r2| r2.get(&r.id).cloned().flatten())
                            .map(|l| l.index + 1 >= last)
                            .unwrap_or(false)
                    };
                    if caught_up {
                        break;
                    }
                    if std::time::Instant::now() > deadline {
                        let _ = raft.change_membership(voters_now.clone(), false).await;
                        return fail(
                            SLURM_ERROR_ANY,
                            format!(
                                "controller {} at {} did not catch up (is it running, started with --join?)",
                                r.id, r.addr
                            ),
                        );
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                let mut voters = voters_now;
                voters.insert(r.id);
                if let Err(e) = raft.change_membership(voters, false).await {
                    return fail(SLURM_ERROR_ANY, format!("cannot make controller {} a voter: {}", r.id, e));
                }
            }
            rq::MembershipChange::Remove { id: gone } => {
                let r = AddController { id: gone, addr: String::new() };
                let mut voters: std::collections::BTreeSet<u64> =
                    self.ctld.raft.metrics().borrow().membership_config.membership().voter_ids().collect();
                if !voters.remove(&r.id) {
                    return fail(ESLURM_INVALID_NODE_NAME, format!("controller {} is not a member", r.id));
                }
                if voters.is_empty() {
                    return fail(SLURM_ERROR_ANY, "cannot remove the last controller".into());
                }
                if let Err(e) = raft.change_membership(voters, false).await {
                    return fail(SLURM_ERROR_ANY, format!("cannot remove controller {}: {}", r.id, e));
                }
            }
        }
        let m = self.ctld.raft.metrics().borrow().clone();
        let mem = m.membership_config.membership();
        let voters: std::collections::BTreeSet<u64> = mem.voter_ids().collect();
        let members = mem
            .nodes()
            .map(|(id, n)| ControllerInfo {
                id: *id,
                addr: n.addr.clone(),
                voter: voters.contains(id),
                leader: m.current_leader == Some(*id),
            })
            .collect();
        Ok(Response::new(MembershipReply { status: st(0), members, term: m.current_term }))
    }
}

#[tonic::async_trait]
impl Controller for Service {
    async fn submit(&self, req: Request<SubmitRequest>) -> R<SubmitReply> {
        let mut audit = Audit::begin(&req);
        let id = audit.identity(self.who(&req))?;
        audit.finish(self.submit_as(id, req).await)
    }

    async fn query(&self, req: Request<QueryRequest>) -> R<QueryReply> {
        let id = self.who(&req)?;
        let q = req.into_inner();
        let caller = self.caller(&id);
        let private = self.ctld.conf.private_data();
        // reservations the caller may use (PrivateData=reservations): looked
        // up by name outside the state lock
        let name = if private.reservations { spur_auth::users::user_name(id.uid) } else { None };
        // the view at the newest format version the caller reads
        let version = spur_format::version_for(q.max_format_version);
        let t = now();
        // the jobs named, resolved a batch at a time (their number is the caller's)
        let named = (q.jobs && !q.job_ids.is_empty()).then(|| resolve_refs(&self.ctld, &q.job_ids));
        // read only: the answer is serialised from the state in place
        let g = self.ctld.read();
        let ids: Vec<u32> = if !q.jobs {
            vec![]
        } else if let Some(named) = named {
            // in the job list's order, as slurmctld packs them (a job purged
            // since it was named is left out)
            g.state.jobs_in_order().filter(|j| named.contains(&j.job_id)).map(|j| j.job_id).collect()
        } else if q.all_finished {
            // Finished jobs only when asked for (squeue -t all, scontrol show job).
            g.state.jobs_in_order().map(|j| j.job_id).collect()
        } else {
            g.state.queue_in_order()
        };
        // `scontrol write batch_script ID` asks for one job's script
        // (slurmctld's REQUEST_BATCH_SCRIPT names one job): only the records
        // whose ids the request names get theirs, not every record of the
        // array an id heads (each a copy of the same script)
        let asked: std::collections::HashSet<u32> = if q.with_script {
            q.job_ids.iter().filter_map(|s| s.trim().parse().ok()).collect()
        } else {
            Default::default()
        };
        if q.with_script {
            // `scontrol write batch_script`: the owner's (or an operator's)
            // scripts only, hidden or not (slurmctld checks the owner alone)
            for i in &ids {
                if let Some(j) = g.state.jobs().get(i) {
                    if let Err(code) = validate::authorize(&caller, Action::ReadScript, Some(j.user_id)) {
                        return Ok(Response::new(QueryReply {
                            status: st(code),
                            view: vec![],
                            plans: vec![],
                            fair_share: vec![],
                        }));
                    }
                }
            }
        }
        let bytes = {
            let s = &g.state;
            let out = spur_state::view::ViewOut {
                cluster_name: s.cluster_name(),
                now: t,
                // without their environment, and without their script unless
                // asked; with PrivateData=jobs, the caller's own only
                jobs: ids
                    .iter()
                    .filter_map(|i| s.jobs().get(i))
                    // squeue -u USER: that user's jobs only (slurm_load_job_user)
                    .filter(|job| q.user_id.is_none_or(|u| job.user_id == u))
                    .filter(|job| sees_job(&caller, private.jobs, job))
                    .map(|job| Lean { job, script: asked.contains(&job.job_id) })
                    .collect(),
                // with the RESERVED/MAINT flags of the active reservations
                nodes: if q.nodes { s.nodes_with_resv_flags(t).into() } else { Cow::Borrowed(&[]) },
                partitions: if q.partitions || q.nodes { s.partitions() } else { &[] },
                reservations: s
                    .reservations()
                    .iter()
                    .filter(|r| {
                        let listed = name.as_deref().is_some_and(|n| validate::resv_admits(&r.users, n));
                        let see = Action::SeeReservation { private: private.reservations, listed };
                        validate::authorize(&caller, see, None).is_ok()
                    })
                    .collect(),
                // (none without accounting: no QOS records to show)
                qos: if self.ctld.qos.is_some() { s.qos() } else { Cow::Borrowed(&[]) },
                assocs: self.ctld.qos.is_some().then(|| s.assocs()),
            };
            out.encode(version)
        };
        // the backfill scheduler's plans for the jobs in the view (its soft
        // state, taken after the state's lock: the scheduler takes them in
        // that order)
        let shown: Vec<(u32, bool, bool)> = if q.jobs {
            ids.iter()
                .filter_map(|i| g.state.jobs().get(i))
                .filter(|job| q.user_id.is_none_or(|u| job.user_id == u))
                .filter(|job| sees_job(&caller, private.jobs, job))
                .map(|j| (j.job_id, j.state == JobState::Pending, j.sched_backfill))
                .collect()
        } else {
            vec![]
        };
        drop(g);
        let plans = {
            let p = self.ctld.plans.lock().unwrap_or_else(|e| e.into_inner());
            shown
                .into_iter()
                .filter_map(|(id, pending, recorded)| {
                    let at = if pending { p.at.get(&id) } else { None };
                    // (recorded in the job from format version 8; before,
                    // the leader's memory only)
                    let backfill = !pending && (recorded || p.backfilled.contains(&id));
                    let considered_at = if pending && p.considered.contains(&id) { p.considered_at } else { 0 };
                    (at.is_some() || backfill || considered_at != 0).then(|| spur_proto::JobPlan {
                        job_id: id,
                        start_time: at.map(|a| a.0).unwrap_or(0),
                        sched_nodes: at.map(|a| spur_grammar::hostlist::compress(&a.1)).unwrap_or_default(),
                        backfill,
                        considered_at,
                    })
                })
                .collect()
        };
        let bytes = bytes.map_err(|e| tonic::Status::internal(e.to_string()))?;
        let fair_share = if q.with_fair_share {
            let g = self.ctld.read();
            let f = self.ctld.fair_share(&g.state, now());
            f.map(|f| {
                f.iter()
                    .map(|((user, account), factor)| spur_proto::FairShare {
                        user: user.clone(),
                        account: account.clone(),
                        factor: *factor,
                    })
                    .collect()
            })
            .unwrap_or_default()
        } else {
            vec![]
        };
        Ok(Response::new(QueryReply { status: st(0), view: bytes, plans, fair_share }))
    }

    async fn cancel(&self, req: Request<CancelRequest>) -> R<CancelReply> {
        let mut audit = Audit::begin(&req);
        let id = audit.identity(self.who(&req))?;
        audit.finish(self.cancel_as(id, req).await)
    }

    async fn job_control(&self, req: Request<JobControlRequest>) -> R<JobControlReply> {
        let mut audit = Audit::begin(&req);
        let id = audit.identity(self.who(&req))?;
        audit.finish(self.job_control_as(id, req).await)
    }

    async fn node_control(&self, req: Request<NodeControlRequest>) -> R<NodeControlReply> {
        let mut audit = Audit::begin(&req);
        let id = audit.identity(self.who(&req))?;
        audit.finish(self.node_control_as(id, req).await)
    }

    async fn register(&self, req: Request<RegisterRequest>) -> R<RegisterReply> {
        let mut audit = Audit::begin(&req);
        let id = audit.identity(self.who(&req))?;
        audit.finish(self.register_as(id, req).await)
    }

    async fn job_complete(&self, req: Request<JobCompleteRequest>) -> R<JobCompleteReply> {
        let mut audit = Audit::begin(&req);
        let id = audit.identity(self.who(&req))?;
        audit.finish(self.job_complete_as(id, req).await)
    }

    async fn ping(&self, req: Request<PingRequest>) -> R<PingReply> {
        // any member answers a ping, leader or not
        spur_auth::grpc::identity(&req)?;
        let m = self.ctld.raft.metrics().borrow().clone();
        let role = match m.state {
            openraft::ServerState::Leader => "leader",
            openraft::ServerState::Follower => "follower",
            openraft::ServerState::Candidate => "candidate",
            _ => "learner",
        };
        let leader_id = m.current_leader.unwrap_or(0);
        let leader_addr = m
            .current_leader
            .and_then(|l| m.membership_config.membership().get_node(&l).map(|n| n.addr.clone()))
            .unwrap_or_default();
        Ok(Response::new(PingReply {
            status: st(0),
            host: self.ctld.host.clone(),
            role: role.into(),
            id: self.ctld.me,
            leader_id,
            leader_addr,
            min_format_version: spur_format::MIN_VERSION as u32,
            max_format_version: spur_format::FORMAT_VERSION as u32,
            log_length: m.last_log_index.map_or(0, |i| i + 1),
        }))
    }

    async fn reservation(&self, req: Request<ReservationRequest>) -> R<ReservationReply> {
        let mut audit = Audit::begin(&req);
        let id = audit.identity(self.who(&req))?;
        audit.finish(self.reservation_as(id, req).await)
    }

    async fn step_create(&self, req: Request<StepCreateRequest>) -> R<StepCreateReply> {
        let mut audit = Audit::begin(&req);
        let id = audit.identity(self.who(&req))?;
        audit.finish(self.step_create_as(id, req).await)
    }

    async fn step_complete(&self, req: Request<StepCompleteRequest>) -> R<StepCompleteReply> {
        let mut audit = Audit::begin(&req);
        let id = audit.identity(self.who(&req))?;
        audit.finish(self.step_complete_as(id, req).await)
    }

    async fn membership(&self, req: Request<MembershipRequest>) -> R<MembershipReply> {
        let mut audit = Audit::begin(&req);
        let id = audit.identity(self.who(&req))?;
        audit.finish(self.membership_as(id, req).await)
    }

    async fn accounting(&self, req: Request<AccountingRequest>) -> R<AccountingReply> {
        let id = self.who(&req)?;
        self.accounting_as(id, req).await
    }

    async fn step_stat(&self, req: Request<StepStatRequest>) -> R<StepStatReply> {
        let id = self.who(&req)?;
        self.step_stat_as(id, req).await
    }

    async fn qos(&self, req: Request<QosRequest>) -> R<QosReply> {
        self.qos_rpc(req).await
    }
    async fn assoc(&self, req: Request<AssocRequest>) -> R<AssocReply> {
        self.assoc_rpc(req).await
    }
    async fn reconfigure(&self, req: Request<ReconfigureRequest>) -> R<ReconfigureReply> {
        self.reconfigure_rpc(req).await
    }
}

mod acct;
mod assoc;
mod qos;
mod reconfigure;
#[cfg(test)]
mod rpc_tests;
mod steps;

/// The memory per CPU a job gets without `--mem*`: its partition's
/// `DefMemPerCPU`, else slurm.conf's (a partition's `DefMemPerNode` gives
/// none per CPU).
fn def_mem_per_cpu(conf: &spur_core::config::SlurmConf, part: Option<&spur_core::model::Partition>) -> Option<u64> {
    match part.map(|p| p.more.def_mem).filter(|m| m.mb > 0) {
        Some(m) if m.per_cpu => Some(m.mb),
        Some(_) => None,
        None => conf.def_mem_per_cpu,
    }
}
