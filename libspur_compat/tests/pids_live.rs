//! `slurm_job_step_get_pids` and `slurm_job_step_stat` against a real Spur
//! cluster: a two-node step's processes on each node, as `scontrol
//! listpids` lists them there, and its use there; the
//! batch step's; a node list naming one node, or a node without the step;
//! an unknown step; and the free functions. Then the queries of features
//! the cluster does not configure (src/absent.rs), answered as slurmctld
//! answers them then (one cluster, one test).

use slurm_tests::Cluster;
use spur_compat::pids::*;
use spur_compat::sys;
use std::collections::BTreeSet;
use std::ffi::{CStr, CString};
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

struct Down(Cluster);
impl Drop for Down {
    fn drop(&mut self) {
        self.0.down();
    }
}

/// The answer as (node, pids) pairs, in the list's order.
///
/// # Safety
/// `m` is a message of `slurm_job_step_get_pids`.
unsafe fn answers(m: *mut sys::job_step_pids_response_msg_t) -> Vec<(String, Vec<u32>)> {
    // SAFETY: the contract; the list holds job_step_pids_t records.
    unsafe {
        spur_compat::list::list_items((*m).pid_list)
            .into_iter()
            .map(|x| {
                let r = &*x.cast::<sys::job_step_pids_t>();
                let pids = std::slice::from_raw_parts(r.pid, r.pid_cnt as usize).to_vec();
                (CStr::from_ptr(r.node_name).to_string_lossy().into_owned(), pids)
            })
            .collect()
    }
}

/// What `scontrol listpids JOB NODE` lists for step `step` (`0`, `batch`):
/// every PID (none while the step is not there yet).
fn listpids(c: &Cluster, job: u32, step: &str, node: &str) -> BTreeSet<u32> {
    let o = c.run("scontrol", &["listpids", &job.to_string(), node]);
    o.stdout
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.get(2) == Some(&step))
        .filter_map(|w| w.first()?.parse().ok())
        .collect()
}

fn get(job: u32, step: u32, nodes: Option<&str>) -> (i32, *mut sys::job_step_pids_response_msg_t) {
    // SAFETY: a zeroed step id is a valid one to fill.
    let mut id: sys::slurm_step_id_t = unsafe { std::mem::zeroed() };
    id.job_id = job;
    id.step_id = step;
    id.step_het_comp = sys::NO_VAL;
    let nodes = nodes.map(|n| CString::new(n).unwrap());
    let mut resp = std::ptr::null_mut();
    let np = nodes.as_ref().map_or(std::ptr::null_mut(), |n| n.as_ptr().cast_mut());
    // SAFETY: id, nodes and resp are ours and live across the call.
    let rc = unsafe { slurm_job_step_get_pids(&mut id, np, &mut resp) };
    (rc, resp)
}

#[test]
fn step_pids_as_listpids_lists_them() {
    // (a 24.11 cluster for either library: 22.05's `scontrol listpids`,
    // the oracle here, takes no node name)
    let c = Down(Cluster::up("compat-pids", 2, &[]));
    let c = &c.0;
    std::env::set_var("SLURM_CONF", &c.conf);
    let job = c.sbatch(&["-N2", "-n2", "-o", "/dev/null", "--wrap", "srun sleep 300"]);
    slurm_tests::wait_for("the step's tasks on both nodes", T, || {
        ["node1", "node2"].iter().all(|n| !listpids(c, job, "0", n).is_empty())
    });

    let (rc, m) = get(job, 0, None);
    assert_eq!(rc, 0, "errno {}", spur_compat::errno::get());
    // SAFETY: m is the message just filled.
    let got = unsafe { answers(m) };
    assert_eq!(got.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["node1", "node2"]);
    for (node, pids) in &got {
        assert_eq!(pids.iter().copied().collect::<BTreeSet<u32>>(), listpids(c, job, "0", node), "{}", node);
    }
    // SAFETY: m is ours, freed once.
    unsafe {
        assert_eq!(((*m).step_id.job_id, (*m).step_id.step_id), (job, 0));
        slurm_job_step_pids_response_msg_free(m.cast());
    }

    // slurm_job_step_stat: per node its tasks, its processes (as above) and
    // a jobacctinfo_t of its CPU use
    // SAFETY: a zeroed step id is a valid one to fill; resp is ours, freed once.
    unsafe {
        let mut id: sys::slurm_step_id_t = std::mem::zeroed();
        id.job_id = job;
        id.step_id = 0;
        id.step_het_comp = sys::NO_VAL;
        let mut resp: *mut sys::job_step_stat_response_msg_t = std::ptr::null_mut();
        assert_eq!(spur_compat::stepstat::slurm_job_step_stat(&mut id, std::ptr::null_mut(), 0, &mut resp), 0);
        let recs: Vec<&sys::job_step_stat_t> = spur_compat::list::list_items((*resp).stats_list)
            .into_iter()
            .map(|x| &*x.cast::<sys::job_step_stat_t>())
            .collect();
        assert_eq!(recs.len(), 2);
        for (r, (node, pids)) in recs.iter().zip(&got) {
            assert_eq!((r.num_tasks, r.return_code), (1, 0));
            let p = &*r.step_pids;
            assert_eq!(&CStr::from_ptr(p.node_name).to_string_lossy(), node);
            assert_eq!(
                std::slice::from_raw_parts(p.pid, p.pid_cnt as usize).iter().collect::<BTreeSet<_>>(),
                pids.iter().collect::<BTreeSet<_>>()
            );
            let a = &*r.jobacct.cast::<spur_compat::stepstat::Jobacctinfo>();
            assert_eq!((a.tres_count, a.dataset_id), (0, -1));
            assert!(a.user_cpu_usec < 1_000_000 && a.sys_cpu_usec < 1_000_000);
        }
        spur_compat::stepstat::slurm_job_step_stat_response_msg_free(resp.cast());
        let mut none: *mut sys::job_step_stat_response_msg_t = std::ptr::null_mut();
        id.step_id = 7;
        assert_eq!(spur_compat::stepstat::slurm_job_step_stat(&mut id, std::ptr::null_mut(), 0, &mut none), 2017);
        assert!(none.is_null());
    }

    // the batch step: its script and what it started, on the batch host
    let (rc, m) = get(job, sys::SLURM_BATCH_SCRIPT, None);
    assert_eq!(rc, 0);
    // SAFETY: as above.
    let got = unsafe { answers(m) };
    assert_eq!(got.len(), 1, "{:?}", got);
    let batch = listpids(c, job, "batch", &got[0].0);
    assert!(!batch.is_empty());
    assert_eq!(got[0].1.iter().copied().collect::<BTreeSet<u32>>(), batch);
    // SAFETY: as above.
    unsafe { slurm_job_step_pids_response_msg_free(m.cast()) };

    // one node named; a node the step is not on
    let (rc, m) = get(job, 0, Some("node2"));
    assert_eq!(rc, 0);
    // SAFETY: as above.
    assert_eq!(unsafe { answers(m) }.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>(), ["node2"]);
    // SAFETY: as above.
    unsafe { slurm_job_step_pids_response_msg_free(m.cast()) };
    let (rc, m) = get(job, 0, Some("node[2-3]"));
    assert_eq!(rc, sys::ESLURM_INVALID_JOB_ID as i32);
    // SAFETY: as above.
    assert_eq!(unsafe { answers(m) }.len(), 1);
    // SAFETY: as above.
    unsafe { slurm_job_step_pids_response_msg_free(m.cast()) };

    // an unknown step: its code, and no message made
    let (rc, m) = get(job, 7, None);
    assert_eq!((rc, spur_compat::errno::get()), (2017, 2017));
    assert!(m.is_null());
    // (NULL: nothing to free)
    // SAFETY: NULL is allowed.
    unsafe { slurm_job_step_pids_response_msg_free(std::ptr::null_mut()) };
    assert_eq!(c.run("scancel", &[&job.to_string()]).code, 0);
    not_configured();
}

/// Measured with Debian 12's libslurm.so.38 against a slurmctld 22.05
/// without topology, burst buffer or federation: each an empty message (or
/// NULL) and 0.
fn not_configured() {
    use spur_compat::absent::*;
    // SAFETY: each pointer is ours; each message is freed once by its own free.
    unsafe {
        let mut topo = std::ptr::null_mut();
        assert_eq!(slurm_load_topo(&mut topo), 0);
        assert_eq!((*topo).record_count, 0);
        assert!((*topo).topo_array.is_null());
        slurm_free_topo_info_msg(topo);
        let mut fe = std::ptr::null_mut();
        assert_eq!(slurm_load_front_end(0, &mut fe), 0);
        assert_eq!((*fe).record_count, 0);
        assert!((*fe).last_update > 0);
        // printed as slurmctld 22.05's empty front end message prints
        let f = libc::tmpfile();
        slurm_print_front_end_info_msg(f.cast(), fe, 0);
        libc::rewind(f);
        let mut buf = vec![0u8; 256];
        let n = libc::fread(buf.as_mut_ptr().cast(), 1, buf.len(), f);
        libc::fclose(f);
        let text = String::from_utf8_lossy(&buf[..n]).into_owned();
        let when = spur_cli_base::format::time_str((*fe).last_update);
        assert_eq!(text, format!("front_end data as of {}, record count 0\n", when));
        slurm_free_front_end_info_msg(fe);
        let mut bb = std::ptr::null_mut();
        assert_eq!(slurm_load_burst_buffer_info(&mut bb), 0);
        assert_eq!((*bb).record_count, 0);
        slurm_free_burst_buffer_info_msg(bb);
        let mut status = std::ptr::null_mut();
        assert_eq!(slurm_load_burst_buffer_stat(0, std::ptr::null_mut(), &mut status), 0);
        assert!(status.is_null());
        let mut trig = std::ptr::null_mut();
        assert_eq!(slurm_get_triggers(&mut trig), 0);
        assert_eq!((*trig).record_count, 0);
        slurm_free_trigger_msg(trig);
        let mut fed: *mut std::ffi::c_void = std::ptr::NonNull::dangling().as_ptr();
        assert_eq!(slurm_load_federation(&mut fed), 0);
        assert!(fed.is_null());
    }
}
