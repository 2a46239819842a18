//! The same calls as [`crate::Client`], each blocking the calling thread
//! until it is answered: for callers without an async runtime, such as the C
//! ABI library, whose callers' threads Spur does not own.
//!
//! # Threads
//!
//! [`Client`] is `Send + Sync` and cheap to clone: any number of threads,
//! including foreign threads that never heard of tokio, may call it at once,
//! through one client or several. The calls run on one runtime per process,
//! created on the first call and kept (a small multi-threaded tokio runtime
//! with one worker); each calling thread waits for its own call
//! (`Runtime::block_on`, which many threads may use at the same time). A
//! call made from inside an async runtime (where blocking the thread would
//! stall that runtime, and tokio refuses to nest `block_on`) is run on a
//! short-lived helper thread instead, so it works there too, at the cost of
//! a thread. Calls never hold a lock across the network.
//!
//! The runtime's worker and its connections live until the process exits;
//! nothing needs to be shut down. After `fork()`, use only a client made in
//! the child (the runtime's threads are not copied): the child's first call
//! starts a runtime of its own.

use crate::ClientError;
use spur_core::config::SlurmConf;
use spur_core::model::{ClusterView, JobDesc};
use spur_core::request::*;
use std::future::Future;
use std::path::Path;
use std::time::Duration;

fn runtime() -> Result<&'static tokio::runtime::Runtime, ClientError> {
    // One runtime per process: a child of fork() has none of its parent's
    // threads, so it makes its own (the parent's is left behind, unused).
    static RT: std::sync::Mutex<Option<(u32, &'static tokio::runtime::Runtime)>> = std::sync::Mutex::new(None);
    let mut rt = RT.lock().unwrap_or_else(|p| p.into_inner());
    let pid = std::process::id();
    if let Some((owner, r)) = *rt {
        if owner == pid {
            return Ok(r);
        }
    }
    let made = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("spur-client")
        .enable_all()
        .build()
        .map_err(|e| {
            ClientError::Slurm(spur_core::errors::SLURM_ERROR_ANY, format!("cannot start the client runtime: {}", e))
        })?;
    let made: &'static tokio::runtime::Runtime = Box::leak(Box::new(made));
    *rt = Some((pid, made));
    Ok(made)
}

/// Run `f` to completion on the shared runtime, blocking this thread.
fn block<T: Send>(f: impl Future<Output = Result<T, ClientError>> + Send) -> Result<T, ClientError> {
    let rt = runtime()?;
    if tokio::runtime::Handle::try_current().is_ok() {
        // inside some runtime: block a helper thread, not this one's runtime
        return std::thread::scope(|s| s.spawn(|| rt.block_on(f)).join().unwrap_or(Err(ClientError::Unreachable)));
    }
    rt.block_on(f)
}

/// A blocking connection to the cluster's controllers (see the module doc).
#[derive(Clone)]
pub struct Client {
    inner: crate::Client,
}

impl Client {
    /// Read slurm.conf from `$SLURM_CONF` (or the default path).
    pub fn from_env() -> Result<Client, ClientError> {
        Ok(Client { inner: crate::Client::from_env()? })
    }

    pub fn from_conf_path(path: &Path) -> Result<Client, ClientError> {
        Ok(Client { inner: crate::Client::from_conf_path(path)? })
    }

    pub fn new(conf: SlurmConf, path: &Path) -> Client {
        Client { inner: crate::Client::new(conf, path) }
    }

    /// See [`crate::Client::with_timeouts`].
    pub fn with_timeouts(self, message: Duration, retry: Duration) -> Client {
        Client { inner: self.inner.with_timeouts(message, retry) }
    }

    pub fn conf(&self) -> &SlurmConf {
        self.inner.conf()
    }

    /// The async client this one drives (shares its connection).
    pub fn as_async(&self) -> &crate::Client {
        &self.inner
    }

    pub fn accounting(&self, q: &spur_core::acct::AcctQuery) -> Result<Vec<spur_core::acct::AcctJob>, ClientError> {
        block(self.inner.accounting(q))
    }

    pub fn step_stat(
        &self,
        job_id: u32,
        step_id: u32,
    ) -> Result<(spur_core::acct::AcctStep, Vec<spur_core::usage::NodeUsage>), ClientError> {
        block(self.inner.step_stat(job_id, step_id))
    }

    pub fn step_stat_with_pids(
        &self,
        job_id: u32,
        step_id: u32,
    ) -> Result<(spur_core::acct::AcctStep, Vec<spur_core::usage::NodeUsage>, Vec<crate::StepNodePids>), ClientError>
    {
        block(self.inner.step_stat_with_pids(job_id, step_id))
    }

    pub fn query(&self, q: &Query) -> Result<ClusterView, ClientError> {
        block(self.inner.query(q))
    }

    pub fn submit(&self, desc: &JobDesc, test_only: bool) -> Result<SubmitOutcome, ClientError> {
        block(self.inner.submit(desc, test_only))
    }

    pub fn cancel(&self, req: &CancelRequest) -> Result<Vec<JobResult>, ClientError> {
        block(self.inner.cancel(req))
    }

    pub fn job_control(&self, job_ids: &[String], op: &JobControl) -> Result<Vec<JobResult>, ClientError> {
        block(self.inner.job_control(job_ids, op))
    }

    pub fn update_node(&self, u: &NodeUpdate) -> Result<(), ClientError> {
        block(self.inner.update_node(u))
    }

    pub fn update_partition(&self, u: &PartitionUpdate) -> Result<(), ClientError> {
        block(self.inner.update_partition(u))
    }

    pub fn reservation(&self, req: &ReservationRequest) -> Result<String, ClientError> {
        block(self.inner.reservation(req))
    }

    /// `sacctmgr add|modify|delete qos` ([`crate::Client::qos`]).
    pub fn qos(&self, req: spur_proto::QosRequest) -> Result<Vec<String>, ClientError> {
        block(self.inner.qos(req))
    }

    /// `sacctmgr add|modify|delete account|user` ([`crate::Client::assoc`]).
    pub fn assoc(&self, req: spur_proto::AssocRequest) -> Result<Vec<String>, ClientError> {
        block(self.inner.assoc(req))
    }

    pub fn ping(&self) -> Result<PingInfo, ClientError> {
        block(self.inner.ping())
    }

    pub fn membership(&self, change: &MembershipChange) -> Result<Membership, ClientError> {
        block(self.inner.membership(change))
    }

    pub fn register(&self, reg: &NodeRegistration) -> Result<Vec<u32>, ClientError> {
        block(self.inner.register(reg))
    }

    pub fn job_complete(&self, done: &JobCompletion) -> Result<(), ClientError> {
        block(self.inner.job_complete(done))
    }

    pub fn step_create(&self, c: &spur_core::launch::StepCreate) -> Result<spur_core::model::Step, crate::StepError> {
        // the refusal travels inside the future's Ok
        match block(async { Ok(self.inner.step_create(c).await) }) {
            Ok(r) => r,
            Err(error) => Err(crate::StepError { error, node: None, step_id: None }),
        }
    }

    pub fn step_complete(&self, job_id: u32, step_id: u32, exit_status: i32) -> Result<(), ClientError> {
        block(self.inner.step_complete(job_id, step_id, exit_status))
    }

    pub fn release_allocation(&self, job_id: u32, exit_status: i32) -> Result<(), ClientError> {
        block(self.inner.release_allocation(job_id, exit_status))
    }
}
