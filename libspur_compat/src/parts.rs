//! Partitions: `slurm_load_partitions`, `partition_info_t` as slurmctld
//! packs it (partition_mgr.c `pack_part`), and partition updates through
//! spur-client (`scontrol update PartitionName=`'s request).
//!
//! Every pointer of a record is its own xmalloc'ed block; `node_inx` is
//! never NULL and ends with -1.

use crate::nodes::{bit, SHOW_ALL};
use crate::sys;
use crate::xmalloc::{xalloc, xfree, xindex, xnew, xstr_nonempty, xstr_opt, xstrdup};
use spur_core::model::{ClusterView, MemLimit, PartState, Partition};
use spur_core::request::{PartKey, PartitionUpdate, INFINITE};
use std::ffi::{c_char, c_int};

// partition flags (SLURM_BIT(n) in both releases)
pub(crate) const PART_FLAG_DEFAULT: u32 = bit(0);
pub(crate) const PART_FLAG_HIDDEN: u32 = bit(1);
pub(crate) const PART_FLAG_NO_ROOT: u32 = bit(2);
pub(crate) const PART_FLAG_ROOT_ONLY: u32 = bit(3);
pub(crate) const PART_FLAG_REQ_RESV: u32 = bit(4);
pub(crate) const PART_FLAG_LLN: u32 = bit(5);
pub(crate) const PART_FLAG_EXCLUSIVE_USER: u32 = bit(6);
pub(crate) const PART_FLAG_DEFAULT_CLR: u32 = bit(8);
pub(crate) const PART_FLAG_HIDDEN_CLR: u32 = bit(9);
pub(crate) const PART_FLAG_NO_ROOT_CLR: u32 = bit(10);
pub(crate) const PART_FLAG_ROOT_ONLY_CLR: u32 = bit(11);
pub(crate) const PART_FLAG_REQ_RESV_CLR: u32 = bit(12);
pub(crate) const PART_FLAG_LLN_CLR: u32 = bit(13);
pub(crate) const PART_FLAG_EXC_USER_CLR: u32 = bit(14);

const MEM_PER_CPU: u64 = 1 << 63;
const SHARED_FORCE: u16 = 0x8000;

/// Slurm's `node_inx` of a set of nodes: index ranges into the view's
/// node order, as pairs.
pub fn index_pairs(names: &[String], view: &ClusterView) -> Vec<(i32, i32)> {
    let mut pairs: Vec<(i32, i32)> = Vec::new();
    for (i, n) in view.nodes.iter().enumerate() {
        if !names.contains(&n.name) {
            continue;
        }
        let i = i as i32;
        match pairs.last_mut() {
            Some(last) if last.1 + 1 == i => last.1 = i,
            _ => pairs.push((i, i)),
        }
    }
    pairs
}

/// `OverSubscribe=` as slurmctld keeps it in max_share.
pub fn max_share(o: &str) -> u16 {
    let o = o.to_ascii_uppercase();
    let (word, n) = match o.split_once(':') {
        Some((w, n)) => (w.to_string(), n.parse::<u16>().ok()),
        None => (o.clone(), None),
    };
    match word.as_str() {
        "EXCLUSIVE" => 0,
        "YES" => n.unwrap_or(4),
        "FORCE" => n.unwrap_or(4) | SHARED_FORCE,
        _ => 1,
    }
}

/// max_share as `OverSubscribe=` (the request's form).
fn oversubscribe_text(m: u16) -> String {
    if m & SHARED_FORCE != 0 {
        format!("FORCE:{}", m & !SHARED_FORCE)
    } else if m == 0 {
        "EXCLUSIVE".into()
    } else if m > 1 {
        format!("YES:{}", m)
    } else {
        "NO".into()
    }
}

const PREEMPT: [(&str, u16); 6] =
    [("OFF", 0), ("SUSPEND", 1), ("REQUEUE", 2), ("CANCEL", 8), ("WITHIN", 0x4000), ("GANG", 0x8000)];

/// A `PreemptMode=` text as slurmctld's bits.
pub fn preempt_bits(v: &str) -> u16 {
    v.split(',').filter_map(|w| PREEMPT.iter().find(|(n, _)| n.eq_ignore_ascii_case(w)).map(|(_, b)| *b)).sum()
}

fn preempt_text(b: u16) -> String {
    let base = match b & 0x3fff {
        1 => "SUSPEND",
        2 => "REQUEUE",
        8 => "CANCEL",
        _ => "OFF",
    };
    let mut v = vec![base];
    if b & 0x8000 != 0 {
        v.push("GANG");
    }
    if b & 0x4000 != 0 {
        v.push("WITHIN");
    }
    v.join(",")
}

const CPU_BIND: [(&str, u32); 7] = [
    ("verbose", 0x1),
    ("threads", 0x2),
    ("cores", 0x4),
    ("sockets", 0x8),
    ("ldoms", 0x10),
    ("none", 0x20),
    ("off", 0x80000),
];

/// A `CpuBind=` text as cpu_bind_type bits (`off` is CPU_BIND_OFF).
pub fn cpu_bind_bits(v: &str) -> u32 {
    v.split(',').filter_map(|w| CPU_BIND.iter().find(|(n, _)| n.eq_ignore_ascii_case(w)).map(|(_, b)| *b)).sum()
}

fn cpu_bind_text(b: u32) -> String {
    CPU_BIND.iter().filter(|(_, x)| b & x != 0).map(|(n, _)| *n).collect::<Vec<_>>().join(",")
}

fn mem_limit(l: MemLimit) -> u64 {
    if l.per_cpu && l.mb != 0 {
        l.mb | MEM_PER_CPU
    } else {
        l.mb
    }
}

/// Fill a zeroed record from a partition, as slurmctld packs it.
pub fn fill_part(p: &Partition, view: &ClusterView, out: &mut sys::partition_info_t) {
    let m = &p.more;
    let nodes: Vec<_> = view.nodes.iter().filter(|n| p.nodes.contains(&n.name)).collect();
    let cpus: u64 = nodes.iter().map(|n| n.cpus as u64).sum();
    let mem: u64 = nodes.iter().map(|n| n.real_memory).sum();
    let u16c = |v: u32| v.min(u16::MAX as u32) as u16;
    out.name = xstrdup(&p.name);
    out.nodes = xstr_nonempty(&p.nodes_expr);
    out.node_inx = xindex(&index_pairs(&p.nodes, view));
    out.nodesets = xstr_opt(m.nodesets.as_deref());
    out.total_cpus = cpus.min(u32::MAX as u64) as u32;
    out.total_nodes = p.nodes.len() as u32;
    out.max_time = p.max_time.unwrap_or(INFINITE);
    out.default_time = p.default_time.unwrap_or(sys::NO_VAL);
    out.max_nodes = p.max_nodes.unwrap_or(INFINITE);
    out.min_nodes = p.min_nodes;
    out.state_up = match p.state {
        PartState::Up => sys::PARTITION_UP,
        PartState::Down => sys::PARTITION_DOWN,
        PartState::Drain => sys::PARTITION_DRAIN,
        PartState::Inactive => sys::PARTITION_INACTIVE,
    } as u16;
    let mut flags = 0u32;
    for (on, f) in [
        (p.default, PART_FLAG_DEFAULT),
        (p.hidden, PART_FLAG_HIDDEN),
        (m.disable_root_jobs, PART_FLAG_NO_ROOT),
        (m.root_only, PART_FLAG_ROOT_ONLY),
        (m.req_resv, PART_FLAG_REQ_RESV),
        (m.lln, PART_FLAG_LLN),
        (m.exclusive_user, PART_FLAG_EXCLUSIVE_USER),
    ] {
        if on {
            flags |= f;
        }
    }
    // u16 in 22.05, u32 in 24.11
    out.flags = flags as _;
    out.max_share = max_share(&p.oversubscribe);
    out.priority_tier = u16c(p.priority_tier);
    out.priority_job_factor = u16c(p.priority_job_factor);
    out.allow_groups = xstr_opt(p.allow_groups.as_ref().map(|g| g.join(",")).as_deref());
    out.allow_accounts = xstr_opt(p.allow_accounts.as_ref().map(|g| g.join(",")).as_deref());
    out.deny_accounts = xstr_opt(m.deny_accounts.as_deref());
    out.allow_qos = xstr_opt(m.allow_qos.as_deref());
    out.deny_qos = xstr_opt(m.deny_qos.as_deref());
    out.qos_char = xstr_opt(m.qos.as_deref());
    out.allow_alloc_nodes = xstr_opt(m.alloc_nodes.as_deref());
    out.alternate = xstr_opt(m.alternate.as_deref());
    out.billing_weights_str = xstr_opt(m.tres_billing_weights.as_deref());
    out.job_defaults_str = xstr_opt(m.job_defaults.as_deref());
    out.cpu_bind = m.cpu_bind.as_deref().map(cpu_bind_bits).unwrap_or(0);
    out.def_mem_per_cpu = mem_limit(m.def_mem);
    out.max_mem_per_cpu = mem_limit(m.max_mem);
    out.grace_time = m.grace_time;
    out.max_cpus_per_node = m.max_cpus_per_node.unwrap_or(INFINITE);
    #[cfg(feature = "slurm-24-11")]
    {
        out.max_cpus_per_socket = m.max_cpus_per_socket.unwrap_or(INFINITE);
    }
    out.over_time_limit = m.over_time_limit.unwrap_or(sys::NO_VAL16 as u16);
    out.preempt_mode = m.preempt_mode.as_deref().map(preempt_bits).unwrap_or(sys::NO_VAL16 as u16);
    out.resume_timeout = sys::NO_VAL16 as u16;
    out.suspend_timeout = sys::NO_VAL16 as u16;
    out.suspend_time = sys::NO_VAL;
    out.tres_fmt_str = xstrdup(&format!(
        "cpu={},mem={},node={},billing={}",
        cpus,
        spur_cli_base::format::convert_num_unit(mem as f64, 2),
        p.nodes.len(),
        spur_core::priority::partition_billing(p, &nodes)
    ));
}

/// Release every block of a record and leave its pointers NULL.
///
/// # Safety
/// `p`'s pointers are NULL or xmalloc'ed blocks; `job_defaults_list` NULL
/// (this library never sets it).
pub unsafe fn free_part_members(p: &mut sys::partition_info_t) {
    // SAFETY: the caller's contract.
    unsafe {
        xfree(&mut p.allow_accounts);
        xfree(&mut p.allow_alloc_nodes);
        xfree(&mut p.allow_groups);
        xfree(&mut p.allow_qos);
        xfree(&mut p.alternate);
        xfree(&mut p.billing_weights_str);
        xfree(&mut p.cluster_name);
        xfree(&mut p.deny_accounts);
        xfree(&mut p.deny_qos);
        xfree(&mut p.job_defaults_str);
        xfree(&mut p.name);
        xfree(&mut p.nodes);
        xfree(&mut p.nodesets);
        xfree(&mut p.node_inx);
        xfree(&mut p.qos_char);
        xfree(&mut p.tres_fmt_str);
    }
}

/// The message of `slurm_load_partitions`: hidden partitions only with
/// SHOW_ALL or for an operator (slurmctld's `_pack_part`).
pub fn part_msg(view: &ClusterView, show_flags: u16, privileged: bool) -> *mut sys::partition_info_msg_t {
    let parts: Vec<&Partition> =
        view.partitions.iter().filter(|p| show_flags & SHOW_ALL != 0 || privileged || !p.hidden).collect();
    let msg = xnew::<sys::partition_info_msg_t>();
    if msg.is_null() {
        return msg;
    }
    let arr = if parts.is_empty() {
        std::ptr::null_mut()
    } else {
        xalloc(parts.len() * std::mem::size_of::<sys::partition_info_t>()).cast::<sys::partition_info_t>()
    };
    // SAFETY: msg is fresh and zeroed; arr NULL or room for parts.len() zeroed records.
    unsafe {
        (*msg).last_update = view.now as _;
        if !arr.is_null() {
            for (i, p) in parts.iter().enumerate() {
                fill_part(p, view, &mut *arr.add(i));
            }
            (*msg).partition_array = arr;
            (*msg).record_count = parts.len() as u32;
        }
    }
    msg
}

/// `int slurm_load_partitions(time_t update_time, partition_info_msg_t
/// **resp, uint16_t show_flags)`: 0, or -1 with errno (never
/// SLURM_NO_CHANGE_IN_DATA: Spur keeps no change time). Free with
/// `slurm_free_partition_info_msg`.
///
/// # Safety
/// `resp` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_partitions(
    update_time: sys::time_t,
    resp: *mut *mut sys::partition_info_msg_t,
    show_flags: u16,
) -> c_int {
    let _ = update_time;
    crate::guard(-1, || {
        if resp.is_null() {
            crate::errno::set(libc::EINVAL);
            return -1;
        }
        let Ok(view) = crate::nodes::load_view() else { return -1 };
        let msg = part_msg(&view, show_flags, crate::nodes::privileged());
        if msg.is_null() {
            crate::errno::set(libc::ENOMEM);
            return -1;
        }
        // SAFETY: the caller's contract.
        unsafe { *resp = msg };
        0
    })
}

/// `slurm_load_partitions2`: as `slurm_load_partitions` (one cluster).
///
/// # Safety
/// As `slurm_load_partitions`.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_partitions2(
    update_time: sys::time_t,
    resp: *mut *mut sys::partition_info_msg_t,
    show_flags: u16,
    cluster: *mut sys::slurmdb_cluster_rec_t,
) -> c_int {
    let _ = cluster;
    // SAFETY: the caller's contract.
    unsafe { slurm_load_partitions(update_time, resp, show_flags) }
}

/// `void slurm_free_partition_info_members(partition_info_t *part)`.
///
/// # Safety
/// `part` is NULL or a record of this library's (or a copy of one).
#[no_mangle]
pub unsafe extern "C" fn slurm_free_partition_info_members(part: *mut sys::partition_info_t) {
    crate::guard((), || {
        // SAFETY: the caller's contract.
        if let Some(p) = unsafe { part.as_mut() } {
            // SAFETY: the caller's contract.
            unsafe { free_part_members(p) }
        }
    })
}

/// `void slurm_free_partition_info_msg(partition_info_msg_t *msg)` (NULL: nothing).
///
/// # Safety
/// `msg` is NULL or from `slurm_load_partitions`, not freed since.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_partition_info_msg(msg: *mut sys::partition_info_msg_t) {
    crate::guard((), || {
        // SAFETY: msg and its array are this library's blocks.
        unsafe {
            crate::xmalloc::free_records(
                msg,
                |m| &mut m.partition_array,
                |m| m.record_count as usize,
                |r| free_part_members(r),
            )
        }
    })
}

/// `void slurm_init_part_desc_msg(update_part_msg_t *msg)`: zero, with
/// "no change" in every number.
///
/// # Safety
/// `msg` is NULL or valid for a write of the struct.
#[no_mangle]
pub unsafe extern "C" fn slurm_init_part_desc_msg(msg: *mut sys::update_part_msg_t) {
    crate::guard((), || {
        if msg.is_null() {
            return;
        }
        // SAFETY: integers and pointers: all zero is valid.
        let mut m: sys::update_part_msg_t = unsafe { std::mem::zeroed() };
        let nv16 = sys::NO_VAL16 as u16;
        m.default_time = sys::NO_VAL;
        m.def_mem_per_cpu = u64::MAX - 1;
        m.grace_time = sys::NO_VAL;
        m.max_cpus_per_node = sys::NO_VAL;
        #[cfg(feature = "slurm-24-11")]
        {
            m.max_cpus_per_socket = sys::NO_VAL;
        }
        m.max_mem_per_cpu = u64::MAX - 1;
        m.max_nodes = sys::NO_VAL;
        m.max_share = nv16;
        m.min_nodes = sys::NO_VAL;
        m.max_time = sys::NO_VAL;
        m.over_time_limit = nv16;
        m.preempt_mode = nv16;
        m.priority_job_factor = nv16;
        m.priority_tier = nv16;
        m.state_up = nv16;
        // SAFETY: the caller's contract.
        unsafe { msg.write(m) };
    })
}

/// The request an update message makes (Err: Slurm's error number).
///
/// # Safety
/// The message's strings are NULL or NUL-terminated.
#[allow(clippy::unnecessary_cast)] // (flags: u16 in 22.05, u32 in 24.11)
pub unsafe fn part_update(m: &sys::update_part_msg_t) -> Result<PartitionUpdate, i32> {
    let bad = sys::ESLURM_INVALID_PARTITION_NAME as i32;
    let s = |p: *mut c_char| -> Result<Option<String>, i32> {
        if p.is_null() {
            return Ok(None);
        }
        // SAFETY: the caller's contract.
        unsafe { crate::text(p) }.map(|t| Some(t.to_string())).ok_or(sys::SLURM_ERROR)
    };
    let name = s(m.name)?.filter(|n| !n.is_empty()).ok_or(bad)?;
    let nv = sys::NO_VAL;
    let nv16 = sys::NO_VAL16 as u16;
    let flags = m.flags as u32;
    let set_clr = |set: u32, clr: u32| {
        if flags & set != 0 {
            Some(true)
        } else if flags & clr != 0 {
            Some(false)
        } else {
            None
        }
    };
    let mut u = PartitionUpdate {
        name,
        max_time: (m.max_time != nv).then_some(m.max_time),
        default_time: (m.default_time != nv).then_some(m.default_time),
        max_nodes: (m.max_nodes != nv).then_some(m.max_nodes),
        min_nodes: (m.min_nodes != nv).then_some(m.min_nodes),
        state: match m.state_up as u32 {
            x if x == nv16 as u32 => None,
            sys::PARTITION_UP => Some(PartState::Up),
            sys::PARTITION_DOWN => Some(PartState::Down),
            sys::PARTITION_DRAIN => Some(PartState::Drain),
            sys::PARTITION_INACTIVE => Some(PartState::Inactive),
            _ => return Err(sys::SLURM_ERROR),
        },
        default: set_clr(PART_FLAG_DEFAULT, PART_FLAG_DEFAULT_CLR),
        hidden: set_clr(PART_FLAG_HIDDEN, PART_FLAG_HIDDEN_CLR),
        priority_tier: (m.priority_tier != nv16).then_some(m.priority_tier as u32),
        priority_job_factor: (m.priority_job_factor != nv16).then_some(m.priority_job_factor as u32),
        oversubscribe: (m.max_share != nv16).then(|| oversubscribe_text(m.max_share)),
        ..Default::default()
    };
    let mut raw: Vec<(PartKey, String)> = Vec::new();
    let yn = |b: bool| if b { "YES" } else { "NO" }.to_string();
    for (set, clr, key) in [
        (PART_FLAG_NO_ROOT, PART_FLAG_NO_ROOT_CLR, PartKey::DisableRootJobs),
        (PART_FLAG_ROOT_ONLY, PART_FLAG_ROOT_ONLY_CLR, PartKey::RootOnly),
        (PART_FLAG_REQ_RESV, PART_FLAG_REQ_RESV_CLR, PartKey::ReqResv),
        (PART_FLAG_LLN, PART_FLAG_LLN_CLR, PartKey::Lln),
        (PART_FLAG_EXCLUSIVE_USER, PART_FLAG_EXC_USER_CLR, PartKey::ExclusiveUser),
    ] {
        if let Some(b) = set_clr(set, clr) {
            raw.push((key, yn(b)));
        }
    }
    if m.grace_time != nv {
        raw.push((PartKey::GraceTime, m.grace_time.to_string()));
    }
    let mem = |v: u64, cpu: PartKey, node: PartKey| -> Option<(PartKey, String)> {
        if v == u64::MAX - 1 {
            None
        } else if v & MEM_PER_CPU != 0 {
            Some((cpu, (v & !MEM_PER_CPU).to_string()))
        } else {
            Some((node, v.to_string()))
        }
    };
    raw.extend(mem(m.def_mem_per_cpu, PartKey::DefMemPerCpu, PartKey::DefMemPerNode));
    raw.extend(mem(m.max_mem_per_cpu, PartKey::MaxMemPerCpu, PartKey::MaxMemPerNode));
    let count = |v: u32| if v == INFINITE { "UNLIMITED".to_string() } else { v.to_string() };
    if m.max_cpus_per_node != nv {
        raw.push((PartKey::MaxCpusPerNode, count(m.max_cpus_per_node)));
    }
    #[cfg(feature = "slurm-24-11")]
    if m.max_cpus_per_socket != nv {
        raw.push((PartKey::MaxCpusPerSocket, count(m.max_cpus_per_socket)));
    }
    if m.over_time_limit != nv16 {
        let o = m.over_time_limit;
        raw.push((PartKey::OverTimeLimit, if o == u16::MAX { "UNLIMITED".into() } else { o.to_string() }));
    }
    for (p, key) in [
        (m.allow_groups, PartKey::AllowGroups),
        (m.allow_accounts, PartKey::AllowAccounts),
        (m.deny_accounts, PartKey::DenyAccounts),
        (m.allow_qos, PartKey::AllowQos),
        (m.deny_qos, PartKey::DenyQos),
        (m.qos_char, PartKey::Qos),
        (m.allow_alloc_nodes, PartKey::AllocNodes),
        (m.alternate, PartKey::Alternate),
        (m.job_defaults_str, PartKey::JobDefaults),
        (m.billing_weights_str, PartKey::TresBillingWeights),
        (m.nodes, PartKey::Nodes),
    ] {
        if let Some(v) = s(p)? {
            raw.push((key, v));
        }
    }
    if m.cpu_bind != 0 {
        raw.push((PartKey::CpuBind, cpu_bind_text(m.cpu_bind)));
    }
    if m.preempt_mode != nv16 {
        raw.push((PartKey::PreemptMode, preempt_text(m.preempt_mode)));
    }
    for (key, v) in raw {
        // the value as scontrol would have sent it
        let c = key.canonical(&v, &format!("{}={}", key.name(), v)).map_err(|_| sys::SLURM_ERROR)?;
        u.settings.push((key, c));
    }
    Ok(u)
}

/// `int slurm_update_partition(update_part_msg_t *msg)`: 0, or -1 with errno.
///
/// # Safety
/// `msg` is NULL or an initialised message.
#[no_mangle]
pub unsafe extern "C" fn slurm_update_partition(part_msg: *mut sys::update_part_msg_t) -> c_int {
    crate::guard(-1, || {
        // SAFETY: the caller's contract.
        let Some(m) = (unsafe { part_msg.as_ref() }) else {
            crate::errno::set(libc::EINVAL);
            return -1;
        };
        // SAFETY: the caller's contract.
        let u = match unsafe { part_update(m) } {
            Ok(u) => u,
            Err(e) => {
                crate::errno::set(e);
                return -1;
            }
        };
        match crate::conn::call(|c| c.update_partition(&u)) {
            Ok(()) => 0,
            Err(_) => -1,
        }
    })
}

/// `int slurm_create_partition(update_part_msg_t *msg)`: Spur's
/// partitions are those of slurm.conf: -1, errno ESLURM_NOT_SUPPORTED.
///
/// # Safety
/// Any pointer (not read).
#[no_mangle]
pub unsafe extern "C" fn slurm_create_partition(part_msg: *mut sys::update_part_msg_t) -> c_int {
    let _ = part_msg;
    crate::errno::set(sys::ESLURM_NOT_SUPPORTED as i32);
    -1
}

/// `int slurm_delete_partition(delete_part_msg_t *msg)`: as
/// `slurm_create_partition`.
///
/// # Safety
/// Any pointer (not read).
#[no_mangle]
pub unsafe extern "C" fn slurm_delete_partition(part_msg: *mut sys::delete_part_msg_t) -> c_int {
    let _ = part_msg;
    crate::errno::set(sys::ESLURM_NOT_SUPPORTED as i32);
    -1
}

#[cfg(test)]
#[allow(clippy::unnecessary_cast)] // (flags: u16 in 22.05)
mod tests {
    use super::*;
    use crate::nodes::tests::{s, view};

    #[test]
    fn partitions_as_slurmctld_sends_them() {
        let mut v = view();
        v.partitions[0].max_time = Some(60);
        v.partitions[0].more.def_mem = MemLimit { mb: 500, per_cpu: true };
        v.partitions[0].more.preempt_mode = Some("REQUEUE".into());
        let msg = part_msg(&v, 0, false);
        // SAFETY: a message of part_msg's, freed once.
        unsafe {
            assert_eq!((*msg).record_count, 1, "the hidden one is left out");
            let p = &*(*msg).partition_array;
            assert_eq!(s(p.name).as_deref(), Some("debug"));
            assert_eq!(s(p.nodes).as_deref(), Some("n[1-2]"));
            assert_eq!(std::slice::from_raw_parts(p.node_inx, 3), &[0, 1, -1]);
            assert_eq!((p.total_cpus, p.total_nodes), (8, 2));
            assert_eq!((p.max_time, p.default_time, p.max_nodes), (60, sys::NO_VAL, INFINITE));
            assert_eq!(p.flags as u32, PART_FLAG_DEFAULT);
            assert_eq!(p.state_up as u32, sys::PARTITION_UP);
            assert_eq!(p.def_mem_per_cpu, 500 | MEM_PER_CPU);
            assert_eq!((p.max_share, p.preempt_mode, p.over_time_limit), (1, 2, sys::NO_VAL16 as u16));
            assert!(p.allow_groups.is_null() && p.allow_accounts.is_null());
            assert_eq!(s(p.tres_fmt_str).as_deref(), Some("cpu=8,mem=4000M,node=2,billing=8"));
            slurm_free_partition_info_msg(msg);
            let msg = part_msg(&v, SHOW_ALL, false);
            assert_eq!((*msg).record_count, 2);
            let p = &*(*msg).partition_array.add(1);
            assert_eq!(std::slice::from_raw_parts(p.node_inx, 3), &[1, 1, -1]);
            assert_eq!(p.flags as u32, PART_FLAG_HIDDEN);
            // a copied record freed by its members
            let mut copy = std::ptr::read(p);
            slurm_free_partition_info_members(&mut copy);
            (*msg).record_count = 1;
            slurm_free_partition_info_msg(msg);
            slurm_free_partition_info_msg(std::ptr::null_mut());
        }
        // a partition without nodes still has its -1
        v.partitions[0].nodes.clear();
        let msg = part_msg(&v, 0, false);
        // SAFETY: as above.
        unsafe {
            assert_eq!(*(*(*msg).partition_array).node_inx, -1);
            slurm_free_partition_info_msg(msg);
        }
    }

    #[test]
    fn share_preempt_and_binding_words() {
        for o in ["NO", "EXCLUSIVE", "YES:4", "FORCE:2", "YES:8"] {
            assert_eq!(oversubscribe_text(max_share(o)), o);
        }
        assert_eq!(max_share("FORCE"), 4 | SHARED_FORCE);
        assert_eq!(preempt_text(preempt_bits("SUSPEND,GANG")), "SUSPEND,GANG");
        assert_eq!(cpu_bind_text(cpu_bind_bits("verbose,cores")), "verbose,cores");
    }

    #[test]
    fn update_messages() {
        // SAFETY: zeroed is valid; the strings outlive their use.
        let mut m: sys::update_part_msg_t = unsafe { std::mem::zeroed() };
        unsafe {
            slurm_init_part_desc_msg(&mut m);
            assert_eq!((m.max_time, m.state_up, m.def_mem_per_cpu), (sys::NO_VAL, sys::NO_VAL16 as u16, u64::MAX - 1));
            assert!(part_update(&m).is_err());
            let name = std::ffi::CString::new("debug").unwrap();
            let groups = std::ffi::CString::new("wheel").unwrap();
            m.name = name.as_ptr() as *mut c_char;
            m.allow_groups = groups.as_ptr() as *mut c_char;
            m.max_time = INFINITE;
            m.state_up = sys::PARTITION_DRAIN as u16;
            m.flags = (PART_FLAG_HIDDEN | PART_FLAG_DEFAULT_CLR | PART_FLAG_ROOT_ONLY) as _;
            m.max_share = 0;
            m.def_mem_per_cpu = 100 | MEM_PER_CPU;
            let u = part_update(&m).unwrap();
            assert_eq!(u.name, "debug");
            assert_eq!(
                (u.max_time, u.state, u.hidden, u.default),
                (Some(INFINITE), Some(PartState::Drain), Some(true), Some(false))
            );
            assert_eq!(u.oversubscribe.as_deref(), Some("EXCLUSIVE"));
            assert!(u.settings.contains(&(PartKey::RootOnly, "YES".into())));
            assert!(u.settings.contains(&(PartKey::DefMemPerCpu, "100".into())));
            assert!(u.settings.iter().any(|(k, v)| *k == PartKey::AllowGroups && v == "wheel"));
            assert_eq!(slurm_create_partition(&mut m), -1);
            assert_eq!(crate::errno::get(), sys::ESLURM_NOT_SUPPORTED as i32);
        }
    }
}
