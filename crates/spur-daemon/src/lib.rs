//! What Slurm's daemons do as services of a site, shared by spurctld and
//! spurd: the pid file (`SlurmctldPidFile`, `SlurmdPidFile`), readiness and
//! reload told to systemd (`Type=notify`, sd_notify's datagram), a log file
//! that logrotate can move away (reopened on SIGUSR2), and re-reading
//! slurm.conf on SIGHUP by starting again in the same process, as slurmctld
//! and slurmd do since 23.11.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Slurm's defaults when slurm.conf names no pid file.
pub const SLURMCTLD_PID_FILE: &str = "/var/run/slurmctld.pid";
pub const SLURMD_PID_FILE: &str = "/var/run/slurmd.pid";

/// A pid file this process wrote; [`PidFile::remove`] takes it away at a
/// clean stop, unless another process has written its own there since.
pub struct PidFile {
    path: PathBuf,
}

impl PidFile {
    /// Write this process's id (`<pid>\n`, mode 0644) to `path`.
    pub fn write(path: &Path) -> io::Result<PidFile> {
        let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
        std::fs::write(&tmp, format!("{}\n", std::process::id()))?;
        std::fs::rename(&tmp, path).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })?;
        Ok(PidFile { path: path.to_path_buf() })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Remove the file if it still names this process.
    pub fn remove(&self) {
        let mine = std::fs::read_to_string(&self.path).ok().and_then(|s| s.trim().parse::<u32>().ok());
        if mine == Some(std::process::id()) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Tell systemd `state` (`READY=1`, `RELOADING=1`, `STOPPING=1`, ...)
/// through `$NOTIFY_SOCKET`, as sd_notify(3) does; false when not started by
/// systemd with `Type=notify` (no socket) or the message could not be sent.
pub fn sd_notify(state: &str) -> bool {
    use std::os::unix::net::{SocketAddr, UnixDatagram};
    let Some(target) = std::env::var_os("NOTIFY_SOCKET") else { return false };
    let Ok(sock) = UnixDatagram::unbound() else { return false };
    let bytes = std::os::unix::ffi::OsStrExt::as_bytes(target.as_os_str());
    let addr = match bytes.strip_prefix(b"@") {
        // an abstract socket (systemd's own are paths; a container's may not be)
        Some(name) => {
            use std::os::linux::net::SocketAddrExt;
            SocketAddr::from_abstract_name(name)
        }
        None => SocketAddr::from_pathname(Path::new(&target)),
    };
    match addr {
        Ok(a) => sock.send_to_addr(state.as_bytes(), &a).is_ok(),
        Err(_) => false,
    }
}

/// A log file written by every event of the daemon's logger and opened again
/// at the same path on [`LogFile::reopen`] (SIGUSR2), so that logrotate can
/// move it away and the daemon goes on in a new file.
pub struct LogFile {
    path: PathBuf,
    file: Mutex<Arc<File>>,
}

fn open_append(path: &Path) -> io::Result<File> {
    std::fs::OpenOptions::new().create(true).append(true).open(path)
}

impl LogFile {
    pub fn open(path: &Path) -> io::Result<Arc<LogFile>> {
        Ok(Arc::new(LogFile { path: path.to_path_buf(), file: Mutex::new(Arc::new(open_append(path)?)) }))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Open the path again; later events go to the new file (events being
    /// written finish in the old one).
    pub fn reopen(&self) -> io::Result<()> {
        let f = Arc::new(open_append(&self.path)?);
        *self.file.lock().unwrap_or_else(|p| p.into_inner()) = f;
        Ok(())
    }

    /// A writer for one event (the logger asks for one per event).
    pub fn writer(&self) -> LogWriter {
        LogWriter(self.file.lock().unwrap_or_else(|p| p.into_inner()).clone())
    }
}

/// One event's writer: appends to the file the log had when it was made.
pub struct LogWriter(Arc<File>);

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        (&*self.0).write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Go into the background as Slurm's daemons do without `-D`: the process
/// forks, the parent exits 0, and the child leads a new session with its
/// standard streams on /dev/null (it logs to its log file). It keeps its
/// working directory (slurm.conf may have been named relative to it). Call it
/// before any thread starts.
pub fn detach() -> io::Result<()> {
    nix::unistd::daemon(true, false).map_err(io::Error::from)
}

/// Start this daemon again with slurm.conf read afresh, a moment from now
/// (so that the answer to the request that asked has gone first): the
/// SIGHUP path of [`serve_signals`]. `scontrol reconfigure` reaches every
/// daemon this way.
pub fn restart_soon() {
    tokio::spawn(async {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        if let Err(e) = nix::sys::signal::raise(nix::sys::signal::Signal::SIGHUP) {
            tracing::error!("reconfigure: cannot signal this process: {}", e);
        }
    });
}

/// Start this program again in this process (same pid, same arguments, and
/// `-D` when it went into the background: it is there already), so that it
/// reads slurm.conf afresh: what slurmctld and slurmd do on SIGHUP and
/// `scontrol reconfigure` since 23.11. Returns only on failure.
pub fn reexec() -> io::Error {
    use std::os::unix::process::CommandExt;
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let arg0 = if args.is_empty() { Default::default() } else { args.remove(0) };
    if !args.iter().any(|a| a == "-D" || a == "--systemd") {
        args.push("-D".into());
    }
    std::process::Command::new("/proc/self/exe").arg0(arg0).args(args).exec()
}

/// The daemon's logger: events at `SPUR_LOG`'s levels (else `default`) to
/// `file` (reopened by [`serve_signals`] on SIGUSR2), or to stderr without
/// one or when it cannot be opened (said on stderr as slurmctld does).
pub fn init_logging(daemon: &str, default: &str, file: Option<&Path>) -> Option<Arc<LogFile>> {
    let filter = tracing_subscriber::EnvFilter::try_from_env("SPUR_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let b = tracing_subscriber::fmt().with_env_filter(filter).with_ansi(false);
    let log = file.and_then(|p| match LogFile::open(p) {
        Ok(l) => Some(l),
        Err(e) => {
            eprintln!("{}: error: Unable to open log file `{}': {}", daemon, p.display(), e);
            None
        }
    });
    match &log {
        Some(l) => {
            let l = l.clone();
            b.with_writer(move || l.writer()).init()
        }
        None => b.with_writer(io::stderr).init(),
    }
    log
}

/// What a daemon's signals act on.
pub struct Service {
    /// slurm.conf, checked before a SIGHUP starts the daemon again.
    pub conf: PathBuf,
    pub log: Option<Arc<LogFile>>,
    /// Written when the daemon listens (SlurmctldPidFile, SlurmdPidFile).
    pub pid_file: PathBuf,
}

/// Once the daemon listens: write its pid file and tell systemd it is
/// ready; then answer its signals until it ends: SIGTERM and SIGINT stop it
/// (every acknowledged change is already on disk; the pid file goes);
/// SIGUSR2 reopens the log file; SIGHUP reads slurm.conf and, if it reads,
/// starts the daemon again with it ([`reexec`]; systemd is told RELOADING=1,
/// and the new start says READY=1), else logs why and goes on as it was.
///
/// The handlers are in place and the pid file written when this returns
/// (call it within the runtime, before saying the daemon listens); the
/// future it gives answers the signals (spawn it).
pub fn serve_signals(s: Service) -> impl std::future::Future<Output = ()> + Send {
    use tokio::signal::unix::{signal, SignalKind};
    let handlers = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::hangup()),
        signal(SignalKind::user_defined2()),
    );
    let pid_file = PidFile::write(&s.pid_file)
        .inspect_err(|e| tracing::error!("Unable to open pidfile `{}': {}", s.pid_file.display(), e))
        .ok();
    sd_notify("READY=1");
    answer_signals(s, handlers, pid_file)
}

type Handlers = (
    io::Result<tokio::signal::unix::Signal>,
    io::Result<tokio::signal::unix::Signal>,
    io::Result<tokio::signal::unix::Signal>,
    io::Result<tokio::signal::unix::Signal>,
);

async fn answer_signals(s: Service, handlers: Handlers, pid_file: Option<PidFile>) {
    let (Ok(mut term), Ok(mut int), Ok(mut hup), Ok(mut usr2)) = handlers else {
        tracing::error!("cannot install signal handlers");
        return;
    };
    loop {
        tokio::select! {
            _ = term.recv() => break,
            _ = int.recv() => break,
            _ = usr2.recv() => match &s.log {
                Some(l) => match l.reopen() {
                    Ok(()) => tracing::info!("Logging to {} again (SIGUSR2)", l.path().display()),
                    Err(e) => eprintln!("error: cannot reopen log file {}: {}", l.path().display(), e),
                },
                None => tracing::info!("SIGUSR2: no log file to reopen"),
            },
            _ = hup.recv() => match spur_core::config::load(&s.conf) {
                Ok(_) => {
                    tracing::info!("Reconfigure: reading {} again (SIGHUP)", s.conf.display());
                    sd_notify("RELOADING=1");
                    let e = reexec();
                    tracing::error!("Reconfigure failed: cannot start again: {}", e);
                    sd_notify("READY=1");
                }
                Err(e) => tracing::error!("Reconfigure failed, going on with the configuration it has: {}", e),
            },
        }
    }
    sd_notify("STOPPING=1");
    if let Some(p) = &pid_file {
        p.remove();
    }
    std::process::exit(0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pid_file_is_removed_only_while_it_is_ours() {
        let d = std::env::temp_dir().join(format!("spur-pid-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("x.pid");
        let f = PidFile::write(&p).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), format!("{}\n", std::process::id()));
        std::fs::write(&p, "1\n").unwrap();
        f.remove();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "1\n", "another process's pid file stays");
        let f = PidFile::write(&p).unwrap();
        f.remove();
        assert!(!p.exists());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn log_reopen_goes_on_in_a_new_file() {
        let d = std::env::temp_dir().join(format!("spur-log-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("a.log");
        let log = LogFile::open(&p).unwrap();
        log.writer().write_all(b"one\n").unwrap();
        std::fs::rename(&p, d.join("a.log.1")).unwrap();
        log.writer().write_all(b"two\n").unwrap();
        log.reopen().unwrap();
        log.writer().write_all(b"three\n").unwrap();
        assert_eq!(std::fs::read_to_string(d.join("a.log.1")).unwrap(), "one\ntwo\n");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "three\n");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn sd_notify_sends_the_state_to_the_socket() {
        let d = std::env::temp_dir().join(format!("spur-notify-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("notify");
        let rx = std::os::unix::net::UnixDatagram::bind(&p).unwrap();
        // (the only test of this binary that reads NOTIFY_SOCKET)
        std::env::set_var("NOTIFY_SOCKET", &p);
        assert!(sd_notify("READY=1"));
        std::env::remove_var("NOTIFY_SOCKET");
        let mut buf = [0u8; 64];
        let n = rx.recv(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"READY=1");
        assert!(!sd_notify("READY=1"), "no socket, nothing sent");
        let _ = std::fs::remove_dir_all(&d);
    }
}
