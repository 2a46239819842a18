//! What the controller decides about a typed request before anything is
//! committed: who may do it and whether its values are acceptable, with
//! Slurm's error numbers. Pure functions of the request, the caller and the
//! records involved (no locks, no I/O), so each rule is tested here.
//!
//! The requests arrive parsed (spur_core::request): scontrol's `key=value`
//! grammar lives in spur-cli-control. What stays here is what slurmctld checks:
//! permission, fields only a pending job may change, limits, names that must
//! exist.

use spur_core::errors::*;
use spur_core::model::{Job, JobDesc, JobState, Minutes, Reason};
use spur_core::request::{self as rq, JobControl, INFINITE};

/// Who is asking: a uid and the privileges slurmctld would grant it. Today
/// root and SlurmUser hold all three and everyone else none; the
/// accounting `AdminLevel` (Operator, Administrator) will grant the first
/// two without the third, as in slurmctld.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caller {
    pub uid: u32,
    /// slurmctld's validate_operator: root, SlurmUser, AdminLevel Operator or more.
    pub operator: bool,
    /// validate_super_user: root, SlurmUser, AdminLevel Administrator.
    pub super_user: bool,
    /// validate_slurm_user: root or SlurmUser only (the daemons' identity).
    pub slurm_user: bool,
}

impl Caller {
    /// A caller that is root or SlurmUser (`privileged`) or an ordinary user.
    pub fn new(uid: u32, privileged: bool) -> Caller {
        Caller { uid, operator: privileged, super_user: privileged, slurm_user: privileged }
    }
}

/// Everything a request may do that not everyone may: one variant per row
/// of the authorisation matrix in SECURITY.md, decided by [`authorize`]
/// alone. The fields are what the decision needs beyond the caller and the
/// owner of the record acted on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Submit a job (it is the caller's: the owner comes from the credential).
    Submit,
    /// Submit with a negative `--nice` (a higher priority).
    SubmitNegativeNice,
    /// Run in a partition whose `AllowGroups` the owner is (not) in.
    UsePartition { in_allowed_groups: bool },
    /// Run in a reservation whose `Users` the owner is (not) in.
    UseReservation { listed: bool },
    /// See a job in squeue / scontrol show job (`PrivateData=jobs`).
    SeeJob { private: bool },
    /// See a reservation (`PrivateData=reservations`).
    SeeReservation { private: bool, listed: bool },
    /// Read a job's batch script (`scontrol write batch_script`).
    ReadScript,
    /// scancel: cancel a job.
    Cancel,
    /// scancel -s: signal a job.
    Signal,
    /// scontrol hold / uhold.
    Hold,
    /// scontrol release.
    Release,
    /// Release (or replace with a user's hold) an operator's hold.
    ReleaseAdminHold,
    /// scontrol requeue / requeuehold.
    Requeue,
    /// scontrol suspend / resume.
    Suspend,
    /// scontrol top (`user_top`: SchedulerParameters=enable_user_top).
    Top { user_top: bool },
    /// scontrol update JobId=...
    UpdateJob,
    /// ... raising its time limit.
    RaiseTimeLimit,
    /// ... setting its priority.
    SetPriority,
    /// ... setting a negative nice other than the one it has.
    SetNegativeNice,
    /// ... changing what only an operator changes: its sharing, its
    /// tasks per node, its deadline, its site factor, or asking for
    /// contiguous nodes.
    SetJobLayout,
    /// ... setting its admin comment or a reboot before it starts.
    SetAdminJobField,
    /// scontrol update NodeName=...
    UpdateNode,
    /// scontrol update PartitionName=...
    UpdatePartition,
    /// scontrol create reservation.
    CreateReservation,
    /// scontrol update ReservationName=...
    UpdateReservation,
    /// scontrol delete ReservationName=... (`user_delete`: the reservation
    /// admits the caller and has the `USER_DELETE` flag or
    /// SlurmctldParameters=user_resv_delete is set).
    DeleteReservation { user_delete: bool },
    /// An agent's registration or heartbeat.
    Register,
    /// An agent's report that a job ended.
    CompleteJob,
    /// spur controller list.
    ListControllers,
    /// spur controller add / remove.
    ChangeControllers,
    /// srun: create a step in a job (and end it, or end the allocation).
    CreateStep,
    /// sacctmgr add|modify|delete qos.
    ManageQos,
    /// sacctmgr add|modify|delete account|user.
    ManageAccounts,
    /// scontrol reconfigure.
    Reconfigure,
}

/// The authorisation matrix (SECURITY.md, "Authorisation"): whether `c`
/// may do `action` to a record owned by `owner` (a job's user; `None` when
/// no record is involved), or the Slurm error number slurmctld answers.
/// Every permission decision of the controller's RPCs is made here.
pub fn authorize(c: &Caller, action: Action, owner: Option<u32>) -> Result<(), i32> {
    use Action::*;
    let own = owner == Some(c.uid) || c.operator;
    let (allowed, refusal) = match action {
        Submit | ListControllers => (true, 0),
        // job_mgr.c: before the job_submit plugins
        SubmitNegativeNice => (c.operator, ESLURM_INVALID_NICE),
        // part_mgr.c validate_group, reservation.c _valid_job_access_resv:
        // root and SlurmUser pass
        UsePartition { in_allowed_groups } => {
            (in_allowed_groups || c.slurm_user, ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP)
        }
        UseReservation { listed } => (listed || c.slurm_user, ESLURM_RESERVATION_ACCESS),
        // a hidden job is not there: `Invalid job id specified`
        SeeJob { private } => (!private || own, ESLURM_INVALID_JOB_ID),
        SeeReservation { private, listed } => (!private || listed || c.operator, ESLURM_RESERVATION_INVALID),
        // _slurm_rpc_dump_batch_script
        ReadScript => (own, ESLURM_USER_ID_MISSING),
        // job_signal: `Kill job error on job id N: Access/permission denied`
        Cancel | Signal => (own, ESLURM_ACCESS_DENIED),
        // update_job: `Invalid user id for job N`
        Hold | Release | UpdateJob => (own, ESLURM_USER_ID_MISSING),
        ReleaseAdminHold => (c.operator, ESLURM_ACCESS_DENIED),
        // job_requeue: `Access/permission denied for job N`
        Requeue => (own, ESLURM_ACCESS_DENIED),
        // job_suspend: operators only, their own jobs included
        Suspend => (c.operator, ESLURM_ACCESS_DENIED),
        // job_set_top: operators, or owners with enable_user_top
        Top { user_top } => (c.operator || (user_top && own), ESLURM_ACCESS_DENIED),
        RaiseTimeLimit | SetPriority | SetNegativeNice | SetJobLayout => (c.operator, ESLURM_ACCESS_DENIED),
        // validate_super_user
        SetAdminJobField => (c.super_user, ESLURM_ACCESS_DENIED),
        // validate_super_user: `slurm_update error: Invalid user id`
        // (_slurm_rpc_reconfigure_controller: `slurm_reconfigure error: Invalid user id`)
        UpdateNode | UpdatePartition | Reconfigure => (c.super_user, ESLURM_USER_ID_MISSING),
        // validate_operator, or validate_resv_uid for a delete
        CreateReservation | UpdateReservation => (c.operator, ESLURM_USER_ID_MISSING),
        DeleteReservation { user_delete } => (c.operator || user_delete, ESLURM_USER_ID_MISSING),
        // validate_slurm_user: the daemons' identity, never an AdminLevel
        Register | CompleteJob => (c.slurm_user, ESLURM_ACCESS_DENIED),
        // step_mgr.c: the job's owner, or SlurmUser / root
        CreateStep => (owner == Some(c.uid) || c.slurm_user, ESLURM_ACCESS_DENIED),
        // changing who holds the replicated log: administrators
        ChangeControllers => (c.super_user, ESLURM_ACCESS_DENIED),
        // slurmdbd: AdminLevel=Administrator (root and SlurmUser; Spur
        // keeps no user records)
        ManageQos | ManageAccounts => (c.super_user, ESLURM_ACCESS_DENIED),
    };
    if allowed {
        Ok(())
    } else {
        Err(refusal)
    }
}

/// The permission to apply `op` to `job`, asked of [`authorize`] in
/// slurmctld's order (suspend and resume before the owner; then the owner;
/// then an operator's hold, which only an operator releases).
pub fn job_control_allowed(op: &JobControl, caller: &Caller, job: &Job, user_top: bool) -> Result<(), i32> {
    let owner = Some(job.user_id);
    match op {
        JobControl::Suspend | JobControl::Resume => authorize(caller, Action::Suspend, owner),
        JobControl::Requeue { .. } => authorize(caller, Action::Requeue, owner),
        JobControl::Top => authorize(caller, Action::Top { user_top }, owner),
        JobControl::Hold { .. } => authorize(caller, Action::Hold, owner),
        JobControl::Update(_) => authorize(caller, Action::UpdateJob, owner),
        JobControl::Release => {
            authorize(caller, Action::Release, owner)?;
            if job.held == Some(Reason::JobHeldAdmin) {
                authorize(caller, Action::ReleaseAdminHold, owner)?;
            }
            Ok(())
        }
    }
}

/// The hold `scontrol hold|uhold` by `caller` puts on `job` (after
/// [`job_control_allowed`]): an operator's `hold` is an operator's hold, any
/// other a user's, except that an operator's hold the caller may not
/// release stays one (slurmctld answers success and changes nothing: a user
/// cannot turn an operator's hold into their own and then release it).
pub fn hold_reason(caller: &Caller, user: bool, job: &Job) -> Reason {
    if job.held == Some(Reason::JobHeldAdmin) && authorize(caller, Action::ReleaseAdminHold, Some(job.user_id)).is_err()
    {
        return Reason::JobHeldAdmin;
    }
    if caller.operator && !user {
        Reason::JobHeldAdmin
    } else {
        Reason::JobHeldUser
    }
}

/// A submission's `--nice`: a negative one (a higher priority) only from an
/// operator; anyone else gets `Invalid nice value` as from slurmctld.
pub fn submit_nice(nice: Option<i32>, caller: &Caller) -> Result<(), i32> {
    match nice {
        Some(n) if n < 0 => authorize(caller, Action::SubmitNegativeNice, None),
        _ => Ok(()),
    }
}

/// Whether a reservation's `Users=` list admits `user` (a name). (Spur
/// keeps no `-name` exclusions: scontrol's names must be users.)
pub fn resv_admits(users: &[String], user: &str) -> bool {
    users.iter().any(|u| u == user)
}

/// A QOS by name, as its record spells it.
pub type QosLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// What [`job_update`] looks up in the cluster besides nodes.
pub struct Lookups<'a> {
    /// A feature some node has.
    pub feature_known: &'a dyn Fn(&str) -> bool,
    /// A GRES name some node has.
    pub gres_known: &'a dyn Fn(&str) -> bool,
    /// A reservation by name: `None` when there is none, else whether it
    /// lists the job's owner.
    pub reservation: &'a dyn Fn(&str) -> Option<bool>,
    /// The job's owner as a caller (a reservation must admit them).
    pub owner: Caller,
    /// With accounting: a QOS by name (case-insensitive), as its record
    /// spells it; `None` without accounting.
    pub qos: Option<QosLookup<'a>>,
}

/// The state machine's change for `scontrol update JobId=…` on `job`, or the
/// first refusal in slurmctld's order of checks: a user may only lower a time
/// limit, only an operator sets a priority, partition, task count, memory,
/// node lists, features and work directory only while pending, a running
/// job's node count cannot change, and fields Spur does not implement are
/// refused (`Requested operation is presently disabled`).
///
/// A new node list must name nodes of the cluster (`known`): slurmctld's
/// node_name2bitmap, `Invalid node name specified` otherwise; it is kept
/// without duplicates (see [`job_node_list`]).
pub fn job_update(
    u: &rq::JobUpdate,
    job: &Job,
    caller: &Caller,
    now: i64,
    known: &dyn Fn(&str) -> bool,
    part_max_time: Option<Minutes>,
    look: &Lookups,
) -> Result<spur_state::JobUpdate, i32> {
    let feature_known = look.feature_known;
    // the strings' bounds first (update_job's _test_job_desc_fields, as at
    // submission: see job_desc_fields)
    const PATH_MAX: usize = 4096;
    let long = |s: &Option<String>, max: usize| s.as_ref().is_some_and(|s| s.len() > max);
    if long(&u.name, 1024)
        || long(&u.partition, 1024)
        || long(&u.comment, 1024)
        || long(&u.features, 1024)
        || long(&u.dependency, 1024 * 128)
        || long(&u.work_dir, PATH_MAX)
        || long(&u.std_out, PATH_MAX)
        || long(&u.std_err, PATH_MAX)
        || long(&u.std_in, PATH_MAX)
        || long(&u.admin_comment, 1024)
        || long(&u.extra, 1024)
        || long(&u.prefer, 1024)
        || long(&u.reservation, 1024)
        || long(&u.account, 1024)
        || long(&u.qos, 1024)
        || long(&u.wckey, 1024)
        || long(&u.mail_user, 1024)
        || long(&u.gres, 1024)
        || long(&u.switches, 1024)
    {
        return Err(ESLURM_PATHNAME_TOO_LONG);
    }
    let pending = job.state == JobState::Pending;
    let pending_only = || if pending { Ok(()) } else { Err(ESLURM_JOB_NOT_PENDING) };
    let opt = |v: &str| if v.is_empty() { None } else { Some(v.to_string()) };
    let hostlist = |v: &str| {
        if v.is_empty() {
            return Ok(None);
        }
        let (names, list) = job_node_list(v)?;
        if names.iter().any(|n| !known(n)) {
            return Err(ESLURM_INVALID_NODE_NAME);
        }
        Ok(Some(list))
    };
    let mut out = spur_state::JobUpdate::default();
    // slurmctld's order (job_mgr.c _update_job): the admin comment before
    // anything; then the account, the QOS, the accrue time, the node
    // lists, the reservation, GRES, the CPU and node counts...
    if u.admin_comment.is_some() {
        authorize(caller, Action::SetAdminJobField, Some(job.user_id))?;
        out.admin_comment = u.admin_comment.clone();
    }
    if u.account.is_some() {
        pending_only()?;
        // no accounting: 24.11 finds no association for any account
        // (`Resource temporarily unavailable`, scontrol_surface/095);
        // 22.05 keeps the job's (none) and succeeds
        if !spur_core::compat::profile().usage_texts_22_05 {
            return Err(EAGAIN);
        }
    }
    // `QOS=`: without accounting there is no QOS to change to (the job's
    // stays, scontrol_surface/096); with it, a pending job's QOS changes to
    // one that exists (empty: back to the default; measured on 22.05,
    // crates/spur-sched/tests/qos.md B8)
    if let (Some(q), Some(find)) = (&u.qos, look.qos) {
        pending_only()?;
        // (an empty name asks for the association's default)
        out.qos = Some(if q.is_empty() { find("").unwrap_or_default() } else { find(q).ok_or(ESLURM_INVALID_QOS)? });
    }
    if u.reset_accrue_time {
        pending_only()?;
    }
    if let Some(r) = &u.reservation {
        let same = job.desc.reservation_name().unwrap_or("") == r.as_str();
        if !same {
            if !matches!(job.state, JobState::Pending | JobState::Running) {
                return Err(ESLURM_JOB_NOT_PENDING_NOR_RUNNING);
            }
            if !r.is_empty() {
                // the name first (scontrol_surface/094), then the owner's access
                match (look.reservation)(r) {
                    None => return Err(ESLURM_RESERVATION_INVALID),
                    Some(listed) => authorize(&look.owner, Action::UseReservation { listed }, None)?,
                }
            }
            if !pending {
                // (moving a running job into a reservation: not in Spur)
                return Err(ESLURM_NOT_SUPPORTED);
            }
            out.reservation = Some(r.clone());
        }
    }
    if let Some(g) = &u.gres {
        pending_only()?;
        // every GRES named must be configured (slurmctld's
        // gres_job_state_validate: scontrol_surface/120 on a cluster without)
        let names = g.split(',').filter(|x| !x.is_empty()).map(|x| {
            let x = x.strip_prefix("gres/").or_else(|| x.strip_prefix("gres:")).unwrap_or(x);
            x.split([':', '=']).next().unwrap_or(x)
        });
        if names.clone().any(|n| !(look.gres_known)(n)) || g.is_empty() {
            return Err(ESLURM_INVALID_GRES);
        }
        // (a change of a job's GRES: not in Spur)
        return Err(ESLURM_NOT_SUPPORTED);
    }
    if let Some(n) = u.num_cpus {
        pending_only()?;
        out.num_cpus = Some(n).filter(|n| *n != job.num_cpus);
    }
    if let Some(n) = u.min_cpus_node.filter(|n| *n != 0) {
        pending_only()?;
        out.min_cpus_node = Some(n);
        if u.num_cpus.is_none() {
            // the CPUs asked for: so many per node (job_mgr.c)
            let nodes = u.num_nodes.unwrap_or(job.num_nodes).max(1);
            let cpus = n.checked_mul(nodes).ok_or(ESLURM_INVALID_CPU_COUNT)?;
            out.num_cpus = Some(cpus).filter(|c| *c != job.num_cpus);
        }
    }
    if let Some(c) = u.cpus_per_task {
        pending_only()?;
        if c == 0 {
            return Err(ESLURM_INVALID_CPU_COUNT);
        }
        out.cpus_per_task = Some(c).filter(|c| Some(*c) != job.desc.cpus_per_task);
    }
    if let Some(t) = u.time_limit {
        let new = if t == INFINITE { None } else { Some(t) };
        // users may only lower their limit
        let raise = match (job.time_limit, new) {
            (Some(c), Some(n)) => n > c,
            (Some(_), None) => true,
            _ => false,
        };
        // a pending job's owner may set any limit up to its partition's
        // MaxTime (job_mgr.c; scontrol_surface/151), else only lower it
        let within = match (part_max_time, new) {
            (None, _) => true,
            (Some(m), Some(n)) => n <= m,
            (Some(_), None) => false,
        };
        if raise && !(pending && within) {
            authorize(caller, Action::RaiseTimeLimit, Some(job.user_id))?;
        }
        out.time_limit = Some(new);
    }
    if let Some(t) = u.time_min {
        out.time_min = Some(if t == INFINITE { 0 } else { t });
    }
    out.name = u.name.clone();
    if let Some(p) = &u.partition {
        // the partition it is in already: nothing to change (scontrol_surface/145)
        if *p != job.partition {
            pending_only()?;
            out.partition = Some(p.clone());
        }
    }
    if let Some(p) = u.priority {
        authorize(caller, Action::SetPriority, Some(job.user_id))?;
        out.priority = Some(p);
        // only an operator's priority stays (slurmctld's direct_set_prio);
        // 0 is a hold
        out.by_operator = caller.operator && p != 0;
    }
    if let Some(n) = u.nice {
        // only an operator lowers nice below 0 (job_mgr.c: privileged, or
        // the new nice not negative; otherwise "Attempt to modify nice")
        if n < 0 && job.desc.nice != Some(n) {
            authorize(caller, Action::SetNegativeNice, Some(job.user_id))?;
        }
        out.nice = Some(n);
    }
    out.comment = u.comment.clone();
    if let Some(n) = u.num_nodes {
        if !pending && n != job.num_nodes {
            return Err(ESLURM_NOT_SUPPORTED);
        }
        out.num_nodes = Some(n);
    }
    if let Some(n) = u.num_tasks {
        pending_only()?;
        out.num_tasks = Some(n);
        if n != job.num_tasks && !spur_core::compat::profile().node_count_min_only {
            // 24.11 recounts a pending job's size when its task count
            // changes: as many CPUs as tasks, and its node count becomes a
            // range of one (`NumNodes=1-1`, scontrol_surface/157; 22.05
            // changes neither)
            if out.num_nodes.is_none() {
                out.num_nodes = Some(job.num_nodes);
            }
            if u.num_cpus.is_none() && u.min_cpus_node.is_none() {
                out.num_cpus = Some(n);
            }
        }
    }
    if let Some(m) = u.mem_per_node {
        pending_only()?;
        out.mem_per_node = Some(m);
    }
    if let Some(m) = u.mem_per_cpu {
        pending_only()?;
        out.mem_per_cpu = Some(m);
    }
    if let Some(v) = &u.exc_nodes {
        pending_only()?;
        out.exc_nodes = Some(hostlist(v)?);
    }
    if let Some(v) = &u.req_nodes {
        pending_only()?;
        out.req_nodes = Some(hostlist(v)?);
    }
    if let Some(v) = &u.features {
        pending_only()?;
        // every feature named must be one some node has (slurmctld's
        // build_feature_list: `Invalid feature specification`, scontrol_surface/092)
        if !feature_expr_ok(v, feature_known) {
            return Err(ESLURM_INVALID_FEATURE);
        }
        out.features = Some(opt(v));
    }
    if let Some(v) = &u.work_dir {
        pending_only()?;
        out.work_dir = Some(v.clone());
    }
    out.requeue = u.requeue;
    out.std_out = u.std_out.clone();
    out.std_err = u.std_err.clone();
    out.std_in = u.std_in.clone();
    if let Some(t) = u.array_throttle {
        // slurmctld: "Update of ArrayTaskThrottle is only allowed on ArrayJobId"
        let meta = job.array.as_ref().is_some_and(|a| a.task_id.is_none() || a.array_job_id == job.job_id);
        if meta {
            out.array_throttle = Some(t);
        } else if !spur_core::compat::profile().usage_texts_22_05 {
            return Err(ESLURM_NOT_SUPPORTED);
        }
        // (22.05 accepts it for any job and changes nothing: scontrol_surface 195)
    }
    out.dependency = u.dependency.clone();
    out.begin_time = u.begin_time.map(|t| t.max(now));
    if let Some(sw) = &u.switches {
        // a count alone keeps the job's wait (slurmctld changes wait4switch
        // only when one is given): 0 for a job that asked for no switches
        // (`Switches=1@00:00:00`, scontrol_surface 141), none written
        // (the longest) for one that asked without a wait
        let acc = job.desc.accepted.as_ref();
        let asked = acc
            .and_then(|a| a.switches.as_deref())
            .filter(|s| spur_core::topology::job_switches(Some(s), None, 0).is_some());
        let wait: Option<String> = match asked {
            None => Some("0:00".into()),
            Some(s) => spur_core::topology::split_switches(s)
                .1
                .map(str::to_string)
                .or_else(|| acc.and_then(|a| a.switch_wait.clone())),
        };
        out.switches = Some(match wait {
            Some(w) if !sw.contains('@') => format!("{}@{}", sw, w),
            _ => sw.clone(),
        });
    }
    out.extra = u.extra.clone();
    if let Some(e) = u.end_time {
        // only a running job's end moves (slurmctld: "for now only reset the
        // time limit of running jobs"), its limit with it
        if job.state != JobState::Running {
            return Err(ESLURM_JOB_NOT_RUNNING);
        }
        if e < now {
            return Err(ESLURM_INVALID_TIME_VALUE);
        }
        if e > job.end_time {
            authorize(caller, Action::RaiseTimeLimit, Some(job.user_id))?;
        }
        let limit = i64::from(job.time_limit.unwrap_or(365 * 24 * 60)) + (e - job.end_time + 30) / 60;
        out.time_limit = Some(Some(limit.clamp(1, i64::from(INFINITE - 1)) as u32));
    }
    if let Some(d) = u.deadline {
        if job.state != JobState::Running {
            if d < now {
                return Err(ESLURM_INVALID_TIME_VALUE);
            }
            authorize(caller, Action::SetJobLayout, Some(job.user_id))?;
            out.deadline = Some(d);
        }
    }
    if u.delay_boot.is_some() {
        out.delay_boot = u.delay_boot;
    }
    if out.priority.is_some_and(|p| p != 0 && p != job.priority) && job.desc.nice.unwrap_or(0) != 0 {
        // an operator's priority puts the nice value back to 0 and a nice
        // given with it is ignored (scontrol_surface/088)
        out.reset_nice = true;
        out.nice = None;
    }
    if let Some(t) = u.tmp_disk {
        pending_only()?;
        out.tmp_disk = Some(t);
    }
    for (v, o) in [
        (u.sockets_per_node, &mut out.sockets_per_node),
        (u.cores_per_socket, &mut out.cores_per_socket),
        (u.threads_per_core, &mut out.threads_per_core),
    ] {
        if v.is_some() {
            pending_only()?;
            *o = v;
        }
    }
    if let Some(yes) = u.shared {
        pending_only()?;
        authorize(caller, Action::SetJobLayout, Some(job.user_id))?;
        out.shared = Some(yes);
    }
    if let Some(c) = u.contiguous {
        pending_only()?;
        // a user may only drop the requirement
        if c || !job.desc.contiguous() {
            authorize(caller, Action::SetJobLayout, Some(job.user_id))?;
        }
        out.contiguous = Some(c);
    }
    if let Some(p) = &u.prefer {
        if job.desc.accepted.as_ref().and_then(|a| a.prefer.as_deref()).unwrap_or("") != p.as_str() {
            pending_only()?;
            if !feature_expr_ok(p, feature_known) {
                return Err(ESLURM_INVALID_PREFER);
            }
            out.prefer = Some(p.clone());
        }
    }
    if let Some(w) = &u.wckey {
        if job.desc.accepted.as_ref().and_then(|a| a.wckey.as_deref()) != Some(w.as_str()) {
            pending_only()?;
            out.wckey = Some(w.clone());
        }
    }
    if let Some(n) = u.ntasks_per_node {
        pending_only()?;
        authorize(caller, Action::SetJobLayout, Some(job.user_id))?;
        out.ntasks_per_node = Some(n);
        if n > job.min_cpus_node() {
            // at least a CPU per task on each node
            out.min_cpus_node = Some(n);
        }
    }
    if let Some(r) = u.reboot {
        authorize(caller, Action::SetAdminJobField, Some(job.user_id))?;
        pending_only()?;
        out.reboot = Some(r);
    }
    out.mail_type = u.mail_type.clone();
    if let Some(m) = &u.mail_user {
        // an empty one: the job's owner
        out.mail_user = Some(if m.is_empty() { job.user_name.clone() } else { m.clone() });
    }
    if pending && u.num_tasks.is_none() && !spur_core::compat::profile().node_count_min_only {
        // 24.11 counts the tasks of a job asking for a fixed node count and
        // so many tasks per node anew when either changes (job_mgr.c
        // _figure_out_num_tasks), and asks for a CPU per task then
        // (scontrol_surface/141: NumNodes=1 with TasksPerNode=1 is one task)
        let min = out.num_nodes.unwrap_or(job.num_nodes);
        let max = match u.num_nodes {
            Some(n) => n,
            None => job.desc.max_nodes.filter(|m| *m != 0).unwrap_or(min),
        };
        let per_node = out.ntasks_per_node.or(job.desc.ntasks_per_node).filter(|n| *n != 0);
        if let Some(k) = per_node.filter(|_| min == max && (u.num_nodes.is_some() || u.ntasks_per_node.is_some())) {
            let tasks = min.checked_mul(k).ok_or(ESLURM_BAD_TASK_COUNT)?;
            if tasks != job.num_tasks {
                out.num_tasks = Some(tasks);
                if u.num_cpus.is_none() && u.min_cpus_node.is_none() {
                    out.num_cpus = Some(tasks);
                }
            }
        }
    }
    if u.site_factor.is_some() {
        // (no multifactor priority: nothing to apply it to)
        authorize(caller, Action::SetJobLayout, Some(job.user_id))?;
    }
    if !u.unsupported.is_empty() {
        // the job's size and placement fields change only while it is
        // pending (slurmctld checks that before the value:
        // scontrol_surface/146, MinCPUsNode of a running job)
        use rq::UnsupportedJobField as F;
        let sizing = [F::CpusPerTask, F::NumCpus, F::TasksPerNode, F::MinCpusNode, F::MinTmpDiskNode, F::Contiguous];
        if u.unsupported.iter().any(|f| sizing.contains(f)) {
            pending_only()?;
        }
        return Err(ESLURM_NOT_SUPPORTED);
    }
    Ok(out)
}

/// slurmctld's `_test_job_desc_fields` on a submission: no string of the
/// job description longer than its bound ("so a job cannot make slurmctld
/// hold huge strings"), else ESLURM_PATHNAME_TOO_LONG (`Pathname of a file,
/// directory or other parameter too long`). The script's bound is
/// SchedulerParameters' `max_script_size` (`max_script`, 4 MiB by default);
/// paths are PATH_MAX (4096); the array specification 4096; the dependency
/// 128 KiB; the other names 1024. Slurm bounds the environment only by its
/// message size (1 GiB; Spur's requests: 64 MiB), and so does Spur.
pub fn job_desc_fields(d: &spur_core::model::JobDesc, max_script: i64) -> Result<(), i32> {
    const PATH_MAX: usize = 4096;
    let long = |s: Option<&str>, max: usize| s.is_some_and(|s| s.len() > max);
    let too_long = d.script.len() as i64 > max_script
        || long(d.account.as_deref(), 1024)
        || long(Some(&d.alloc_node), 1024)
        || long(d.array.as_deref(), 1024 * 4)
        || long(d.comment.as_deref(), 1024)
        || long(d.dependency.as_deref(), 1024 * 128)
        || long(d.constraint.as_deref(), 1024)
        || long(d.mail_user.as_deref(), 1024)
        || long(Some(&d.name), 1024)
        || long(d.partition.as_deref(), 1024)
        || long(d.qos.as_deref(), 1024)
        || long(d.reservation.as_deref(), 1024)
        || long(d.std_err.as_deref(), PATH_MAX)
        || long(d.std_in.as_deref(), PATH_MAX)
        || long(d.std_out.as_deref(), PATH_MAX)
        || long(d.gres.as_deref(), 1024)
        || long(Some(&d.work_dir), PATH_MAX);
    if too_long {
        Err(ESLURM_PATHNAME_TOO_LONG)
    } else {
        Ok(())
    }
}

/// A job's feature expression (`--constraint`, `--prefer`) reads as the
/// release's slurmctld reads it ([`spur_grammar::feature::parse`]) and
/// every name in it is a feature of some node of the cluster (slurmctld's
/// `build_feature_list` and `_valid_feature_list`; recorded/24.11/
/// sbatch_surface/053-054, 101-102, 130: on a cluster without features,
/// every name is unknown; 22.05's answers in
/// crates/spur-sched/tests/constraints.md).
pub fn feature_expr_ok(expr: &str, known: &dyn Fn(&str) -> bool) -> bool {
    if expr.is_empty() {
        return true;
    }
    let v24 = spur_core::compat::release() != spur_core::compat::Release::V22_05;
    match spur_grammar::feature::parse(expr, v24) {
        Ok(c) => c.names().all(known),
        Err(_) => false,
    }
}

/// `--batch` features must be a subset of the job's `--constraint` features
/// (ESLURM_BATCH_CONSTRAINT; recorded/24.11/sbatch_surface/161).
pub fn batch_features_ok(batch: Option<&str>, constraint: Option<&str>) -> bool {
    let Some(b) = batch.filter(|b| !b.is_empty()) else { return true };
    let have: Vec<&str> = constraint.unwrap_or("").split(['&', '|', ',']).collect();
    b.split(['&', '|', ',']).all(|f| !f.is_empty() && have.contains(&f))
}

/// `--tres-per-task`: `NAME=COUNT` items (`:` also separates), NAME `cpu`,
/// `mem`, `node`, `billing` or `gres/TYPE` of a configured GresTypes
/// (ESLURM_INVALID_TRES; recorded/24.11/sbatch_surface/147-150).
pub fn tres_per_task_ok(tpt: Option<&str>, gres_types: &[String]) -> bool {
    let Some(t) = tpt.filter(|t| !t.is_empty()) else { return true };
    t.split(',').all(|item| {
        let (name, count) = match item.rsplit_once(['=', ':']) {
            Some(x) => x,
            None => return false,
        };
        let known = match name.strip_prefix("gres/") {
            Some(g) => gres_types.iter().any(|x| x == g.split(':').next().unwrap_or(g)),
            None => ["cpu", "mem", "node", "billing"].contains(&name),
        };
        known && !count.is_empty() && count.bytes().all(|b| b.is_ascii_digit())
    })
}

/// The task sampling period in `--acctg-freq` or slurm.conf's
/// `JobAcctGatherFrequency` (`N` or `task=N` among the items).
pub fn acctg_task_freq(v: &str) -> Option<u32> {
    v.split(',').find_map(|i| match i.split_once('=') {
        Some(("task", n)) => n.parse().ok(),
        None => i.parse().ok(),
        _ => None,
    })
}

/// slurmctld's deadline test at submission: the job must be able to run its
/// minimum time (or else its time limit, the partition's default if none
/// was given) between its earliest start (now or `--begin`) and the deadline
/// (recorded/24.11/sbatch_options/146).
pub fn check_deadline(desc: &JobDesc, default_time: Option<Minutes>, t: i64) -> Result<(), i32> {
    if desc.deadline == 0 {
        return Ok(());
    }
    let earliest = desc.begin_time.max(t);
    if desc.deadline < earliest {
        return Err(ESLURM_INVALID_TIME_LIMIT);
    }
    // (in 128 bits: a --begin near the end of time plus a limit does not
    // fit in an i64, and such a job cannot meet any deadline)
    let ends_after = |m: Minutes| (desc.deadline as i128) < earliest as i128 + m as i128 * 60;
    match desc.time_min.filter(|m| *m != 0) {
        Some(min) => {
            if ends_after(min) {
                return Err(ESLURM_INVALID_TIME_MIN_LIMIT);
            }
        }
        // (22.05 compares the time limit only when a zero --time-min was
        // given, so it accepts a limit past the deadline: recorded/22.05/sbatch_options/146)
        None if !spur_core::compat::profile().deadline_checks_time_limit => {}
        None => {
            if let Some(lim) = desc.time_limit.or(default_time).filter(|m| *m != 0) {
                if ends_after(lim) {
                    return Err(ESLURM_INVALID_TIME_LIMIT);
                }
            }
        }
    }
    Ok(())
}

/// A job's node list (`--nodelist`, `--exclude`, `ReqNodeList=`,
/// `ExcNodeList=`) as slurmctld keeps it: the names without duplicates,
/// sorted, and their ranged form (job_mgr.c's `_copy_nodelist_no_dup`:
/// hostlist_create, hostlist_uniq, hostlist_ranged_string). An expression
/// that is not a hostlist, or names more than
/// [`spur_grammar::hostlist::MAX_JOB_HOSTS`] hosts (duplicates counted;
/// read without ever holding more), is `Invalid node name specified`
/// (node_name2bitmap failing). Whether the names are nodes is the caller's.
pub fn job_node_list(expr: &str) -> Result<(Vec<String>, String), i32> {
    use spur_grammar::hostlist::{Hostlist, MAX_JOB_HOSTS};
    let mut hl = Hostlist::parse_bounded(expr, MAX_JOB_HOSTS).map_err(|_| ESLURM_INVALID_NODE_NAME)?;
    hl.uniq();
    Ok((hl.hosts(), hl.ranged_string()))
}

/// Slurm's CPU_BIND_OFF: `CpuBind=off` clears the node's binding.
const CPU_BIND_OFF: u32 = 0x80000;

/// The state machine's change for each node of `scontrol update NodeName=…`,
/// as slurmctld's update_node checks it. `gres_types`: the cluster's
/// `GresTypes` (a `Gres=` of a configured type would change what the
/// scheduler counts, which Spur does not do: refused); `fail_flag`: the
/// cluster writes format version 3 (`State=FAIL` is Slurm's FAIL flag, not a
/// drain); `now` resolves `ResumeAfter=`.
pub fn node_update(
    u: &rq::NodeUpdate,
    gres_types: &[String],
    fail_flag: bool,
    now: i64,
) -> Result<Vec<(String, spur_state::NodeUpdate)>, i32> {
    // NodeAddr/NodeHostname: one per node, so duplicate names count (slurmctld
    // expands the names without making them unique then)
    let names = spur_grammar::hostlist::expand(&u.nodes).map_err(|_| ESLURM_INVALID_NODE_NAME)?;
    if names.is_empty() {
        return Err(ESLURM_INVALID_NODE_NAME);
    }
    if !u.unsupported.is_empty() {
        return Err(ESLURM_NOT_SUPPORTED);
    }
    let per_node = |expr: &Option<String>| -> Result<Option<Vec<String>>, i32> {
        let Some(e) = expr else { return Ok(None) };
        let v = spur_grammar::hostlist::expand(e).map_err(|_| ESLURM_INVALID_NODE_NAME)?;
        if v.len() != names.len() {
            return Err(ESLURM_INVALID_NODE_NAME);
        }
        Ok(Some(v))
    };
    let addrs = per_node(&u.node_addr)?;
    let hostnames = per_node(&u.node_hostname)?;
    if let Some(g) = u.gres.as_deref() {
        let configured = g.split(',').any(|item| {
            let name = item.split(':').next().unwrap_or("").split('/').next_back().unwrap_or("");
            gres_types.iter().any(|t| t.eq_ignore_ascii_case(name))
        });
        if configured {
            return Err(ESLURM_NOT_SUPPORTED);
        }
    }
    let draining = matches!(u.state, Some(rq::NodeStateChange::Down | rq::NodeStateChange::Drain));
    let resume_after = match u.resume_after {
        None => None,
        // scontrol checks this too: only with DOWN or DRAIN
        Some(_) if !draining => return Err(ESLURM_INVALID_NODE_STATE),
        Some(INFINITE) => Some(0),
        Some(secs) => Some(now.saturating_add(secs as i64)),
    };
    let features = u
        .active_features
        .as_ref()
        .or(u.available_features.as_ref())
        .map(|v| v.split(',').filter(|s| !s.is_empty()).map(String::from).collect());
    let base = spur_state::NodeUpdate {
        state: u.state.map(|s| s.name().to_string()),
        reason: u.reason.clone(),
        weight: u.weight,
        features,
        fail_flag: fail_flag && u.state == Some(rq::NodeStateChange::Fail),
        comment: u.comment.clone(),
        extra: u.extra.clone(),
        // 0 (no type given): no change; OFF clears
        cpu_bind: u.cpu_bind.filter(|b| *b != 0).map(|b| if b == CPU_BIND_OFF { 0 } else { b }),
        gres_text: u.gres.clone(),
        resume_after,
        addr: None,
        hostname: None,
    };
    Ok(names
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            let mut n = base.clone();
            n.addr = addrs.as_ref().map(|v| v[i].clone());
            n.hostname = hostnames.as_ref().map(|v| v[i].clone());
            (name, n)
        })
        .collect())
}

/// The state machine's change for `scontrol update PartitionName=…`.
pub fn partition_update(u: &rq::PartitionUpdate) -> Result<spur_state::PartUpdate, i32> {
    if !u.unsupported.is_empty() {
        return Err(ESLURM_NOT_SUPPORTED);
    }
    // values as scontrol sends them (what it would have refused, refused)
    if u.settings.iter().any(|(k, v)| k.canonical(v, "").as_deref() != Ok(v.as_str())) {
        return Err(ESLURM_NOT_SUPPORTED);
    }
    let limit = |m: Option<u32>| m.map(|m| if m == INFINITE { None } else { Some(m) });
    Ok(spur_state::PartUpdate {
        max_time: limit(u.max_time),
        default_time: limit(u.default_time),
        max_nodes: limit(u.max_nodes),
        min_nodes: u.min_nodes.map(|m| if m == INFINITE { 0 } else { m }),
        state: u.state,
        default: u.default,
        hidden: u.hidden,
        priority_tier: u.priority_tier,
        priority_job_factor: u.priority_job_factor,
        oversubscribe: u.oversubscribe.as_ref().map(|v| v.to_ascii_uppercase()),
        settings: u.settings.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const USER: Caller = Caller { uid: 1000, operator: false, super_user: false, slurm_user: false };
    const OTHER: Caller = Caller { uid: 1001, operator: false, super_user: false, slurm_user: false };
    const ROOT: Caller = Caller { uid: 0, operator: true, super_user: true, slurm_user: true };

    fn feature_f(f: &str) -> bool {
        f == "f"
    }
    fn gres_gpu(g: &str) -> bool {
        g == "gpu"
    }
    /// Reservation `r1` lists the job's owner, `r2` does not.
    fn resv(r: &str) -> Option<bool> {
        match r {
            "r1" => Some(true),
            "r2" => Some(false),
            _ => None,
        }
    }
    /// An update with what `f` sets.
    fn upd(f: &dyn Fn(&mut rq::JobUpdate)) -> rq::JobUpdate {
        let mut u = rq::JobUpdate::default();
        f(&mut u);
        u
    }

    fn look() -> Lookups<'static> {
        Lookups { feature_known: &feature_f, gres_known: &gres_gpu, reservation: &resv, owner: USER, qos: None }
    }

    fn job(state: JobState) -> Job {
        Job { job_id: 5, user_id: 1000, state, time_limit: Some(30), num_nodes: 1, ..Default::default() }
    }

    /// The matrix of SECURITY.md, row by row: for each action, the answer
    /// to another user, to the owner, to an AdminLevel Operator, to an
    /// AdminLevel Administrator and to root or SlurmUser (0: allowed).
    #[test]
    fn batch_tres_and_acctg() {
        assert!(batch_features_ok(None, None) && batch_features_ok(Some("a"), Some("a&b")));
        assert!(!batch_features_ok(Some("feat"), None));
        let g = vec!["gpu".to_string()];
        assert!(tres_per_task_ok(Some("cpu=2"), &[]) && tres_per_task_ok(Some("gres/gpu:1"), &g));
        assert!(!tres_per_task_ok(Some("bogus=1"), &g) && !tres_per_task_ok(Some("gres/gpu:1"), &[]));
        assert_eq!(
            (acctg_task_freq("task=60"), acctg_task_freq("30"), acctg_task_freq("energy=5")),
            (Some(60), Some(30), None)
        );
    }

    #[test]
    fn feature_expressions() {
        let known = |f: &str| f == "a" || f == "b";
        for ok in ["", "a", "a&b", "a|b", "a,b", "[a*2&b*1]", "(a|b)", "[a|b]", "a&"] {
            assert!(feature_expr_ok(ok, &known), "{}", ok);
        }
        // recorded/24.11/sbatch_surface/053-054, 101-102; constraints.md
        for bad in ["c", "a&&b", "a*x", "a*", "nosuchfeature", "[a|b", "!a", "[a&b]"] {
            assert!(!feature_expr_ok(bad, &known), "{}", bad);
        }
    }

    #[test]
    fn the_authorisation_matrix() {
        use Action::*;
        let operator = Caller { uid: 2000, operator: true, super_user: false, slurm_user: false };
        let administrator = Caller { uid: 2001, super_user: true, ..operator };
        const NO: i32 = ESLURM_ACCESS_DENIED;
        const UID: i32 = ESLURM_USER_ID_MISSING;
        #[rustfmt::skip]
        let rows: &[(Action, [i32; 5])] = &[
            //                                             other  owner  oper.  admin  root/SlurmUser
            (Submit,                                      [0,     0,     0,     0,     0]),
            (SubmitNegativeNice,                          [ESLURM_INVALID_NICE, ESLURM_INVALID_NICE, 0, 0, 0]),
            (UsePartition { in_allowed_groups: false },   [ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP,
                                                           ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP,
                                                           ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP,
                                                           ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP, 0]),
            (UsePartition { in_allowed_groups: true },    [0,     0,     0,     0,     0]),
            (UseReservation { listed: false },            [ESLURM_RESERVATION_ACCESS, ESLURM_RESERVATION_ACCESS,
                                                           ESLURM_RESERVATION_ACCESS, ESLURM_RESERVATION_ACCESS, 0]),
            (SeeJob { private: false },                   [0,     0,     0,     0,     0]),
            (SeeJob { private: true },                    [ESLURM_INVALID_JOB_ID, 0, 0, 0, 0]),
            (SeeReservation { private: true, listed: false }, [ESLURM_RESERVATION_INVALID,
                                                           ESLURM_RESERVATION_INVALID, 0, 0, 0]),
            (SeeReservation { private: true, listed: true }, [0,  0,     0,     0,     0]),
            (ReadScript,                                  [UID,   0,     0,     0,     0]),
            (Cancel,                                      [NO,    0,     0,     0,     0]),
            (Signal,                                      [NO,    0,     0,     0,     0]),
            (Hold,                                        [UID,   0,     0,     0,     0]),
            (Release,                                     [UID,   0,     0,     0,     0]),
            (ReleaseAdminHold,                            [NO,    NO,    0,     0,     0]),
            (Requeue,                                     [NO,    0,     0,     0,     0]),
            (Suspend,                                     [NO,    NO,    0,     0,     0]),
            (Top { user_top: false },                     [NO,    NO,    0,     0,     0]),
            (Top { user_top: true },                      [NO,    0,     0,     0,     0]),
            (UpdateJob,                                   [UID,   0,     0,     0,     0]),
            (RaiseTimeLimit,                              [NO,    NO,    0,     0,     0]),
            (SetPriority,                                 [NO,    NO,    0,     0,     0]),
            (SetNegativeNice,                             [NO,    NO,    0,     0,     0]),
            (SetJobLayout,                                [NO,    NO,    0,     0,     0]),
            (SetAdminJobField,                            [NO,    NO,    NO,    0,     0]),
            (UpdateNode,                                  [UID,   UID,   UID,   0,     0]),
            (UpdatePartition,                             [UID,   UID,   UID,   0,     0]),
            (CreateReservation,                           [UID,   UID,   0,     0,     0]),
            (UpdateReservation,                           [UID,   UID,   0,     0,     0]),
            (DeleteReservation { user_delete: false },    [UID,   UID,   0,     0,     0]),
            (DeleteReservation { user_delete: true },     [0,     0,     0,     0,     0]),
            (Register,                                    [NO,    NO,    NO,    NO,    0]),
            (CompleteJob,                                 [NO,    NO,    NO,    NO,    0]),
            (ListControllers,                             [0,     0,     0,     0,     0]),
            (ChangeControllers,                           [NO,    NO,    NO,    0,     0]),
        ];
        let owner = Some(USER.uid);
        for (action, want) in rows {
            let got: Vec<i32> = [OTHER, USER, operator, administrator, ROOT]
                .iter()
                .map(|c| authorize(c, *action, owner).err().unwrap_or(0))
                .collect();
            assert_eq!(&got, want, "{:?}", action);
        }
        // no record: nobody is its owner
        assert_eq!(authorize(&USER, Cancel, None), Err(NO));
        assert_eq!(authorize(&ROOT, Cancel, None), Ok(()));
    }

    #[test]
    fn who_may_control_a_job() {
        let pending = job(JobState::Pending);
        for op in [JobControl::Suspend, JobControl::Resume] {
            assert_eq!(job_control_allowed(&op, &USER, &pending, false), Err(ESLURM_ACCESS_DENIED));
            assert_eq!(job_control_allowed(&op, &ROOT, &pending, false), Ok(()));
        }
        let requeue = JobControl::Requeue { hold: false, special_exit: false };
        assert_eq!(job_control_allowed(&requeue, &USER, &pending, false), Ok(()));
        assert_eq!(job_control_allowed(&requeue, &OTHER, &pending, false), Err(ESLURM_ACCESS_DENIED));
        // another user's job: hold, release, update
        for op in [JobControl::Hold { user: false }, JobControl::Release, JobControl::Update(Default::default())] {
            assert_eq!(job_control_allowed(&op, &OTHER, &pending, false), Err(ESLURM_USER_ID_MISSING));
            assert_eq!(job_control_allowed(&op, &USER, &pending, false), Ok(()));
            assert_eq!(job_control_allowed(&op, &ROOT, &pending, false), Ok(()));
        }
        // an operator's hold is released by an operator only; another
        // user's release is refused for the owner first
        let held = Job { held: Some(Reason::JobHeldAdmin), ..job(JobState::Pending) };
        assert_eq!(job_control_allowed(&JobControl::Release, &USER, &held, false), Err(ESLURM_ACCESS_DENIED));
        assert_eq!(job_control_allowed(&JobControl::Release, &OTHER, &held, false), Err(ESLURM_USER_ID_MISSING));
        assert_eq!(job_control_allowed(&JobControl::Release, &ROOT, &held, false), Ok(()));
        let uheld = Job { held: Some(Reason::JobHeldUser), ..job(JobState::Pending) };
        assert_eq!(job_control_allowed(&JobControl::Release, &USER, &uheld, false), Ok(()));
        // top: operators; owners too with enable_user_top
        assert_eq!(job_control_allowed(&JobControl::Top, &USER, &pending, false), Err(ESLURM_ACCESS_DENIED));
        assert_eq!(job_control_allowed(&JobControl::Top, &USER, &pending, true), Ok(()));
        assert_eq!(job_control_allowed(&JobControl::Top, &OTHER, &pending, true), Err(ESLURM_ACCESS_DENIED));
        assert_eq!(job_control_allowed(&JobControl::Top, &ROOT, &pending, false), Ok(()));
    }

    #[test]
    fn a_users_hold_never_replaces_an_operators() {
        let held = Job { held: Some(Reason::JobHeldAdmin), ..job(JobState::Pending) };
        assert_eq!(hold_reason(&USER, true, &held), Reason::JobHeldAdmin);
        assert_eq!(hold_reason(&USER, false, &held), Reason::JobHeldAdmin);
        // an operator turns it into a user's hold with uhold, or keeps it
        assert_eq!(hold_reason(&ROOT, true, &held), Reason::JobHeldUser);
        assert_eq!(hold_reason(&ROOT, false, &held), Reason::JobHeldAdmin);
        let free = job(JobState::Pending);
        assert_eq!(hold_reason(&USER, false, &free), Reason::JobHeldUser);
        assert_eq!(hold_reason(&ROOT, false, &free), Reason::JobHeldAdmin);
        let uheld = Job { held: Some(Reason::JobHeldUser), ..job(JobState::Pending) };
        assert_eq!(hold_reason(&USER, false, &uheld), Reason::JobHeldUser);
        assert!(resv_admits(&["a".into(), "b".into()], "b"));
        assert!(!resv_admits(&["a".into()], "b"));
        assert!(!resv_admits(&[], "b"));
    }

    #[test]
    fn job_desc_fields_are_bounded() {
        let mut d = spur_core::model::JobDesc { script: "x".repeat(100).into(), ..Default::default() };
        assert_eq!(job_desc_fields(&d, 100), Ok(()));
        assert_eq!(job_desc_fields(&d, 99), Err(ESLURM_PATHNAME_TOO_LONG));
        d.name = "n".repeat(1024);
        assert_eq!(job_desc_fields(&d, 100), Ok(()));
        d.name.push('n');
        assert_eq!(job_desc_fields(&d, 100), Err(ESLURM_PATHNAME_TOO_LONG));
        d.name.clear();
        d.array = Some("1,".repeat(2048));
        assert_eq!(job_desc_fields(&d, 100), Ok(()));
        d.array = Some(format!("{}1", "1,".repeat(2048)));
        assert_eq!(job_desc_fields(&d, 100), Err(ESLURM_PATHNAME_TOO_LONG));
        d.array = None;
        d.std_out = Some("/".repeat(4097));
        assert_eq!(job_desc_fields(&d, 100), Err(ESLURM_PATHNAME_TOO_LONG));
        d.std_out = None;
        d.dependency = Some("a".repeat(128 * 1024 + 1));
        assert_eq!(job_desc_fields(&d, 100), Err(ESLURM_PATHNAME_TOO_LONG));
        // a negative max_script_size refuses every script (strlen > max)
        d.dependency = None;
        assert_eq!(job_desc_fields(&d, -1), Err(ESLURM_PATHNAME_TOO_LONG));
    }

    #[test]
    fn job_update_keys_of_the_jobs_shape_and_the_rest() {
        let known = |n: &str| n == "n1" || n == "n2";
        let pending = job(JobState::Pending);
        let running = job(JobState::Running);
        let run = |u: &rq::JobUpdate, j: &Job, c: &Caller| job_update(u, j, c, 100, &known, Some(30), &look());
        const ADMIN_ONLY: Caller = Caller { uid: 2000, operator: true, super_user: false, slurm_user: false };
        // pending-only (scontrol_surface/146: MinCPUsNode of a running job)
        for u in [
            upd(&|u| u.min_cpus_node = Some(2)),
            upd(&|u| u.cpus_per_task = Some(2)),
            upd(&|u| u.num_cpus = Some(4)),
            upd(&|u| u.tmp_disk = Some(100)),
            upd(&|u| u.sockets_per_node = Some(1)),
            upd(&|u| u.cores_per_socket = Some(1)),
            upd(&|u| u.threads_per_core = Some(1)),
            upd(&|u| u.prefer = Some("f".into())),
            upd(&|u| u.wckey = Some("w".into())),
            upd(&|u| u.reset_accrue_time = true),
            upd(&|u| u.shared = Some(true)),
            upd(&|u| u.contiguous = Some(true)),
            upd(&|u| u.ntasks_per_node = Some(1)),
            upd(&|u| u.account = Some("a".into())),
            upd(&|u| u.gres = Some("gpu:1".into())),
        ] {
            assert_eq!(run(&u, &running, &ROOT).err(), Some(ESLURM_JOB_NOT_PENDING), "{:?}", u);
        }
        let ok = run(&upd(&|u| u.min_cpus_node = Some(2)), &pending, &USER).unwrap();
        // so many CPUs per node: the job asks for that many
        assert_eq!((ok.min_cpus_node, ok.num_cpus), (Some(2), Some(2)));
        assert_eq!(run(&upd(&|u| u.cpus_per_task = Some(0)), &pending, &USER).err(), Some(ESLURM_INVALID_CPU_COUNT));
        // operators only: sharing, tasks per node, contiguous nodes, a deadline, the site factor
        for u in [
            upd(&|u| u.shared = Some(false)),
            upd(&|u| u.ntasks_per_node = Some(1)),
            upd(&|u| u.contiguous = Some(true)),
            upd(&|u| u.deadline = Some(200)),
            upd(&|u| u.site_factor = Some(5)),
        ] {
            assert_eq!(run(&u, &pending, &USER).err(), Some(ESLURM_ACCESS_DENIED), "{:?}", u);
            assert!(run(&u, &pending, &ADMIN_ONLY).is_ok(), "{:?}", u);
        }
        // a user may drop the contiguous requirement
        let mut contiguous = pending.clone();
        contiguous.desc.contiguous_nodes = true;
        assert_eq!(run(&upd(&|u| u.contiguous = Some(false)), &contiguous, &USER).unwrap().contiguous, Some(false));
        // administrators only: the admin comment, a reboot
        for u in [upd(&|u| u.admin_comment = Some("a".into())), upd(&|u| u.reboot = Some(true))] {
            assert_eq!(run(&u, &pending, &ADMIN_ONLY).err(), Some(ESLURM_ACCESS_DENIED), "{:?}", u);
            assert!(run(&u, &pending, &ROOT).is_ok(), "{:?}", u);
        }
        // a deadline in the past; a running job's deadline stays
        assert_eq!(run(&upd(&|u| u.deadline = Some(50)), &pending, &ROOT).err(), Some(ESLURM_INVALID_TIME_VALUE));
        assert_eq!(run(&upd(&|u| u.deadline = Some(200)), &running, &ROOT).unwrap().deadline, None);
        // EndTime= moves a running job's end only (scontrol_surface/130)
        let end = upd(&|u| u.end_time = Some(100 + 600));
        assert_eq!(run(&end, &pending, &ROOT).err(), Some(ESLURM_JOB_NOT_RUNNING));
        let mut started = running.clone();
        started.end_time = 100 + 30 * 60;
        // (C's division: the limit is 30 + (-1200 + 30) / 60 = 11)
        assert_eq!(run(&end, &started, &USER).unwrap().time_limit, Some(Some(11)));
        assert_eq!(run(&upd(&|u| u.end_time = Some(100 + 3600)), &started, &USER).err(), Some(ESLURM_ACCESS_DENIED));
        assert_eq!(run(&upd(&|u| u.end_time = Some(50)), &started, &ROOT).err(), Some(ESLURM_INVALID_TIME_VALUE));
        // preferred features must exist (scontrol_surface/093)
        assert_eq!(run(&upd(&|u| u.prefer = Some("fast".into())), &pending, &USER).err(), Some(ESLURM_INVALID_PREFER));
        // a reservation: its name first, then whether it admits the owner (scontrol_surface/094)
        assert_eq!(
            run(&upd(&|u| u.reservation = Some("nope".into())), &pending, &ROOT).err(),
            Some(ESLURM_RESERVATION_INVALID)
        );
        assert_eq!(
            run(&upd(&|u| u.reservation = Some("r2".into())), &pending, &ROOT).err(),
            Some(ESLURM_RESERVATION_ACCESS)
        );
        assert_eq!(
            run(&upd(&|u| u.reservation = Some("r1".into())), &pending, &USER).unwrap().reservation.as_deref(),
            Some("r1")
        );
        // none to none: no change
        assert_eq!(run(&upd(&|u| u.reservation = Some(String::new())), &pending, &USER).unwrap().reservation, None);
        // GRES the cluster does not have (scontrol_surface/120); ones it has cannot change yet
        assert_eq!(run(&upd(&|u| u.gres = Some("mps:1".into())), &pending, &ROOT).err(), Some(ESLURM_INVALID_GRES));
        assert_eq!(run(&upd(&|u| u.gres = Some("gpu:1".into())), &pending, &ROOT).err(), Some(ESLURM_NOT_SUPPORTED));
        // no accounting: 24.11 finds no association (scontrol_surface/095)
        assert_eq!(run(&upd(&|u| u.account = Some("a".into())), &pending, &ROOT).err(), Some(EAGAIN));
        // an operator's priority resets nice (scontrol_surface/088)
        let mut niced = pending.clone();
        niced.desc.nice = Some(10);
        let p = run(&upd(&|u| u.priority = Some(5)), &niced, &ROOT).unwrap();
        assert!(p.reset_nice && p.nice.is_none());
        assert!(!run(&upd(&|u| u.priority = Some(5)), &pending, &ROOT).unwrap().reset_nice);
        // (the priority it has: nothing changes, slurmctld's "setting priority to current value")
        niced.priority = 5;
        assert!(!run(&upd(&|u| u.priority = Some(5)), &niced, &ROOT).unwrap().reset_nice);
        // an empty MailUser is the owner
        let mut named = pending.clone();
        named.user_name = "u1".into();
        assert_eq!(
            run(&upd(&|u| u.mail_user = Some(String::new())), &named, &USER).unwrap().mail_user.as_deref(),
            Some("u1")
        );
        // 24.11: a new task count is as many CPUs, and a node range of one (scontrol_surface/157)
        let t = run(&upd(&|u| u.num_tasks = Some(2)), &pending, &USER).unwrap();
        assert_eq!((t.num_tasks, t.num_cpus, t.num_nodes), (Some(2), Some(2), Some(1)));
        // a fixed node count with tasks per node: the tasks (and CPUs) counted
        // anew when either changes (scontrol_surface/141)
        let mut per_node = pending.clone();
        per_node.num_tasks = 4;
        per_node.desc.ntasks_per_node = Some(2);
        let t = run(&upd(&|u| u.num_nodes = Some(1)), &per_node, &USER).unwrap();
        assert_eq!((t.num_tasks, t.num_cpus), (Some(2), Some(2)));
        let t = run(&upd(&|u| u.ntasks_per_node = Some(3)), &per_node, &ROOT).unwrap();
        assert_eq!((t.num_tasks, t.num_cpus), (Some(3), Some(3)));
        // (the count it has: nothing to change)
        let t = run(&upd(&|u| u.num_nodes = Some(2)), &per_node, &USER).unwrap();
        assert_eq!((t.num_tasks, t.num_cpus), (None, None));
    }

    #[test]
    fn job_update_rules() {
        let known = |n: &str| n == "n1" || n == "n2";
        let pending = job(JobState::Pending);
        let running = job(JobState::Running);
        // users lower their limit, operators raise it (recorded/24.11/errors 83-86)
        let lower = upd(&|u| u.time_limit = Some(10));
        let raise = upd(&|u| u.time_limit = Some(60));
        let unlimited = upd(&|u| u.time_limit = Some(INFINITE));
        assert_eq!(
            job_update(&lower, &pending, &USER, 0, &known, Some(30), &look()).unwrap().time_limit,
            Some(Some(10))
        );
        assert_eq!(job_update(&raise, &pending, &USER, 0, &known, Some(30), &look()).err(), Some(ESLURM_ACCESS_DENIED));
        assert_eq!(
            job_update(&unlimited, &pending, &USER, 0, &known, Some(30), &look()).err(),
            Some(ESLURM_ACCESS_DENIED)
        );
        assert_eq!(
            job_update(&unlimited, &pending, &ROOT, 0, &known, Some(30), &look()).unwrap().time_limit,
            Some(None)
        );
        // a pending job's owner may raise it up to the partition's MaxTime
        // (UNLIMITED there: anything; scontrol_surface/151), a running one not
        assert_eq!(job_update(&raise, &pending, &USER, 0, &known, None, &look()).unwrap().time_limit, Some(Some(60)));
        assert_eq!(job_update(&unlimited, &pending, &USER, 0, &known, None, &look()).unwrap().time_limit, Some(None));
        assert_eq!(
            job_update(&raise, &pending, &USER, 0, &known, Some(60), &look()).unwrap().time_limit,
            Some(Some(60))
        );
        assert_eq!(job_update(&raise, &running, &USER, 0, &known, None, &look()).err(), Some(ESLURM_ACCESS_DENIED));
        // a user may not lower nice below 0 (a higher priority), an operator may;
        // nice 0 or more, or the value already set, is anyone's (job_mgr.c)
        let negative = upd(&|u| u.nice = Some(-5));
        assert_eq!(
            job_update(&negative, &pending, &USER, 0, &known, Some(30), &look()).err(),
            Some(ESLURM_ACCESS_DENIED)
        );
        assert_eq!(job_update(&negative, &pending, &ROOT, 0, &known, Some(30), &look()).unwrap().nice, Some(-5));
        assert_eq!(
            job_update(&upd(&|u| u.nice = Some(7)), &pending, &USER, 0, &known, Some(30), &look()).unwrap().nice,
            Some(7)
        );
        let mut reniced = pending.clone();
        reniced.desc.nice = Some(-5);
        assert_eq!(job_update(&negative, &reniced, &USER, 0, &known, Some(30), &look()).unwrap().nice, Some(-5));
        assert_eq!(submit_nice(Some(-1), &USER), Err(ESLURM_INVALID_NICE));
        assert_eq!(submit_nice(Some(-1), &ROOT), Ok(()));
        assert_eq!(submit_nice(Some(3), &USER), Ok(()));
        let prio = upd(&|u| u.priority = Some(9));
        assert_eq!(job_update(&prio, &pending, &USER, 0, &known, Some(30), &look()).err(), Some(ESLURM_ACCESS_DENIED));
        assert_eq!(job_update(&prio, &pending, &ROOT, 0, &known, Some(30), &look()).unwrap().priority, Some(9));
        // pending-only fields (recorded/24.11/scontrol 112: MinMemoryNode of a running job)
        for u in [
            upd(&|u| u.partition = Some("p".into())),
            upd(&|u| u.num_tasks = Some(2)),
            upd(&|u| u.mem_per_node = Some(100)),
            upd(&|u| u.mem_per_cpu = Some(100)),
            upd(&|u| u.exc_nodes = Some("n1".into())),
            upd(&|u| u.req_nodes = Some("n1".into())),
            upd(&|u| u.features = Some("f".into())),
            upd(&|u| u.work_dir = Some("/tmp".into())),
        ] {
            assert_eq!(
                job_update(&u, &running, &ROOT, 0, &known, Some(30), &look()).err(),
                Some(ESLURM_JOB_NOT_PENDING),
                "{:?}",
                u
            );
            assert!(job_update(&u, &pending, &USER, 0, &known, Some(30), &look()).is_ok(), "{:?}", u);
        }
        // a running job's node count stays (scontrol 111), the same count is fine
        assert_eq!(
            job_update(&upd(&|u| u.num_nodes = Some(2)), &running, &ROOT, 0, &known, Some(30), &look()).err(),
            Some(ESLURM_NOT_SUPPORTED)
        );
        assert!(job_update(&upd(&|u| u.num_nodes = Some(1)), &running, &ROOT, 0, &known, Some(30), &look()).is_ok());
        // node lists must be hostlists; empty clears
        assert_eq!(
            job_update(&upd(&|u| u.exc_nodes = Some("n[1-".into())), &pending, &ROOT, 0, &known, Some(30), &look())
                .err(),
            Some(ESLURM_INVALID_NODE_NAME)
        );
        assert_eq!(
            job_update(&upd(&|u| u.exc_nodes = Some(String::new())), &pending, &ROOT, 0, &known, Some(30), &look())
                .unwrap()
                .exc_nodes,
            Some(None)
        );
        // strings past slurmctld's bounds (_test_job_desc_fields)
        let long = upd(&|u| u.comment = Some("c".repeat(1025)));
        assert_eq!(
            job_update(&long, &pending, &ROOT, 0, &known, Some(30), &look()).err(),
            Some(ESLURM_PATHNAME_TOO_LONG)
        );
        let fits = upd(&|u| u.comment = Some("c".repeat(1024)));
        assert!(job_update(&fits, &pending, &ROOT, 0, &known, Some(30), &look()).is_ok());
        let long = upd(&|u| u.work_dir = Some("/".repeat(4097)));
        assert_eq!(
            job_update(&long, &pending, &ROOT, 0, &known, Some(30), &look()).err(),
            Some(ESLURM_PATHNAME_TOO_LONG)
        );
        // names must be nodes of the cluster (node_name2bitmap), kept sorted
        // without duplicates; an oversized list is refused unexpanded
        for field in [true, false] {
            let got = |v: &str| {
                let mut u = rq::JobUpdate::default();
                if field {
                    u.exc_nodes = Some(v.to_string())
                } else {
                    u.req_nodes = Some(v.to_string())
                }
                let u = job_update(&u, &pending, &ROOT, 0, &known, Some(30), &look())?;
                Ok::<_, i32>(if field { u.exc_nodes } else { u.req_nodes })
            };
            assert_eq!(got("n3"), Err(ESLURM_INVALID_NODE_NAME));
            assert_eq!(got("n[1-3]"), Err(ESLURM_INVALID_NODE_NAME));
            assert_eq!(got("n2,n1,n2"), Ok(Some(Some("n[1-2]".into()))));
            assert_eq!(got("n[0000000000-9999999999]"), Err(ESLURM_INVALID_NODE_NAME));
            assert_eq!(got(&vec!["n[1-65535]"; 40].join(",")), Err(ESLURM_INVALID_NODE_NAME));
        }
        // a begin time in the past is now
        assert_eq!(
            job_update(&upd(&|u| u.begin_time = Some(5)), &pending, &USER, 100, &known, Some(30), &look())
                .unwrap()
                .begin_time,
            Some(100)
        );
        // what Spur cannot change is refused
        let acct = upd(&|u| u.unsupported = vec![rq::UnsupportedJobField::Account]);
        assert_eq!(job_update(&acct, &pending, &ROOT, 0, &known, Some(30), &look()).err(), Some(ESLURM_NOT_SUPPORTED));
    }

    #[test]
    fn deadline_against_start_plus_limit() {
        let t = 1_000_000;
        let d = |deadline: i64, begin: i64, limit: Option<u32>, min: Option<u32>| JobDesc {
            deadline,
            begin_time: begin,
            time_limit: limit,
            time_min: min,
            ..Default::default()
        };
        // recorded/24.11/sbatch_options/146: -t 2:00:00 --deadline=now+1hour
        assert_eq!(check_deadline(&d(t + 3600, 0, Some(120), None), None, t), Err(ESLURM_INVALID_TIME_LIMIT));
        // sbatch_options/185: --deadline=now+2hours -t 10
        assert_eq!(check_deadline(&d(t + 7200, 0, Some(10), None), None, t), Ok(()));
        // no limit at all: only the earliest start counts
        assert_eq!(check_deadline(&d(t + 60, 0, None, None), None, t), Ok(()));
        assert_eq!(check_deadline(&d(t - 60, 0, None, None), None, t), Err(ESLURM_INVALID_TIME_LIMIT));
        // the partition's default time stands in for a missing -t
        assert_eq!(check_deadline(&d(t + 60, 0, None, None), Some(30), t), Err(ESLURM_INVALID_TIME_LIMIT));
        // --time-min is what must fit when given
        assert_eq!(check_deadline(&d(t + 3600, 0, Some(120), Some(30)), None, t), Ok(()));
        assert_eq!(check_deadline(&d(t + 600, 0, Some(120), Some(30)), None, t), Err(ESLURM_INVALID_TIME_MIN_LIMIT));
        // --begin moves the earliest start
        assert_eq!(check_deadline(&d(t + 3600, t + 3000, Some(20), None), None, t), Err(ESLURM_INVALID_TIME_LIMIT));
        // UNLIMITED never fits before a deadline
        assert_eq!(check_deadline(&d(t + 86400, 0, Some(u32::MAX), None), None, t), Err(ESLURM_INVALID_TIME_LIMIT));
        // a begin time and a deadline at the end of time (sbatch --begin=uts...
        // --deadline=uts...): the sum overflowed an i64 (a panic in a debug build)
        let end = i64::MAX;
        assert_eq!(check_deadline(&d(end, end - 10, None, Some(1)), None, t), Err(ESLURM_INVALID_TIME_MIN_LIMIT));
        assert_eq!(check_deadline(&d(end, end - 10, Some(u32::MAX), None), None, t), Err(ESLURM_INVALID_TIME_LIMIT));
        assert_eq!(check_deadline(&d(end, end - 10, None, None), Some(1), t), Err(ESLURM_INVALID_TIME_LIMIT));
        assert_eq!(check_deadline(&d(end, end, None, None), None, t), Ok(()));
    }

    #[test]
    fn node_and_partition_updates() {
        let n = rq::NodeUpdate {
            nodes: "n[1-2]".into(),
            state: Some(rq::NodeStateChange::Drain),
            reason: Some("x".into()),
            available_features: Some("a,b".into()),
            ..Default::default()
        };
        let upd = |n: &rq::NodeUpdate| node_update(n, &["gpu".to_string()], true, 100);
        let out = upd(&n).unwrap();
        assert_eq!(out.iter().map(|x| x.0.as_str()).collect::<Vec<_>>(), ["n1", "n2"]);
        let u = &out[0].1;
        assert_eq!(u.state.as_deref(), Some("DRAIN"));
        assert_eq!(u.features, Some(vec!["a".to_string(), "b".to_string()]));
        assert_eq!(u.min_format_version(), spur_format::MIN_VERSION);
        assert_eq!(upd(&rq::NodeUpdate { nodes: "n[".into(), ..n.clone() }).err(), Some(ESLURM_INVALID_NODE_NAME));
        let gres = rq::NodeUpdate { unsupported: vec![rq::UnsupportedNodeField::Gres], ..n.clone() };
        assert_eq!(upd(&gres).err(), Some(ESLURM_NOT_SUPPORTED));
        // Gres= of a configured type is refused; of another, kept as text
        assert_eq!(upd(&rq::NodeUpdate { gres: Some("gpu:1".into()), ..n.clone() }).err(), Some(ESLURM_NOT_SUPPORTED));
        let out = upd(&rq::NodeUpdate { gres: Some("nic:1".into()), ..n.clone() }).unwrap();
        assert_eq!((out[1].1.gres_text.as_deref(), out[1].1.min_format_version()), (Some("nic:1"), 3));
        // one address and host name per node
        let out = upd(&rq::NodeUpdate {
            node_addr: Some("10.0.0.[1-2]".into()),
            node_hostname: Some("h[1-2]".into()),
            ..n.clone()
        })
        .unwrap();
        assert_eq!(out[1].1.addr.as_deref(), Some("10.0.0.2"));
        assert_eq!(out[0].1.hostname.as_deref(), Some("h1"));
        assert_eq!(
            upd(&rq::NodeUpdate { node_addr: Some("a".into()), ..n.clone() }).err(),
            Some(ESLURM_INVALID_NODE_NAME)
        );
        // ResumeAfter= with DRAIN: from now; -1: never; without DOWN/DRAIN refused
        let out = upd(&rq::NodeUpdate { resume_after: Some(60), ..n.clone() }).unwrap();
        assert_eq!(out[0].1.resume_after, Some(160));
        let out = upd(&rq::NodeUpdate { resume_after: Some(INFINITE), ..n.clone() }).unwrap();
        assert_eq!(out[0].1.resume_after, Some(0));
        let resume = rq::NodeUpdate { state: Some(rq::NodeStateChange::Resume), resume_after: Some(60), ..n.clone() };
        assert_eq!(upd(&resume).err(), Some(ESLURM_INVALID_NODE_STATE));
        // CpuBind=off clears; FAIL is the flag only from version 3
        let out = upd(&rq::NodeUpdate { cpu_bind: Some(CPU_BIND_OFF), ..n.clone() }).unwrap();
        assert_eq!(out[0].1.cpu_bind, Some(0));
        let fail = rq::NodeUpdate { state: Some(rq::NodeStateChange::Fail), ..n.clone() };
        assert!(upd(&fail).unwrap()[0].1.fail_flag);
        assert!(!node_update(&fail, &[], false, 0).unwrap()[0].1.fail_flag);
        let p = rq::PartitionUpdate {
            name: "p".into(),
            max_time: Some(INFINITE),
            default_time: Some(30),
            max_nodes: Some(INFINITE),
            min_nodes: Some(INFINITE),
            oversubscribe: Some("yes:4".into()),
            ..Default::default()
        };
        let u = partition_update(&p).unwrap();
        assert_eq!(
            (u.max_time, u.default_time, u.max_nodes, u.min_nodes),
            (Some(None), Some(Some(30)), Some(None), Some(0))
        );
        assert_eq!(u.oversubscribe.as_deref(), Some("YES:4"));
        let groups = rq::PartitionUpdate { unsupported: vec![rq::UnsupportedPartitionField::AllowGroups], ..p };
        assert_eq!(partition_update(&groups).err(), Some(ESLURM_NOT_SUPPORTED));
    }
}
