//! The library's connection to the cluster, `slurm_init`/`slurm_fini`, and
//! the data symbols Slurm exports (`slurm_conf`, `working_cluster_rec`).
//!
//! # Where the configuration comes from
//! As Slurm's `slurm_conf_init` decides it (read_config.c): the path given
//! to `slurm_init`, else `$SLURM_CONF` (even when that file is missing),
//! else `/etc/slurm/slurm.conf` when it exists, else slurmd's configless
//! cache `/run/slurm/conf/slurm.conf`. Spur has no configless mode to fall
//! back on beyond that (Slurm's `SLURM_CONF_SERVER` and DNS SRV lookup), so
//! with none of these `slurm_init` ends the process as Slurm's does when it
//! finds no source: `PROG: fatal: Could not establish a configuration
//! source`, exit status 1; a file it cannot read or parse ends it with the
//! lines the commands print for it (`PROG: error: s_p_parse_file: unable to
//! read ...`, `PROG: fatal: Unable to process configuration file`; Slurm
//! retries a missing `$SLURM_CONF` for 60 s first, Spur does not). A call made without `slurm_init` reads the configuration
//! on first use the same way, but fails with an error instead of exiting
//! (Slurm's lazy `slurm_conf_lock` path).
//!
//! # One client per process
//! The blocking client of spur-client is made once and shared by every
//! thread (its runtime is started on the first call, lazily, on threads of
//! its own; the caller's signal mask and threads are left alone). After
//! `slurm_fini`, or a `slurm_init` naming another file, the next call makes
//! a new one; so does the first call in a child of `fork()`, which has none
//! of its parent's threads.

use crate::sys;
use spur_client::blocking::Client;
use spur_client::ClientError;
use spur_core::config::SlurmConf;
use std::ffi::{c_char, c_long};
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

/// `slurm_conf_t slurm_conf`: the configuration, filled by `slurm_init`
/// (consumers read it directly: pyslurm its `cluster_name` at import).
#[no_mangle]
pub static mut slurm_conf: MaybeUninit<sys::slurm_conf_t> = MaybeUninit::zeroed();

/// `slurmdb_cluster_rec_t *working_cluster_rec`: the cluster other than
/// the local one that calls go to (`-M`). Spur serves one cluster: NULL.
#[no_mangle]
pub static mut working_cluster_rec: *mut sys::slurmdb_cluster_rec_t = std::ptr::null_mut();

/// The release these bindings imitate, as spur-core's profile knows it.
pub fn release() -> spur_core::compat::Release {
    if sys::RELEASE == "22.05" {
        spur_core::compat::Release::V22_05
    } else {
        spur_core::compat::Release::V24_11
    }
}

struct Conn {
    /// The process that made it: a child of fork() makes its own (the
    /// parent's connection lives on the parent's runtime threads).
    pid: u32,
    path: PathBuf,
    client: Client,
    conf: Arc<SlurmConf>,
}

fn state() -> MutexGuard<'static, Option<Arc<Conn>>> {
    static STATE: Mutex<Option<Arc<Conn>>> = Mutex::new(None);
    STATE.lock().unwrap_or_else(|p| p.into_inner())
}

/// The configuration file a call without `slurm_init` reads (None: no source).
fn default_source() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SLURM_CONF").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    ["/etc/slurm/slurm.conf", "/run/slurm/conf/slurm.conf"].iter().map(PathBuf::from).find(|p| p.exists())
}

/// Open (or reuse) the connection for `path`.
fn open(path: &Path) -> Result<Arc<Conn>, ClientError> {
    spur_core::compat::set_release(release());
    let mut st = state();
    if let Some(c) = st.as_ref().filter(|c| c.path == path && c.pid == std::process::id()) {
        return Ok(c.clone());
    }
    let conf = spur_core::config::load(path).map_err(ClientError::Config)?;
    let client = Client::new(conf.clone(), path);
    let conn = Arc::new(Conn { pid: std::process::id(), path: path.to_path_buf(), client, conf: Arc::new(conf) });
    crate::config::fill_global(&conn.conf);
    *st = Some(conn.clone());
    Ok(conn)
}

/// The connection every call uses: the one `slurm_init` opened, else one
/// opened now from the default source.
fn current() -> Result<Arc<Conn>, ClientError> {
    let inherited = {
        let st = state();
        match st.as_ref() {
            Some(c) if c.pid == std::process::id() => return Ok(c.clone()),
            Some(c) => Some(c.path.clone()),
            None => None,
        }
    };
    if let Some(path) = inherited {
        // made before a fork(): the same configuration, a connection of our own
        return open(&path);
    }
    match default_source() {
        Some(p) => open(&p),
        None => Err(ClientError::Slurm(
            spur_core::errors::SLURM_COMMUNICATIONS_CONNECTION_ERROR,
            "Could not establish a configuration source".into(),
        )),
    }
}

/// Run a call through the client. On failure the thread's errno is Slurm's
/// error number for it and the result is Err (the function then returns its
/// failure value, as Slurm's do).
pub fn call<T>(f: impl FnOnce(&Client) -> Result<T, ClientError>) -> Result<T, i32> {
    let r = current().and_then(|c| f(&c.client));
    r.map_err(|e| {
        let code = e.code();
        crate::errno::set(code);
        code
    })
}

/// The configuration of the current connection (read on first use).
pub fn conf() -> Result<Arc<SlurmConf>, i32> {
    current().map(|c| c.conf.clone()).map_err(|e| {
        crate::errno::set(e.code());
        e.code()
    })
}

/// `void slurm_init(const char *conf)`: read the configuration (see the
/// module doc for the order of sources) and fill `slurm_conf`; a process
/// with no readable configuration ends as Slurm's does.
///
/// # Safety
/// `conf` is NULL or a NUL-terminated path.
#[no_mangle]
pub unsafe extern "C" fn slurm_init(conf: *const c_char) {
    // (Slurm's log lines start with the program's name: `perl: fatal: ...`)
    let prog = std::env::args().next().unwrap_or_default();
    let prog = prog.rsplit('/').next().unwrap_or("").to_string();
    let outcome = crate::guard(Err(format!("{}: fatal: internal error\n", prog)), || {
        // SAFETY: the caller's contract.
        let given = unsafe { crate::text(conf) }.filter(|s| !s.is_empty()).map(PathBuf::from);
        let Some(path) = given.or_else(default_source) else {
            return Err(format!("{}: fatal: Could not establish a configuration source\n", prog));
        };
        match open(&path) {
            Ok(_) => {
                // as slurm_conf_init: the processes the caller starts read the same file
                std::env::set_var("SLURM_CONF", &path);
                Ok(())
            }
            // the lines the commands print for the same file (spur-core's report)
            Err(ClientError::Config(e)) => Err(e.report(&prog)),
            Err(e) => Err(format!("{}: fatal: {}\n", prog, e)),
        }
    });
    if let Err(lines) = outcome {
        eprint!("{}", lines);
        std::process::exit(1);
    }
}

/// `void slurm_fini(void)`: release what `slurm_init` set up (`slurm_conf`
/// is cleared; the next call reads the configuration again).
#[no_mangle]
pub extern "C" fn slurm_fini() {
    crate::guard((), || {
        *state() = None;
        crate::config::clear_global();
    })
}

/// `long slurm_api_version(void)`: the release's API version
/// (`SLURM_API_VERSION`: current << 16 | age << 8 | revision).
#[no_mangle]
pub extern "C" fn slurm_api_version() -> c_long {
    if sys::RELEASE == "22.05" {
        0x26_0000
    } else {
        0x2a_0000
    }
}
