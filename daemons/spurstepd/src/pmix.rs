//! `srun --mpi=pmix` on one node (Slurm's mpi/pmix plugin): the step daemon
//! hosts a PMIx server through the system's libpmix (`spur_pmix`), registers
//! the step's namespace with the data Open MPI and other PMIx clients read
//! (sizes, ranks, local peers, the node and process maps, per-rank data), and
//! gives each task the variables that lead it to the server.
//!
//! Between nodes the server's collectives go through srun, as `--mpi=pmi2`'s
//! fences do: a fence sends this node's contribution (`PmiFence`) and is
//! completed with every node's, concatenated (`PmiFenceResp`); a direct
//! modex (a client wanting the data of a rank on another node) goes to srun
//! (`PmixDmodex`), which passes it to the node holding the rank, whose
//! server's answer comes back the same way (`PmixDmodexResp`).
//!
//! Each step daemon has its own server directory (`SlurmdSpoolDir/pmix.J.S`,
//! owned by the job's user, 0700, as slurmstepd's) and client directory, and
//! its own server namespace, so two agents on one host never share either.

use spur_core::launch::StepLaunch;
use spur_pmix::{InfoList, ModexDone};
use std::collections::{HashMap, VecDeque};
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Mutex};

/// Slurm's name for the step's namespace (`pmixp_info_namespace`).
pub fn namespace(job: u32, step: u32) -> String {
    format!("slurm.pmix.{}.{}", job, step)
}

/// What a direct-modex request or answer carries besides its data: the
/// asking node and its request number.
pub fn encode_request(node: u32, id: u64) -> Vec<u8> {
    let mut v = node.to_le_bytes().to_vec();
    v.extend_from_slice(&id.to_le_bytes());
    v
}

pub fn decode_request(b: &[u8]) -> Option<(u32, u64)> {
    Some((u32::from_le_bytes(b.get(0..4)?.try_into().ok()?), u64::from_le_bytes(b.get(4..12)?.try_into().ok()?)))
}

/// An answer: the request, the PMIx status, the data.
pub fn encode_answer(node: u32, id: u64, status: i32, data: &[u8]) -> Vec<u8> {
    let mut v = encode_request(node, id);
    v.extend_from_slice(&status.to_le_bytes());
    v.extend_from_slice(data);
    v
}

pub fn decode_answer(b: &[u8]) -> Option<(u32, u64, i32, &[u8])> {
    let (node, id) = decode_request(b)?;
    let status = i32::from_le_bytes(b.get(12..16)?.try_into().ok()?);
    Some((node, id, status, b.get(16..)?))
}

/// Where this node's collectives go and how answers come back.
pub trait Link: Send + Sync + 'static {
    /// This node's fence contribution, to srun.
    fn fence(&self, data: &[u8]);
    /// A request for `rank`'s data (payload from [`encode_request`]).
    fn dmodex(&self, rank: u32, payload: &[u8]);
    /// A client's `PMIx_Abort`: end the step.
    fn abort(&self, rank: u32, status: i32, msg: &str);
}

/// The node's side of the server's collectives: the fences waiting for
/// srun's answer (in order: a step's fences are all-rank, one at a time per
/// client) and the direct modex requests waiting for another node's.
struct Host {
    node: u32,
    link: Box<dyn Link>,
    fences: Mutex<VecDeque<ModexDone>>,
    dmodex: Mutex<HashMap<u64, ModexDone>>,
    next: AtomicU64,
}

static HOST: std::sync::OnceLock<&'static Host> = std::sync::OnceLock::new();

struct HostRef(&'static Host);

impl spur_pmix::Host for HostRef {
    fn fence(&self, data: Vec<u8>, done: ModexDone) {
        self.0.fences.lock().unwrap_or_else(|e| e.into_inner()).push_back(done);
        self.0.link.fence(&data);
    }
    fn direct_modex(&self, rank: u32, done: ModexDone) {
        let id = self.0.next.fetch_add(1, Ordering::SeqCst);
        self.0.dmodex.lock().unwrap_or_else(|e| e.into_inner()).insert(id, done);
        self.0.link.dmodex(rank, &encode_request(self.0.node, id));
    }
    fn abort(&self, rank: u32, status: i32, msg: &str) {
        self.0.link.abort(rank, status, msg);
    }
}

/// srun's answer to this node's oldest fence: every node's contribution.
pub fn fence_done(all: Vec<u8>) {
    if let Some(h) = HOST.get() {
        let done = h.fences.lock().unwrap_or_else(|e| e.into_inner()).pop_front();
        if let Some(d) = done {
            d.complete(Ok(all));
        }
    }
}

/// Another node's answer to one of this node's direct modex requests.
pub fn dmodex_answered(payload: &[u8]) {
    let (Some(h), Some((_, id, status, data))) = (HOST.get(), decode_answer(payload)) else { return };
    let done = h.dmodex.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
    if let Some(d) = done {
        d.complete(if status == 0 { Ok(data.to_vec()) } else { Err(()) });
    }
}

/// Another node asks for the data of `rank`, one of this node's: the
/// server's answer goes to `reply` (an answer payload).
pub fn dmodex_asked(nspace: &str, rank: u32, payload: &[u8], reply: impl FnOnce(Vec<u8>) + Send + 'static) {
    let Some((node, id)) = decode_request(payload) else { return };
    spur_pmix::dmodex_request(nspace, rank, move |r| {
        reply(match r {
            Ok(d) => encode_answer(node, id, 0, &d),
            Err(s) => encode_answer(node, id, s, &[]),
        })
    });
}

/// The server of one step on one node, and the directories it made.
pub struct Server {
    dirs: Vec<PathBuf>,
    /// Each local task's variables (`PMIX_*` from libpmix's setup_fork, and
    /// Slurm's own), by global task id.
    pub env: HashMap<u32, Vec<(String, String)>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        spur_pmix::finalize();
        for d in &self.dirs {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// A directory for the job's user alone (Slurm's `pmixp_mkdir`: owned by
/// the user, 0700), made afresh.
fn user_dir(path: &Path, uid: u32) -> io::Result<()> {
    let _ = std::fs::remove_dir_all(path);
    std::fs::create_dir_all(path)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700))?;
    if nix::unistd::geteuid().is_root() {
        nix::unistd::chown(path, Some(nix::unistd::Uid::from_raw(uid)), None).map_err(io::Error::from)?;
    }
    Ok(())
}

/// Start the node's server for the step in `spec` (`dir`: the step's spool
/// directory, `node_id`: this node's index in the step) and register its
/// namespace and local tasks.
pub fn start(spec: &StepLaunch, dir: &Path, node: &str, node_id: u32, link: Box<dyn Link>) -> io::Result<Server> {
    let (job, step) = (spec.job.job_id, spec.step.step_id);
    let nspace = namespace(job, step);
    let spool = dir.parent().unwrap_or(Path::new("/tmp"));
    let lib_dir = spool.join(format!("pmix.{}.{}", job, step));
    // the clients' own directory: Slurm's `TmpFS/spmix_appdir_UID_J.S`,
    // with the node's name, as two agents may share a host
    let cli_dir = PathBuf::from(std::env::var("TMPDIR").ok().filter(|t| t.starts_with('/')).unwrap_or("/tmp".into()))
        .join(format!("spmix_appdir_{}_{}.{}.{}", spec.uid, job, step, node));
    user_dir(&lib_dir, spec.uid)?;
    user_dir(&cli_dir, spec.uid)?;
    let mut server = Server { dirs: vec![lib_dir.clone(), cli_dir.clone()], env: HashMap::new() };

    let host: &'static Host = Box::leak(Box::new(Host {
        node: node_id,
        link,
        fences: Mutex::new(VecDeque::new()),
        dmodex: Mutex::new(HashMap::new()),
        next: AtomicU64::new(1),
    }));
    if HOST.set(host).is_err() {
        return Err(io::Error::other("a second PMIx server in one step daemon"));
    }
    let err = |e: spur_pmix::Error| io::Error::other(e.to_string());
    spur_pmix::init(
        &lib_dir.to_string_lossy(),
        spec.uid,
        &format!("spur.stepd.{}.{}.{}", job, step, node),
        node,
        Box::new(HostRef(host)),
    )
    .map_err(err)?;

    let st = &spec.step;
    let nodes: Vec<String> = st.allocs.iter().map(|a| a.node.clone()).collect();
    let local: Vec<u32> = st.task_ids.get(node_id as usize).cloned().unwrap_or_default();
    let mut node_of: HashMap<u32, (u32, u16)> = HashMap::new();
    for (n, ids) in st.task_ids.iter().enumerate() {
        for (i, &t) in ids.iter().enumerate() {
            node_of.insert(t, (n as u32, i as u16));
        }
    }
    // srun's process mapping (PMI-2's), as Slurm's mpi/pmix exports it
    let mapping = crate::pmi::process_mapping(&crate::pmi::task_nodes(&st.task_ids, st.num_tasks));
    let mut info = InfoList::new();
    info.bool(spur_pmix::ffi::PMIX_SPAWNED, false)
        .string(spur_pmix::ffi::PMIX_TMPDIR, &cli_dir.to_string_lossy())
        .string(spur_pmix::ffi::PMIX_NSDIR, &cli_dir.to_string_lossy())
        .string(spur_pmix::ffi::PMIX_JOBID, &nspace)
        .u32(spur_pmix::ffi::PMIX_NODEID, node_id)
        .u32(spur_pmix::ffi::PMIX_UNIV_SIZE, st.num_tasks)
        .u32(spur_pmix::ffi::PMIX_JOB_SIZE, st.num_tasks)
        .u32(spur_pmix::ffi::PMIX_LOCAL_SIZE, local.len() as u32)
        .u32(spur_pmix::ffi::PMIX_NODE_SIZE, local.len() as u32)
        .u32(spur_pmix::ffi::PMIX_MAX_PROCS, st.num_tasks)
        .u32(spur_pmix::ffi::PMIX_NUM_NODES, nodes.len() as u32)
        .string(spur_pmix::ffi::PMIX_NODE_MAP, &spur_pmix::node_map(&nodes).map_err(err)?)
        .string(spur_pmix::ffi::PMIX_PROC_MAP, &spur_pmix::proc_map(&st.task_ids).map_err(err)?)
        .string(spur_pmix::ffi::PMIX_ANL_MAP, &mapping)
        .string(spur_pmix::ffi::PMIX_LOCAL_PEERS, &local.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(","))
        .u32(spur_pmix::ffi::PMIX_LOCALLDR, local.first().copied().unwrap_or(0));
    // every rank's own data, as slurmstepd registers it
    for t in 0..st.num_tasks {
        let (n, localid) = node_of.get(&t).copied().unwrap_or((0, 0));
        let mut p = InfoList::new();
        p.rank(spur_pmix::ffi::PMIX_RANK, t)
            .int(spur_pmix::ffi::PMIX_APPNUM, 0)
            .int(spur_pmix::ffi::PMIX_APPLDR, 0)
            .u32(spur_pmix::ffi::PMIX_GLOBAL_RANK, t)
            .u32(spur_pmix::ffi::PMIX_APP_RANK, t);
        if n == node_id {
            p.u16(spur_pmix::ffi::PMIX_LOCAL_RANK, localid).u16(spur_pmix::ffi::PMIX_NODE_RANK, localid);
        }
        p.string(spur_pmix::ffi::PMIX_HOSTNAME, nodes.get(n as usize).map(String::as_str).unwrap_or(""))
            .u32(spur_pmix::ffi::PMIX_NODEID, n);
        info.nested(spur_pmix::ffi::PMIX_PROC_DATA, p);
    }
    spur_pmix::register_nspace(&nspace, local.len() as u32, info).map_err(err)?;
    // Open MPI's PSM2 key (24.11's slurmstepd, `pmixp_info_set`), unless
    // given
    let v22 = spur_core::compat::release() == spur_core::compat::Release::V22_05;
    let precondition = spec
        .io
        .env
        .iter()
        .any(|(k, _)| k == "OMPI_MCA_orte_precondition_transports")
        .then(String::new)
        .unwrap_or_else(|| format!("{:08x}{:08x}-{:08x}{:08x}", job, step, job, step));
    for &t in &local {
        spur_pmix::register_client(&nspace, t, spec.uid, spec.gid).map_err(err)?;
        let mut env = spur_pmix::setup_fork(&nspace, t).map_err(err)?;
        env.push(("SLURM_PMIX_MAPPING_SERV".into(), mapping.clone()));
        if !precondition.is_empty() && !v22 {
            env.push(("OMPI_MCA_orte_precondition_transports".into(), precondition.clone()));
        }
        server.env.insert(t, env);
    }
    Ok(server)
}

/// The step daemon's [`Link`]: fences up the step's tree, direct modex
/// frames to srun, and the abort through a channel to the thread that can
/// end the step.
pub struct SrunLink<S: Fn(spur_core::stepio::FrameKind, u32, &[u8]) + Send + Sync + 'static> {
    pub send: S,
    /// The step's fence tree (`fence`).
    pub tree: std::sync::Arc<crate::fence::Tree>,
    /// A client's abort and its status.
    pub abort: Mutex<mpsc::Sender<i32>>,
}

impl<S: Fn(spur_core::stepio::FrameKind, u32, &[u8]) + Send + Sync + 'static> Link for SrunLink<S> {
    fn fence(&self, data: &[u8]) {
        self.tree.contribute(data.to_vec());
    }
    fn dmodex(&self, rank: u32, payload: &[u8]) {
        (self.send)(spur_core::stepio::FrameKind::PmixDmodex, rank, payload);
    }
    fn abort(&self, _rank: u32, status: i32, _msg: &str) {
        let _ = self.abort.lock().unwrap_or_else(|e| e.into_inner()).send(status);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_answers_round_trip() {
        assert_eq!(decode_request(&encode_request(3, 77)), Some((3, 77)));
        let a = encode_answer(1, 9, -46, b"blob");
        assert_eq!(decode_answer(&a), Some((1, 9, -46, &b"blob"[..])));
        assert_eq!(decode_request(b"short"), None);
        assert_eq!(decode_answer(&encode_request(1, 2)), None);
    }

    #[test]
    fn the_namespace_is_slurms() {
        assert_eq!(namespace(12, 0), "slurm.pmix.12.0");
    }
}
