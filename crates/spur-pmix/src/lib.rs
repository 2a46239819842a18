//! The PMIx server a step daemon hosts for `srun --mpi=pmix` (Slurm's
//! mpi/pmix plugin), through the system's libpmix: [`ffi`] is bindgen's
//! binding of `pmix_server.h`, made at build time; nothing of PMIx is
//! written here.
//!
//! One server per process (libpmix allows no more): [`init`] starts it with
//! the [`Host`] that carries its collectives to the other nodes, then the
//! step's namespace and its local clients are registered and each task's
//! environment is asked for before it is started ([`setup_fork`]). The
//! library calls the host from its own progress thread; the host answers
//! through the [`ModexDone`] it was given, from any thread, when the other
//! nodes have answered.

#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::mpsc;
use std::sync::OnceLock;

/// bindgen's output for `pmix_server.h` (libpmix-dev).
#[allow(non_upper_case_globals, non_camel_case_types, non_snake_case, dead_code, clippy::all)]
pub mod ffi {
    include!(concat!(env!("OUT_DIR"), "/pmix.rs"));
}

/// A PMIx status other than success, with the library's name for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub status: i32,
    pub what: String,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} failed: {} ({})", self.what, error_string(self.status), self.status)
    }
}

impl std::error::Error for Error {}

/// libpmix's text for a status (`PMIx_Error_string`).
pub fn error_string(status: i32) -> String {
    // SAFETY: PMIx_Error_string returns a static string for any status.
    let p = unsafe { ffi::PMIx_Error_string(status) };
    if p.is_null() {
        return status.to_string();
    }
    // SAFETY: non-null, NUL-terminated and static.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// The library's version line (`PMIx_Get_version`).
pub fn version() -> String {
    // SAFETY: a static string.
    unsafe { CStr::from_ptr(ffi::PMIx_Get_version()) }.to_string_lossy().into_owned()
}

fn check(status: ffi::pmix_status_t, what: &str) -> Result<(), Error> {
    if status == ffi::PMIX_SUCCESS as i32 {
        Ok(())
    } else {
        Err(Error { status, what: what.to_string() })
    }
}

/// What the step daemon does for the library: carry a collective to the
/// other nodes, ask another node for a rank's data, end the step.
pub trait Host: Send + Sync + 'static {
    /// Every local client of the namespace entered a fence (over all of
    /// its ranks); `data` is this server's contribution. `done` is given
    /// every server's contribution, concatenated, once all have fenced.
    fn fence(&self, data: Vec<u8>, done: ModexDone);
    /// A local client wants the data of `rank`, held by another node's
    /// server: `done` gets that server's answer.
    fn direct_modex(&self, rank: u32, done: ModexDone);
    /// A client called `PMIx_Abort`: the step ends.
    fn abort(&self, rank: u32, status: i32, msg: &str);
}

static HOST: OnceLock<Box<dyn Host>> = OnceLock::new();

/// The library's continuation of a fence or direct modex: given the data
/// (or a failure), it resumes the clients waiting on it. Dropping it
/// unanswered fails them, so no client waits forever.
pub struct ModexDone {
    cbfunc: ffi::pmix_modex_cbfunc_t,
    cbdata: *mut c_void,
}

// SAFETY: libpmix accepts its callbacks from any thread (it moves them onto
// its progress thread itself).
unsafe impl Send for ModexDone {}

impl ModexDone {
    /// Resume the clients with `data`, or fail them with PMIX_ERROR.
    pub fn complete(mut self, data: Result<Vec<u8>, ()>) {
        self.finish(data);
    }

    fn finish(&mut self, data: Result<Vec<u8>, ()>) {
        let Some(cb) = self.cbfunc.take() else { return };
        match data {
            Ok(v) => {
                let held = Box::new(v);
                let (ptr, len) = (held.as_ptr() as *const c_char, held.len());
                let raw = Box::into_raw(held) as *mut c_void;
                // SAFETY: the data stays alive until the library calls
                // `release_data`, which frees it.
                unsafe { cb(ffi::PMIX_SUCCESS as i32, ptr, len, self.cbdata, Some(release_data), raw) }
            }
            // SAFETY: no data to keep.
            Err(()) => unsafe { cb(ffi::PMIX_ERROR, std::ptr::null(), 0, self.cbdata, None, std::ptr::null_mut()) },
        }
    }
}

impl Drop for ModexDone {
    fn drop(&mut self) {
        self.finish(Err(()));
    }
}

unsafe extern "C" fn release_data(p: *mut c_void) {
    if !p.is_null() {
        drop(Box::from_raw(p as *mut Vec<u8>));
    }
}

fn proc_t(nspace: &str, rank: u32) -> ffi::pmix_proc_t {
    let mut p = ffi::pmix_proc_t::default();
    for (d, s) in p.nspace.iter_mut().zip(nspace.bytes().take(ffi::PMIX_MAX_NSLEN as usize)) {
        *d = s as c_char;
    }
    p.rank = rank;
    p
}

/// A list of PMIx key/values being built (`PMIx_Info_list_*`).
pub struct InfoList(*mut c_void);

impl Default for InfoList {
    fn default() -> Self {
        InfoList::new()
    }
}

impl InfoList {
    pub fn new() -> InfoList {
        // SAFETY: a new, empty list.
        InfoList(unsafe { ffi::PMIx_Info_list_start() })
    }

    fn add_raw(&mut self, key: &[u8], value: *const c_void, ty: u32) {
        // SAFETY: key is one of bindgen's NUL-terminated PMIX_* constants;
        // the library copies the value.
        unsafe {
            ffi::PMIx_Info_list_add(self.0, key.as_ptr() as *const c_char, value, ty as ffi::pmix_data_type_t);
        }
    }

    pub fn string(&mut self, key: &[u8], v: &str) -> &mut Self {
        let c = CString::new(v.replace('\0', "")).unwrap_or_default();
        // (a string value is passed as the string itself)
        self.add_raw(key, c.as_ptr() as *const c_void, ffi::PMIX_STRING);
        self
    }

    fn scalar<T: Copy>(&mut self, key: &[u8], v: T, ty: u32) -> &mut Self {
        self.add_raw(key, &v as *const T as *const c_void, ty);
        self
    }

    pub fn u32(&mut self, key: &[u8], v: u32) -> &mut Self {
        self.scalar(key, v, ffi::PMIX_UINT32)
    }

    pub fn u16(&mut self, key: &[u8], v: u16) -> &mut Self {
        self.scalar(key, v, ffi::PMIX_UINT16)
    }

    pub fn int(&mut self, key: &[u8], v: i32) -> &mut Self {
        self.scalar(key, v, ffi::PMIX_INT)
    }

    pub fn rank(&mut self, key: &[u8], v: u32) -> &mut Self {
        self.scalar(key, v, ffi::PMIX_PROC_RANK)
    }

    pub fn bool(&mut self, key: &[u8], v: bool) -> &mut Self {
        self.scalar(key, v, ffi::PMIX_BOOL)
    }

    /// `key` holding the whole of `inner` as an array of infos (such as
    /// `PMIX_PROC_DATA`).
    pub fn nested(&mut self, key: &[u8], inner: InfoList) -> &mut Self {
        let mut arr = inner.convert();
        self.add_raw(key, &mut arr.0 as *mut ffi::pmix_data_array_t as *const c_void, ffi::PMIX_DATA_ARRAY);
        self
    }

    fn convert(self) -> InfoArray {
        let mut arr = ffi::pmix_data_array_t::default();
        // SAFETY: converts the list into a fresh array the InfoArray owns.
        unsafe {
            ffi::PMIx_Info_list_convert(self.0, &mut arr);
        }
        InfoArray(arr)
    }
}

impl Drop for InfoList {
    fn drop(&mut self) {
        // SAFETY: the list from PMIx_Info_list_start, released once.
        unsafe { ffi::PMIx_Info_list_release(self.0) }
    }
}

/// A converted list: a `pmix_info_t` array the library reads.
struct InfoArray(ffi::pmix_data_array_t);

impl InfoArray {
    fn infos(&mut self) -> (*mut ffi::pmix_info_t, usize) {
        (self.0.array as *mut ffi::pmix_info_t, self.0.size)
    }
}

impl Drop for InfoArray {
    fn drop(&mut self) {
        // SAFETY: the array from PMIx_Info_list_convert, destructed once.
        unsafe { ffi::PMIx_Data_array_destruct(&mut self.0) }
    }
}

/// A non-blocking library call made blocking: the status its callback gives.
fn wait_op(
    what: &str,
    call: impl FnOnce(ffi::pmix_op_cbfunc_t, *mut c_void) -> ffi::pmix_status_t,
) -> Result<(), Error> {
    let (tx, rx) = mpsc::channel::<i32>();
    let cbdata = Box::into_raw(Box::new(tx)) as *mut c_void;
    let rc = call(Some(op_done), cbdata);
    if rc == ffi::PMIX_OPERATION_SUCCEEDED {
        // done at once: the callback will not be called
        // SAFETY: ours, not handed on.
        drop(unsafe { Box::from_raw(cbdata as *mut mpsc::Sender<i32>) });
        return Ok(());
    }
    if rc != ffi::PMIX_SUCCESS as i32 {
        // SAFETY: as above.
        drop(unsafe { Box::from_raw(cbdata as *mut mpsc::Sender<i32>) });
        return check(rc, what);
    }
    check(rx.recv().unwrap_or(ffi::PMIX_ERROR), what)
}

unsafe extern "C" fn op_done(status: ffi::pmix_status_t, cbdata: *mut c_void) {
    let tx = Box::from_raw(cbdata as *mut mpsc::Sender<i32>);
    let _ = tx.send(status);
}

/// Start this process's PMIx server: its own temporary directory
/// (`PMIX_SERVER_TMPDIR`, where the clients' rendezvous socket is, so two
/// step daemons on one host never meet), its own namespace and host name,
/// sockets owned by the job's user (as slurmstepd's `pmixp_lib_init`).
pub fn init(tmpdir: &str, uid: u32, server_nspace: &str, hostname: &str, host: Box<dyn Host>) -> Result<(), Error> {
    if HOST.set(host).is_err() {
        return Err(Error { status: ffi::PMIX_ERR_INIT, what: "PMIx_server_init (a second server)".into() });
    }
    let mut l = InfoList::new();
    l.string(ffi::PMIX_SERVER_TMPDIR, tmpdir)
        .u32(ffi::PMIX_USERID, uid)
        .string(ffi::PMIX_SERVER_NSPACE, server_nspace)
        .rank(ffi::PMIX_SERVER_RANK, 0)
        .string(ffi::PMIX_HOSTNAME, hostname)
        .bool(ffi::PMIX_SERVER_TOOL_SUPPORT, false)
        .bool(ffi::PMIX_SERVER_SYSTEM_SUPPORT, false);
    let mut arr = l.convert();
    let (infos, n) = arr.infos();
    let module = Box::leak(Box::new(ffi::pmix_server_module_t {
        abort: Some(abort_fn),
        fence_nb: Some(fence_fn),
        direct_modex: Some(dmodex_fn),
        ..Default::default()
    }));
    // SAFETY: the module lives for the process; the infos are copied.
    check(unsafe { ffi::PMIx_server_init(module, infos, n) }, "PMIx_server_init")
}

/// Stop the server (its sockets and files go).
pub fn finalize() {
    // SAFETY: after init; the library tolerates a call without it.
    unsafe {
        ffi::PMIx_server_finalize();
    }
}

/// Register the step's namespace with its job-level and per-rank data.
pub fn register_nspace(nspace: &str, nlocal: u32, info: InfoList) -> Result<(), Error> {
    let ns = CString::new(nspace).unwrap_or_default();
    let mut arr = info.convert();
    let (infos, n) = arr.infos();
    wait_op("PMIx_server_register_nspace", |cb, data| {
        // SAFETY: the arguments outlive the call; the library copies them.
        unsafe { ffi::PMIx_server_register_nspace(ns.as_ptr(), nlocal as i32, infos, n, cb, data) }
    })
}

/// Register one local client (a task) and the user it runs as.
pub fn register_client(nspace: &str, rank: u32, uid: u32, gid: u32) -> Result<(), Error> {
    let p = proc_t(nspace, rank);
    wait_op("PMIx_server_register_client", |cb, data| {
        // SAFETY: as above.
        unsafe { ffi::PMIx_server_register_client(&p, uid, gid, std::ptr::null_mut(), cb, data) }
    })
}

/// The variables a client needs to find this server (`PMIX_NAMESPACE`,
/// `PMIX_RANK`, `PMIX_SERVER_URI*`, ...), for the task's environment.
pub fn setup_fork(nspace: &str, rank: u32) -> Result<Vec<(String, String)>, Error> {
    let p = proc_t(nspace, rank);
    let mut env: *mut *mut c_char = std::ptr::null_mut();
    // SAFETY: the library appends to a NULL-terminated, malloc'd array.
    check(unsafe { ffi::PMIx_server_setup_fork(&p, &mut env) }, "PMIx_server_setup_fork")?;
    let mut out = Vec::new();
    if !env.is_null() {
        let mut i = 0;
        loop {
            // SAFETY: NULL-terminated; each entry malloc'd by the library.
            let e = unsafe { *env.add(i) };
            if e.is_null() {
                break;
            }
            let s = unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned();
            if let Some((k, v)) = s.split_once('=') {
                out.push((k.to_string(), v.to_string()));
            }
            unsafe { libc::free(e as *mut c_void) };
            i += 1;
        }
        unsafe { libc::free(env as *mut c_void) };
    }
    Ok(out)
}

/// This server's data for one of its local ranks, asked by another node.
pub fn dmodex_request(nspace: &str, rank: u32, done: impl FnOnce(Result<Vec<u8>, i32>) + Send + 'static) {
    type Done = Box<dyn FnOnce(Result<Vec<u8>, i32>) + Send>;
    let p = proc_t(nspace, rank);
    let cb: Box<Done> = Box::new(Box::new(done));
    let cbdata = Box::into_raw(cb) as *mut c_void;
    unsafe extern "C" fn answered(status: ffi::pmix_status_t, data: *mut c_char, sz: usize, cbdata: *mut c_void) {
        let done = Box::from_raw(cbdata as *mut Done);
        if status == ffi::PMIX_SUCCESS as i32 {
            let v = if data.is_null() { vec![] } else { std::slice::from_raw_parts(data as *const u8, sz).to_vec() };
            done(Ok(v));
        } else {
            done(Err(status));
        }
    }
    // SAFETY: the callback frees what it is given; on failure it is ours.
    let rc = unsafe { ffi::PMIx_server_dmodex_request(&p, Some(answered), cbdata) };
    if rc != ffi::PMIX_SUCCESS as i32 {
        let done = unsafe { Box::from_raw(cbdata as *mut Done) };
        done(Err(rc));
    }
}

/// libpmix's compact form of the node list (`PMIx_generate_regex`) and of
/// the ranks on each node (`PMIx_generate_ppn`: `0,1;2,3`).
pub fn node_map(nodes: &[String]) -> Result<String, Error> {
    generate(&nodes.join(","), ffi::PMIx_generate_regex, "PMIx_generate_regex")
}

pub fn proc_map(ranks_by_node: &[Vec<u32>]) -> Result<String, Error> {
    let s = ranks_by_node
        .iter()
        .map(|r| r.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(","))
        .collect::<Vec<_>>()
        .join(";");
    generate(&s, ffi::PMIx_generate_ppn, "PMIx_generate_ppn")
}

fn generate(
    input: &str,
    f: unsafe extern "C" fn(*const c_char, *mut *mut c_char) -> ffi::pmix_status_t,
    what: &str,
) -> Result<String, Error> {
    let c = CString::new(input).unwrap_or_default();
    let mut out: *mut c_char = std::ptr::null_mut();
    // SAFETY: the library returns a malloc'd string, freed here.
    check(unsafe { f(c.as_ptr(), &mut out) }, what)?;
    if out.is_null() {
        return Ok(String::new());
    }
    // The regex may be "raw:" text or a compressed blob with a prefix; it
    // is a NUL-terminated string either way as the library hands it to
    // register_nspace as PMIX_STRING (PMIx 4 may embed a NUL after its
    // prefix: take the string form the library itself would pass on).
    let s = unsafe { CStr::from_ptr(out) }.to_string_lossy().into_owned();
    unsafe { libc::free(out as *mut c_void) };
    Ok(s)
}

unsafe fn text(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

unsafe extern "C" fn fence_fn(
    _procs: *const ffi::pmix_proc_t,
    _nprocs: usize,
    _info: *const ffi::pmix_info_t,
    _ninfo: usize,
    data: *mut c_char,
    ndata: usize,
    cbfunc: ffi::pmix_modex_cbfunc_t,
    cbdata: *mut c_void,
) -> ffi::pmix_status_t {
    let d = if data.is_null() || ndata == 0 {
        vec![]
    } else {
        std::slice::from_raw_parts(data as *const u8, ndata).to_vec()
    };
    to_host(cbfunc, cbdata, |h, done| h.fence(d, done))
}

unsafe extern "C" fn dmodex_fn(
    proc_: *const ffi::pmix_proc_t,
    _info: *const ffi::pmix_info_t,
    _ninfo: usize,
    cbfunc: ffi::pmix_modex_cbfunc_t,
    cbdata: *mut c_void,
) -> ffi::pmix_status_t {
    if proc_.is_null() {
        return ffi::PMIX_ERR_BAD_PARAM;
    }
    let rank = (*proc_).rank;
    to_host(cbfunc, cbdata, |h, done| h.direct_modex(rank, done))
}

/// Hand a fence or direct modex to the host. Its [`ModexDone`] answers the
/// library whatever happens (a panic, caught here, drops it: the clients
/// get PMIX_ERROR), so the request counts as taken.
fn to_host(
    cbfunc: ffi::pmix_modex_cbfunc_t,
    cbdata: *mut c_void,
    f: impl FnOnce(&dyn Host, ModexDone),
) -> ffi::pmix_status_t {
    let Some(h) = HOST.get() else { return ffi::PMIX_ERR_NOT_SUPPORTED };
    let done = ModexDone { cbfunc, cbdata };
    // (no panic may cross into the library)
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(h.as_ref(), done)));
    ffi::PMIX_SUCCESS as i32
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn abort_fn(
    proc_: *const ffi::pmix_proc_t,
    _server_object: *mut c_void,
    status: i32,
    msg: *const c_char,
    _procs: *mut ffi::pmix_proc_t,
    _nprocs: usize,
    cbfunc: ffi::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> ffi::pmix_status_t {
    let rank = if proc_.is_null() { 0 } else { (*proc_).rank };
    let m = text(msg);
    if let Some(h) = HOST.get() {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| h.abort(rank, status, &m)));
    }
    if let Some(cb) = cbfunc {
        cb(ffi::PMIX_SUCCESS as i32, cbdata);
    }
    ffi::PMIX_SUCCESS as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_library_answers() {
        assert!(version().contains("PMIx"), "{}", version());
        assert_eq!(error_string(ffi::PMIX_ERR_NOT_SUPPORTED), "NOT-SUPPORTED");
    }
}
