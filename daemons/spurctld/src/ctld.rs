//! The controller's heart: the state machine behind one lock, the durable
//! log, the scheduler loop and the monitors (node liveness, time limits,
//! purging old jobs).
//!
//! **Architecture invariant**: state changes only through `commit`, which
//! appends commands to the log, applies them, and makes them durable before
//! returning. Agents are told to act (launch, kill) only after the decision
//! that makes them act is durable.

use spur_auth::grpc::{Signed, Signer};
use spur_core::config::SlurmConf;
use spur_core::errors::{strerror, ESLURM_INVALID_NODE_NAME, SLURM_COMMUNICATIONS_CONNECTION_ERROR};
use spur_core::launch::{LaunchSpec, StepLaunch};
use spur_core::model::*;
use spur_proto::agent_client::AgentClient;
use spur_proto::{LaunchRequest, SignalRequest, StopReason};
use spur_state::raft::{Batch, Raft, Reply, Shared};
use spur_state::{Applied, Command};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;
use tonic::transport::Channel;

/// The applied state (shared with the Raft state machine, which alone changes it
/// through committed commands; liveness from heartbeats is soft state kept beside).
///
/// **The lock rule**: nothing blocks while [`Ctld::lock`] is held: no name
/// service lookups (getpwnam, getgrouplist, getnameinfo: NSS may ask LDAP or
/// DNS and wait), no file or network I/O, no `.await`. The Raft state machine
/// applies every committed entry under the same lock, so a slow lookup under
/// it stalls replication and every request. Look names up first, then lock.
pub type Inner = spur_state::raft::SmInner;

/// The gRPC metadata key of a "not leader" answer naming the leader's address.
pub const LEADER_ADDR_KEY: &str = "x-spur-leader";

/// The nodes of a step whose step daemon reported its end, and the highest
/// exit status they reported.
pub type StepEnds = (HashSet<String>, i32);

pub struct Ctld {
    pub inner: Shared,
    pub raft: Raft,
    /// This controller's Raft id (its SlurmctldHost line, counted from 1).
    pub me: u64,
    /// Jobs this controller launched (or re-sent) while leader.
    launched: Mutex<HashSet<u32>>,
    /// The nodes whose step daemon reported the end of a step, and the
    /// highest exit status they reported (leader's soft state): the step
    /// ends once all its nodes did.
    pub step_ends: Mutex<HashMap<(u32, u32), StepEnds>>,
    /// Jobs whose `extern` step this leader started, with its nodes: ended
    /// by the monitor once the job no longer runs.
    extern_steps: Mutex<HashMap<u32, Vec<String>>>,
    /// Launch calls in flight at most (a new leader re-sends every running job's).
    launch_slots: tokio::sync::Semaphore,
    pub conf: SlurmConf,
    /// How this controller signs its calls (slurm.key, or munged).
    pub auth: spur_auth::grpc::DaemonAuth,
    pub sched_wake: Notify,
    /// The next scheduler pass runs at once, without waiting to coalesce a
    /// burst: set with the wake by an allocation's submission (srun, salloc),
    /// whose command waits for the start in person.
    pub sched_now: std::sync::atomic::AtomicBool,
    pub slurm_user_uid: u32,
    /// `PrologFlags=Contain`: jobs get an `extern` step.
    pub prolog_contain: bool,
    pub(crate) agents: Mutex<HashMap<String, Signed<Channel>>>,
    /// Version 1 credentials too (a rolling upgrade: `spur_auth::legacy_enabled`).
    pub legacy: bool,
    /// Plain or TLS (checked at start: main.rs).
    pub transport: spur_auth::tls::Transport,
    pub host: String,
    /// Jobs just released or requeued: slurmctld looks at them in a
    /// scheduling pass that comes a moment later (or with the next
    /// submission's), so until then they show reason `None` and do not start
    /// (recorded/24.11/scontrol/106, 146, 194, basic/075 and 082). Soft state:
    /// when, and the submission count then.
    pub released: Mutex<HashMap<u32, (std::time::Instant, u64)>>,
    /// Submissions so far (soft state, for `released`).
    pub submissions: std::sync::atomic::AtomicU64,
    /// Room on the state directory's disk (set at start; none in tests
    /// without one): a submission that would leave less than its reserve is
    /// refused ([`Ctld::room_for`]).
    pub room: std::sync::OnceLock<spur_state::raft::Room>,
    /// This member's accounting store (set at start; none in tests without
    /// one: sacct is then told accounting is disabled).
    pub acct: std::sync::OnceLock<Arc<spur_accounting::Store>>,
    /// `SchedulerType=sched/backfill` (the default) and its
    /// `SchedulerParameters`; `None` for `sched/builtin`.
    pub backfill: Option<spur_sched::backfill::BackfillParams>,
    /// `SchedulerParameters=sched_interval=` (60 s; -1: never), how often
    /// slurmctld's main scheduler runs without an event.
    pub sched_interval: Option<Duration>,
    /// `PreemptType=preempt/partition_prio` or `preempt/qos`: slurm.conf's
    /// `PreemptMode`.
    pub preempt: Option<spur_sched::PreemptMode>,
    /// With accounting (`AccountingStorageType`): the QOS records count
    /// (`preempt/qos`, `AccountingStorageEnforce=limits`: the flags of the
    /// pass's `QosPolicy`).
    pub qos: Option<(bool, bool)>,
    /// `AccountingStorageEnforce=associations` (or `limits`, `qos`, `safe`,
    /// which imply it): a job must run in an association of its user.
    pub enforce_assoc: bool,
    /// `AccountingStorageEnforce=qos`: a job's QOS must be one of its
    /// association's.
    pub enforce_qos: bool,
    /// The fair-share factor of each association (user, account), as of
    /// the last `PriorityCalcPeriod` boundary (Fair Tree), with that time.
    pub fair_share: Mutex<(i64, Arc<spur_core::assoc::Factors>)>,
    /// slurm.conf's `PreemptExemptTime`, seconds (preempt/qos).
    pub preempt_exempt: u32,
    /// `TopologyPlugin=topology/tree`: topology.conf's switches.
    pub topology: Option<Arc<spur_sched::SchedTopology>>,
    /// `PreemptMode=...GANG`: `SchedulerTimeSlice`, how long the jobs that
    /// share CPUs take turns.
    pub gang: Option<Duration>,
    /// The gang scheduler's order of jobs and when its last slice began
    /// (leader's soft state; a new leader starts a new order).
    pub gang_state: Mutex<(Vec<u32>, Option<std::time::Instant>)>,
    /// The backfill phase's plan and marks (leader's soft state, rebuilt by
    /// the next pass after a failover).
    pub plans: Mutex<Plans>,
    /// Jobs preempted in their partition's `GraceTime` (leader's soft
    /// state): job -> (when it ends, requeued rather than cancelled). A new
    /// leader's scheduler chooses them again, with a new grace time.
    pub grace: Mutex<HashMap<u32, (i64, bool)>>,
    /// `PriorityType=priority/multifactor` with some weight: the weights
    /// (pending jobs' priorities are set at submission and again at each
    /// `PriorityCalcPeriod`).
    pub multifactor: Option<spur_core::priority::Weights>,
    /// The last `PriorityCalcPeriod` boundary priorities were computed at.
    pub prio_calc: std::sync::atomic::AtomicI64,
}

/// What the backfill phase last said, for `squeue --start` and `scontrol
/// show job`: not replicated (Slurm's plan is not state either).
#[derive(Default)]
pub struct Plans {
    /// Each planned pending job's expected start and nodes.
    pub at: HashMap<u32, (i64, Vec<String>)>,
    /// Jobs the backfill phase started (`Scheduler=Backfill`).
    pub backfilled: HashSet<u32>,
    /// When the phase last ran, and what the queue looked like then.
    pub last_run: Option<(std::time::Instant, (u64, usize, usize))>,
    /// The pending jobs the last backfill cycle considered, and when it ran
    /// (`Scheduler=Backfill:*` and `LastSchedEval=` in `scontrol show job`):
    /// see [`Plans::mark`].
    pub considered: HashSet<u32>,
    pub considered_at: i64,
    /// The marks' clock: the first pass, the last cycle that marked, the
    /// last clearing, and the queue's shape at the last pass.
    pub marks: Option<Marks>,
}

#[derive(Clone, Copy, Debug)]
pub struct Marks {
    pub cycle: std::time::Instant,
    pub cleared: std::time::Instant,
    pub shape: (u64, usize, usize),
}

impl Plans {
    /// The marks slurmctld's two schedulers leave on pending jobs, after a
    /// pass at `at` (`t` in seconds) over a queue of `shape`: its backfill
    /// cycle (every `bf_interval`, no sooner) flags each pending job it takes
    /// up (`considered`, when the phase ran) with the cycle's time; its main
    /// scheduler clears every pending job's flag when it runs, on an event
    /// (the queue changed) or every `sched_interval`. Spur's backfill phase
    /// runs on every change of the queue, to start jobs early; only the
    /// phases that fall where Slurm's cycles would leave marks, so that the
    /// commands show what Slurm's show.
    pub fn mark(
        &mut self,
        at: std::time::Instant,
        t: i64,
        shape: (u64, usize, usize),
        considered: Option<HashSet<u32>>,
        bf_interval: Duration,
        sched_interval: Option<Duration>,
    ) {
        let m = self.marks.get_or_insert(Marks { cycle: at, cleared: at, shape });
        let event = m.shape != shape;
        m.shape = shape;
        if event || sched_interval.is_some_and(|i| at.duration_since(m.cleared) >= i) {
            m.cleared = at;
            self.considered.clear();
        }
        if let Some(c) = considered {
            if at.duration_since(m.cycle) >= bf_interval {
                m.cycle = at;
                self.considered = c;
                self.considered_at = t;
            }
        }
    }

    /// Whether a backfill cycle is due (Slurm's would run now).
    pub fn cycle_due(&self, at: std::time::Instant, bf_interval: Duration) -> bool {
        self.marks.is_none_or(|m| at.duration_since(m.cycle) >= bf_interval)
    }
}

/// How long the scheduler leaves a released job alone.
pub const RELEASE_QUIET: Duration = Duration::from_millis(500);

/// How long a change may take to commit before the caller is told to retry.
const COMMIT_TIMEOUT: Duration = Duration::from_secs(5);

pub fn now() -> i64 {
    spur_auth::now()
}

/// slurm.conf's scheduler: backfill unless `SchedulerType=sched/builtin`,
/// whose phase only estimates start times
/// (`spur_sched::backfill::BackfillParams::builtin`).
fn backfill_of(conf: &SlurmConf) -> Option<spur_sched::backfill::BackfillParams> {
    let builtin = conf.get("SchedulerType").is_some_and(|t| t.trim().eq_ignore_ascii_case("sched/builtin"));
    let params = conf.get("SchedulerParameters");
    Some(if builtin {
        spur_sched::backfill::BackfillParams::builtin(params)
    } else {
        spur_sched::backfill::BackfillParams::from_scheduler_parameters(params)
    })
}

impl Ctld {
    pub fn new(
        conf: SlurmConf,
        inner: Shared,
        raft: Raft,
        me: u64,
        auth: spur_auth::grpc::DaemonAuth,
        slurm_user_uid: u32,
    ) -> Arc<Ctld> {
        let legacy = spur_auth::legacy_enabled(conf.auth_info.as_deref());
        let prolog_contain = conf.prolog_contain();
        let backfill = backfill_of(&conf);
        let multifactor = spur_core::priority::Weights::from_conf(&conf).filter(|w| w.any());
        let preempt_type = conf.get("PreemptType").map(|t| t.trim().to_ascii_lowercase());
        let qos_preempt = preempt_type.as_deref() == Some("preempt/qos");
        let qos = conf.accounting_enabled().then(|| {
            let enforce = conf.get("AccountingStorageEnforce").unwrap_or_default().to_ascii_lowercase();
            (qos_preempt, enforce.split(',').any(|w| matches!(w.trim(), "limits" | "safe")))
        });
        let enforce_assoc = conf.accounting_enabled() && {
            let e = conf.get("AccountingStorageEnforce").unwrap_or_default().to_ascii_lowercase();
            e.split(',').any(|w| matches!(w.trim(), "associations" | "limits" | "qos" | "safe"))
        };
        let enforce_qos = conf.accounting_enabled() && {
            let e = conf.get("AccountingStorageEnforce").unwrap_or_default().to_ascii_lowercase();
            e.split(',').any(|w| w.trim() == "qos")
        };
        let preempt_exempt = spur_core::qos::PreemptConf::from_conf(&conf).map(|p| p.exempt).unwrap_or(0);
        let preempt = matches!(preempt_type.as_deref(), Some("preempt/partition_prio" | "preempt/qos")).then(|| {
            conf.get("PreemptMode").and_then(spur_sched::PreemptMode::parse).unwrap_or(spur_sched::PreemptMode::Off)
        });
        let gang = conf.get("PreemptMode").is_some_and(spur_sched::PreemptMode::has_gang).then(|| {
            let secs = match conf.get("SchedulerTimeSlice").and_then(|v| v.trim().parse::<u64>().ok()) {
                Some(s) if s >= 5 => s,
                Some(_) => {
                    tracing::error!("SchedulerTimeSlice must be at least 5 seconds");
                    30
                }
                None => 30,
            };
            Duration::from_secs(secs)
        });
        // (main stopped on a topology.conf that does not read)
        let topology = spur_core::topology::load(&conf).ok().flatten().map(|tree| {
            for w in &tree.warnings {
                tracing::warn!("topology/tree: {}", w);
            }
            Arc::new(spur_sched::SchedTopology {
                tree,
                optional: spur_core::topology::topo_optional(&conf),
                max_switch_wait: spur_core::topology::max_switch_wait(&conf),
                v24: spur_core::compat::release() >= spur_core::compat::Release::V24_11,
            })
        });
        let sched_interval =
            match conf.get("SchedulerParameters").and_then(|p| spur_core::config::scheduler_param(p, "sched_interval"))
            {
                Some(-1) => None,
                Some(n) if n >= 0 => Some(Duration::from_secs(n as u64)),
                _ => Some(Duration::from_secs(60)),
            };
        let transport = spur_auth::tls::Transport::from_conf(
            conf.get("TLSType"),
            conf.get("TLSParameters"),
            conf.path.parent().unwrap_or(std::path::Path::new("/")),
            spur_auth::tls::Role::Controller,
        )
        .unwrap_or_default();
        Arc::new(Ctld {
            legacy,
            transport,
            inner,
            raft,
            me,
            launched: Mutex::new(HashSet::new()),
            step_ends: Mutex::new(HashMap::new()),
            extern_steps: Mutex::new(HashMap::new()),
            launch_slots: tokio::sync::Semaphore::new(256),
            conf,
            auth,
            sched_wake: Notify::new(),
            sched_now: std::sync::atomic::AtomicBool::new(false),
            slurm_user_uid,
            prolog_contain,
            agents: Mutex::new(HashMap::new()),
            host: spur_auth::users::short_hostname(),
            released: Mutex::new(HashMap::new()),
            submissions: std::sync::atomic::AtomicU64::new(0),
            room: std::sync::OnceLock::new(),
            acct: std::sync::OnceLock::new(),
            backfill,
            sched_interval,
            preempt,
            qos,
            enforce_assoc,
            enforce_qos,
            fair_share: Mutex::new((i64::MIN, Arc::new(HashMap::new()))),
            preempt_exempt,
            topology,
            gang,
            gang_state: Mutex::new((vec![], None)),
            plans: Mutex::new(Plans::default()),
            multifactor,
            grace: Mutex::new(HashMap::new()),
            prio_calc: std::sync::atomic::AtomicI64::new(0),
        })
    }

    /// The fair-share factors as of the `PriorityCalcPeriod` boundary at or
    /// before `now` (computed once per boundary, or after a change of the
    /// associations); `None` without accounting (every job gets the whole
    /// weight: no usage is recorded).
    pub fn fair_share(&self, state: &spur_state::State, now: i64) -> Option<Arc<spur_core::assoc::Factors>> {
        let w = self.multifactor.as_ref()?;
        self.qos?;
        let at = spur_core::priority::calc_time(w, now);
        let mut c = self.fair_share.lock().unwrap_or_else(|e| e.into_inner());
        if c.0 != at {
            let qos = state.qos();
            let jobs = state.queue_ids().into_iter().filter_map(|i| state.job(i));
            let f =
                spur_core::assoc::factors_at(&state.assocs(), jobs, &qos, state.partitions(), at, w.half_life, w.algo);
            *c = (at, Arc::new(f));
        }
        Some(c.1.clone())
    }

    /// The associations changed: the fair-share factors are computed again.
    pub fn fair_share_changed(&self) {
        self.fair_share.lock().unwrap_or_else(|e| e.into_inner()).0 = i64::MIN;
    }

    /// priority/multifactor: a pending job's priority now (None: the job
    /// keeps the one it has: held, set by an operator, or not pending).
    pub fn multifactor_priority(&self, state: &spur_state::State, job: &Job, now: i64) -> Option<u32> {
        let w = self.multifactor.as_ref()?;
        if job.state != JobState::Pending || !spur_core::priority::computed(job, w) {
            return None;
        }
        let nodes: Vec<&Node> = state.nodes().iter().collect();
        let parts: Vec<&Partition> = state.partitions().iter().collect();
        let qos = state.qos();
        let fs = self.fair_share(state, now);
        let assocs = self.qos.map(|_| state.assocs());
        let cx = spur_core::priority::Context::new(&nodes, &parts, &qos, fs.as_deref(), assocs.as_deref(), w);
        Some(cx.factors(job, w, now).priority())
    }

    /// Preempted jobs whose GraceTime is over: requeued or cancelled
    /// (PREEMPTED), their processes ended as any preempted job's.
    async fn end_graced(self: &Arc<Self>, t: i64) {
        let due: Vec<(u32, bool)> = {
            let mut grace = self.grace.lock().unwrap_or_else(|e| e.into_inner());
            let due: Vec<(u32, bool)> =
                grace.iter().filter(|(_, (at, _))| *at <= t).map(|(id, (_, r))| (*id, *r)).collect();
            for (id, _) in &due {
                grace.remove(id);
            }
            due
        };
        if due.is_empty() {
            return;
        }
        let mut cmds = vec![];
        let mut ends = vec![];
        {
            let g = self.lock();
            for (id, requeue) in due {
                let Some(j) = g.state.jobs().get(&id).filter(|j| j.state == JobState::Running) else { continue };
                cmds.push(if requeue {
                    Command::Requeue { job_id: id, hold: false, now: t }
                } else {
                    Command::Kill { job_id: id, task: None, state: JobState::Preempted, now: t, uid: None }
                });
                if let Some(a) = j.allocs.first() {
                    ends.push((id, a.node.clone()));
                }
            }
        }
        if cmds.is_empty() || self.commit(cmds).await.is_err() {
            return;
        }
        for (id, node) in ends {
            let me = self.clone();
            tokio::spawn(async move {
                me.signal_job(id, &node, libc::SIGKILL, false, true, StopReason::Preemption).await;
            });
        }
        self.sched_wake.notify_one();
    }

    /// priority/multifactor at each `PriorityCalcPeriod` boundary: every
    /// pending job's priority again, the age factor having grown (each
    /// running one's too with `CALCULATE_RUNNING`), committed for the jobs
    /// whose priority changed; in between, the released ones'.
    fn recalc_priorities(&self, now: i64) -> Vec<Command> {
        let Some(w) = self.multifactor.as_ref() else { return vec![] };
        let at = spur_core::priority::calc_time(w, now);
        // between boundaries, only the jobs a release (or a requeue of a
        // held job) left at priority 1 get theirs (slurmctld sets it at once)
        let all = self.prio_calc.swap(at, std::sync::atomic::Ordering::SeqCst) != at;
        let g = self.read();
        let st = &g.state;
        let nodes: Vec<&Node> = st.nodes().iter().collect();
        let parts: Vec<&Partition> = st.partitions().iter().collect();
        let qos = st.qos();
        let fs = self.fair_share(st, now);
        let assocs = self.qos.map(|_| st.assocs());
        let cx = spur_core::priority::Context::new(&nodes, &parts, &qos, fs.as_deref(), assocs.as_deref(), w);
        // (pending jobs, and with CALCULATE_RUNNING the others not yet
        // finished: an ended record takes no update)
        st.jobs()
            .values()
            .filter(|j| spur_core::priority::computed(j, w) && !j.state.is_finished())
            .filter(|j| all || j.priority == 1)
            .filter_map(|j| {
                let p = cx.factors(j, w, now).priority();
                // (INCR_ONLY: only ever raised, once it has one)
                let lower = w.incr_only && j.priority > 1 && p < j.priority;
                (p != j.priority && !lower).then(|| Command::UpdateJob {
                    job_id: j.job_id,
                    update: Box::new(spur_state::JobUpdate { priority: Some(p), ..Default::default() }),
                })
            })
            .collect()
    }

    /// The state, for reading or for soft state (see [`Inner`] for the rule
    /// while it is held).
    pub fn lock(&self) -> std::sync::RwLockWriteGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The state, for reading only: readers do not wait for each other.
    pub fn read(&self) -> std::sync::RwLockReadGuard<'_, Inner> {
        self.inner.read()
    }

    /// Leader, and its state machine has applied everything committed before
    /// its term began (its own first entry): reads and decisions are current.
    pub fn is_ready_leader(&self) -> bool {
        let m = self.raft.metrics();
        let m = m.borrow();
        m.state == openraft::ServerState::Leader
            && m.last_applied.map(|l| l.leader_id.get_term()) == Some(m.current_term)
    }

    /// The "not leader" answer, naming the leader when one is known.
    pub fn not_leader(&self) -> tonic::Status {
        let m = self.raft.metrics();
        let m = m.borrow();
        let mut st = tonic::Status::unavailable("not the leader");
        if let Some(l) = m.current_leader {
            if l != self.me {
                if let Some(n) = m.membership_config.membership().get_node(&l) {
                    if let Ok(v) = n.addr.parse() {
                        st.metadata_mut().insert(LEADER_ADDR_KEY, v);
                    }
                }
            }
        }
        st
    }

    /// Only the leader answers requests: others say who the leader is.
    pub fn gate(&self) -> Result<(), tonic::Status> {
        if self.is_ready_leader() {
            Ok(())
        } else {
            Err(self.not_leader())
        }
    }

    /// Replicate, apply and make durable (on a majority) a batch of commands,
    /// in order. Each result is the command's own; a failed command changes
    /// nothing. Errs (tell the client to retry elsewhere) when this controller
    /// is not the leader or cannot reach a majority in time.
    pub async fn commit(&self, cmds: Vec<Command>) -> Result<Reply, tonic::Status> {
        if cmds.is_empty() {
            return Ok(vec![]);
        }
        match tokio::time::timeout(COMMIT_TIMEOUT, self.raft.client_write(Batch { cmds })).await {
            Ok(Ok(r)) => Ok(r.data),
            Ok(Err(openraft::error::RaftError::APIError(openraft::error::ClientWriteError::ForwardToLeader(_)))) => {
                Err(self.not_leader())
            }
            Ok(Err(e)) => Err(tonic::Status::unavailable(e.to_string())),
            Err(_) => Err(tonic::Status::unavailable("commit timed out")),
        }
    }

    /// Whether the state directory's disk has room for `job`'s submission
    /// beside its reserve (spur_state::raft::Room): slurmctld's
    /// `ESLURM_WRITING_TO_FILE` when it cannot write a job's script and
    /// environment. The reason goes to the log. Called before the state lock.
    pub fn room_for(&self, job: &Job) -> Result<(), i32> {
        let Some(room) = self.room.get() else { return Ok(()) };
        // the entry: the script, the environment, and the rest of the record
        let env: usize = job.desc.env.iter().map(|(k, v)| k.len() + v.len() + 8).sum();
        let bytes =
            (job.desc.script.len() + env + job.desc.argv.iter().map(|a| a.len() + 8).sum::<usize>() + 4096) as u64;
        room.check(bytes).map_err(|e| {
            tracing::error!("submission refused, the state directory is (nearly) full: {}", e);
            spur_core::errors::ESLURM_WRITING_TO_FILE
        })
    }

    pub fn is_admin(&self, uid: u32) -> bool {
        uid == 0 || uid == self.slurm_user_uid
    }

    /// How this controller signs its calls.
    pub fn signer(&self) -> Signer {
        self.auth.signer(spur_auth::Kind::Controller)
    }

    pub(crate) async fn agent(&self, node: &str) -> Option<AgentClient<Signed<Channel>>> {
        if let Some(ch) = self.agents.lock().unwrap_or_else(|e| e.into_inner()).get(node) {
            return Some(AgentClient::new(ch.clone()));
        }
        let (addr, port) = {
            let g = self.lock();
            let n = g.state.node(node)?;
            (n.addr.clone(), n.port)
        };
        let ep = self.transport.endpoint(&format!("{}:{}", addr, port)).ok()?;
        let ch = ep.connect_timeout(Duration::from_secs(2)).tcp_nodelay(true).connect_lazy();
        let ch = Signed::new(ch, self.signer(), &format!("{}:{}", addr, port), self.legacy);
        self.agents.lock().unwrap_or_else(|e| e.into_inner()).insert(node.to_string(), ch.clone());
        Some(AgentClient::new(ch))
    }

    /// A request to an agent (its channel signs it), with the message timeout.
    pub(crate) fn signed<T>(&self, msg: T) -> tonic::Request<T> {
        let mut r = tonic::Request::new(msg);
        r.set_timeout(Duration::from_secs(10));
        r
    }

    /// Ask a job's batch host to signal (or terminate) it. Best effort; the
    /// monitor repeats terminations that do not finish.
    pub async fn signal_job(
        self: &Arc<Self>,
        job_id: u32,
        node: &str,
        signal: i32,
        batch_only: bool,
        terminate: bool,
        reason: StopReason,
    ) -> bool {
        if terminate {
            // the job's steps end on every node; an allocation without a
            // batch script has nothing else to report its end
            let (nodes, steps, alloc_only) = {
                let g = self.read();
                match g.state.jobs().get(&job_id) {
                    Some(j) => (j.node_names(), !j.steps.is_empty(), j.desc.script.is_empty()),
                    None => (vec![], false, false),
                }
            };
            if steps && !alloc_only {
                // the batch script and what it started (its sruns) hear of
                // the end with the steps, not after them
                let me = self.clone();
                let nodes = nodes.clone();
                tokio::spawn(async move { me.signal_steps(job_id, u32::MAX, &nodes, libc::SIGTERM, true).await });
            }
            if alloc_only {
                self.signal_steps(job_id, u32::MAX, &nodes, libc::SIGTERM, true).await;
                let _ = self
                    .commit(vec![Command::Complete { job_id, exit_status: 0, launch_failed: false, now: now() }])
                    .await;
                self.sched_wake.notify_one();
                return true;
            }
        }
        let run = self.read().state.jobs().get(&job_id).map(|j| j.restart_count.saturating_add(1)).unwrap_or(0);
        let Some(mut a) = self.agent(node).await else { return false };
        let req = SignalRequest {
            job_id,
            signal,
            batch_only,
            terminate,
            kill_wait: self.conf.kill_wait as u32,
            reason: reason as i32,
            run,
        };
        a.signal(self.signed(req)).await.is_ok()
    }

    /// Signal step `step_id` (`u32::MAX`: every step) of a job on `nodes`
    /// (`cancel`: end it, after KillWait). Best effort, all nodes at once.
    pub async fn signal_steps(
        self: &Arc<Self>,
        job_id: u32,
        step_id: u32,
        nodes: &[String],
        signal: i32,
        cancel: bool,
    ) {
        let mut calls = tokio::task::JoinSet::new();
        for n in nodes {
            let me = self.clone();
            let n = n.clone();
            calls.spawn(async move {
                if let Some(mut a) = me.agent(&n).await {
                    let req = spur_proto::SignalStepRequest {
                        job_id,
                        step_id,
                        signal,
                        cancel,
                        kill_wait: me.conf.kill_wait as u32,
                    };
                    let _ = a.signal_step(me.signed(req)).await;
                }
            });
        }
        while calls.join_next().await.is_some() {}
    }

    /// Start a step's part on each of `nodes` through the launch tree
    /// (`TreeWidth`, 50 by default): at most that many calls from here, each
    /// agent forwarding to its share. `Err` names a node that failed and why.
    pub async fn launch_step(self: &Arc<Self>, spec: Vec<u8>, nodes: &[String]) -> Result<(), (String, i32, String)> {
        let addrs: Vec<spur_proto::AgentAddr> = {
            let g = self.read();
            let mut v = Vec::with_capacity(nodes.len());
            for n in nodes {
                match g.state.node(n) {
                    Some(x) => {
                        v.push(spur_proto::AgentAddr { node: n.clone(), addr: format!("{}:{}", x.addr, x.port) })
                    }
                    None => return Err((n.clone(), ESLURM_INVALID_NODE_NAME, strerror(ESLURM_INVALID_NODE_NAME))),
                }
            }
            v
        };
        let width = self.conf.get("TreeWidth").and_then(|w| w.parse::<u32>().ok()).filter(|&w| w > 0).unwrap_or(50);
        let mut calls = tokio::task::JoinSet::new();
        for (head, forward) in spur_proto::tree_split(addrs, width) {
            let me = self.clone();
            let spec = spec.clone();
            calls.spawn(async move {
                let node = head.node.clone();
                let Some(mut a) = me.agent(&node).await else {
                    return Err((node, ESLURM_INVALID_NODE_NAME, strerror(ESLURM_INVALID_NODE_NAME)));
                };
                let mut req = tonic::Request::new(spur_proto::LaunchStepRequest {
                    spec,
                    forward,
                    tree_width: width,
                    node: node.clone(),
                });
                req.set_timeout(Duration::from_secs(20));
                match a.launch_step(req).await {
                    Ok(r) => r.into_inner().into_result(node),
                    Err(e) => Err((node, SLURM_COMMUNICATIONS_CONNECTION_ERROR, e.message().to_string())),
                }
            });
        }
        let mut res = Ok(());
        while let Some(r) = calls.join_next().await {
            if let Ok(Err(e)) = r {
                if res.is_ok() {
                    res = Err(e);
                }
            }
        }
        res
    }

    /// Ask a node's agent to answer (slurmctld pings a node whose registration
    /// it requires again, after `State=RESUME`/`UNDRAIN`).
    pub async fn ping_agent(self: &Arc<Self>, node: &str) -> bool {
        let Some(mut a) = self.agent(node).await else { return false };
        a.ping(self.signed(spur_proto::PingRequest {})).await.is_ok()
    }

    /// `SLURM_WORKING_CLUSTER` of a 22.05 batch job (its sbatch sets it:
    /// cluster, first controller's address, port, 22.05's protocol version
    /// 38<<8, the select plugin's id); empty when imitating 24.11.
    fn working_cluster(&self) -> String {
        if !spur_core::compat::profile().env_working_cluster {
            return String::new();
        }
        spur_core::launch::working_cluster(&self.conf)
    }

    /// What a node's step daemon needs to run step `step` of `job`.
    pub fn step_launch(&self, job: &Job, step: spur_core::model::Step, io: spur_core::launch::StepIo) -> StepLaunch {
        let mut j = job.clone();
        j.steps.clear();
        StepLaunch {
            uid: j.user_id,
            gid: j.group_id,
            user_name: j.user_name.clone(),
            job: j,
            step,
            io,
            cluster_name: self.conf.cluster_name.clone(),
            ctld_host: self.conf.controllers.first().map(|c| c.name.clone()).unwrap_or_default(),
            ctld_port: self.conf.slurmctld_port,
            kill_wait: self.conf.kill_wait as u32,
            mem_check_secs: self.conf.mem_check_secs(),
        }
    }

    /// Start a job's `extern` step on its nodes (`PrologFlags=Contain`); the
    /// monitor ends it when the job stops running.
    async fn launch_extern(self: &Arc<Self>, job: &Job) {
        let Some(step) = job.steps.iter().find(|s| s.step_id == EXTERN_STEP).cloned() else { return };
        let nodes = step.node_names();
        let version = self.read().state.write_format_version();
        let launch = self.step_launch(job, step, Default::default());
        let Ok(spec) = spur_core::records::encode_step_launch(&launch, version) else { return };
        self.extern_steps.lock().unwrap_or_else(|e| e.into_inner()).insert(job.job_id, nodes.clone());
        if let Err((node, _, msg)) = self.launch_step(spec, &nodes).await {
            tracing::warn!("the extern step of job {} did not start on {}: {}", job.job_id, node, msg);
        }
    }

    /// End the `extern` steps of jobs that no longer run (finished,
    /// completing, requeued): slurmctld's terminate-job message to their nodes.
    async fn end_extern_steps(self: &Arc<Self>) {
        let ended: Vec<(u32, Vec<String>)> = {
            let g = self.read();
            let mut ext = self.extern_steps.lock().unwrap_or_else(|e| e.into_inner());
            let gone: Vec<u32> = ext
                .keys()
                .copied()
                .filter(|id| {
                    !g.state.jobs().get(id).is_some_and(|j| {
                        matches!(j.state, JobState::Running | JobState::Suspended)
                            && j.steps.iter().any(|s| s.step_id == EXTERN_STEP)
                    })
                })
                .collect();
            gone.into_iter().filter_map(|id| ext.remove(&id).map(|n| (id, n))).collect()
        };
        for (job_id, nodes) in ended {
            let me = self.clone();
            tokio::spawn(async move { me.signal_steps(job_id, EXTERN_STEP, &nodes, libc::SIGKILL, true).await });
        }
    }

    async fn launch(self: &Arc<Self>, job: Job) {
        if job.steps.iter().any(|s| s.step_id == EXTERN_STEP) {
            let me = self.clone();
            let j = job.clone();
            tokio::spawn(async move { me.launch_extern(&j).await });
        }
        if job.desc.script.is_empty() {
            // an allocation (salloc, srun's own): nothing runs until its steps
            return;
        }
        let node = match job.allocs.first() {
            Some(a) => a.node.clone(),
            None => return,
        };
        let Ok(_slot) = self.launch_slots.acquire().await else { return };
        let spec = LaunchSpec {
            node_name: node.clone(),
            cluster_name: self.conf.cluster_name.clone(),
            ctld_host: self.conf.controllers.first().map(|c| c.name.clone()).unwrap_or_default(),
            ctld_port: self.conf.slurmctld_port,
            kill_wait: self.conf.kill_wait as u32,
            submit_host: if job.desc.submit_host.is_empty() {
                job.desc.alloc_node.clone()
            } else {
                job.desc.submit_host.clone()
            },
            working_cluster: self.working_cluster(),
            mem_check_secs: self.conf.mem_check_secs(),
            job: job.clone(),
        };
        // at the newest format version the agent reads
        let version = crate::formats::agent_version(self, &node).await;
        let bytes = match spur_core::records::encode_launch(&spec, version) {
            Ok(b) => b,
            Err(_) => return,
        };
        for attempt in 0..5 {
            if let Some(mut a) = self.agent(&node).await {
                match a.launch(self.signed(LaunchRequest { spec: bytes.clone() })).await {
                    Ok(r) => {
                        let r = r.into_inner();
                        match r.status {
                            Some(s) if s.code != 0 => {
                                tracing::warn!("launch of job {} on {} refused: {}", job.job_id, node, s.message);
                                let _ = self
                                    .commit(vec![Command::Complete {
                                        job_id: job.job_id,
                                        exit_status: 1 << 8,
                                        launch_failed: true,
                                        now: now(),
                                    }])
                                    .await;
                                self.sched_wake.notify_one();
                            }
                            _ => {}
                        }
                        return;
                    }
                    Err(e) => tracing::warn!(
                        "launch of job {} on {} failed (attempt {}): {}",
                        job.job_id,
                        node,
                        attempt + 1,
                        e
                    ),
                }
            }
            tokio::time::sleep(Duration::from_millis(300 * (attempt + 1))).await;
        }
        // The node does not answer: requeue the job and mark the node down.
        let t = now();
        let _ = self
            .commit(vec![
                Command::NodeDown {
                    name: node.clone(),
                    reason: "Not responding".into(),
                    uid: self.slurm_user_uid,
                    now: t,
                },
                Command::Requeue { job_id: job.job_id, hold: false, now: t },
            ])
            .await;
        self.sched_wake.notify_one();
    }

    /// One scheduling pass: decide, commit, then launch. Only the scheduler
    /// starts jobs and passes run one at a time, so a decision can only be
    /// overtaken by a cancel, hold or node change, which `Start` refuses.
    pub async fn schedule_once(self: &Arc<Self>) {
        let t = now();
        // one stamp for the whole pass: squeue's tie-break between passes
        let t_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(t * 1000);
        let cmds = {
            // (read only: requests that read the state go on during the pass)
            let g = self.read();
            // the queue only: finished jobs are found by id when a dependency
            // names them
            let queue = g.state.queue_ids();
            let (decisions, truncated, with_backfill, shape) = {
                let st = &g.state;
                let jobs: Vec<&Job> = queue.iter().filter_map(|id| st.jobs().get(id)).collect();
                let nodes: Vec<&Node> = st.nodes().iter().collect();
                let parts: Vec<&Partition> = st.partitions().iter().collect();
                let resvs: Vec<&Reservation> = st.reservations().iter().collect();
                let lookup = |id: u32| st.jobs().get(&id);
                // the backfill phase when the queue changed since it last
                // ran (a submission, a start, an end), else every bf_interval
                let pending = jobs.iter().filter(|j| j.state == JobState::Pending).count();
                let shape = (self.submissions.load(std::sync::atomic::Ordering::SeqCst), jobs.len(), pending);
                let backfill = self.backfill.as_ref().filter(|bf| {
                    let plans = self.plans.lock().unwrap_or_else(|e| e.into_inner());
                    pending > 0
                        && (plans.last_run.as_ref().is_none_or(|(at, was)| {
                            *was != shape || at.elapsed() >= Duration::from_secs(bf.interval.max(1) as u64)
                        }) || plans
                            .cycle_due(std::time::Instant::now(), Duration::from_secs(bf.interval.max(1) as u64)))
                });
                let ending: Vec<u32> = self.grace.lock().unwrap_or_else(|e| e.into_inner()).keys().copied().collect();
                let params = spur_sched::Params {
                    depth: spur_sched::DEFAULT_QUEUE_DEPTH,
                    backfill: backfill.cloned(),
                    preempt: self.preempt,
                    ending,
                    topology: self.topology.clone(),
                    qos: self.qos.map(|(preempt, limits)| {
                        Arc::new(spur_sched::qos::QosPolicy {
                            qos: st.qos().into_owned(),
                            preempt,
                            limits,
                            exempt: self.preempt_exempt,
                            // (the association limits, where any is set)
                            assocs: Some(st.assocs())
                                .filter(|a| limits && a.any_limits())
                                .map(|a| Arc::new(a.into_owned())),
                        })
                    }),
                };
                let (mut d, cut) = spur_sched::schedule_pass(t, &jobs, &lookup, &nodes, &parts, &resvs, &params);
                // (a gang suspension is a preemption's: it needs the records
                // that say so, else the job would stay suspended)
                let gang = self.gang.filter(|_| st.write_format_version() >= spur_state::PREEMPT_SUSPEND_VERSION);
                if let Some(slice) = gang {
                    // time slicing first: its suspensions and resumptions
                    // stand, the pass's own resumption of the same jobs goes
                    let mut gs = self.gang_state.lock().unwrap_or_else(|e| e.into_inner());
                    let at = std::time::Instant::now();
                    let cycle = gs.1.is_some_and(|s| at.duration_since(s) >= slice);
                    let o = spur_sched::gang::evaluate(&jobs, &nodes, &parts, &gs.0, cycle);
                    if cycle || gs.1.is_none() {
                        gs.1 = Some(at);
                    }
                    gs.0 = o.order;
                    if !o.decisions.is_empty() {
                        let ours: HashSet<u32> = o
                            .decisions
                            .iter()
                            .filter_map(|x| match x {
                                spur_sched::Decision::Resume { job_id }
                                | spur_sched::Decision::Preempt { job_id, .. } => Some(*job_id),
                                _ => None,
                            })
                            .collect();
                        d.retain(|x| !matches!(x, spur_sched::Decision::Resume { job_id } if ours.contains(job_id)));
                        d.splice(0..0, o.decisions);
                    }
                }
                let ran = backfill.is_some() && !cut;
                if ran {
                    let mut plans = self.plans.lock().unwrap_or_else(|e| e.into_inner());
                    plans.last_run = Some((std::time::Instant::now(), shape));
                    let queued: HashSet<u32> = queue.iter().copied().collect();
                    plans.backfilled.retain(|id| queued.contains(id));
                }
                (d, cut, ran, shape)
            };
            if truncated {
                // more jobs may start: run another pass right after this one
                self.sched_wake.notify_one();
            }
            let quiet: Vec<u32> = {
                let mut rel = self.released.lock().unwrap_or_else(|e| e.into_inner());
                let subs = self.submissions.load(std::sync::atomic::Ordering::SeqCst);
                rel.retain(|_, (at, seen)| at.elapsed() < RELEASE_QUIET && *seen == subs);
                rel.keys().copied().collect()
            };
            let decisions: Vec<spur_sched::Decision> = if quiet.is_empty() {
                decisions
            } else {
                decisions
                    .into_iter()
                    .filter(|d| {
                        let id = match d {
                            spur_sched::Decision::Reason { job_id, .. }
                            | spur_sched::Decision::Eligible { job_id }
                            | spur_sched::Decision::CancelNeverSatisfied { job_id }
                            | spur_sched::Decision::SetAside { job_id, .. }
                            | spur_sched::Decision::Start { job_id, .. }
                            | spur_sched::Decision::Plan { job_id, .. }
                            | spur_sched::Decision::Preempt { job_id, .. }
                            | spur_sched::Decision::Resume { job_id } => *job_id,
                            spur_sched::Decision::Considered { .. } => return true,
                        };
                        !quiet.contains(&id)
                    })
                    .collect()
            };
            // the phase's word replaces the last one's at once (a query sees
            // one or the other, not a mix)
            let mut planned: HashMap<u32, (i64, Vec<String>)> = HashMap::new();
            let mut considered: HashSet<u32> = HashSet::new();
            let replace_plans = |planned: HashMap<u32, (i64, Vec<String>)>, considered: HashSet<u32>| {
                let mut plans = self.plans.lock().unwrap_or_else(|e| e.into_inner());
                if with_backfill {
                    plans.at = planned;
                }
                let interval =
                    Duration::from_secs(self.backfill.as_ref().map(|b| b.interval.max(1)).unwrap_or(1) as u64);
                let now = std::time::Instant::now();
                plans.mark(now, t, shape, with_backfill.then_some(considered), interval, self.sched_interval);
            };
            if decisions.is_empty() {
                replace_plans(planned, considered);
                return;
            }
            let mut reasons = vec![];
            let mut eligible = vec![];
            let mut cmds = vec![];
            let mut bf_starts: Vec<usize> = vec![];
            // (job, batch host, signal): SIGKILL to end a preempted job,
            // SIGSTOP to suspend one, SIGCONT to resume one
            let mut preempting: Vec<(u32, String, i32)> = vec![];
            // every job gets an extern step (from the version that writes it)
            let contain = self.prolog_contain && g.state.write_format_version() >= spur_state::SPECIAL_STEPS_VERSION;
            for d in decisions {
                match d {
                    spur_sched::Decision::Reason { job_id, reason } => reasons.push((job_id, reason)),
                    spur_sched::Decision::Eligible { job_id } => eligible.push(job_id),
                    spur_sched::Decision::CancelNeverSatisfied { job_id } => {
                        cmds.push(Command::CancelNeverSatisfied { job_id, now: t })
                    }
                    spur_sched::Decision::Start { job_id, task, allocs, backfill } => {
                        if backfill {
                            // (marked once started: an array's task gets its id then)
                            bf_starts.push(cmds.len());
                        }
                        cmds.push(Command::Start {
                            job_id,
                            task,
                            allocs,
                            now: t,
                            pass_ms: t_ms,
                            extern_step: contain,
                            backfill,
                        })
                    }
                    spur_sched::Decision::Plan { job_id, start_time, nodes } => {
                        planned.insert(job_id, (start_time, nodes));
                    }
                    spur_sched::Decision::Considered { job_ids } => considered.extend(job_ids),
                    spur_sched::Decision::Preempt { job_id, requeue, suspend } => {
                        // GraceTime (its partition's, or its QOS's under
                        // preempt/qos): it runs on that long, then ends (22.05:
                        // PreemptTime= the choice, EndTime= it plus the grace
                        // time, cancelled at slurmctld's next check)
                        let victim = g.state.jobs().get(&job_id);
                        let grace = if self.qos.is_some_and(|(p, _)| p) {
                            let all = g.state.qos();
                            victim.and_then(|j| spur_core::qos::of_job(&all, j)).map(|q| q.grace_time).unwrap_or(0)
                        } else {
                            victim.and_then(|j| g.state.partition(&j.partition)).map(|p| p.more.grace_time).unwrap_or(0)
                        };
                        if grace > 0 && !suspend {
                            tracing::info!("scheduler: preempting job {} after its GraceTime of {} s", job_id, grace);
                            self.grace
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .entry(job_id)
                                .or_insert((t + i64::from(grace), requeue));
                            continue;
                        }
                        // its processes are ended (or stopped) once the change is committed
                        if let Some(a) = g.state.jobs().get(&job_id).and_then(|j| j.allocs.first()) {
                            let sig = if suspend { libc::SIGSTOP } else { libc::SIGKILL };
                            preempting.push((job_id, a.node.clone(), sig));
                        }
                        tracing::info!(
                            "scheduler: preempting job {} ({})",
                            job_id,
                            if suspend {
                                "suspend"
                            } else if requeue {
                                "requeue"
                            } else {
                                "cancel"
                            }
                        );
                        cmds.push(if suspend {
                            Command::Suspend { job_id, now: t, preempted: true }
                        } else if requeue {
                            Command::Requeue { job_id, hold: false, now: t }
                        } else {
                            Command::Kill { job_id, task: None, state: JobState::Preempted, now: t, uid: None }
                        });
                    }
                    spur_sched::Decision::Resume { job_id } => {
                        if let Some(a) = g.state.jobs().get(&job_id).and_then(|j| j.allocs.first()) {
                            preempting.push((job_id, a.node.clone(), libc::SIGCONT));
                        }
                        tracing::info!("scheduler: resuming job {}", job_id);
                        cmds.push(Command::Resume { job_id, now: t });
                    }
                    spur_sched::Decision::SetAside { job_id, error } => tracing::error!(
                        "scheduler: placing job {} failed ({}): left pending with reason BadConstraints",
                        job_id,
                        error
                    ),
                }
            }
            replace_plans(planned, considered);
            let before = cmds.len();
            if !reasons.is_empty() {
                cmds.insert(0, Command::Reasons { changes: reasons });
            }
            if !eligible.is_empty() {
                cmds.insert(0, Command::Eligible { job_ids: eligible, now: t });
            }
            let shift = cmds.len() - before;
            (cmds, bf_starts.into_iter().map(|i| i + shift).collect::<HashSet<usize>>(), preempting)
        };
        let (cmds, bf_starts, preempting) = cmds;
        let Ok(results) = self.commit(cmds).await else { return };
        for (id, node, sig) in preempting {
            // (slurmstepd's `CANCELLED AT ... DUE TO PREEMPTION` in its output)
            let me = self.clone();
            let end = sig == libc::SIGKILL;
            tokio::spawn(async move {
                let why = if end { StopReason::Preemption } else { StopReason::Unspecified };
                me.signal_job(id, &node, sig, false, end, why).await;
            });
        }
        let started: Vec<Job> = {
            let g = self.lock();
            let mut plans = self.plans.lock().unwrap_or_else(|e| e.into_inner());
            results
                .into_iter()
                .enumerate()
                .filter_map(|(i, r)| match r {
                    Ok(Applied::Started(id)) => {
                        if bf_starts.contains(&i) {
                            plans.backfilled.insert(id);
                        }
                        g.state.jobs().get(&id).cloned()
                    }
                    _ => None,
                })
                .collect()
        };
        if self.gang.is_some() && !started.is_empty() {
            // a job that started beside an active one is suspended by the
            // next evaluation: run it now
            self.sched_wake.notify_one();
        }
        for job in started {
            self.launched.lock().unwrap_or_else(|e| e.into_inner()).insert(job.job_id);
            let me = self.clone();
            tokio::spawn(async move { me.launch(job).await });
        }
    }

    /// This controller just became leader: give every node a fresh
    /// SlurmdTimeout (their heartbeats went to the old leader), and re-send the
    /// launch of every running job the old leader may not have delivered (the
    /// agent ignores a launch of a job it already has).
    async fn take_over(self: &Arc<Self>) {
        let t = now();
        let running: Vec<Job> = {
            let mut g = self.lock();
            g.state.restart_liveness(t);
            g.state.jobs().values().filter(|j| j.state == JobState::Running).cloned().collect()
        };
        let mut launched = self.launched.lock().unwrap_or_else(|e| e.into_inner());
        for job in running {
            // (a job this leader's own scheduler started is being launched already)
            if !launched.insert(job.job_id) {
                continue;
            }
            let me = self.clone();
            tokio::spawn(async move { me.launch(job).await });
        }
        drop(launched);
        self.sched_wake.notify_one();
    }

    pub async fn scheduler_loop(self: Arc<Self>) {
        loop {
            if !self.is_ready_leader() {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
            self.schedule_once().await;
            // Coalesce bursts of submissions into one pass, unless an
            // allocation waits for its start (`sched_now`).
            let _ = tokio::time::timeout(Duration::from_secs(1), self.sched_wake.notified()).await;
            if !self.sched_now.swap(false, std::sync::atomic::Ordering::SeqCst) {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
    }

    /// Node liveness, time limits, stuck completions and purging.
    pub async fn monitor_loop(self: Arc<Self>) {
        let mut completing_since: HashMap<u32, i64> = HashMap::new();
        let mut was_leader = false;
        loop {
            tokio::time::sleep(Duration::from_millis(if was_leader { 500 } else { 50 })).await;
            let leader = self.is_ready_leader();
            if leader && !was_leader {
                self.take_over().await;
                completing_since.clear();
            }
            if !leader && was_leader {
                self.launched.lock().unwrap_or_else(|e| e.into_inner()).clear();
                self.grace.lock().unwrap_or_else(|e| e.into_inner()).clear();
            }
            was_leader = leader;
            if !leader {
                continue;
            }
            self.end_extern_steps().await;
            let t = now();
            self.end_graced(t).await;
            // (a queue of 100,000 jobs: commits of a few thousand updates each)
            let mut prios = self.recalc_priorities(t);
            while prios.len() > 4096 {
                let rest = prios.split_off(4096);
                let _ = self.commit(prios).await;
                prios = rest;
            }
            let mut cmds = prios;
            let mut kills: Vec<(u32, String, StopReason)> = vec![];
            {
                let g = self.lock();
                let timeout = self.conf.slurmd_timeout as i64;
                let job_requeue =
                    self.conf.get("JobRequeue").and_then(|v| v.trim().parse::<u16>().ok()).unwrap_or(1) != 0;
                for n in g.state.nodes() {
                    if timeout > 0
                        && n.base != NodeBase::Down
                        && n.base != NodeBase::Future
                        && n.last_heard > 0
                        && t - n.last_heard > timeout
                    {
                        cmds.push(Command::NodeDown {
                            name: n.name.clone(),
                            reason: "Not responding".into(),
                            uid: self.slurm_user_uid,
                            now: t,
                        });
                        for j in g.state.jobs().values() {
                            if j.state.is_active() && j.allocs.iter().any(|a| a.node == n.name) {
                                // the job's processes elsewhere end with it
                                if let Some(a) = j.allocs.first().filter(|a| a.node != n.name) {
                                    kills.push((j.job_id, a.node.clone(), StopReason::Unspecified));
                                }
                                // a batch job that may be requeued goes back to the
                                // queue (slurmctld: "requeue job JobId=N due to failure
                                // of node"; --requeue, else JobRequeue, default 1),
                                // any other ends NODE_FAIL (measured on 22.05)
                                if j.batch_flag == 1 && j.desc.requeue.unwrap_or(job_requeue) {
                                    tracing::info!("requeue job {} due to failure of node {}", j.job_id, n.name);
                                    cmds.push(Command::Requeue { job_id: j.job_id, hold: false, now: t });
                                    continue;
                                }
                                cmds.push(Command::Kill {
                                    job_id: j.job_id,
                                    task: None,
                                    state: JobState::NodeFail,
                                    now: t,
                                    uid: None,
                                });
                                cmds.push(Command::Complete {
                                    job_id: j.job_id,
                                    exit_status: 0,
                                    launch_failed: false,
                                    now: t,
                                });
                            }
                        }
                    }
                }
                // ResumeAfter= reached: the node resumes (as `State=RESUME`,
                // which also clears the time)
                for n in g.state.nodes().iter().filter(|n| n.resume_after != 0 && t >= n.resume_after) {
                    let update = spur_state::NodeUpdate { state: Some("RESUME".into()), ..Default::default() };
                    cmds.push(Command::NodeUpdate { name: n.name.clone(), update, uid: self.slurm_user_uid, now: t });
                }
                let mut purge = vec![];
                // finished jobs are kept MinJobAge seconds (0: for good)
                let min_age = self.conf.min_job_age();
                for j in g.state.jobs().values() {
                    if j.state == JobState::Running && j.end_time > 0 && t >= j.end_time && j.kill_reason.is_none() {
                        cmds.push(Command::Kill {
                            job_id: j.job_id,
                            task: None,
                            state: JobState::Timeout,
                            now: t,
                            uid: None,
                        });
                        if let Some(a) = j.allocs.first() {
                            kills.push((j.job_id, a.node.clone(), StopReason::Timeout));
                        }
                    }
                    if j.state == JobState::Completing {
                        let since = *completing_since.entry(j.job_id).or_insert(t);
                        if t - since > self.conf.kill_wait as i64 + 15 {
                            completing_since.insert(j.job_id, t);
                            if let Some(a) = j.allocs.first() {
                                kills.push((j.job_id, a.node.clone(), StopReason::Unspecified));
                            }
                        }
                    }
                    if j.state.is_finished() && j.end_time > 0 && min_age.is_some_and(|a| t - j.end_time >= a as i64) {
                        // keep an array meta-record while tasks of it still run
                        purge.push(j.job_id);
                    }
                }
                completing_since
                    .retain(|id, _| g.state.jobs().get(id).map(|j| j.state == JobState::Completing).unwrap_or(false));
                self.launched
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .retain(|id| g.state.jobs().get(id).map(|j| j.state.is_active()).unwrap_or(false));
                if !purge.is_empty() {
                    cmds.push(Command::Purge { job_ids: purge });
                }
                // a reservation ends at its end time: slurmctld deletes it
                for r in g.state.reservations().iter().filter(|r| r.end_time <= t) {
                    cmds.push(Command::ResvDelete { name: r.name.clone() });
                }
            }
            if !cmds.is_empty() {
                let resv_ended = cmds.iter().any(|c| matches!(c, Command::ResvDelete { .. }));
                let rs = self.commit(cmds).await.unwrap_or_default();
                if resv_ended || rs.iter().any(|r| matches!(r, Ok(Applied::Ended(_)))) {
                    self.sched_wake.notify_one();
                }
            }
            for (id, node, why) in kills {
                let me = self.clone();
                tokio::spawn(async move {
                    me.signal_job(id, &node, libc::SIGKILL, false, true, why).await;
                });
            }
        }
    }
}

/// Run one of the controller's loops for as long as the process lives: a run
/// that ends or panics is logged and started again (after `backoff`, so a
/// loop that fails at once does not spin).
pub async fn supervise<T, F, Fut>(name: &'static str, arg: T, backoff: Duration, run: F)
where
    T: Clone,
    F: Fn(T) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    loop {
        match tokio::spawn(run(arg.clone())).await {
            Ok(()) => tracing::error!("the {} loop ended; restarting it", name),
            Err(e) if e.is_panic() => {
                let p = e.into_panic();
                let msg = p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "panic".into());
                tracing::error!("the {} loop panicked ({}); restarting it", name, msg)
            }
            Err(e) => tracing::error!("the {} loop stopped ({}); restarting it", name, e),
        }
        tokio::time::sleep(backoff).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[tokio::test]
    async fn a_loop_that_panics_or_ends_is_started_again() {
        let runs = Arc::new(AtomicU32::new(0));
        let sup =
            tokio::spawn(supervise("test", runs.clone(), Duration::from_millis(1), |r: Arc<AtomicU32>| async move {
                match r.fetch_add(1, Ordering::SeqCst) {
                    0 => panic!("first run"),
                    1 => {}
                    _ => std::future::pending::<()>().await,
                }
            }));
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while runs.load(Ordering::SeqCst) < 3 {
            assert!(std::time::Instant::now() < deadline, "not restarted: {} runs", runs.load(Ordering::SeqCst));
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert!(!sup.is_finished(), "the supervisor itself never ends");
        sup.abort();
    }

    #[test]
    fn backfill_marks_fall_where_slurms_cycles_would() {
        let t0 = std::time::Instant::now();
        let s = |secs: u64| t0 + Duration::from_secs(secs);
        let bf = Duration::from_secs(30);
        let main = Some(Duration::from_secs(60));
        let set = |ids: &[u32]| ids.iter().copied().collect::<HashSet<u32>>();
        let mut p = Plans::default();
        let q = (1, 2, 2);
        // Slurm's first backfill cycle comes bf_interval after the start:
        // Spur's phase on the submission leaves no mark
        p.mark(s(0), 100, q, Some(set(&[1, 2])), bf, main);
        assert!(p.considered.is_empty());
        assert!(!p.cycle_due(s(10), bf) && p.cycle_due(s(30), bf));
        p.mark(s(10), 110, q, None, bf, main);
        p.mark(s(30), 130, q, Some(set(&[1, 2])), bf, main);
        assert_eq!((p.considered.clone(), p.considered_at), (set(&[1, 2]), 130));
        // a main pass without an event keeps them; an event clears them
        p.mark(s(31), 131, q, None, bf, main);
        assert_eq!(p.considered.len(), 2);
        p.mark(s(32), 132, (2, 3, 3), Some(set(&[1, 2, 3])), bf, main);
        assert!(p.considered.is_empty());
        // the next cycle marks again; sched_interval clears without an event
        p.mark(s(62), 162, (2, 3, 3), Some(set(&[1, 2, 3])), bf, main);
        assert_eq!(p.considered.len(), 3);
        p.mark(s(93), 193, (2, 3, 3), None, bf, main);
        assert!(p.considered.is_empty());
        // sched_interval=-1: only events clear
        let mut p = Plans::default();
        p.mark(s(0), 100, q, None, bf, None);
        p.mark(s(30), 130, q, Some(set(&[1])), bf, None);
        p.mark(s(500), 600, q, None, bf, None);
        assert_eq!((p.considered.clone(), p.considered_at), (set(&[1]), 130));
    }
}
