//! spur-core's request types to and from their messages: the one place both
//! ends (spur-client, spurctld) translate, so the wire and the model cannot
//! drift apart. Decoding fails only on a message no Spur sends (an operation
//! missing, an unknown number): `Err(SLURM_UNEXPECTED_MSG_ERROR)`.

use crate::v1 as pb;
use spur_core::errors::SLURM_UNEXPECTED_MSG_ERROR;
use spur_core::model::{JobState, PartState};
use spur_core::request as rq;

type Res<T> = Result<T, i32>;
const BAD: i32 = SLURM_UNEXPECTED_MSG_ERROR;

const JOB_STATES: [JobState; 13] = [
    JobState::Pending,
    JobState::Running,
    JobState::Suspended,
    JobState::Completing,
    JobState::Completed,
    JobState::Cancelled,
    JobState::Failed,
    JobState::Timeout,
    JobState::NodeFail,
    JobState::Preempted,
    JobState::BootFail,
    JobState::Deadline,
    JobState::OutOfMemory,
];

pub fn job_state_code(s: JobState) -> i32 {
    JOB_STATES.iter().position(|x| *x == s).map(|i| i as i32 + 1).unwrap_or(0)
}

pub fn job_state(code: i32) -> Res<JobState> {
    JOB_STATES.get((code as usize).wrapping_sub(1)).copied().ok_or(BAD)
}

fn part_state_code(s: PartState) -> i32 {
    match s {
        PartState::Up => pb::PartitionState::Up as i32,
        PartState::Down => pb::PartitionState::Down as i32,
        PartState::Drain => pb::PartitionState::Drain as i32,
        PartState::Inactive => pb::PartitionState::Inactive as i32,
    }
}

fn part_state(code: i32) -> Res<PartState> {
    Ok(match pb::PartitionState::try_from(code).map_err(|_| BAD)? {
        pb::PartitionState::Up => PartState::Up,
        pb::PartitionState::Down => PartState::Down,
        pb::PartitionState::Drain => PartState::Drain,
        pb::PartitionState::Inactive => PartState::Inactive,
        pb::PartitionState::Unspecified => return Err(BAD),
    })
}

// ---------------------------------------------------------------- cancel, query

impl From<&rq::CancelRequest> for pb::CancelRequest {
    fn from(r: &rq::CancelRequest) -> Self {
        pb::CancelRequest {
            job_ids: r.job_ids.clone(),
            signal: r.signal,
            batch: r.batch,
            full: r.full,
            user: r.user.clone(),
            name: r.name.clone(),
            partition: r.partition.clone(),
            states: r.states.iter().map(|s| job_state_code(*s)).collect(),
            nodelist: r.nodelist.clone(),
            account: r.account.clone(),
            interactive: r.interactive,
        }
    }
}

impl TryFrom<pb::CancelRequest> for rq::CancelRequest {
    type Error = i32;
    fn try_from(r: pb::CancelRequest) -> Res<Self> {
        Ok(rq::CancelRequest {
            states: r.states.iter().map(|c| job_state(*c)).collect::<Res<_>>()?,
            job_ids: r.job_ids,
            signal: r.signal,
            batch: r.batch,
            full: r.full,
            user: r.user,
            name: r.name,
            partition: r.partition,
            nodelist: r.nodelist,
            account: r.account,
            interactive: r.interactive,
        })
    }
}

impl From<&rq::Query> for pb::QueryRequest {
    fn from(q: &rq::Query) -> Self {
        pb::QueryRequest {
            jobs: q.jobs,
            nodes: q.nodes,
            partitions: q.partitions,
            job_ids: q.job_ids.clone(),
            all_finished: q.all_finished,
            with_script: q.with_script,
            user_id: q.user_id,
            with_fair_share: q.with_fair_share,
            // the reply's view is written at what this build reads
            max_format_version: spur_format::FORMAT_VERSION as u32,
        }
    }
}

impl From<pb::QueryRequest> for rq::Query {
    fn from(q: pb::QueryRequest) -> Self {
        rq::Query {
            jobs: q.jobs,
            nodes: q.nodes,
            partitions: q.partitions,
            job_ids: q.job_ids,
            all_finished: q.all_finished,
            with_script: q.with_script,
            user_id: q.user_id,
            with_fair_share: q.with_fair_share,
        }
    }
}

// ---------------------------------------------------------------- job control

fn unsupported_codes<T: Copy>(v: &[T], code: impl Fn(T) -> u32) -> Vec<u32> {
    v.iter().map(|f| code(*f)).collect()
}

fn from_codes<T>(v: &[u32], from: impl Fn(u32) -> Option<T>) -> Res<Vec<T>> {
    v.iter().map(|c| from(*c).ok_or(BAD)).collect()
}

impl From<&rq::JobUpdate> for pb::JobUpdate {
    fn from(u: &rq::JobUpdate) -> Self {
        pb::JobUpdate {
            time_limit: u.time_limit,
            time_min: u.time_min,
            name: u.name.clone(),
            partition: u.partition.clone(),
            priority: u.priority,
            nice: u.nice,
            comment: u.comment.clone(),
            num_nodes: u.num_nodes,
            num_tasks: u.num_tasks,
            mem_per_node: u.mem_per_node,
            mem_per_cpu: u.mem_per_cpu,
            exc_nodes: u.exc_nodes.clone(),
            req_nodes: u.req_nodes.clone(),
            features: u.features.clone(),
            work_dir: u.work_dir.clone(),
            requeue: u.requeue,
            std_out: u.std_out.clone(),
            std_err: u.std_err.clone(),
            std_in: u.std_in.clone(),
            dependency: u.dependency.clone(),
            begin_time: u.begin_time,
            array_throttle: u.array_throttle,
            admin_comment: u.admin_comment.clone(),
            extra: u.extra.clone(),
            prefer: u.prefer.clone(),
            reservation: u.reservation.clone(),
            account: u.account.clone(),
            qos: u.qos.clone(),
            wckey: u.wckey.clone(),
            mail_type: u.mail_type.clone(),
            mail_user: u.mail_user.clone(),
            gres: u.gres.clone(),
            switches: u.switches.clone(),
            site_factor: u.site_factor,
            min_cpus_node: u.min_cpus_node,
            cpus_per_task: u.cpus_per_task,
            num_cpus: u.num_cpus,
            ntasks_per_node: u.ntasks_per_node,
            tmp_disk: u.tmp_disk,
            sockets_per_node: u.sockets_per_node,
            cores_per_socket: u.cores_per_socket,
            threads_per_core: u.threads_per_core,
            deadline: u.deadline,
            end_time: u.end_time,
            contiguous: u.contiguous,
            shared: u.shared,
            reset_accrue_time: u.reset_accrue_time,
            reboot: u.reboot,
            delay_boot: u.delay_boot,
            unsupported: unsupported_codes(&u.unsupported, rq::UnsupportedJobField::code),
        }
    }
}

impl TryFrom<pb::JobUpdate> for rq::JobUpdate {
    type Error = i32;
    fn try_from(u: pb::JobUpdate) -> Res<Self> {
        Ok(rq::JobUpdate {
            unsupported: from_codes(&u.unsupported, rq::UnsupportedJobField::from_code)?,
            time_limit: u.time_limit,
            time_min: u.time_min,
            name: u.name,
            partition: u.partition,
            priority: u.priority,
            nice: u.nice,
            comment: u.comment,
            num_nodes: u.num_nodes,
            num_tasks: u.num_tasks,
            mem_per_node: u.mem_per_node,
            mem_per_cpu: u.mem_per_cpu,
            exc_nodes: u.exc_nodes,
            req_nodes: u.req_nodes,
            features: u.features,
            work_dir: u.work_dir,
            requeue: u.requeue,
            std_out: u.std_out,
            std_err: u.std_err,
            std_in: u.std_in,
            dependency: u.dependency,
            begin_time: u.begin_time,
            array_throttle: u.array_throttle,
            admin_comment: u.admin_comment,
            extra: u.extra,
            prefer: u.prefer,
            reservation: u.reservation,
            account: u.account,
            qos: u.qos,
            wckey: u.wckey,
            mail_type: u.mail_type,
            mail_user: u.mail_user,
            gres: u.gres,
            switches: u.switches,
            site_factor: u.site_factor,
            min_cpus_node: u.min_cpus_node,
            cpus_per_task: u.cpus_per_task,
            num_cpus: u.num_cpus,
            ntasks_per_node: u.ntasks_per_node,
            tmp_disk: u.tmp_disk,
            sockets_per_node: u.sockets_per_node,
            cores_per_socket: u.cores_per_socket,
            threads_per_core: u.threads_per_core,
            deadline: u.deadline,
            end_time: u.end_time,
            contiguous: u.contiguous,
            shared: u.shared,
            reset_accrue_time: u.reset_accrue_time,
            reboot: u.reboot,
            delay_boot: u.delay_boot,
        })
    }
}

/// The message for `op` on `job_ids`.
pub fn job_control_request(job_ids: &[String], op: &rq::JobControl) -> pb::JobControlRequest {
    use pb::job_control_request::Op;
    let op = match op {
        rq::JobControl::Hold { user } => Op::Hold(pb::Hold { user: *user }),
        rq::JobControl::Release => Op::Release(pb::Empty {}),
        rq::JobControl::Requeue { hold, special_exit } => {
            Op::Requeue(pb::Requeue { hold: *hold, special_exit: *special_exit })
        }
        rq::JobControl::Suspend => Op::Suspend(pb::Empty {}),
        rq::JobControl::Resume => Op::Resume(pb::Empty {}),
        rq::JobControl::Top => Op::Top(pb::Empty {}),
        rq::JobControl::Update(u) => Op::Update(u.as_ref().into()),
    };
    pb::JobControlRequest { job_ids: job_ids.to_vec(), op: Some(op) }
}

/// The job references and the operation of a message.
pub fn job_control(r: pb::JobControlRequest) -> Res<(Vec<String>, rq::JobControl)> {
    use pb::job_control_request::Op;
    let op = match r.op.ok_or(BAD)? {
        Op::Hold(h) => rq::JobControl::Hold { user: h.user },
        Op::Release(_) => rq::JobControl::Release,
        Op::Requeue(q) => rq::JobControl::Requeue { hold: q.hold, special_exit: q.special_exit },
        Op::Suspend(_) => rq::JobControl::Suspend,
        Op::Resume(_) => rq::JobControl::Resume,
        Op::Top(_) => rq::JobControl::Top,
        Op::Update(u) => rq::JobControl::Update(Box::new(u.try_into()?)),
    };
    Ok((r.job_ids, op))
}

// ---------------------------------------------------------------- nodes, partitions

/// What a node-control message asks.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeControl {
    Node(rq::NodeUpdate),
    Partition(rq::PartitionUpdate),
}

impl From<&rq::NodeUpdate> for pb::NodeControlRequest {
    fn from(u: &rq::NodeUpdate) -> Self {
        pb::NodeControlRequest {
            op: Some(pb::node_control_request::Op::Node(pb::NodeUpdate {
                nodes: u.nodes.clone(),
                state: u.state.map(|s| s.code()),
                reason: u.reason.clone(),
                weight: u.weight,
                available_features: u.available_features.clone(),
                active_features: u.active_features.clone(),
                unsupported: unsupported_codes(&u.unsupported, rq::UnsupportedNodeField::code),
                comment: u.comment.clone(),
                extra: u.extra.clone(),
                gres: u.gres.clone(),
                cpu_bind: u.cpu_bind,
                resume_after: u.resume_after,
                node_addr: u.node_addr.clone(),
                node_hostname: u.node_hostname.clone(),
            })),
        }
    }
}

impl From<&rq::PartitionUpdate> for pb::NodeControlRequest {
    fn from(u: &rq::PartitionUpdate) -> Self {
        pb::NodeControlRequest {
            op: Some(pb::node_control_request::Op::Partition(pb::PartitionUpdate {
                name: u.name.clone(),
                max_time: u.max_time,
                default_time: u.default_time,
                max_nodes: u.max_nodes,
                min_nodes: u.min_nodes,
                state: u.state.map(part_state_code),
                default: u.default,
                hidden: u.hidden,
                priority_tier: u.priority_tier,
                priority_job_factor: u.priority_job_factor,
                oversubscribe: u.oversubscribe.clone(),
                unsupported: unsupported_codes(&u.unsupported, rq::UnsupportedPartitionField::code),
                settings: u.settings.iter().map(|(k, v)| pb::PartSetting { key: k.code(), value: v.clone() }).collect(),
            })),
        }
    }
}

pub fn node_control(r: pb::NodeControlRequest) -> Res<NodeControl> {
    use pb::node_control_request::Op;
    Ok(match r.op.ok_or(BAD)? {
        Op::Node(n) => NodeControl::Node(rq::NodeUpdate {
            state: n.state.map(|c| rq::NodeStateChange::from_code(c).ok_or(BAD)).transpose()?,
            unsupported: from_codes(&n.unsupported, rq::UnsupportedNodeField::from_code)?,
            nodes: n.nodes,
            reason: n.reason,
            weight: n.weight,
            available_features: n.available_features,
            active_features: n.active_features,
            comment: n.comment,
            extra: n.extra,
            gres: n.gres,
            cpu_bind: n.cpu_bind,
            resume_after: n.resume_after,
            node_addr: n.node_addr,
            node_hostname: n.node_hostname,
        }),
        Op::Partition(p) => NodeControl::Partition(rq::PartitionUpdate {
            state: p.state.map(part_state).transpose()?,
            unsupported: from_codes(&p.unsupported, rq::UnsupportedPartitionField::from_code)?,
            name: p.name,
            max_time: p.max_time,
            default_time: p.default_time,
            max_nodes: p.max_nodes,
            min_nodes: p.min_nodes,
            default: p.default,
            hidden: p.hidden,
            priority_tier: p.priority_tier,
            priority_job_factor: p.priority_job_factor,
            oversubscribe: p.oversubscribe,
            settings: p
                .settings
                .into_iter()
                .map(|s| Ok((rq::PartKey::from_code(s.key).ok_or(BAD)?, s.value)))
                .collect::<Res<Vec<_>>>()?,
        }),
    })
}

// ---------------------------------------------------------------- reservations

fn name_list(l: &rq::NameList) -> pb::NameList {
    pb::NameList {
        replace: l.set.is_some(),
        set: l.set.clone().unwrap_or_default(),
        add: l.add.clone(),
        remove: l.remove.clone(),
    }
}

fn from_name_list(l: pb::NameList) -> rq::NameList {
    rq::NameList { set: if l.replace { Some(l.set) } else { None }, add: l.add, remove: l.remove }
}

fn resv_spec(s: &rq::ReservationSpec) -> pb::ReservationSpec {
    pb::ReservationSpec {
        name: s.name.clone(),
        start_time: s.start_time,
        end_time: s.end_time,
        duration: s.duration,
        users: s.users.as_ref().map(name_list),
        accounts: s.accounts.as_ref().map(name_list),
        groups: s.groups.as_ref().map(name_list),
        has_flags: s.flags.is_some(),
        flags: s.flags.clone().unwrap_or_default(),
        nodes: s.nodes.clone(),
        node_count: s.node_count,
        partition: s.partition.clone(),
        features: s.features.clone(),
        max_start_delay: s.max_start_delay,
        skip: s.skip,
        tres: s.tres.clone(),
        core_count: s.core_count,
        tres_per_node: s.tres_per_node,
    }
}

fn from_resv_spec(s: pb::ReservationSpec) -> rq::ReservationSpec {
    rq::ReservationSpec {
        name: s.name,
        start_time: s.start_time,
        end_time: s.end_time,
        duration: s.duration,
        users: s.users.map(from_name_list),
        accounts: s.accounts.map(from_name_list),
        groups: s.groups.map(from_name_list),
        flags: if s.has_flags { Some(s.flags) } else { None },
        nodes: s.nodes,
        node_count: s.node_count,
        partition: s.partition,
        features: s.features,
        max_start_delay: s.max_start_delay,
        skip: s.skip,
        tres: s.tres,
        core_count: s.core_count,
        tres_per_node: s.tres_per_node,
    }
}

impl From<&rq::ReservationRequest> for pb::ReservationRequest {
    fn from(r: &rq::ReservationRequest) -> Self {
        use pb::reservation_request::Op;
        pb::ReservationRequest {
            op: Some(match r {
                rq::ReservationRequest::Create(s) => Op::Create(resv_spec(s)),
                rq::ReservationRequest::Update(s) => Op::Update(resv_spec(s)),
                rq::ReservationRequest::Delete { name } => Op::Delete(name.clone()),
            }),
        }
    }
}

impl TryFrom<pb::ReservationRequest> for rq::ReservationRequest {
    type Error = i32;
    fn try_from(r: pb::ReservationRequest) -> Res<Self> {
        use pb::reservation_request::Op;
        Ok(match r.op.ok_or(BAD)? {
            Op::Create(s) => rq::ReservationRequest::Create(from_resv_spec(s)),
            Op::Update(s) => rq::ReservationRequest::Update(from_resv_spec(s)),
            Op::Delete(name) => rq::ReservationRequest::Delete { name },
        })
    }
}

// ---------------------------------------------------------------- membership, agents

impl From<&rq::MembershipChange> for pb::MembershipRequest {
    fn from(m: &rq::MembershipChange) -> Self {
        use pb::membership_request::Op;
        pb::MembershipRequest {
            op: Some(match m {
                rq::MembershipChange::List => Op::List(pb::Empty {}),
                rq::MembershipChange::Add { id, addr } => Op::Add(pb::AddController { id: *id, addr: addr.clone() }),
                rq::MembershipChange::Remove { id } => Op::Remove(*id),
            }),
        }
    }
}

impl TryFrom<pb::MembershipRequest> for rq::MembershipChange {
    type Error = i32;
    fn try_from(m: pb::MembershipRequest) -> Res<Self> {
        use pb::membership_request::Op;
        Ok(match m.op.ok_or(BAD)? {
            Op::List(_) => rq::MembershipChange::List,
            Op::Add(a) => rq::MembershipChange::Add { id: a.id, addr: a.addr },
            Op::Remove(id) => rq::MembershipChange::Remove { id },
        })
    }
}

impl From<pb::MembershipReply> for rq::Membership {
    fn from(r: pb::MembershipReply) -> Self {
        rq::Membership {
            members: r
                .members
                .into_iter()
                .map(|m| rq::ControllerInfo { id: m.id, addr: m.addr, voter: m.voter, leader: m.leader })
                .collect(),
            term: r.term,
        }
    }
}

impl From<pb::PingReply> for rq::PingInfo {
    fn from(r: pb::PingReply) -> Self {
        rq::PingInfo { host: r.host, role: r.role, id: r.id, leader_id: r.leader_id, leader_addr: r.leader_addr }
    }
}

impl From<&rq::NodeRegistration> for pb::RegisterRequest {
    fn from(r: &rq::NodeRegistration) -> Self {
        pb::RegisterRequest {
            node: r.node.clone(),
            cpus: r.cpus,
            sockets: r.sockets,
            cores_per_socket: r.cores_per_socket,
            threads_per_core: r.threads_per_core,
            real_memory: r.real_memory,
            boot_time: r.boot_time,
            start_time: r.start_time,
            os: r.os.clone(),
            arch: r.arch.clone(),
            version: r.version.clone(),
            running_jobs: r.running_jobs.clone(),
            cpu_load: r.cpu_load,
            free_mem: r.free_mem,
            heartbeat: r.heartbeat,
        }
    }
}

impl From<&rq::JobCompletion> for pb::JobCompleteRequest {
    fn from(r: &rq::JobCompletion) -> Self {
        pb::JobCompleteRequest {
            job_id: r.job_id,
            node: r.node.clone(),
            exit_status: r.exit_status,
            launch_failed: r.launch_failed,
            message: r.message.clone(),
            restarts: r.restarts,
            usage: r.usage.as_ref().map(step_node_usage),
        }
    }
}

/// Copy every measure of a step's node usage between the model and the
/// message (their fields have the same names and types).
macro_rules! copy_usage {
    ($from:expr, $to:expr) => {
        $to.ntasks = $from.ntasks;
        $to.user_us = $from.user_us;
        $to.sys_us = $from.sys_us;
        $to.min_cpu_us = $from.min_cpu_us;
        $to.min_cpu_task = $from.min_cpu_task;
        $to.max_rss_kb = $from.max_rss_kb;
        $to.max_rss_task = $from.max_rss_task;
        $to.tot_rss_kb = $from.tot_rss_kb;
        $to.max_vmsize_kb = $from.max_vmsize_kb;
        $to.max_vmsize_task = $from.max_vmsize_task;
        $to.tot_vmsize_kb = $from.tot_vmsize_kb;
        $to.max_pages = $from.max_pages;
        $to.max_pages_task = $from.max_pages_task;
        $to.tot_pages = $from.tot_pages;
        $to.max_read_bytes = $from.max_read_bytes;
        $to.max_read_task = $from.max_read_task;
        $to.tot_read_bytes = $from.tot_read_bytes;
        $to.max_write_bytes = $from.max_write_bytes;
        $to.max_write_task = $from.max_write_task;
        $to.tot_write_bytes = $from.tot_write_bytes;
    };
}

/// A step daemon's summary of its node, for `StepCompleteRequest.usage`.
pub fn step_node_usage(u: &spur_core::usage::NodeUsage) -> pb::StepNodeUsage {
    let mut m = pb::StepNodeUsage::default();
    copy_usage!(u, m);
    m
}

/// The model of `StepCompleteRequest.usage`, reported by `node`'s agent.
pub fn node_usage(node: &str, m: &pb::StepNodeUsage) -> spur_core::usage::NodeUsage {
    let mut u = spur_core::usage::NodeUsage { node: node.to_string(), ..Default::default() };
    copy_usage!(m, u);
    u
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_survive_the_wire() {
        let u = rq::JobUpdate {
            time_limit: Some(rq::INFINITE),
            partition: Some("p".into()),
            exc_nodes: Some(String::new()),
            begin_time: Some(1_700_000_000),
            unsupported: vec![rq::UnsupportedJobField::Account, rq::UnsupportedJobField::MailUser],
            ..Default::default()
        };
        for op in [
            rq::JobControl::Hold { user: true },
            rq::JobControl::Requeue { hold: true, special_exit: false },
            rq::JobControl::Top,
            rq::JobControl::Update(Box::new(u)),
        ] {
            let ids = vec!["7".to_string(), "8_[1-2]".to_string()];
            assert_eq!(job_control(job_control_request(&ids, &op)).unwrap(), (ids, op));
        }
        let n = rq::NodeUpdate {
            nodes: "n[1-2]".into(),
            state: Some(rq::NodeStateChange::PowerDownAsap),
            reason: Some("r".into()),
            unsupported: vec![rq::UnsupportedNodeField::Gres],
            comment: Some(String::new()),
            extra: Some("e".into()),
            gres: Some("gpu:1".into()),
            cpu_bind: Some(4),
            resume_after: Some(rq::INFINITE),
            node_addr: Some("a".into()),
            node_hostname: Some("h".into()),
            ..Default::default()
        };
        assert_eq!(node_control((&n).into()).unwrap(), NodeControl::Node(n));
        let p = rq::PartitionUpdate {
            name: "p".into(),
            state: Some(PartState::Drain),
            max_nodes: Some(rq::INFINITE),
            ..Default::default()
        };
        assert_eq!(node_control((&p).into()).unwrap(), NodeControl::Partition(p));
        let r = rq::ReservationRequest::Update(rq::ReservationSpec {
            name: "r".into(),
            users: Some(rq::NameList { set: None, add: vec!["a".into()], remove: vec!["b".into()] }),
            flags: Some(vec![]),
            ..Default::default()
        });
        assert_eq!(rq::ReservationRequest::try_from(pb::ReservationRequest::from(&r)).unwrap(), r);
        let c = rq::CancelRequest {
            states: vec![JobState::OutOfMemory, JobState::Pending],
            user: Some("u".into()),
            ..Default::default()
        };
        assert_eq!(rq::CancelRequest::try_from(pb::CancelRequest::from(&c)).unwrap(), c);
        for m in [
            rq::MembershipChange::List,
            rq::MembershipChange::Add { id: 4, addr: "h:1".into() },
            rq::MembershipChange::Remove { id: 2 },
        ] {
            assert_eq!(rq::MembershipChange::try_from(pb::MembershipRequest::from(&m)).unwrap(), m);
        }
    }

    #[test]
    fn messages_no_spur_sends_are_refused() {
        assert_eq!(job_control(pb::JobControlRequest::default()), Err(BAD));
        assert_eq!(node_control(pb::NodeControlRequest::default()), Err(BAD));
        assert_eq!(rq::MembershipChange::try_from(pb::MembershipRequest::default()), Err(BAD));
        let mut u = pb::JobUpdate { unsupported: vec![999], ..Default::default() };
        assert!(rq::JobUpdate::try_from(u.clone()).is_err());
        u.unsupported.clear();
        assert!(rq::JobUpdate::try_from(u).is_ok());
        assert!(job_state(0).is_err() && job_state(14).is_err() && job_state(-1).is_err());
        let n = pb::NodeControlRequest {
            op: Some(pb::node_control_request::Op::Node(pb::NodeUpdate { state: Some(0), ..Default::default() })),
        };
        assert!(node_control(n).is_err());
    }

    #[test]
    fn step_node_usage_round_trips() {
        let u = spur_core::usage::NodeUsage {
            node: "n3".into(),
            ntasks: 2,
            user_us: 1,
            max_rss_kb: 77,
            max_rss_task: 1,
            tot_write_bytes: u64::MAX,
            ..Default::default()
        };
        assert_eq!(node_usage("n3", &step_node_usage(&u)), u);
    }
}
