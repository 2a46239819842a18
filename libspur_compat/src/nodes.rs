//! Nodes: `slurm_load_node` and its variants, `node_info_t` as slurmctld
//! packs it (node_mgr.c `_pack_node`), the select plugin's per-node data
//! behind `select_nodeinfo` (`slurm_get_select_nodeinfo`, as cons_tres
//! answers it), and `slurm_update_node` through spur-client.
//!
//! Every pointer of a record is its own xmalloc'ed block, released field by
//! field by `slurm_free_node_info_members` (consumers copy records out of
//! the array and free them that way).

use crate::sys;
use crate::xmalloc::{xalloc, xfree, xnew, xstr_nonempty, xstr_opt, xstrdup};
use spur_core::model::{ClusterView, Node, NodeBase};
use spur_core::request::{NodeStateChange, NodeUpdate, Query};
use std::ffi::{c_char, c_int, c_void};

pub(crate) const fn bit(n: u32) -> u32 {
    1 << n
}

// slurm.h's node state flags (SLURM_BIT(n); the same bits in 22.05 and 24.11)
pub(crate) const NODE_STATE_RES: u32 = bit(5);
pub(crate) const NODE_STATE_UNDRAIN: u32 = bit(6);
pub(crate) const NODE_RESUME: u32 = bit(8);
pub(crate) const NODE_STATE_DRAIN: u32 = bit(9);
pub(crate) const NODE_STATE_COMPLETING: u32 = bit(10);
pub(crate) const NODE_STATE_NO_RESPOND: u32 = bit(11);
pub(crate) const NODE_STATE_POWERED_DOWN: u32 = bit(12);
pub(crate) const NODE_STATE_FAIL: u32 = bit(13);
pub(crate) const NODE_STATE_MAINT: u32 = bit(15);
pub(crate) const NODE_STATE_REBOOT_REQUESTED: u32 = bit(16);
pub(crate) const NODE_STATE_REBOOT_CANCEL: u32 = bit(17);
pub(crate) const NODE_STATE_PLANNED: u32 = bit(21);
pub(crate) const NODE_STATE_POWER_DOWN: u32 = bit(23);
pub(crate) const NODE_STATE_POWER_UP: u32 = bit(24);
pub(crate) const NODE_STATE_POWER_DRAIN: u32 = bit(25);

// show_flags (SLURM_BIT(n) in both releases)
pub(crate) const SHOW_ALL: u16 = 1 << 0;
pub(crate) const SHOW_DETAIL: u16 = 1 << 1;
pub(crate) const SHOW_MIXED: u16 = 1 << 3;
pub(crate) const SHOW_FUTURE: u16 = 1 << 7;

/// `SELECT_PLUGIN_CONS_TRES`: the plugin whose node data these records carry.
const CONS_TRES: u32 = 109;
/// Marks a [`NodeSelect`] of this library (cons_tres checks its own magic).
const SELECT_MAGIC: u32 = 0x8a5e_10d0;

/// What `select_nodeinfo->data` points to: cons_tres's per-node
/// allocation, as `slurm_get_select_nodeinfo` reads it. Opaque to callers.
#[repr(C)]
struct NodeSelect {
    magic: u32,
    alloc_cpus: u16,
    alloc_memory: u64,
    tres_alloc_fmt_str: *mut c_char,
    tres_alloc_weighted: f64,
}

/// The cluster's nodes and partitions as the commands load them.
pub(crate) fn load_view() -> Result<ClusterView, i32> {
    crate::conn::call(|c| c.query(&Query { nodes: true, partitions: true, ..Default::default() }))
}

/// Whether the caller sees hidden partitions and their nodes without
/// SHOW_ALL (slurmctld's validate_operator: root or SlurmUser).
pub(crate) fn privileged() -> bool {
    // SAFETY: getuid cannot fail.
    let uid = unsafe { libc::getuid() };
    if uid == 0 {
        return true;
    }
    let Ok(conf) = crate::conn::conf() else { return false };
    user_uid(&conf.slurm_user) == Some(uid)
}

fn user_uid(name: &str) -> Option<u32> {
    let c = std::ffi::CString::new(name).ok()?;
    let mut pw: libc::passwd = unsafe_zeroed();
    let mut out: *mut libc::passwd = std::ptr::null_mut();
    let mut buf = vec![0 as c_char; 4096];
    // SAFETY: every pointer is valid for the call; buf's length is given.
    let rc = unsafe { libc::getpwnam_r(c.as_ptr(), &mut pw, buf.as_mut_ptr(), buf.len(), &mut out) };
    (rc == 0 && !out.is_null()).then_some(pw.pw_uid)
}

fn unsafe_zeroed<T>() -> T {
    // SAFETY: only used for C structs of integers and pointers.
    unsafe { std::mem::zeroed() }
}

/// `node_state` as slurmctld sends it: the base state, MIXED only when
/// asked (SHOW_MIXED, as the API sets it after loading), then the flags.
pub fn node_state(n: &Node, mixed: bool) -> u32 {
    let mut s = match n.base {
        NodeBase::Unknown => sys::NODE_STATE_UNKNOWN,
        NodeBase::Idle => sys::NODE_STATE_IDLE,
        NodeBase::Allocated if mixed && n.is_mixed() => sys::NODE_STATE_MIXED,
        NodeBase::Allocated => sys::NODE_STATE_ALLOCATED,
        NodeBase::Down => sys::NODE_STATE_DOWN,
        NodeBase::Future => sys::NODE_STATE_FUTURE,
    };
    let f = &n.flags;
    for (on, b) in [
        (f.drain, NODE_STATE_DRAIN),
        (f.completing, NODE_STATE_COMPLETING),
        (f.not_responding, NODE_STATE_NO_RESPOND),
        (f.power_down, NODE_STATE_POWERED_DOWN),
        (f.fail, NODE_STATE_FAIL),
        (f.maint, NODE_STATE_MAINT),
        (f.reboot_requested, NODE_STATE_REBOOT_REQUESTED),
        (f.planned, NODE_STATE_PLANNED),
        (f.reserved, NODE_STATE_RES),
    ] {
        if on {
            s |= b;
        }
    }
    s
}

fn mem_text(mb: u64) -> String {
    spur_cli_base::format::convert_num_unit(mb as f64, 2)
}

/// `CfgTRES` (tres_fmt_str): `cpu=N,mem=M,billing=N`.
pub fn cfg_tres(n: &Node) -> String {
    format!("cpu={},mem={},billing={}", n.cpus, mem_text(n.real_memory), n.cpus)
}

/// `AllocTRES` (the select data's tres_alloc_fmt_str; None when nothing
/// is allocated).
pub fn alloc_tres(n: &Node) -> Option<String> {
    let mut v = Vec::new();
    if n.alloc_cpus > 0 {
        v.push(format!("cpu={}", n.alloc_cpus));
    }
    if n.alloc_mem > 0 {
        v.push(format!("mem={}", mem_text(n.alloc_mem)));
    }
    (!v.is_empty()).then(|| v.join(","))
}

/// The configured GRES as slurmctld prints them (`gpu:tesla:2,mps:100`).
pub fn gres_text(n: &Node) -> Option<String> {
    if let Some(g) = &n.gres_text {
        return Some(g.clone());
    }
    if n.gres.is_empty() {
        return None;
    }
    Some(
        n.gres
            .iter()
            .map(|(g, t, c)| match t {
                Some(t) => format!("{}:{}:{}", g, t, c),
                None => format!("{}:{}", g, c),
            })
            .collect::<Vec<_>>()
            .join(","),
    )
}

/// The GRES in use with their (unknown) indexes, as slurmctld gives them
/// for SHOW_DETAIL (`gpu:tesla:1(IDX:N/A)`).
fn gres_used_text(n: &Node) -> Option<String> {
    if n.gres.is_empty() {
        return None;
    }
    Some(
        n.gres
            .iter()
            .map(|(g, t, _)| {
                let used: u64 = n.alloc_gres.iter().filter(|(ag, at, _)| ag == g && at == t).map(|(_, _, c)| *c).sum();
                // Spur does not track which device of a kind a job holds
                match t {
                    Some(t) => format!("{}:{}:{}(IDX:N/A)", g, t, used),
                    None => format!("{}:{}(IDX:N/A)", g, used),
                }
            })
            .collect::<Vec<_>>()
            .join(","),
    )
}

fn select_nodeinfo(n: &Node) -> *mut sys::dynamic_plugin_data_t {
    let d = xnew::<sys::dynamic_plugin_data_t>();
    let s = xnew::<NodeSelect>();
    if d.is_null() || s.is_null() {
        let (mut d, mut s) = (d, s);
        // SAFETY: each is NULL or a fresh xmalloc'ed block.
        unsafe {
            xfree(&mut d);
            xfree(&mut s);
        }
        return std::ptr::null_mut();
    }
    // SAFETY: both are fresh, zeroed blocks of their types.
    unsafe {
        *s = NodeSelect {
            magic: SELECT_MAGIC,
            alloc_cpus: n.alloc_cpus.min(u16::MAX as u32) as u16,
            alloc_memory: n.alloc_mem,
            tres_alloc_fmt_str: xstr_opt(alloc_tres(n).as_deref()),
            tres_alloc_weighted: n.alloc_cpus as f64,
        };
        (*d).data = s.cast();
        (*d).plugin_id = CONS_TRES;
    }
    d
}

/// Release what [`select_nodeinfo`] made (NULL: nothing).
///
/// # Safety
/// `d` is NULL or from [`select_nodeinfo`], not released since.
unsafe fn select_nodeinfo_free(d: *mut sys::dynamic_plugin_data_t) {
    if d.is_null() {
        return;
    }
    // SAFETY: d is a live block of select_nodeinfo's; its data NULL or ours.
    unsafe {
        let mut s = (*d).data.cast::<NodeSelect>();
        if !s.is_null() && (*s).magic == SELECT_MAGIC {
            (*s).magic = 0;
            xfree(&mut (*s).tres_alloc_fmt_str);
            xfree(&mut s);
        }
        let mut d = d;
        xfree(&mut d);
    }
}

/// The names of the partitions holding `n`, in the view's order.
fn partitions_of(n: &Node, view: &ClusterView) -> Option<String> {
    let v: Vec<&str> = view.partitions.iter().filter(|p| p.nodes.contains(&n.name)).map(|p| p.name.as_str()).collect();
    (!v.is_empty()).then(|| v.join(","))
}

/// Fill a zeroed record from a node, as slurmctld packs it.
pub fn fill_node(n: &Node, view: &ClusterView, show_flags: u16, out: &mut sys::node_info_t) {
    let u16c = |v: u32| v.min(u16::MAX as u32) as u16;
    out.name = xstrdup(&n.name);
    out.node_hostname = xstr_nonempty(&n.hostname);
    out.node_addr = xstr_nonempty(&n.addr);
    out.port = n.port;
    out.next_state = sys::NO_VAL;
    out.node_state = node_state(n, show_flags & SHOW_MIXED != 0);
    out.version = xstr_nonempty(&n.version);
    out.cpus = u16c(n.cpus);
    out.cpus_efctv = u16c(n.cpus);
    out.boards = u16c(n.boards.max(1));
    out.sockets = u16c(n.sockets);
    out.cores = u16c(n.cores_per_socket);
    out.threads = u16c(n.threads_per_core);
    out.real_memory = n.real_memory;
    out.tmp_disk = n.tmp_disk.min(u32::MAX as u64) as u32;
    out.owner = sys::NO_VAL;
    out.cpu_bind = n.cpu_bind;
    out.cpu_load = n.cpu_load;
    out.free_mem = n.free_mem;
    out.weight = n.weight;
    out.reason_uid = if n.reason.is_some() { n.reason_uid } else { sys::NO_VAL };
    out.boot_time = n.boot_time as _;
    out.last_busy = n.last_busy as _;
    out.reason_time = n.reason_time as _;
    out.slurmd_start_time = n.slurmd_start_time as _;
    out.select_nodeinfo = select_nodeinfo(n);
    out.arch = xstr_nonempty(&n.arch);
    let feats = n.features.join(",");
    out.features = xstr_nonempty(&feats);
    out.features_act = xstr_nonempty(&feats);
    out.gres = xstr_opt(gres_text(n).as_deref());
    if show_flags & SHOW_DETAIL != 0 {
        out.gres_used = xstr_opt(gres_used_text(n).as_deref());
    }
    out.os = xstr_nonempty(&n.os);
    out.comment = xstr_opt(n.comment.as_deref());
    out.extra = xstr_opt(n.extra.as_deref());
    out.reason = xstr_opt(n.reason.as_deref().filter(|r| !r.is_empty()));
    out.energy = xnew::<sys::acct_gather_energy_t>();
    out.tres_fmt_str = xstrdup(&cfg_tres(n));
    out.partitions = xstr_opt(partitions_of(n, view).as_deref());
    #[cfg(feature = "slurm-24-11")]
    {
        out.resume_after = n.resume_after as _;
        out.resv_name = xstr_opt(
            view.reservations.iter().find(|r| r.active(view.now) && r.nodes.contains(&n.name)).map(|r| r.name.as_str()),
        );
    }
    #[cfg(feature = "slurm-22-05")]
    {
        // no external sensors: what slurmctld sends without a plugin
        let e = xnew::<sys::ext_sensors_data_t>();
        if !e.is_null() {
            // SAFETY: a fresh, zeroed block of the type.
            unsafe {
                (*e).consumed_energy = u64::MAX - 1;
                (*e).temperature = sys::NO_VAL;
            }
        }
        out.ext_sensors = e;
    }
}

/// Release every block of a record and leave its pointers NULL.
///
/// # Safety
/// `n`'s pointers are NULL or blocks of [`fill_node`]'s (or Slurm's xmalloc).
pub unsafe fn free_node_members(n: &mut sys::node_info_t) {
    // SAFETY: the caller's contract.
    unsafe {
        xfree(&mut n.arch);
        xfree(&mut n.bcast_address);
        xfree(&mut n.cluster_name);
        xfree(&mut n.comment);
        xfree(&mut n.cpu_spec_list);
        xfree(&mut n.energy);
        xfree(&mut n.extra);
        xfree(&mut n.features);
        xfree(&mut n.features_act);
        xfree(&mut n.gres);
        xfree(&mut n.gres_drain);
        xfree(&mut n.gres_used);
        xfree(&mut n.mcs_label);
        xfree(&mut n.name);
        xfree(&mut n.node_addr);
        xfree(&mut n.node_hostname);
        xfree(&mut n.os);
        xfree(&mut n.partitions);
        xfree(&mut n.reason);
        select_nodeinfo_free(n.select_nodeinfo);
        n.select_nodeinfo = std::ptr::null_mut();
        xfree(&mut n.tres_fmt_str);
        xfree(&mut n.version);
        #[cfg(feature = "slurm-24-11")]
        {
            xfree(&mut n.gpu_spec);
            xfree(&mut n.instance_id);
            xfree(&mut n.instance_type);
            xfree(&mut n.resv_name);
        }
        #[cfg(feature = "slurm-22-05")]
        {
            xfree(&mut n.ext_sensors);
            xfree(&mut n.power);
        }
    }
}

/// Whether slurmctld leaves a node's record blank for this caller: a node
/// of hidden partitions only (without SHOW_ALL, for a user not an
/// operator), a FUTURE node without SHOW_FUTURE.
fn hidden(n: &Node, view: &ClusterView, show_flags: u16, privileged: bool) -> bool {
    if show_flags & SHOW_ALL == 0 && !privileged {
        let mut parts = view.partitions.iter().filter(|p| p.nodes.contains(&n.name)).peekable();
        if parts.peek().is_some() && parts.all(|p| p.hidden) {
            return true;
        }
    }
    n.base == NodeBase::Future && show_flags & SHOW_FUTURE == 0
}

/// The message of `slurm_load_node` (`only`: `slurm_load_node_single`'s
/// node, whose message holds just that record, or none).
pub fn node_msg(
    view: &ClusterView,
    show_flags: u16,
    only: Option<&str>,
    privileged: bool,
) -> *mut sys::node_info_msg_t {
    let nodes: Vec<&Node> = match only {
        Some(name) => view.nodes.iter().filter(|n| n.name == name).collect(),
        None => view.nodes.iter().collect(),
    };
    let msg = xnew::<sys::node_info_msg_t>();
    if msg.is_null() {
        return msg;
    }
    let arr = if nodes.is_empty() {
        std::ptr::null_mut()
    } else {
        xalloc(nodes.len() * std::mem::size_of::<sys::node_info_t>()).cast::<sys::node_info_t>()
    };
    // SAFETY: msg is a fresh zeroed message; arr has room for nodes.len()
    // zeroed records (or is NULL for none).
    unsafe {
        (*msg).last_update = view.now as _;
        if !arr.is_null() {
            for (i, n) in nodes.iter().enumerate() {
                // a hidden node keeps its place as a record without a name
                if only.is_some() || !hidden(n, view, show_flags, privileged) {
                    fill_node(n, view, show_flags, &mut *arr.add(i));
                }
            }
            (*msg).node_array = arr;
            (*msg).record_count = nodes.len() as u32;
        }
    }
    msg
}

/// Load and hand over the message.
///
/// # Safety
/// `resp` is NULL or valid for a write.
unsafe fn load(resp: *mut *mut sys::node_info_msg_t, show_flags: u16, only: Option<&str>) -> c_int {
    if resp.is_null() {
        crate::errno::set(libc::EINVAL);
        return -1;
    }
    let view = match load_view() {
        Ok(v) => v,
        Err(_) => return -1,
    };
    let msg = node_msg(&view, show_flags, only, privileged());
    if msg.is_null() {
        crate::errno::set(libc::ENOMEM);
        return -1;
    }
    // SAFETY: resp is valid for a write (the caller's contract).
    unsafe { *resp = msg };
    0
}

/// `int slurm_load_node(time_t update_time, node_info_msg_t **resp,
/// uint16_t show_flags)`: every node (0), or -1 with errno. Spur keeps no
/// change time, so the answer is always the current state (never
/// SLURM_NO_CHANGE_IN_DATA). Free with `slurm_free_node_info_msg`.
///
/// # Safety
/// `resp` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_node(
    update_time: sys::time_t,
    resp: *mut *mut sys::node_info_msg_t,
    show_flags: u16,
) -> c_int {
    let _ = update_time;
    // SAFETY: the caller's contract.
    crate::guard(-1, || unsafe { load(resp, show_flags, None) })
}

/// `int slurm_load_node2(..., slurmdb_cluster_rec_t *cluster)`: as
/// `slurm_load_node` (Spur serves one cluster).
///
/// # Safety
/// As `slurm_load_node`.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_node2(
    update_time: sys::time_t,
    resp: *mut *mut sys::node_info_msg_t,
    show_flags: u16,
    cluster: *mut sys::slurmdb_cluster_rec_t,
) -> c_int {
    let _ = (update_time, cluster);
    // SAFETY: the caller's contract.
    crate::guard(-1, || unsafe { load(resp, show_flags, None) })
}

/// `int slurm_load_node_single(node_info_msg_t **resp, char *node_name,
/// uint16_t show_flags)`: that node's record (none for an unknown name).
///
/// # Safety
/// `resp` is valid for a write; `node_name` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_node_single(
    resp: *mut *mut sys::node_info_msg_t,
    node_name: *mut c_char,
    show_flags: u16,
) -> c_int {
    crate::guard(-1, || {
        // SAFETY: the caller's contract.
        let name = unsafe { crate::text(node_name) }.unwrap_or("");
        // SAFETY: the caller's contract.
        unsafe { load(resp, show_flags, Some(name)) }
    })
}

/// `slurm_load_node_single2`: as `slurm_load_node_single`.
///
/// # Safety
/// As `slurm_load_node_single`.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_node_single2(
    resp: *mut *mut sys::node_info_msg_t,
    node_name: *mut c_char,
    show_flags: u16,
    cluster: *mut sys::slurmdb_cluster_rec_t,
) -> c_int {
    let _ = cluster;
    // SAFETY: the caller's contract.
    unsafe { slurm_load_node_single(resp, node_name, show_flags) }
}

/// `void slurm_free_node_info_members(node_info_t *node)`: release one
/// record's fields (not the record: it is an element of an array).
///
/// # Safety
/// `node` is NULL or a record of this library's (or a copy of one).
#[no_mangle]
pub unsafe extern "C" fn slurm_free_node_info_members(node: *mut sys::node_info_t) {
    crate::guard((), || {
        // SAFETY: the caller's contract.
        if let Some(n) = unsafe { node.as_mut() } {
            // SAFETY: the caller's contract.
            unsafe { free_node_members(n) }
        }
    })
}

/// `void slurm_free_node_info_msg(node_info_msg_t *msg)`: the message, its
/// array and every record's fields (NULL: nothing).
///
/// # Safety
/// `msg` is NULL or from `slurm_load_node*`, not freed since.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_node_info_msg(msg: *mut sys::node_info_msg_t) {
    crate::guard((), || {
        // SAFETY: msg and its array are this library's blocks.
        unsafe {
            crate::xmalloc::free_records(
                msg,
                |m| &mut m.node_array,
                |m| m.record_count as usize,
                |r| free_node_members(r),
            )
        }
    })
}

/// `void slurm_populate_node_partitions(node_info_msg_t *nodes,
/// partition_info_msg_t *parts)`: each node's `partitions`, rebuilt from
/// the partitions' node_inx.
///
/// # Safety
/// Both NULL or messages of this library's loads.
#[no_mangle]
pub unsafe extern "C" fn slurm_populate_node_partitions(
    node_buffer_ptr: *mut sys::node_info_msg_t,
    part_buffer_ptr: *mut sys::partition_info_msg_t,
) {
    crate::guard((), || {
        // SAFETY: the caller's contract.
        let (Some(nm), Some(pm)) = (unsafe { node_buffer_ptr.as_mut() }, unsafe { part_buffer_ptr.as_ref() }) else {
            return;
        };
        if nm.record_count == 0 || pm.record_count == 0 || nm.node_array.is_null() || pm.partition_array.is_null() {
            return;
        }
        let count = nm.record_count as usize;
        let mut names: Vec<Vec<String>> = vec![Vec::new(); count];
        // SAFETY: the arrays hold record_count records; node_inx ends with -1.
        unsafe {
            for p in 0..pm.record_count as usize {
                let part = &*pm.partition_array.add(p);
                let Some(pname) = crate::text(part.name) else { continue };
                if part.node_inx.is_null() {
                    continue;
                }
                let mut i = 0;
                while *part.node_inx.add(i) != -1 {
                    let (a, b) = (*part.node_inx.add(i), *part.node_inx.add(i + 1));
                    for j in a..=b {
                        if j >= 0 && (j as usize) < count {
                            names[j as usize].push(pname.to_string());
                        }
                    }
                    i += 2;
                }
            }
            for (j, v) in names.iter().enumerate() {
                let n = &mut *nm.node_array.add(j);
                xfree(&mut n.partitions);
                n.partitions = if v.is_empty() { std::ptr::null_mut() } else { xstrdup(&v.join(",")) };
            }
        }
    })
}

/// `int slurm_get_select_nodeinfo(dynamic_plugin_data_t *nodeinfo, enum
/// select_nodedata_type data_type, enum node_states state, void *data)`:
/// cons_tres's answers: SUBCNT the allocated CPUs (uint16_t; 0 unless
/// `state` is NODE_STATE_ALLOCATED), MEM_ALLOC the allocated memory
/// (uint64_t, MB), TRES_ALLOC_FMT_STR an xmalloc'ed copy of the allocated
/// TRES (char *, NULL for none), TRES_ALLOC_WEIGHTED a double, PTR the
/// plugin's record. 0, or -1 for a missing record or another type.
///
/// # Safety
/// `nodeinfo` NULL or a record's `select_nodeinfo`; `data` points to the
/// type `data_type` names.
#[no_mangle]
pub unsafe extern "C" fn slurm_get_select_nodeinfo(
    nodeinfo: *mut sys::dynamic_plugin_data_t,
    data_type: sys::select_nodedata_type,
    state: sys::node_states,
    data: *mut c_void,
) -> c_int {
    crate::guard(-1, || {
        if nodeinfo.is_null() || data.is_null() {
            return -1;
        }
        // SAFETY: nodeinfo is a record's select data (the caller's contract).
        let s = unsafe { (*nodeinfo).data.cast::<NodeSelect>() };
        // SAFETY: as above: NULL or our NodeSelect.
        let Some(s) = (unsafe { s.as_ref() }).filter(|s| s.magic == SELECT_MAGIC) else {
            return -1;
        };
        // SAFETY: data points to the type data_type names (the caller's contract).
        unsafe {
            match data_type {
                sys::SELECT_NODEDATA_SUBCNT => {
                    *data.cast::<u16>() = if state == sys::NODE_STATE_ALLOCATED { s.alloc_cpus } else { 0 };
                }
                sys::SELECT_NODEDATA_PTR => {
                    *data.cast::<*mut c_void>() = (*nodeinfo).data;
                }
                sys::SELECT_NODEDATA_MEM_ALLOC => *data.cast::<u64>() = s.alloc_memory,
                sys::SELECT_NODEDATA_TRES_ALLOC_FMT_STR => {
                    let t = crate::text(s.tres_alloc_fmt_str);
                    *data.cast::<*mut c_char>() = xstr_opt(t);
                }
                sys::SELECT_NODEDATA_TRES_ALLOC_WEIGHTED => {
                    *data.cast::<f64>() = s.tres_alloc_weighted;
                }
                _ => return -1,
            }
        }
        0
    })
}

/// `void slurm_init_update_node_msg(update_node_msg_t *msg)`: zero, with
/// "no change" in node_state, weight (and 24.11's resume_after).
///
/// # Safety
/// `msg` is NULL or valid for a write of the struct.
#[no_mangle]
pub unsafe extern "C" fn slurm_init_update_node_msg(msg: *mut sys::update_node_msg_t) {
    crate::guard((), || {
        if msg.is_null() {
            return;
        }
        let mut m: sys::update_node_msg_t = unsafe_zeroed();
        m.node_state = sys::NO_VAL;
        m.weight = sys::NO_VAL;
        #[cfg(feature = "slurm-24-11")]
        {
            m.resume_after = sys::NO_VAL;
        }
        // SAFETY: the caller's contract.
        unsafe { msg.write(m) };
    })
}

/// The `State=` change a message's node_state asks for (None: no change;
/// Err for a value slurmctld refuses).
fn state_change(s: u32) -> Result<Option<NodeStateChange>, i32> {
    use NodeStateChange::*;
    if s == sys::NO_VAL {
        return Ok(None);
    }
    let c = match s {
        NODE_STATE_NO_RESPOND => NoResp,
        NODE_STATE_REBOOT_CANCEL => CancelReboot,
        NODE_STATE_DRAIN => Drain,
        NODE_STATE_FAIL => Fail,
        NODE_RESUME => Resume,
        NODE_STATE_UNDRAIN => Undrain,
        NODE_STATE_POWER_UP => PowerUp,
        NODE_STATE_POWER_DOWN => PowerDown,
        x if x == NODE_STATE_POWER_DOWN | NODE_STATE_POWER_DRAIN => PowerDownAsap,
        x if x == NODE_STATE_POWER_DOWN | NODE_STATE_POWERED_DOWN => PowerDownForce,
        sys::NODE_STATE_UNKNOWN => Unknown,
        sys::NODE_STATE_DOWN => Down,
        sys::NODE_STATE_IDLE => Idle,
        sys::NODE_STATE_ALLOCATED => Allocated,
        sys::NODE_STATE_ERROR => Error,
        sys::NODE_STATE_MIXED => Mixed,
        sys::NODE_STATE_FUTURE => Future,
        _ => return Err(sys::ESLURM_INVALID_NODE_STATE as i32),
    };
    Ok(Some(c))
}

/// The request a message makes (Err: Slurm's error number for a field
/// slurmctld would refuse).
///
/// # Safety
/// The message's strings are NULL or NUL-terminated.
pub unsafe fn node_update(m: &sys::update_node_msg_t) -> Result<NodeUpdate, i32> {
    let bad = sys::SLURM_ERROR;
    // SAFETY: the caller's contract, for each string below.
    let s = |p: *mut c_char| -> Result<Option<String>, i32> {
        if p.is_null() {
            return Ok(None);
        }
        unsafe { crate::text(p) }.map(|t| Some(t.to_string())).ok_or(bad)
    };
    let nodes = s(m.node_names)?.filter(|n| !n.is_empty()).ok_or(sys::ESLURM_INVALID_NODE_NAME as i32)?;
    let mut u = NodeUpdate {
        nodes,
        state: state_change(m.node_state)?,
        reason: s(m.reason)?,
        weight: (m.weight != sys::NO_VAL).then_some(m.weight),
        available_features: s(m.features)?,
        active_features: s(m.features_act)?,
        comment: s(m.comment)?,
        extra: s(m.extra)?,
        gres: s(m.gres)?,
        cpu_bind: (m.cpu_bind != 0).then_some(m.cpu_bind),
        node_addr: s(m.node_addr)?,
        node_hostname: s(m.node_hostname)?,
        ..Default::default()
    };
    #[cfg(feature = "slurm-24-11")]
    {
        u.resume_after = (m.resume_after != sys::NO_VAL).then_some(m.resume_after);
    }
    if u.reason.as_deref() == Some("") {
        u.reason = None;
    }
    Ok(u)
}

/// `int slurm_update_node(update_node_msg_t *msg)`: change nodes as
/// `scontrol update NodeName=` does; 0, or -1 with errno.
///
/// # Safety
/// `msg` is NULL or an initialised message.
#[no_mangle]
pub unsafe extern "C" fn slurm_update_node(msg: *mut sys::update_node_msg_t) -> c_int {
    crate::guard(-1, || {
        // SAFETY: the caller's contract.
        let Some(m) = (unsafe { msg.as_ref() }) else {
            crate::errno::set(libc::EINVAL);
            return -1;
        };
        // SAFETY: the caller's contract.
        let u = match unsafe { node_update(m) } {
            Ok(u) => u,
            Err(e) => {
                crate::errno::set(e);
                return -1;
            }
        };
        match crate::conn::call(|c| c.update_node(&u)) {
            Ok(()) => 0,
            Err(_) => -1,
        }
    })
}

/// `void slurm_free_update_node_msg(update_node_msg_t *msg)`: the
/// message's strings and the message (an xmalloc'ed one, as Slurm's).
///
/// # Safety
/// `msg` is NULL or an xmalloc'ed message whose strings are xmalloc'ed.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_update_node_msg(msg: *mut sys::update_node_msg_t) {
    crate::guard((), || {
        // SAFETY: the caller's contract.
        let Some(m) = (unsafe { msg.as_mut() }) else { return };
        // SAFETY: the caller's contract.
        unsafe {
            xfree(&mut m.comment);
            xfree(&mut m.extra);
            xfree(&mut m.features);
            xfree(&mut m.features_act);
            xfree(&mut m.gres);
            xfree(&mut m.node_addr);
            xfree(&mut m.node_hostname);
            xfree(&mut m.node_names);
            xfree(&mut m.reason);
            #[cfg(feature = "slurm-24-11")]
            {
                xfree(&mut m.cert_token);
                xfree(&mut m.instance_id);
                xfree(&mut m.instance_type);
            }
            let mut p = msg;
            xfree(&mut p);
        }
    })
}

/// `int slurm_create_node(update_node_msg_t *msg)`: Spur has no dynamic
/// nodes: -1, errno ESLURM_NOT_SUPPORTED.
///
/// # Safety
/// Any pointer (not read).
#[no_mangle]
pub unsafe extern "C" fn slurm_create_node(node_msg: *mut sys::update_node_msg_t) -> c_int {
    let _ = node_msg;
    crate::errno::set(sys::ESLURM_NOT_SUPPORTED as i32);
    -1
}

/// `int slurm_delete_node(update_node_msg_t *msg)`: as `slurm_create_node`.
///
/// # Safety
/// Any pointer (not read).
#[no_mangle]
pub unsafe extern "C" fn slurm_delete_node(node_msg: *mut sys::update_node_msg_t) -> c_int {
    let _ = node_msg;
    crate::errno::set(sys::ESLURM_NOT_SUPPORTED as i32);
    -1
}

#[cfg(test)]
#[allow(clippy::unnecessary_cast)] // (time_t is not i64 everywhere)
pub(crate) mod tests {
    use super::*;
    use spur_core::model::{NodeFlags, Partition, Reservation};

    /// Two nodes (one half allocated and drained), two partitions (one
    /// hidden), one active reservation.
    pub(crate) fn view() -> ClusterView {
        let node = |name: &str| Node {
            name: name.into(),
            addr: format!("10.0.0.{}", &name[1..]),
            hostname: name.into(),
            cpus: 4,
            sockets: 1,
            cores_per_socket: 4,
            threads_per_core: 1,
            real_memory: 2000,
            base: NodeBase::Idle,
            weight: 1,
            version: "24.11.5".into(),
            ..Default::default()
        };
        let mut n2 = node("n2");
        n2.base = NodeBase::Allocated;
        n2.alloc_cpus = 2;
        n2.alloc_mem = 1000;
        n2.flags = NodeFlags { drain: true, ..Default::default() };
        n2.reason = Some("disk".into());
        n2.reason_uid = 0;
        n2.reason_time = 1_700_000_000;
        n2.gres = vec![("gpu".into(), Some("tesla".into()), 2)];
        let part = |name: &str, nodes: &[&str], hidden: bool| Partition {
            name: name.into(),
            nodes: nodes.iter().map(|s| s.to_string()).collect(),
            nodes_expr: spur_grammar::hostlist::compress(&nodes.iter().map(|s| s.to_string()).collect::<Vec<_>>()),
            hidden,
            oversubscribe: "NO".into(),
            priority_tier: 1,
            priority_job_factor: 1,
            ..Default::default()
        };
        let mut debug = part("debug", &["n1", "n2"], false);
        debug.default = true;
        ClusterView {
            cluster_name: "c".into(),
            now: 1_700_000_100,
            nodes: vec![node("n1"), n2],
            partitions: vec![debug, part("secret", &["n2"], true)],
            reservations: vec![Reservation {
                name: "r1".into(),
                start_time: 1_700_000_000,
                end_time: 1_700_003_600,
                nodes: vec!["n2".into()],
                users: vec!["root".into()],
                flags: vec!["MAINT".into(), "IGNORE_JOBS".into()],
                cores: 4,
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    pub(crate) fn s(p: *const c_char) -> Option<String> {
        // SAFETY: NULL or a string of this library's.
        unsafe { crate::text(p) }.map(str::to_string)
    }

    #[test]
    fn nodes_as_slurmctld_sends_them() {
        let v = view();
        let msg = node_msg(&v, SHOW_MIXED | SHOW_DETAIL, None, false);
        // SAFETY: a message of node_msg's, freed once below.
        unsafe {
            let m = &*msg;
            assert_eq!((m.record_count, m.last_update as i64), (2, v.now));
            let n1 = &*m.node_array;
            let n2 = &*m.node_array.add(1);
            assert_eq!(s(n1.name).as_deref(), Some("n1"));
            assert_eq!(s(n1.node_addr).as_deref(), Some("10.0.0.1"));
            assert_eq!(n1.node_state, sys::NODE_STATE_IDLE);
            assert_eq!((n1.cpus, n1.sockets, n1.cores, n1.threads, n1.boards), (4, 1, 4, 1, 1));
            assert_eq!(n1.reason_uid, sys::NO_VAL);
            assert!(n1.reason.is_null() && n1.features.is_null() && n1.gres.is_null());
            assert_eq!(s(n1.partitions).as_deref(), Some("debug"));
            assert_eq!(s(n1.tres_fmt_str).as_deref(), Some("cpu=4,mem=2000M,billing=4"));
            // mixed (SHOW_MIXED) and drained
            assert_eq!(n2.node_state, sys::NODE_STATE_MIXED | NODE_STATE_DRAIN);
            assert_eq!(s(n2.reason).as_deref(), Some("disk"));
            assert_eq!((n2.reason_uid, n2.reason_time as i64), (0, 1_700_000_000));
            assert_eq!(s(n2.partitions).as_deref(), Some("debug,secret"));
            assert_eq!(s(n2.gres).as_deref(), Some("gpu:tesla:2"));
            assert_eq!(s(n2.gres_used).as_deref(), Some("gpu:tesla:0(IDX:N/A)"));
            #[cfg(feature = "slurm-24-11")]
            assert_eq!(s(n2.resv_name).as_deref(), Some("r1"));
            // the torque wrappers' reading of the allocation
            let mut cpus = 0u16;
            let r = slurm_get_select_nodeinfo(
                n2.select_nodeinfo,
                sys::SELECT_NODEDATA_SUBCNT,
                sys::NODE_STATE_ALLOCATED,
                (&mut cpus as *mut u16).cast(),
            );
            assert_eq!((r, cpus), (0, 2));
            let r = slurm_get_select_nodeinfo(
                n2.select_nodeinfo,
                sys::SELECT_NODEDATA_SUBCNT,
                sys::NODE_STATE_IDLE,
                (&mut cpus as *mut u16).cast(),
            );
            assert_eq!((r, cpus), (0, 0));
            let mut mem = 0u64;
            slurm_get_select_nodeinfo(
                n2.select_nodeinfo,
                sys::SELECT_NODEDATA_MEM_ALLOC,
                sys::NODE_STATE_ALLOCATED,
                (&mut mem as *mut u64).cast(),
            );
            assert_eq!(mem, 1000);
            let mut tres: *mut c_char = std::ptr::null_mut();
            slurm_get_select_nodeinfo(
                n2.select_nodeinfo,
                sys::SELECT_NODEDATA_TRES_ALLOC_FMT_STR,
                sys::NODE_STATE_ALLOCATED,
                (&mut tres as *mut *mut c_char).cast(),
            );
            assert_eq!(s(tres).as_deref(), Some("cpu=2,mem=1000M"));
            xfree(&mut tres);
            assert_eq!(slurm_get_select_nodeinfo(std::ptr::null_mut(), 2, 3, (&mut cpus as *mut u16).cast()), -1);
            slurm_free_node_info_msg(msg);
            slurm_free_node_info_msg(std::ptr::null_mut());
        }
    }

    #[test]
    fn hidden_and_single_nodes() {
        let mut v = view();
        v.partitions[0].hidden = true;
        let msg = node_msg(&v, 0, None, false);
        // SAFETY: messages of node_msg's, freed once.
        unsafe {
            // both nodes are in hidden partitions only: blank records in place
            assert_eq!((*msg).record_count, 2);
            assert!((*(*msg).node_array).name.is_null());
            slurm_free_node_info_msg(msg);
            let msg = node_msg(&v, SHOW_ALL, None, false);
            assert_eq!(s((*(*msg).node_array).name).as_deref(), Some("n1"));
            slurm_free_node_info_msg(msg);
            let msg = node_msg(&v, 0, Some("n2"), false);
            assert_eq!((*msg).record_count, 1);
            assert_eq!(s((*(*msg).node_array).name).as_deref(), Some("n2"));
            // without SHOW_MIXED the base state stays ALLOCATED
            assert_eq!((*(*msg).node_array).node_state, sys::NODE_STATE_ALLOCATED | NODE_STATE_DRAIN);
            slurm_free_node_info_msg(msg);
            let msg = node_msg(&v, 0, Some("nope"), false);
            assert_eq!((*msg).record_count, 0);
            assert!((*msg).node_array.is_null());
            slurm_free_node_info_msg(msg);
        }
    }

    #[test]
    fn members_freed_one_by_one_after_a_copy() {
        let v = view();
        let msg = node_msg(&v, SHOW_MIXED, None, false);
        // SAFETY: the records are copied out and each copy freed once; the
        // message's own array and block are then freed without its records.
        unsafe {
            let mut copy: sys::node_info_t = std::ptr::read((*msg).node_array.add(1));
            slurm_free_node_info_members(&mut copy);
            assert!(copy.name.is_null() && copy.select_nodeinfo.is_null() && copy.energy.is_null());
            slurm_free_node_info_members(&mut *(*msg).node_array);
            (*msg).record_count = 0;
            slurm_free_node_info_msg(msg);
            slurm_free_node_info_members(std::ptr::null_mut());
        }
    }

    #[test]
    fn populate_node_partitions() {
        let v = view();
        let nodes = node_msg(&v, 0, None, true);
        let parts = crate::parts::part_msg(&v, SHOW_ALL, false);
        // SAFETY: messages of this module's, freed once.
        unsafe {
            xfree(&mut (*(*nodes).node_array).partitions);
            slurm_populate_node_partitions(nodes, parts);
            assert_eq!(s((*(*nodes).node_array).partitions).as_deref(), Some("debug"));
            assert_eq!(s((*(*nodes).node_array.add(1)).partitions).as_deref(), Some("debug,secret"));
            slurm_populate_node_partitions(std::ptr::null_mut(), parts);
            slurm_free_node_info_msg(nodes);
            crate::parts::slurm_free_partition_info_msg(parts);
        }
    }

    #[test]
    fn update_messages() {
        let mut m: sys::update_node_msg_t = unsafe_zeroed();
        // SAFETY: m is a local message; the strings below outlive their use.
        unsafe {
            slurm_init_update_node_msg(&mut m);
            assert_eq!((m.node_state, m.weight), (sys::NO_VAL, sys::NO_VAL));
            assert_eq!(node_update(&m), Err(sys::ESLURM_INVALID_NODE_NAME as i32));
            let names = std::ffi::CString::new("n[1-2]").unwrap();
            let reason = std::ffi::CString::new("bad disk").unwrap();
            m.node_names = names.as_ptr() as *mut c_char;
            m.reason = reason.as_ptr() as *mut c_char;
            m.node_state = NODE_STATE_DRAIN;
            m.weight = 5;
            let u = node_update(&m).unwrap();
            assert_eq!(u.nodes, "n[1-2]");
            assert_eq!(
                (u.state, u.reason.as_deref(), u.weight),
                (Some(NodeStateChange::Drain), Some("bad disk"), Some(5))
            );
            m.node_state = NODE_RESUME;
            assert_eq!(node_update(&m).unwrap().state, Some(NodeStateChange::Resume));
            m.node_state = NODE_STATE_POWER_DOWN | NODE_STATE_POWER_DRAIN;
            assert_eq!(node_update(&m).unwrap().state, Some(NodeStateChange::PowerDownAsap));
            m.node_state = sys::NODE_STATE_IDLE;
            assert_eq!(node_update(&m).unwrap().state, Some(NodeStateChange::Idle));
            m.node_state = 1 << 30;
            assert!(node_update(&m).is_err());
            // an xmalloc'ed message, as Slurm's code builds one
            let x = xnew::<sys::update_node_msg_t>();
            slurm_init_update_node_msg(x);
            (*x).node_names = xstrdup("n1");
            (*x).reason = xstrdup("r");
            slurm_free_update_node_msg(x);
            slurm_free_update_node_msg(std::ptr::null_mut());
            assert_eq!(slurm_create_node(&mut m), -1);
            assert_eq!(crate::errno::get(), sys::ESLURM_NOT_SUPPORTED as i32);
        }
    }
}
