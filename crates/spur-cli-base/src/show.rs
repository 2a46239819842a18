//! `scontrol show`'s records as Slurm prints them, from the values Slurm's
//! own record holds (libslurm's `job_info_t` and its kin): one renderer that
//! `scontrol show job` feeds from Spur's model and libspur_compat's
//! `slurm_sprint_job_info` from the C record a caller hands it, so that the
//! command and the library cannot disagree.
//!
//! The records keep Slurm's unset values (`NO_VAL`, `NO_VAL16`, `INFINITE`)
//! where Slurm's printing looks at them; texts Slurm takes from a table or the
//! system (state and reason names, user and group names, output paths) come
//! resolved.

use crate::format::{convert_num_unit, time_str};
use spur_grammar::time::{fmt_limit_scontrol, fmt_secs_scontrol};

pub const NO_VAL: u32 = 0xffff_fffe;
pub const NO_VAL16: u16 = 0xfffe;
pub const INFINITE: u32 = 0xffff_ffff;
pub const INFINITE16: u16 = 0xffff;
/// `pn_min_memory`'s per-CPU flag.
pub const MEM_PER_CPU: u64 = 0x8000_0000_0000_0000;
const CORE_SPEC_THREAD: u16 = 0x8000;

/// Where a job is, as the run time reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum JobPhase {
    #[default]
    Pending,
    Running,
    Suspended,
    /// Ended (or anything else).
    Other,
}

/// One node group's line of a detailed record (`  Nodes=... CPU_IDs=...`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeDetail {
    pub node: String,
    pub cpu_ids: String,
    /// `None`: the record has no memory array (`Mem=0`).
    pub mem: Option<u64>,
    pub gres: String,
}

/// The job flags the record prints (`bitflags`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct JobFlags {
    pub cron_job: bool,
    pub backfill_sched: bool,
    pub backfill_last: bool,
    pub gres_disable_bind: bool,
    pub gres_enforce_bind: bool,
    pub kill_inv_dep: bool,
    pub no_kill_inv_dep: bool,
    pub spread_job: bool,
}

/// What `scontrol show job` prints of a job: Slurm's `job_info_t`.
#[derive(Debug, Clone, Default)]
pub struct JobInfo {
    pub job_id: u32,
    pub array_job_id: u32,
    pub array_task_id: u32,
    pub array_task_str: Option<String>,
    pub array_max_tasks: u32,
    pub het_job_id: u32,
    pub het_job_offset: u32,
    pub het_job_id_set: Option<String>,
    pub name: Option<String>,
    /// The user's and group's names (Slurm's uid_to_string).
    pub user: String,
    pub user_id: u32,
    pub group: String,
    pub group_id: u32,
    pub mcs_label: Option<String>,
    pub priority: u32,
    /// Nice, without Slurm's offset.
    pub nice: i64,
    pub account: Option<String>,
    pub qos: Option<String>,
    /// `Some` when the cluster tracks WCKeys (the value may be NULL).
    pub wckey: Option<Option<String>>,
    pub state: String,
    pub phase: JobPhase,
    /// The reason as printed (state_desc, blanks made `_`, or the reason's name).
    pub reason: String,
    pub dependency: Option<String>,
    pub requeue: u16,
    pub restart_cnt: u16,
    pub batch_flag: u16,
    pub reboot: u8,
    pub exit_code: u32,
    /// `Some` for a detailed record (SHOW_DETAIL).
    pub derived_ec: Option<u32>,
    pub time_limit: u32,
    pub time_min: u32,
    pub submit_time: i64,
    pub eligible_time: i64,
    pub accrue_time: i64,
    pub resize_time: i64,
    pub start_time: i64,
    pub end_time: i64,
    pub deadline: i64,
    pub cronspec: Option<String>,
    pub preemptable_time: i64,
    pub preempt_time: i64,
    pub suspend_time: i64,
    pub pre_sus_time: i64,
    pub last_sched_eval: i64,
    pub flags: JobFlags,
    pub partition: Option<String>,
    pub alloc_node: Option<String>,
    pub alloc_sid: u32,
    pub req_nodes: Option<String>,
    pub exc_nodes: Option<String>,
    /// The node list, sorted (slurm_sort_node_list_str).
    pub nodes: String,
    pub sched_nodes: Option<String>,
    pub batch_features: Option<String>,
    pub batch_host: Option<String>,
    /// Origin, viable and active siblings of a federated job.
    pub fed: Option<(Option<String>, Option<String>, Option<String>)>,
    pub num_nodes: u32,
    pub max_nodes: u32,
    pub num_cpus: u32,
    pub max_cpus: u32,
    pub num_tasks: u32,
    pub cpus_per_task: u16,
    pub boards_per_node: u16,
    pub sockets_per_board: u16,
    pub cores_per_socket: u16,
    pub threads_per_core: u16,
    pub tres_req: Option<String>,
    pub tres_alloc: Option<String>,
    pub sockets_per_node: u16,
    pub ntasks_per_node: u16,
    pub ntasks_per_board: u16,
    pub ntasks_per_socket: u16,
    pub ntasks_per_core: u16,
    pub core_spec: u16,
    /// A detailed record's `JOB_GRES=` and node lines.
    pub details: Option<(Option<String>, Vec<NodeDetail>)>,
    pub pn_min_cpus: u16,
    /// With [`MEM_PER_CPU`] for a per-CPU amount.
    pub pn_min_memory: u64,
    pub pn_min_tmp_disk: u32,
    pub features: Option<String>,
    pub delay_boot: u32,
    pub cluster_features: Option<String>,
    pub prefer: Option<String>,
    pub resv_name: Option<String>,
    pub shared: u16,
    pub contiguous: u16,
    pub licenses: Option<String>,
    pub network: Option<String>,
    pub command: Option<String>,
    pub work_dir: Option<String>,
    pub admin_comment: Option<String>,
    pub system_comment: Option<String>,
    pub comment: Option<String>,
    pub extra: Option<String>,
    /// A batch job's stderr, stdin and stdout paths.
    pub std_paths: Option<(String, String, String)>,
    pub req_switch: u32,
    pub wait4switch: u32,
    pub burst_buffer: Option<String>,
    pub burst_buffer_state: Option<String>,
    pub cpu_freq_min: u32,
    pub cpu_freq_max: u32,
    pub cpu_freq_gov: u32,
    pub power_flags: u8,
    pub cpus_per_tres: Option<String>,
    pub mem_per_tres: Option<String>,
    pub tres_bind: Option<String>,
    pub tres_freq: Option<String>,
    pub tres_per_job: Option<String>,
    pub tres_per_node: Option<String>,
    pub tres_per_socket: Option<String>,
    pub tres_per_task: Option<String>,
    pub mail_user: Option<String>,
    /// The mail types as printed (see [`mail_type_text`]); `None`: no mail.
    pub mail_type: Option<String>,
    pub ntasks_per_tres: u16,
    pub container: Option<String>,
    pub selinux_context: Option<String>,
}

/// A C string field as Slurm's `%s` prints it.
pub fn or_null(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("(null)")
}

/// The `mail_type` bits' names (Slurm's print_mail_type).
pub fn mail_type_text(bits: u16) -> String {
    if bits == 0 {
        return "NONE".into();
    }
    let names: [(u16, &str); 11] = [
        (0x200, "ARRAY_TASKS"),
        (0x400, "INVALID_DEPEND"),
        (0x1, "BEGIN"),
        (0x2, "END"),
        (0x4, "FAIL"),
        (0x8, "REQUEUE"),
        (0x100, "STAGE_OUT"),
        (0x80, "TIME_LIMIT_50"),
        (0x40, "TIME_LIMIT_80"),
        (0x20, "TIME_LIMIT_90"),
        (0x10, "TIME_LIMIT"),
    ];
    names.iter().filter(|(b, _)| bits & b != 0).map(|(_, n)| *n).collect::<Vec<_>>().join(",")
}

/// `mail_type` bits of a `--mail-type` list (Slurm's parse_mail_type).
pub fn mail_bits(list: &str) -> u16 {
    let mut bits = 0u16;
    for tok in list.split(',') {
        bits |= match tok.to_ascii_uppercase().as_str() {
            "NONE" => return 0,
            "BEGIN" => 0x1,
            "END" => 0x2,
            "FAIL" => 0x4,
            "REQUEUE" => 0x8,
            "ALL" => 0x1 | 0x2 | 0x4 | 0x8 | 0x100 | 0x400,
            "TIME_LIMIT" => 0x10,
            "TIME_LIMIT_90" => 0x20,
            "TIME_LIMIT_80" => 0x40,
            "TIME_LIMIT_50" => 0x80,
            "STAGE_OUT" => 0x100,
            "ARRAY_TASKS" => 0x200,
            "INVALID_DEPEND" => 0x400,
            _ => 0,
        };
    }
    bits
}

/// A job's `shared` value's name (Slurm's job_share_string; `TOPO`
/// since 23.11).
pub fn job_share_text(shared: u16) -> &'static str {
    match shared {
        0 => "NO",
        1 => "YES",
        2 => "USER",
        3 => "MCS",
        4 if spur_core::compat::release() != spur_core::compat::Release::V22_05 => "TOPO",
        _ => "OK",
    }
}

/// The `shared` value of an `--oversubscribe`/`--exclusive` text (`NO`,
/// `YES`, `USER`, `MCS`, `TOPO`; anything else unset).
pub fn job_share_value(text: &str) -> u16 {
    match text {
        "NO" => 0,
        "YES" => 1,
        "USER" => 2,
        "MCS" => 3,
        "TOPO" => 4,
        _ => NO_VAL16,
    }
}

/// A CPU frequency or governor (Slurm's cpu_freq_to_string).
fn cpu_freq_text(v: u32) -> String {
    match v {
        0x8000_0001 => "Low".into(),
        0x8000_0002 => "Medium".into(),
        0x8000_0004 => "Highm1".into(),
        0x8000_0003 => "High".into(),
        0x8800_0000 => "Conservative".into(),
        0x8200_0000 => "Performance".into(),
        0x8100_0000 => "PowerSave".into(),
        0x8080_0000 => "UserSpace".into(),
        0x8400_0000 => "OnDemand".into(),
        0x8040_0000 => "SchedUtil".into(),
        v if v & 0x8000_0000 != 0 => "Unknown".into(),
        NO_VAL => String::new(),
        v => convert_num_unit(v as f64, 1),
    }
}

/// The requested CPU frequencies as Slurm's cpu_freq_debug writes them
/// (no label, no current frequency); `None` when none is set.
pub fn cpu_freq_line(min: u32, max: u32, gov: u32) -> Option<String> {
    let set = |v: u32| v != NO_VAL && v != 0;
    if !set(min) && !set(max) && !set(gov) {
        return None;
    }
    let one = |v: u32, key: &str| {
        if v & 0x8000_0000 != 0 {
            format!("{}={}", key, cpu_freq_text(v))
        } else {
            format!("{}={}", key, v)
        }
    };
    // (each set frequency is followed by a blank, the governor is last)
    let mut o = String::new();
    if set(min) {
        o.push_str(&one(min, "CPU_min_freq"));
        o.push(' ');
    }
    if set(max) {
        o.push_str(&one(max, "CPU_max_freq"));
        o.push(' ');
    }
    if set(gov) {
        o.push_str(&format!("Governor={}", cpu_freq_text(gov)));
    }
    Some(o)
}

/// A number or a range `LOW-HIGH` (Slurm's _sprint_range).
fn range(lo: u32, hi: u32) -> String {
    if hi > 0 {
        format!("{}-{}", lo, hi)
    } else {
        lo.to_string()
    }
}

/// A wait status's `EXIT:SIGNAL`.
fn exit_text(status: u32) -> String {
    let (rc, sig) = crate::records::exit_parts(status as i32);
    format!("{}:{}", rc, sig)
}

/// `N` or `*` for an unset count.
fn star16(v: u16, unset_too: u16) -> String {
    if v == NO_VAL16 || v == unset_too {
        "*".into()
    } else {
        v.to_string()
    }
}

/// One job as Slurm 22.05's slurm_sprint_job_info (24.11: scontrol's own)
/// prints it; `now` for the run time of a running job. `None` for a
/// record of job id 0 (a federation's duplicate sibling).
pub fn sprint_job(j: &JobInfo, one_liner: bool, now: i64) -> Option<String> {
    if j.job_id == 0 {
        return None;
    }
    let profile = spur_core::compat::profile();
    let le = if one_liner { " " } else { "\n   " };
    let s = or_null;
    let mut o = format!("JobId={} ", j.job_id);
    if j.array_job_id != 0 {
        match &j.array_task_str {
            Some(t) => o.push_str(&format!("ArrayJobId={} ArrayTaskId={} ", j.array_job_id, t)),
            None => o.push_str(&format!("ArrayJobId={} ArrayTaskId={} ", j.array_job_id, j.array_task_id)),
        }
        if j.array_max_tasks != 0 {
            o.push_str(&format!("ArrayTaskThrottle={} ", j.array_max_tasks));
        }
    } else if j.het_job_id != 0 {
        o.push_str(&format!("HetJobId={} HetJobOffset={} ", j.het_job_id, j.het_job_offset));
    }
    o.push_str(&format!("JobName={}", s(&j.name)));
    o.push_str(le);
    if let Some(h) = &j.het_job_id_set {
        o.push_str(&format!("HetJobIdSet={}", h));
        o.push_str(le);
    }
    o.push_str(&format!(
        "UserId={}({}) GroupId={}({}) MCS_label={}",
        j.user,
        j.user_id,
        j.group,
        j.group_id,
        j.mcs_label.as_deref().unwrap_or("N/A")
    ));
    o.push_str(le);
    o.push_str(&format!("Priority={} Nice={} Account={} QOS={}", j.priority, j.nice, s(&j.account), s(&j.qos)));
    if let Some(w) = &j.wckey {
        o.push_str(&format!(" WCKey={}", s(w)));
    }
    o.push_str(le);
    o.push_str(&format!("JobState={} Reason={} Dependency={}", j.state, j.reason, s(&j.dependency)));
    o.push_str(le);
    o.push_str(&format!(
        "Requeue={} Restarts={} BatchFlag={} Reboot={} ExitCode={}",
        j.requeue,
        j.restart_cnt,
        j.batch_flag,
        j.reboot,
        exit_text(j.exit_code)
    ));
    o.push_str(le);
    if let Some(d) = j.derived_ec {
        o.push_str(&format!("DerivedExitCode={}", exit_text(d)));
        o.push_str(le);
    }
    let run = match j.phase {
        JobPhase::Pending => 0,
        JobPhase::Suspended => j.pre_sus_time,
        _ => {
            let end = if j.phase == JobPhase::Running || j.end_time == 0 { now } else { j.end_time };
            if j.suspend_time != 0 {
                end - j.suspend_time + j.pre_sus_time
            } else {
                end - j.start_time
            }
        }
    };
    o.push_str(&format!("RunTime={} ", secs_text(run)));
    if j.time_limit == NO_VAL {
        o.push_str("TimeLimit=Partition_Limit ");
    } else {
        o.push_str(&format!("TimeLimit={} ", mins_text(j.time_limit)));
    }
    if j.time_min == 0 {
        o.push_str("TimeMin=N/A");
    } else {
        o.push_str(&format!("TimeMin={}", mins_text(j.time_min)));
    }
    o.push_str(le);
    o.push_str(&format!("SubmitTime={} EligibleTime={}", time_str(j.submit_time), time_str(j.eligible_time)));
    o.push_str(le);
    o.push_str(&format!("AccrueTime={}", time_str(j.accrue_time)));
    o.push_str(le);
    if j.resize_time != 0 {
        o.push_str(&format!("ResizeTime={}", time_str(j.resize_time)));
        o.push_str(le);
    }
    o.push_str(&format!("StartTime={} ", time_str(j.start_time)));
    if j.time_limit == INFINITE && j.end_time > now {
        o.push_str("EndTime=Unknown ");
    } else {
        o.push_str(&format!("EndTime={} ", time_str(j.end_time)));
    }
    if j.deadline != 0 {
        o.push_str(&format!("Deadline={}", time_str(j.deadline)));
    } else {
        o.push_str("Deadline=N/A");
    }
    o.push_str(le);
    if j.flags.cron_job || j.cronspec.is_some() {
        if j.flags.cron_job {
            o.push_str("CronJob=Yes ");
        }
        o.push_str(&format!("CrontabSpec=\"{}\"", s(&j.cronspec)));
        o.push_str(le);
    }
    if j.preemptable_time != 0 {
        o.push_str(&format!("PreemptEligibleTime={} ", time_str(j.preemptable_time)));
        if j.preempt_time == 0 {
            o.push_str("PreemptTime=None");
        } else {
            o.push_str(&format!("PreemptTime={}", time_str(j.preempt_time)));
        }
        o.push_str(le);
    }
    if j.suspend_time != 0 {
        o.push_str(&format!("SuspendTime={} ", time_str(j.suspend_time)));
    } else {
        o.push_str("SuspendTime=None ");
    }
    o.push_str(&format!(
        "SecsPreSuspend={} LastSchedEval={} Scheduler={}{}",
        j.pre_sus_time,
        time_str(j.last_sched_eval),
        if j.flags.backfill_sched { "Backfill" } else { "Main" },
        if j.flags.backfill_last { ":*" } else { "" }
    ));
    o.push_str(le);
    o.push_str(&format!("Partition={} AllocNode:Sid={}:{}", s(&j.partition), s(&j.alloc_node), j.alloc_sid));
    o.push_str(le);
    o.push_str(&format!("ReqNodeList={} ExcNodeList={}", s(&j.req_nodes), s(&j.exc_nodes)));
    o.push_str(le);
    o.push_str(&format!("NodeList={}", j.nodes));
    if let Some(n) = &j.sched_nodes {
        o.push_str(&format!(" SchedNodeList={}", n));
    }
    o.push_str(le);
    if let Some(f) = &j.batch_features {
        o.push_str(&format!("BatchFeatures={}", f));
    }
    if let Some(h) = &j.batch_host {
        o.push_str(&format!("{}BatchHost={}", if j.batch_features.is_some() { " " } else { "" }, h));
    }
    if j.batch_features.is_some() || j.batch_host.is_some() {
        o.push_str(le);
    }
    if let Some((origin, viable, active)) = &j.fed {
        o.push_str(&format!("FedOrigin={} FedViableSiblings={} FedActiveSiblings={}", s(origin), s(viable), s(active)));
        o.push_str(le);
    }
    let (min_nodes, max_nodes) = if j.phase == JobPhase::Pending {
        let max = j.max_nodes;
        (if max != 0 && max < j.num_nodes { max } else { j.num_nodes }, max)
    } else {
        (j.num_nodes, 0)
    };
    o.push_str(&format!("NumNodes={} NumCPUs={} ", range(min_nodes, max_nodes), range(j.num_cpus, j.max_cpus)));
    if j.num_tasks == NO_VAL {
        o.push_str("NumTasks=N/A ");
    } else {
        o.push_str(&format!("NumTasks={} ", j.num_tasks));
    }
    if j.cpus_per_task == NO_VAL16 {
        o.push_str("CPUs/Task=N/A ");
    } else {
        o.push_str(&format!("CPUs/Task={} ", j.cpus_per_task));
    }
    o.push_str(&format!(
        "ReqB:S:C:T={}:{}:{}:{}",
        star16(j.boards_per_node, NO_VAL16),
        star16(j.sockets_per_board, NO_VAL16),
        star16(j.cores_per_socket, NO_VAL16),
        star16(j.threads_per_core, NO_VAL16)
    ));
    o.push_str(le);
    if profile.show_job_single_tres_line {
        o.push_str(&format!("TRES={}", s(if j.tres_alloc.is_some() { &j.tres_alloc } else { &j.tres_req })));
        o.push_str(le);
    } else {
        o.push_str(&format!("ReqTRES={}", s(&j.tres_req)));
        o.push_str(le);
        o.push_str(&format!("AllocTRES={}", s(&j.tres_alloc)));
        o.push_str(le);
    }
    o.push_str(&format!(
        "Socks/Node={} NtasksPerN:B:S:C={}:{}:{}:{} ",
        star16(j.sockets_per_node, NO_VAL16),
        star16(j.ntasks_per_node, NO_VAL16),
        star16(j.ntasks_per_board, NO_VAL16),
        star16(j.ntasks_per_socket, INFINITE16),
        star16(j.ntasks_per_core, INFINITE16)
    ));
    if j.core_spec == NO_VAL16 {
        o.push_str("CoreSpec=*");
    } else if j.core_spec & CORE_SPEC_THREAD != 0 {
        o.push_str(&format!("ThreadSpec={}", j.core_spec & !CORE_SPEC_THREAD));
    } else {
        o.push_str(&format!("CoreSpec={}", j.core_spec));
    }
    o.push_str(le);
    if let Some((gres_total, nodes)) = &j.details {
        o.push_str(&format!("JOB_GRES={}", s(gres_total)));
        o.push_str(le);
        // consecutive nodes with the same CPUs, GRES and memory on one line
        let mut groups: Vec<(Vec<String>, &NodeDetail)> = Vec::new();
        for n in nodes {
            match groups.last_mut() {
                Some((names, last)) if last.cpu_ids == n.cpu_ids && last.gres == n.gres && last.mem == n.mem => {
                    names.push(n.node.clone())
                }
                _ => groups.push((vec![n.node.clone()], n)),
            }
        }
        for (names, n) in groups {
            o.push_str(&format!(
                "  Nodes={} CPU_IDs={} Mem={} GRES={}",
                spur_grammar::hostlist::compress(&names),
                n.cpu_ids,
                n.mem.unwrap_or(0),
                n.gres
            ));
            o.push_str(le);
        }
    }
    let (kind, mem) = if j.pn_min_memory & MEM_PER_CPU != 0 {
        ("CPU", j.pn_min_memory & !MEM_PER_CPU)
    } else {
        ("Node", j.pn_min_memory)
    };
    o.push_str(&format!(
        "MinCPUsNode={} MinMemory{}={} MinTmpDiskNode={}",
        j.pn_min_cpus,
        kind,
        convert_num_unit(mem as f32 as f64, 2),
        convert_num_unit(j.pn_min_tmp_disk as f32 as f64, 2)
    ));
    o.push_str(le);
    o.push_str(&format!("Features={} DelayBoot={}", s(&j.features), secs_text(j.delay_boot as i64)));
    o.push_str(le);
    for (key, v) in [("ClusterFeatures", &j.cluster_features), ("Prefer", &j.prefer), ("Reservation", &j.resv_name)] {
        if let Some(v) = v {
            o.push_str(&format!("{}={}", key, v));
            o.push_str(le);
        }
    }
    o.push_str(&format!(
        "OverSubscribe={} Contiguous={} Licenses={} Network={}",
        job_share_text(j.shared),
        j.contiguous,
        s(&j.licenses),
        s(&j.network)
    ));
    o.push_str(le);
    o.push_str(&format!("Command={}", s(&j.command)));
    o.push_str(le);
    o.push_str(&format!("WorkDir={}", s(&j.work_dir)));
    for (key, v) in [
        ("AdminComment", &j.admin_comment),
        ("SystemComment", &j.system_comment),
        ("Comment", &j.comment),
        ("Extra", &j.extra),
    ] {
        if let Some(v) = v {
            o.push_str(le);
            o.push_str(&format!("{}={} ", key, v));
        }
    }
    if let Some((err, inp, out)) = &j.std_paths {
        for (key, v) in [("StdErr", err), ("StdIn", inp), ("StdOut", out)] {
            o.push_str(le);
            o.push_str(&format!("{}={}", key, v));
        }
    }
    if j.req_switch != 0 {
        o.push_str(le);
        o.push_str(&format!("Switches={}@{}", j.req_switch, secs_text(j.wait4switch as i64)));
    }
    for (key, v) in [("BurstBuffer", &j.burst_buffer), ("BurstBufferState", &j.burst_buffer_state)] {
        if let Some(v) = v {
            o.push_str(le);
            o.push_str(&format!("{}={}", key, v));
        }
    }
    if let Some(f) = cpu_freq_line(j.cpu_freq_min, j.cpu_freq_max, j.cpu_freq_gov) {
        o.push_str(le);
        o.push_str(&f);
    }
    if profile.show_job_power_line {
        o.push_str(le);
        o.push_str(if j.power_flags & 1 != 0 { "Power=LEVEL" } else { "Power=" });
    }
    let fl = &j.flags;
    if fl.gres_disable_bind || fl.gres_enforce_bind || fl.kill_inv_dep || fl.no_kill_inv_dep || fl.spread_job {
        o.push_str(le);
        for (on, text) in [
            (fl.gres_disable_bind, "GresEnforceBind=No"),
            (fl.gres_enforce_bind, "GresEnforceBind=Yes"),
            (fl.kill_inv_dep, "KillOInInvalidDependent=Yes"),
            (fl.no_kill_inv_dep, "KillOInInvalidDependent=No"),
            (fl.spread_job, "SpreadJob=Yes"),
        ] {
            if on {
                o.push_str(text);
            }
        }
    }
    for (key, v) in [
        ("CpusPerTres", &j.cpus_per_tres),
        ("MemPerTres", &j.mem_per_tres),
        ("TresBind", &j.tres_bind),
        ("TresFreq", &j.tres_freq),
        ("TresPerJob", &j.tres_per_job),
        ("TresPerNode", &j.tres_per_node),
        ("TresPerSocket", &j.tres_per_socket),
        ("TresPerTask", &j.tres_per_task),
    ] {
        if let Some(v) = v {
            o.push_str(le);
            o.push_str(&format!("{}={}", key, v));
        }
    }
    if let (Some(t), Some(u)) = (&j.mail_type, &j.mail_user) {
        o.push_str(le);
        o.push_str(&format!("MailUser={} MailType={}", u, t));
    }
    if j.ntasks_per_tres != 0 && j.ntasks_per_tres != NO_VAL16 && j.ntasks_per_tres != INFINITE16 {
        o.push_str(le);
        o.push_str(&format!("NtasksPerTRES={}", j.ntasks_per_tres));
    }
    for (key, v) in [("Container", &j.container), ("SELinuxContext", &j.selinux_context)] {
        if let Some(v) = v {
            o.push_str(le);
            o.push_str(&format!("{}={}", key, v));
        }
    }
    o.push_str(le);
    o.push_str(if one_liner { "\n" } else { "\n\n" });
    Some(o)
}

/// Seconds as Slurm's secs2time_str writes them (`UNLIMITED` for INFINITE).
pub fn secs_text(secs: i64) -> String {
    if secs == INFINITE as i64 {
        "UNLIMITED".into()
    } else {
        fmt_secs_scontrol(secs)
    }
}

/// Minutes as Slurm's mins2time_str writes them (`UNLIMITED` for INFINITE
/// and NO_VAL).
pub fn mins_text(mins: u32) -> String {
    fmt_limit_scontrol((mins != INFINITE && mins != NO_VAL).then_some(mins))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mail_types_print_in_slurms_order() {
        assert_eq!(mail_type_text(0), "NONE");
        assert_eq!(mail_type_text(mail_bits("end,begin")), "BEGIN,END");
        assert_eq!(mail_type_text(mail_bits("ALL")), "INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT");
        assert_eq!(mail_type_text(0x10 | 0x80 | 0x200), "ARRAY_TASKS,TIME_LIMIT_50,TIME_LIMIT");
    }

    #[test]
    fn cpu_frequencies_print_as_cpu_freq_debug() {
        assert_eq!(cpu_freq_line(NO_VAL, NO_VAL, NO_VAL), None);
        assert_eq!(cpu_freq_line(0, 0, 0), None);
        assert_eq!(cpu_freq_line(1000, 2000, NO_VAL).as_deref(), Some("CPU_min_freq=1000 CPU_max_freq=2000 "));
        assert_eq!(
            cpu_freq_line(NO_VAL, 0x8000_0003, 0x8200_0000).as_deref(),
            Some("CPU_max_freq=High Governor=Performance")
        );
    }

    #[test]
    fn a_record_of_job_id_0_prints_nothing() {
        assert_eq!(sprint_job(&JobInfo::default(), false, 0), None);
    }
}
