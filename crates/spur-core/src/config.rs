//! slurm.conf parsing, as Slurm 24.11 reads it (`src/common/parse_config.c`,
//! `read_config.c`, `node_conf.c`).
//!
//! Syntax: one `Key=Value` per line at top level (keys case-insensitive;
//! values unquoted without spaces, or `"quoted"`); `#` starts a comment
//! unless escaped `\#`; a line ending in an odd number of `\` continues on
//! the next; other `\x` escapes become `x`; `Include FILE` (relative to the
//! directory of slurm.conf, `%c` = lower-case ClusterName; globs are refused,
//! as Slurm refuses them). `NodeName=`, `PartitionName=`, `NodeSet=`,
//! `DownNodes=`, `FrontendName=` and `SlurmctldHost=` lines take further
//! `Key=Value` pairs on the same line; `NodeName=DEFAULT` and
//! `PartitionName=DEFAULT` set defaults for later lines.
//!
//! Errors carry file and line and Slurm's own wording (see [`ConfError`]).

use serde::{Deserialize, Serialize};
use spur_grammar::gres::{parse_gres_list, GresSpec};
use spur_grammar::hostlist;
use std::fmt;
use std::path::{Path, PathBuf};

/// Slurm's INFINITE for 32-bit limits (used in `default_time`).
pub const INFINITE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum K {
    Str,
    U16,
    U32,
    U64,
    Bool,
    /// may repeat; every value kept (Prolog, Epilog, ...)
    Multi,
    /// accepted, ignored; Slurm's daemons log that it is defunct
    Defunct,
}

/// The top-level keys Spur accepts and keeps (`scontrol show config` shows
/// them) but does not act on: a site's slurm.conf with them starts the
/// cluster, and spurctld logs each one it holds once (`inert_keys`).
/// `slurm-tests/tests/conf_keys.rs` checks the list against the code: none
/// of these is read outside this file's table and scontrol's display, and
/// every other key is.
pub static INERT_KEYS: &[&str] = &[
    "AccountingStorageBackupHost",
    "AccountingStorageExternalHost",
    "AccountingStorageHost",
    "AccountingStorageLoc",
    "AccountingStorageParameters",
    "AccountingStoragePass",
    "AccountingStorageUser",
    "AccountingStoreFlags",
    "AccountingStoreJobComment",
    "AcctGatherEnergyType",
    "AcctGatherFilesystemType",
    "AcctGatherInfinibandType",
    "AcctGatherInterconnectType",
    "AcctGatherNodeFreq",
    "AcctGatherProfileType",
    "AllowSpecResourcesUsage",
    "AuthAltParameters",
    "AuthAltTypes",
    "BcastExclude",
    "BcastParameters",
    "BurstBufferParameters",
    "CertmgrParameters",
    "CertmgrType",
    "CliFilterPlugins",
    "CommunicationParameters",
    "CpuFreqDef",
    "CpuFreqGovernors",
    "CryptoType",
    "DataParserParameters",
    "DebugFlags",
    "DependencyParameters",
    "DisableRootJobs",
    "EioTimeout",
    "Epilog",
    "EpilogMsgTime",
    "EpilogSlurmctld",
    "FairShareDampeningFactor",
    "FastSchedule",
    "FederationParameters",
    "GetEnvTimeout",
    "GpuFreqDef",
    "GroupUpdateForce",
    "GroupUpdateTime",
    "HashPlugin",
    "HealthCheckInterval",
    "HealthCheckNodeState",
    "HealthCheckProgram",
    "JobCompHost",
    "JobCompLoc",
    "JobCompParams",
    "JobCompPass",
    "JobCompPort",
    "JobCompUser",
    "JobContainerType",
    "JobFileAppend",
    "JobSubmitPlugins",
    "KeepAliveTime",
    "LaunchType",
    "LogTimeFormat",
    "MailDomain",
    "MailProg",
    "MaxBatchRequeue",
    "MaxDBDMsgs",
    "MaxNodeCount",
    "MaxStepCount",
    "MaxTasksPerNode",
    "MCSParameters",
    "MCSPlugin",
    "NodeFeaturesPlugins",
    "PluginDir",
    "PlugStackConfig",
    "PreemptParameters",
    "PrEpParameters",
    "PrEpPlugins",
    "PriorityParameters",
    "PrioritySiteFactorParameters",
    "PrioritySiteFactorPlugin",
    "PriorityUsageResetPeriod",
    "Prolog",
    "PrologEpilogTimeout",
    "PrologSlurmctld",
    "PropagatePrioProcess",
    "RebootProgram",
    "ReconfigFlags",
    "RequeueExit",
    "RequeueExitHold",
    "ResumeFailProgram",
    "ResumeProgram",
    "ResumeRate",
    "ResumeTimeout",
    "ResvEpilog",
    "ResvOverRun",
    "ResvProlog",
    "RoutePlugin",
    "SbcastParameters",
    "ScronParameters",
    "SlurmctldAddr",
    "SlurmctldDebug",
    "SlurmctldPrimaryOffProg",
    "SlurmctldPrimaryOnProg",
    "SlurmctldSyslogDebug",
    "SlurmdDebug",
    "SlurmdParameters",
    "SlurmdSyslogDebug",
    "SlurmSchedLogFile",
    "SlurmSchedLogLevel",
    "SrunEpilog",
    "SrunPortRange",
    "SrunProlog",
    "SuspendExcNodes",
    "SuspendExcParts",
    "SuspendExcStates",
    "SuspendProgram",
    "SuspendRate",
    "SuspendTimeout",
    "SwitchParameters",
    "SwitchType",
    "TaskPlugin",
    "TaskPluginParam",
    "TCPTimeout",
    "TmpFS",
    "UnkillableStepProgram",
    "UnkillableStepTimeout",
    "UsePAM",
    "VSizeFactor",
    "X11Parameters",
];

/// What Spur does with a top-level slurm.conf key (docs/migration.md's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyStatus {
    /// Read and acted on.
    Acted,
    /// Accepted and shown by `scontrol show config`, not acted on; spurctld
    /// logs it once at start ([`INERT_KEYS`]).
    Inert,
    /// Defunct in Slurm itself: accepted, and logged as defunct, as Slurm does.
    Defunct,
}

/// Every top-level key Spur accepts, in Slurm's order, with its status.
pub fn key_table() -> Vec<(&'static str, KeyStatus)> {
    TOP_KEYS
        .iter()
        .map(|(k, kind)| {
            let status = if *kind == K::Defunct {
                KeyStatus::Defunct
            } else if INERT_KEYS.contains(k) {
                KeyStatus::Inert
            } else {
                KeyStatus::Acted
            };
            (*k, status)
        })
        .collect()
}

/// Every top-level key of Slurm 24.11's `slurm_conf_options[]` (without
/// the line-handler keys NodeName, PartitionName, NodeSet, DownNodes,
/// FrontendName, SlurmctldHost).
static TOP_KEYS: &[(&str, K)] = &[
    ("AccountingStorageBackupHost", K::Str),
    ("AccountingStorageEnforce", K::Str),
    ("AccountingStorageExternalHost", K::Str),
    ("AccountingStorageHost", K::Str),
    ("AccountingStorageLoc", K::Str),
    ("AccountingStorageParameters", K::Str),
    ("AccountingStoragePass", K::Str),
    ("AccountingStoragePort", K::U16),
    ("AccountingStorageTRES", K::Str),
    ("AccountingStorageType", K::Str),
    ("AccountingStorageUser", K::Str),
    ("AccountingStoreFlags", K::Str),
    ("AccountingStoreJobComment", K::Bool),
    ("AcctGatherEnergyType", K::Str),
    ("AcctGatherFilesystemType", K::Str),
    ("AcctGatherInfinibandType", K::Str),
    ("AcctGatherInterconnectType", K::Str),
    ("AcctGatherNodeFreq", K::U16),
    ("AcctGatherProfileType", K::Str),
    ("AllowSpecResourcesUsage", K::Bool),
    ("AuthAltParameters", K::Str),
    ("AuthAltTypes", K::Str),
    ("AuthInfo", K::Str),
    ("AuthType", K::Str),
    ("BackupAddr", K::Str),
    ("BackupController", K::Str),
    ("BatchStartTimeout", K::U16),
    ("BcastExclude", K::Str),
    ("BcastParameters", K::Str),
    ("BurstBufferParameters", K::Str),
    ("BurstBufferType", K::Str),
    ("CertmgrType", K::Str),
    ("CertmgrParameters", K::Str),
    ("CliFilterPlugins", K::Str),
    ("ClusterName", K::Str),
    ("CommunicationParameters", K::Str),
    ("CompleteWait", K::U16),
    ("ControlAddr", K::Str),
    ("ControlMachine", K::Str),
    ("CoreSpecPlugin", K::Defunct),
    ("CpuFreqDef", K::Str),
    ("CpuFreqGovernors", K::Str),
    ("CredType", K::Str),
    ("CryptoType", K::Str),
    ("DataParserParameters", K::Str),
    ("DebugFlags", K::Str),
    ("DefCPUPerGPU", K::U64),
    ("DefMemPerCPU", K::U64),
    ("DefMemPerGPU", K::U64),
    ("DefMemPerNode", K::U64),
    ("DependencyParameters", K::Str),
    ("DisableRootJobs", K::Bool),
    ("EioTimeout", K::U16),
    ("EnforcePartLimits", K::Str),
    ("Epilog", K::Multi),
    ("EpilogMsgTime", K::U32),
    ("EpilogSlurmctld", K::Multi),
    ("ExtSensorsFreq", K::Defunct),
    ("ExtSensorsType", K::Defunct),
    ("FairShareDampeningFactor", K::U16),
    ("FastSchedule", K::U16),
    ("FederationParameters", K::Str),
    ("FirstJobId", K::U32),
    ("GetEnvTimeout", K::U16),
    ("GpuFreqDef", K::Str),
    ("GresTypes", K::Str),
    ("GroupUpdateForce", K::U16),
    ("GroupUpdateTime", K::U16),
    ("HashPlugin", K::Str),
    ("HealthCheckInterval", K::U16),
    ("HealthCheckNodeState", K::Str),
    ("HealthCheckProgram", K::Str),
    ("InactiveLimit", K::U16),
    ("InteractiveStepOptions", K::Str),
    ("JobAcctGatherFrequency", K::Str),
    ("JobAcctGatherParams", K::Str),
    ("JobAcctGatherType", K::Str),
    ("JobCompHost", K::Str),
    ("JobCompLoc", K::Str),
    ("JobCompParams", K::Str),
    ("JobCompPass", K::Str),
    ("JobCompPort", K::U32),
    ("JobCompType", K::Str),
    ("JobCompUser", K::Str),
    ("JobContainerType", K::Str),
    ("JobCredentialPrivateKey", K::Defunct),
    ("JobCredentialPublicCertificate", K::Defunct),
    ("JobFileAppend", K::U16),
    ("JobRequeue", K::U16),
    ("JobSubmitPlugins", K::Str),
    ("KeepAliveTime", K::U32),
    ("KillOnBadExit", K::U16),
    ("KillWait", K::U16),
    ("LaunchParameters", K::Str),
    ("LaunchType", K::Str),
    ("Licenses", K::Str),
    ("LogTimeFormat", K::Str),
    ("MailDomain", K::Str),
    ("MailProg", K::Str),
    ("MaxArraySize", K::U32),
    ("MaxBatchRequeue", K::U32),
    ("MaxDBDMsgs", K::U32),
    ("MaxJobCount", K::U32),
    ("MaxJobId", K::U32),
    ("MaxMemPerCPU", K::U64),
    ("MaxMemPerNode", K::U64),
    ("MaxNodeCount", K::U32),
    ("MaxStepCount", K::U32),
    ("MaxTasksPerNode", K::U16),
    ("MCSParameters", K::Str),
    ("MCSPlugin", K::Str),
    ("MessageTimeout", K::U16),
    ("MinJobAge", K::U32),
    ("MpiDefault", K::Str),
    ("MpiParams", K::Str),
    ("NodeFeaturesPlugins", K::Str),
    ("OverTimeLimit", K::U16),
    ("PluginDir", K::Str),
    ("PlugStackConfig", K::Str),
    ("PowerParameters", K::Defunct),
    ("PowerPlugin", K::Defunct),
    ("PreemptExemptTime", K::Str),
    ("PreemptMode", K::Str),
    ("PreemptParameters", K::Str),
    ("PreemptType", K::Str),
    ("PrEpParameters", K::Str),
    ("PrEpPlugins", K::Str),
    ("PriorityCalcPeriod", K::Str),
    ("PriorityDecayHalfLife", K::Str),
    ("PriorityFavorSmall", K::Bool),
    ("PriorityFlags", K::Str),
    ("PriorityMaxAge", K::Str),
    ("PriorityParameters", K::Str),
    ("PrioritySiteFactorParameters", K::Str),
    ("PrioritySiteFactorPlugin", K::Str),
    ("PriorityType", K::Str),
    ("PriorityUsageResetPeriod", K::Str),
    ("PriorityWeightAge", K::U32),
    ("PriorityWeightAssoc", K::U32),
    ("PriorityWeightFairshare", K::U32),
    ("PriorityWeightJobSize", K::U32),
    ("PriorityWeightPartition", K::U32),
    ("PriorityWeightQOS", K::U32),
    ("PriorityWeightTRES", K::Str),
    ("PrivateData", K::Str),
    ("ProctrackType", K::Str),
    ("Prolog", K::Multi),
    ("PrologEpilogTimeout", K::U16),
    ("PrologFlags", K::Str),
    ("PrologSlurmctld", K::Multi),
    ("PropagatePrioProcess", K::U16),
    ("PropagateResourceLimits", K::Str),
    ("PropagateResourceLimitsExcept", K::Str),
    ("RebootProgram", K::Str),
    ("ReconfigFlags", K::Str),
    ("RequeueExit", K::Str),
    ("RequeueExitHold", K::Str),
    ("ResumeFailProgram", K::Str),
    ("ResumeProgram", K::Str),
    ("ResumeRate", K::U16),
    ("ResumeTimeout", K::U16),
    ("ResvEpilog", K::Str),
    ("ResvOverRun", K::U16),
    ("ResvProlog", K::Str),
    ("ReturnToService", K::U16),
    ("RoutePlugin", K::Str),
    ("SallocDefaultCommand", K::Str),
    ("SbcastParameters", K::Str),
    ("SchedulerParameters", K::Str),
    ("SchedulerTimeSlice", K::U16),
    ("SchedulerType", K::Str),
    ("ScronParameters", K::Str),
    ("SelectType", K::Str),
    ("SelectTypeParameters", K::Str),
    ("SlurmctldAddr", K::Str),
    ("SlurmctldDebug", K::Str),
    ("SlurmctldLogFile", K::Str),
    ("SlurmctldParameters", K::Str),
    ("SlurmctldPidFile", K::Str),
    ("SlurmctldPort", K::Str),
    ("SlurmctldPrimaryOffProg", K::Str),
    ("SlurmctldPrimaryOnProg", K::Str),
    ("SlurmctldSyslogDebug", K::Str),
    ("SlurmctldTimeout", K::U16),
    ("SlurmdDebug", K::Str),
    ("SlurmdLogFile", K::Str),
    ("SlurmdParameters", K::Str),
    ("SlurmdPidFile", K::Str),
    ("SlurmdPort", K::U32),
    ("SlurmdSpoolDir", K::Str),
    ("SlurmdSyslogDebug", K::Str),
    ("SlurmdTimeout", K::U16),
    ("SlurmdUser", K::Str),
    ("SlurmSchedLogFile", K::Str),
    ("SlurmSchedLogLevel", K::U16),
    ("SlurmUser", K::Str),
    ("SrunEpilog", K::Str),
    ("SrunPortRange", K::Str),
    ("SrunProlog", K::Str),
    ("StateSaveLocation", K::Str),
    ("SuspendExcNodes", K::Str),
    ("SuspendExcParts", K::Str),
    ("SuspendExcStates", K::Str),
    ("SuspendProgram", K::Str),
    ("SuspendRate", K::U16),
    ("SuspendTime", K::Str),
    ("SuspendTimeout", K::U16),
    ("SwitchParameters", K::Str),
    ("SwitchType", K::Str),
    ("TaskEpilog", K::Str),
    ("TaskPlugin", K::Str),
    ("TaskPluginParam", K::Str),
    ("TaskProlog", K::Str),
    ("TCPTimeout", K::U16),
    ("TLSParameters", K::Str),
    ("TLSType", K::Str),
    ("TmpFS", K::Str),
    ("TopologyParam", K::Str),
    ("TopologyPlugin", K::Str),
    ("TrackWCKey", K::Bool),
    ("TreeWidth", K::U16),
    ("UnkillableStepProgram", K::Str),
    ("UnkillableStepTimeout", K::U16),
    ("UsePAM", K::Bool),
    ("VSizeFactor", K::U16),
    ("WaitTime", K::U16),
    ("X11Parameters", K::Str),
];

/// Keys of a `NodeName=` line.
static NODE_KEYS: &[(&str, K)] = &[
    ("BcastAddr", K::Str),
    ("Boards", K::U16),
    ("CoreSpecCount", K::U16),
    ("CoresPerSocket", K::U16),
    ("CPUs", K::U16),
    ("CPUSpecList", K::Str),
    ("CpuBind", K::Str),
    ("Feature", K::Str),
    ("Features", K::Str),
    ("Gres", K::Str),
    ("MemSpecLimit", K::U64),
    ("NodeAddr", K::Str),
    ("NodeHostname", K::Str),
    ("Port", K::Str),
    ("Procs", K::U16),
    ("RealMemory", K::U64),
    ("Reason", K::Str),
    ("RestrictedCoresPerGPU", K::U16),
    ("Sockets", K::U16),
    ("SocketsPerBoard", K::U16),
    ("State", K::Str),
    ("ThreadsPerCore", K::U16),
    ("TmpDisk", K::U32),
    ("TRESWeights", K::Str),
    ("Weight", K::U32),
];

/// Keys of a `PartitionName=` line.
static PART_KEYS: &[(&str, K)] = &[
    ("AllocNodes", K::Str),
    ("AllowAccounts", K::Str),
    ("AllowGroups", K::Str),
    ("AllowQos", K::Str),
    ("Alternate", K::Str),
    ("CpuBind", K::Str),
    ("DefCPUPerGPU", K::U64),
    ("DefMemPerCPU", K::U64),
    ("DefMemPerGPU", K::U64),
    ("DefMemPerNode", K::U64),
    ("Default", K::Bool),
    ("DefaultTime", K::Str),
    ("DenyAccounts", K::Str),
    ("DenyQos", K::Str),
    ("DisableRootJobs", K::Bool),
    ("ExclusiveUser", K::Bool),
    ("ExclusiveTopo", K::Bool),
    ("GraceTime", K::U32),
    ("Hidden", K::Bool),
    ("LLN", K::Bool),
    ("MaxCPUsPerNode", K::U32),
    ("MaxCPUsPerSocket", K::U32),
    ("MaxMemPerCPU", K::U64),
    ("MaxMemPerNode", K::U64),
    ("MaxTime", K::Str),
    ("MaxNodes", K::U32),
    ("MinNodes", K::U32),
    ("Nodes", K::Str),
    ("OverSubscribe", K::Str),
    ("OverTimeLimit", K::Str),
    ("PowerDownOnIdle", K::Bool),
    ("PreemptMode", K::Str),
    ("Priority", K::U16),
    ("PriorityJobFactor", K::U16),
    ("PriorityTier", K::U16),
    ("QOS", K::Str),
    ("RootOnly", K::Bool),
    ("ReqResv", K::Bool),
    ("ResumeTimeout", K::U16),
    ("SelectTypeParameters", K::Str),
    ("Shared", K::Str),
    ("State", K::Str),
    ("SuspendTime", K::Str),
    ("SuspendTimeout", K::U16),
    ("TRESBillingWeights", K::Str),
];

static DOWNNODES_KEYS: &[(&str, K)] = &[("Reason", K::Str), ("State", K::Str)];
static NODESET_KEYS: &[(&str, K)] = &[("Feature", K::Str), ("Nodes", K::Str)];
static FRONTEND_KEYS: &[(&str, K)] = &[
    ("AllowGroups", K::Str),
    ("AllowUsers", K::Str),
    ("DenyGroups", K::Str),
    ("DenyUsers", K::Str),
    ("FrontendAddr", K::Str),
    ("Port", K::U16),
    ("Reason", K::Str),
    ("State", K::Str),
];

/// Node state words Slurm's `state_str2int` accepts in slurm.conf.
static NODE_STATES: &[&str] = &[
    "UNKNOWN",
    "DOWN",
    "IDLE",
    "ALLOCATED",
    "ALLOC",
    "ERROR",
    "MIXED",
    "FUTURE",
    "DRAIN",
    "DRAINED",
    "DRAINING",
    "FAIL",
    "FAILING",
    "CLOUD",
    "POWER_DOWN",
    "POWERED_DOWN",
    "POWERING_DOWN",
    "POWER_UP",
    "POWERING_UP",
    "RESUME",
    "UNDRAIN",
    "NO_RESPOND",
    "COMPLETING",
    "MAINT",
    "REBOOT",
    "REBOOT_ISSUED",
    "RESERVED",
    "PLANNED",
    "DYNAMIC_FUTURE",
    "DYNAMIC_NORM",
    "INVALID_REG",
    "BLOCKED",
    "EXTERNAL",
];

/// A slurm.conf that Slurm would refuse.
///
/// `message` is Slurm's own `error:`/`fatal:` text, e.g.
/// `_parse_next_key: Parsing error at unrecognized key: FooBar`;
/// `parse_error` is the extra line Slurm prints for line-handler keys
/// (`Parse error in file /etc/slurm/slurm.conf line 5: " CPUs=70000"`).
/// Display: `FILE:LINE: MESSAGE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfError {
    pub path: PathBuf,
    /// 1-based line; for whole-file checks, the line of the definition at fault.
    pub line: Option<usize>,
    pub message: String,
    pub parse_error: Option<String>,
}

impl fmt::Display for ConfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.path.display(), l, self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}
impl std::error::Error for ConfError {}

impl ConfError {
    /// What a program prints when it cannot load slurm.conf, in Slurm's
    /// words (`PROG: error: ...` lines, then `PROG: fatal: ...`). Where Slurm
    /// itself names no line, a `Parse error in file F line N` line is added so
    /// the admin always learns the file and line.
    pub fn report(&self, prog: &str) -> String {
        let mut out = format!("{}: error: {}\n", prog, self.message);
        let fatal = match &self.parse_error {
            Some(p) if p.starts_with("Parse error") => {
                out.push_str(&format!("{}: error: {}\n", prog, p));
                "Unable to process configuration file".to_string()
            }
            Some(p) => {
                if let Some(l) = self.line {
                    out.push_str(&format!("{}: error: Parse error in file {} line {}\n", prog, self.path.display(), l));
                }
                p.clone()
            }
            None => {
                if let Some(l) = self.line {
                    out.push_str(&format!("{}: error: Parse error in file {} line {}\n", prog, self.path.display(), l));
                }
                "Unable to process configuration file".to_string()
            }
        };
        out.push_str(&format!("{}: fatal: {}\n", prog, fatal));
        out
    }
}

/// One `SlurmctldHost=name(addr)` entry (addr = name when not given).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControllerHost {
    pub name: String,
    pub addr: String,
}

/// One node of the cluster (NodeName lines are expanded, one per node).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeConf {
    pub name: String,
    pub addr: String,
    pub hostname: String,
    /// `Port=` for this node; None = the cluster's SlurmdPort.
    pub port: Option<u16>,
    pub cpus: u16,
    pub boards: u16,
    pub sockets: u16,
    pub cores_per_socket: u16,
    pub threads_per_core: u16,
    /// MB; Slurm's default is 1.
    pub real_memory: u64,
    pub gres: Vec<GresSpec>,
    pub features: Vec<String>,
    /// As written (`UNKNOWN` when absent), upper-cased.
    pub state: String,
    pub weight: u32,
    pub tmp_disk: u32,
    /// The NodeName expression this node came from, and its line.
    pub nodes_expr: String,
    pub line: usize,
    /// Other keys of the line (and defaults) as written: BcastAddr, CoreSpecCount, ...
    pub other: Vec<(String, String)>,
}

/// One partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionConf {
    pub name: String,
    /// Expanded, in the order of `Nodes=` (all nodes in conf order for ALL).
    pub nodes: Vec<String>,
    /// `Nodes=` as written (spaces turned to commas, as Slurm does).
    pub nodes_expr: String,
    pub default: bool,
    /// Minutes; None = UNLIMITED (the default).
    pub max_time: Option<u32>,
    /// Minutes; None = not set (scontrol `DefaultTime=NONE`), `Some(INFINITE)` = UNLIMITED.
    pub default_time: Option<u32>,
    /// None = UNLIMITED (the default).
    pub max_nodes: Option<u32>,
    pub min_nodes: u32,
    /// UP, DOWN, DRAIN or INACTIVE.
    pub state: String,
    /// As written, upper-cased (`NO` by default): NO, EXCLUSIVE, YES[:n], FORCE[:n].
    pub oversubscribe: String,
    pub priority_tier: u16,
    pub priority_job_factor: u16,
    /// None = ALL.
    pub allow_groups: Option<Vec<String>>,
    /// None = ALL; lower-cased as Slurm does.
    pub allow_accounts: Option<Vec<String>>,
    pub hidden: bool,
    pub line: usize,
    /// Other keys as written (with defaults from PartitionName=DEFAULT).
    pub other: Vec<(String, String)>,
}

/// What `PrivateData=` hides from users who are not operators. Spur acts
/// on `jobs` and `reservations` (SECURITY.md); the others are read so that
/// `scontrol show config` and a later use see them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PrivateData {
    pub jobs: bool,
    pub nodes: bool,
    pub partitions: bool,
    pub reservations: bool,
    pub accounts: bool,
    pub events: bool,
    pub usage: bool,
    pub users: bool,
}

/// A parsed slurm.conf.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlurmConf {
    pub path: PathBuf,
    pub cluster_name: String,
    pub controllers: Vec<ControllerHost>,
    /// First port; `slurmctld_port_count` > 1 for a range `6817-6820`.
    pub slurmctld_port: u16,
    pub slurmctld_port_count: u16,
    pub slurmd_port: u16,
    pub state_save_location: String,
    pub slurmd_spool_dir: String,
    pub first_job_id: u32,
    pub max_job_id: u32,
    pub max_job_count: u32,
    /// Seconds.
    pub slurmd_timeout: u16,
    /// Seconds.
    pub kill_wait: u16,
    pub gres_types: Vec<String>,
    pub slurm_user: String,
    pub auth_info: Option<String>,
    /// MB.
    pub def_mem_per_cpu: Option<u64>,
    pub def_mem_per_node: Option<u64>,
    pub nodes: Vec<NodeConf>,
    pub partitions: Vec<PartitionConf>,
    /// NodeSet name -> expanded nodes.
    pub nodesets: Vec<(String, Vec<String>)>,
    /// Every top-level key/value as written, in file order (includes
    /// NodeName/PartitionName lines' first pair), for `scontrol show config`.
    pub all: Vec<(String, String)>,
    /// Non-fatal notices Slurm would log (defunct options, ignored values).
    pub warnings: Vec<String>,
}

impl SlurmConf {
    /// The keys of this file Spur keeps but does not act on
    /// ([`INERT_KEYS`]), as Slurm spells them, once each in file order.
    pub fn inert_keys(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = vec![];
        for (k, _) in &self.all {
            if let Some(i) = INERT_KEYS.iter().find(|i| i.eq_ignore_ascii_case(k)) {
                if !out.contains(i) {
                    out.push(i);
                }
            }
        }
        out
    }

    /// Last value of a top-level key (case-insensitive).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.all.iter().rev().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v.as_str())
    }

    /// `MaxArraySize` (1001 when absent).
    pub fn max_array_size(&self) -> u32 {
        self.get("MaxArraySize")
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(spur_grammar::array::DEFAULT_MAX_ARRAY_SIZE)
    }

    /// `SchedulerParameters=max_array_tasks=N`, read as slurmctld does
    /// (the first `max_array_tasks=` anywhere in the value, any case, then atoi).
    pub fn max_array_tasks(&self) -> Option<u32> {
        scheduler_param(self.get("SchedulerParameters")?, "max_array_tasks").map(|n| n as u32)
    }

    /// `SchedulerParameters=max_script_size=N`: the longest batch script
    /// slurmctld accepts, in bytes (job_mgr.c `_test_job_desc_fields`: the
    /// first `max_script_size=` anywhere in the value, any case, then atoi;
    /// 4 MiB, `DEFAULT_BATCH_SCRIPT_LIMIT`, without one).
    pub fn max_script_size(&self) -> i64 {
        const DEFAULT_BATCH_SCRIPT_LIMIT: i64 = 4 * 1024 * 1024;
        self.get("SchedulerParameters")
            .and_then(|p| scheduler_param(p, "max_script_size"))
            .unwrap_or(DEFAULT_BATCH_SCRIPT_LIMIT)
    }

    /// `PrivateData=`, read as slurmctld reads it (read_config.c: each
    /// word found anywhere in the value, any case; `all` sets them all).
    pub fn private_data(&self) -> PrivateData {
        let Some(v) = self.get("PrivateData") else { return PrivateData::default() };
        let v = v.to_ascii_lowercase();
        let all = v.contains("all");
        let has = |w: &str| all || v.contains(w);
        PrivateData {
            jobs: has("job"),
            nodes: has("node"),
            partitions: has("partition"),
            reservations: has("reservation"),
            accounts: has("account"),
            events: has("event"),
            usage: has("usage"),
            users: has("user"),
        }
    }

    /// `MinJobAge`: seconds a finished job stays in the controller's records
    /// (squeue, scontrol show job) before it is purged; 300 by default, and
    /// `None` (never purged) for 0, as slurmctld.
    pub fn min_job_age(&self) -> Option<u32> {
        match self.get("MinJobAge").and_then(|v| v.trim().parse::<u32>().ok()).unwrap_or(300) {
            0 => None,
            n => Some(n),
        }
    }

    /// Whether `PrologFlags` (a comma list, any case) names `flag`.
    fn prolog_flag(&self, flag: &str) -> bool {
        self.get("PrologFlags").is_some_and(|v| v.split(',').any(|f| f.trim().eq_ignore_ascii_case(flag)))
    }

    /// `PrologFlags=Contain` (or `X11`, which needs it): every job gets an
    /// `extern` step on each of its nodes.
    pub fn prolog_contain(&self) -> bool {
        self.prolog_flag("contain") || self.prolog_flag("x11")
    }

    /// `PrologFlags=Alloc` (implied by `Contain`): nodes are made ready when
    /// a job is allocated, and salloc says when they are (`Nodes ... are
    /// ready for job`).
    pub fn prolog_alloc(&self) -> bool {
        self.prolog_flag("alloc") || self.prolog_contain()
    }

    /// Accounting is kept for sacct: `AccountingStorageType` names a plugin
    /// other than `accounting_storage/none` (the default).
    pub fn accounting_enabled(&self) -> bool {
        self.get("AccountingStorageType")
            .is_some_and(|t| !t.trim().is_empty() && !t.trim().eq_ignore_ascii_case("accounting_storage/none"))
    }

    /// `JobAcctGatherParams=OverMemoryKill`: the seconds between the
    /// memory checks of a running step (the task value of
    /// `JobAcctGatherFrequency`, `task=N` or a bare `N`; 30 by default, as
    /// Slurm's), or 0 when memory is not enforced (no OverMemoryKill, or a
    /// frequency of 0, which turns the sampling off).
    pub fn mem_check_secs(&self) -> u32 {
        let kill = self
            .get("JobAcctGatherParams")
            .is_some_and(|v| v.split(',').any(|p| p.trim().eq_ignore_ascii_case("OverMemoryKill")));
        if !kill {
            return 0;
        }
        self.task_sample_secs()
    }

    /// The task value of `JobAcctGatherFrequency` (`task=N` or a bare `N`;
    /// 30 by default).
    fn task_sample_secs(&self) -> u32 {
        let freq = self.get("JobAcctGatherFrequency").unwrap_or("30");
        freq.split(',')
            .find_map(|p| {
                let p = p.trim();
                match p.split_once('=') {
                    Some((k, v)) if k.trim().eq_ignore_ascii_case("task") => v.trim().parse().ok(),
                    Some(_) => None,
                    None => p.parse().ok(),
                }
            })
            .unwrap_or(30)
    }

    /// The seconds between samples of a running step's tasks (sstat's and
    /// sacct's MaxRSS and the rest), as `jobacct_gather` takes them: the
    /// task value of `JobAcctGatherFrequency`, 30 by default; 0 (no
    /// periodic samples, only the tasks' final use) for a frequency of 0 or
    /// `JobAcctGatherType=jobacct_gather/none`.
    pub fn acct_gather_secs(&self) -> u32 {
        if self.get("JobAcctGatherType").is_some_and(|t| t.trim() == "jobacct_gather/none") {
            return 0;
        }
        self.task_sample_secs()
    }

    /// `LaunchParameters=use_interactive_step`: salloc without a command runs
    /// the user's shell as the job's `interactive` step (`srun
    /// InteractiveStepOptions`) on its first node.
    pub fn use_interactive_step(&self) -> bool {
        self.get("LaunchParameters").is_some_and(|v| v.contains("use_interactive_step"))
    }

    /// `InteractiveStepOptions`, Slurm's default when unset.
    pub fn interactive_step_options(&self) -> String {
        self.get("InteractiveStepOptions")
            .map(String::from)
            .unwrap_or_else(|| "--interactive --preserve-env --pty $SHELL".into())
    }

    /// `SchedulerParameters=enable_user_top`: users may `scontrol top`
    /// their own jobs (job_mgr.c job_set_top: anywhere in the value, any case).
    pub fn enable_user_top(&self) -> bool {
        self.get("SchedulerParameters").is_some_and(|p| p.to_ascii_lowercase().contains("enable_user_top"))
    }

    /// `SlurmctldParameters=user_resv_delete`: a user a reservation admits
    /// may delete it (reservation.c validate_resv_uid; else only with its
    /// `USER_DELETE` flag).
    pub fn user_resv_delete(&self) -> bool {
        self.get("SlurmctldParameters").is_some_and(|p| p.to_ascii_lowercase().contains("user_resv_delete"))
    }

    /// Node by name.
    pub fn node(&self, name: &str) -> Option<&NodeConf> {
        self.nodes.iter().find(|n| n.name == name)
    }

    /// Partition by name.
    pub fn partition(&self, name: &str) -> Option<&PartitionConf> {
        self.partitions.iter().find(|p| p.name == name)
    }

    /// The default partition (the last one marked `Default=YES`, as Slurm).
    pub fn default_partition(&self) -> Option<&PartitionConf> {
        self.partitions.iter().rev().find(|p| p.default)
    }

    /// SlurmdSpoolDir for a node (`%n` = node name, `%h` = its hostname).
    pub fn spool_dir_for(&self, node: &str) -> String {
        let host = self.node(node).map(|n| n.hostname.as_str()).unwrap_or(node);
        expand_node_pattern(&self.slurmd_spool_dir, node, host)
    }
}

/// Substitute `%n` (node name) and `%h` (hostname) as slurmd does for
/// SlurmdSpoolDir, SlurmdLogFile and SlurmdPidFile (`%%` = `%`).
pub fn expand_node_pattern(pattern: &str, node: &str, host: &str) -> String {
    let mut out = String::new();
    let mut it = pattern.chars().peekable();
    while let Some(c) = it.next() {
        if c == '%' {
            match it.peek() {
                Some('n') => {
                    out.push_str(node);
                    it.next();
                }
                Some('h') => {
                    out.push_str(host);
                    it.next();
                }
                Some('%') => {
                    out.push('%');
                    it.next();
                }
                _ => out.push('%'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Logical lines of a Slurm config file as `(first line number, text)`:
/// comments stripped, continuations joined, escapes removed. Each line keeps
/// its trailing newline, as Slurm's buffer does. Empty results are dropped.
pub fn logical_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut phys = text.split_inclusive('\n');
    let mut lineno = 1;
    loop {
        let mut buf = String::new();
        let start = lineno;
        let mut any = false;
        for raw in phys.by_ref() {
            any = true;
            lineno += 1;
            let mut seg = strip_comment(raw).to_string();
            match strip_continuation(&seg) {
                Some(cut) => {
                    seg.truncate(cut);
                    buf.push_str(&seg);
                }
                None => {
                    buf.push_str(&seg);
                    break;
                }
            }
        }
        if !any {
            break;
        }
        let line = strip_escapes(&buf);
        if !line.is_empty() {
            out.push((start, line));
        }
    }
    out
}

fn strip_comment(s: &str) -> &str {
    let mut bs = 0;
    for (i, c) in s.char_indices() {
        if c == '#' && bs % 2 == 0 {
            return &s[..i];
        } else if c == '\\' {
            bs += 1;
        } else {
            bs = 0;
        }
    }
    s
}

/// Byte length to keep when the segment ends with an odd run of `\`.
fn strip_continuation(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut bs = 0;
    let mut i = b.len();
    while i > 0 {
        let c = b[i - 1];
        if c == b'\\' {
            bs += 1;
        } else if c.is_ascii_whitespace() && bs == 0 {
        } else {
            break;
        }
        i -= 1;
    }
    if bs % 2 == 1 {
        Some(i + bs - 1)
    } else {
        None
    }
}

fn strip_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            if let Some(n) = it.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn is_space(c: u8) -> bool {
    c == b' ' || (9..=13).contains(&c)
}

/// Slurm's key/value regex at the start of `s`:
/// `^\s*([[:alnum:]_.]+)\s*([-*+/]?)=\s*("([^"]*)"|\S+)(\s|$)`.
/// Returns (key, value, rest) where rest starts right after the value.
fn next_kv(s: &str) -> Option<(String, String, &str)> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && is_space(b[i]) {
        i += 1;
    }
    let ks = i;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
        i += 1;
    }
    if i == ks {
        return None;
    }
    let key = &s[ks..i];
    while i < b.len() && is_space(b[i]) {
        i += 1;
    }
    if i < b.len() && b"-*+/".contains(&b[i]) {
        i += 1;
    }
    if i >= b.len() || b[i] != b'=' {
        return None;
    }
    i += 1;
    while i < b.len() && is_space(b[i]) {
        i += 1;
    }
    // quoted alternative first (POSIX leftmost-longest; a quoted value
    // followed by a non-space falls back to the unquoted form).
    if i < b.len() && b[i] == b'"' {
        if let Some(q) = s[i + 1..].find('"') {
            let end = i + 1 + q + 1;
            if end == b.len() || is_space(b[end]) {
                return Some((key.to_string(), s[i + 1..end - 1].to_string(), &s[end..]));
            }
        }
    }
    let vs = i;
    while i < b.len() && !is_space(b[i]) {
        i += 1;
    }
    if i == vs {
        return None;
    }
    Some((key.to_string(), s[vs..i].to_string(), &s[i..]))
}

/// Split a line into all leading `Key=Value` pairs and the unparsed rest.
pub fn split_kv(line: &str) -> (Vec<(String, String)>, &str) {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some((k, v, r)) = next_kv(rest) {
        out.push((k, v));
        rest = r;
    }
    (out, rest)
}

fn lookup(table: &[(&'static str, K)], key: &str) -> Option<(&'static str, K)> {
    table.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)).copied()
}

/// strtoul(base 0) as Slurm's handlers use it: Some(value) or None if not a number.
fn c_strtoul(s: &str) -> Option<(bool, u128, usize)> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && is_space(b[i]) {
        i += 1;
    }
    let mut neg = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        neg = b[i] == b'-';
        i += 1;
    }
    let (radix, mut j) = if b.len() > i + 1
        && b[i] == b'0'
        && (b[i + 1] == b'x' || b[i + 1] == b'X')
        && b.get(i + 2).is_some_and(|c| c.is_ascii_hexdigit())
    {
        (16, i + 2)
    } else if i < b.len() && b[i] == b'0' {
        (8, i)
    } else {
        (10, i)
    };
    let ds = j;
    let mut v: u128 = 0;
    while j < b.len() && (b[j] as char).is_digit(radix) {
        v = v.saturating_mul(radix as u128).saturating_add((b[j] as char).to_digit(radix).unwrap_or(0) as u128);
        j += 1;
    }
    if j == ds {
        return None;
    }
    Some((neg, v, j))
}

/// Check a typed value the way Slurm's `s_p_handle_*` do; Err = Slurm's message.
fn check_typed(key: &str, kind: K, value: &str) -> Result<(), String> {
    let unlimited = value.eq_ignore_ascii_case("UNLIMITED") || value.eq_ignore_ascii_case("INFINITE");
    let (max, maxs, quote) = match kind {
        K::U16 => (0xffffu128, "65535", true),
        K::U32 => (0xffff_ffff, "4294967295", false),
        K::U64 => (u64::MAX as u128, "4294967295", false),
        K::Bool => {
            let v = value.to_ascii_lowercase();
            return if ["yes", "up", "true", "1", "no", "down", "false", "0"].contains(&v.as_str()) {
                Ok(())
            } else {
                Err(format!("\"{}\" is not a valid option for \"{}\"", value, key))
            };
        }
        _ => return Ok(()),
    };
    let not_num = || {
        if quote {
            format!("{} value \"{}\" is not a valid number", key, value)
        } else {
            format!("{} value ({}) is not a valid number", key, value)
        }
    };
    let parsed = c_strtoul(value);
    let (neg, mut v, end) = match parsed {
        Some(p) => p,
        None => return if unlimited { Ok(()) } else { Err(not_num()) },
    };
    let mut end = end;
    if kind != K::U16 {
        if let Some(c) = value.as_bytes().get(end) {
            if *c == b'k' || *c == b'K' {
                v = v.saturating_mul(1024);
                end += 1;
            }
        }
    }
    if end != value.len() {
        return if unlimited { Ok(()) } else { Err(not_num()) };
    }
    if v > u64::MAX as u128 {
        return Err(format!("{} value ({}) is out of range", key, value));
    }
    if neg && v != 0 {
        return Err(format!("{} value ({}) is less than zero", key, value));
    }
    if value.trim_start().starts_with('-') {
        return Err(format!("{} value ({}) is less than zero", key, value));
    }
    if v > max {
        return Err(format!("{} value ({}) is greater than {}", key, value, maxs));
    }
    Ok(())
}

/// Numeric value of an already checked typed field (INFINITE for UNLIMITED).
fn num_of(value: &str, kind: K) -> u64 {
    let inf = match kind {
        K::U16 => 0xffff,
        K::U32 => 0xffff_ffff,
        _ => u64::MAX,
    };
    match c_strtoul(value) {
        Some((_, v, end)) => {
            let mut v = v.min(u64::MAX as u128) as u64;
            if end < value.len() {
                if value.len() == end + 1 && matches!(value.as_bytes()[end], b'k' | b'K') {
                    v = v.saturating_mul(1024);
                } else {
                    return inf;
                }
            }
            v
        }
        None => inf,
    }
}

fn bool_of(value: &str) -> bool {
    matches!(value.to_ascii_lowercase().as_str(), "yes" | "up" | "true" | "1")
}

/// Values of one handler line (`NodeName=...` etc.): canonical key -> value,
/// later duplicates replacing earlier ones.
#[derive(Clone, Debug, Default)]
struct Tbl(Vec<(&'static str, String)>);

impl Tbl {
    fn set(&mut self, k: &'static str, v: String) {
        if let Some(e) = self.0.iter_mut().find(|(kk, _)| *kk == k) {
            e.1 = v;
        } else {
            self.0.push((k, v));
        }
    }
    fn get(&self, k: &str) -> Option<&str> {
        self.0.iter().find(|(kk, _)| *kk == k).map(|(_, v)| v.as_str())
    }
    fn merge_defaults(&mut self, dflt: &Tbl) {
        for (k, v) in &dflt.0 {
            if self.get(k).is_none() {
                self.0.push((k, v.clone()));
            }
        }
    }
}

struct NodeLine {
    names: String,
    tbl: Tbl,
    line: usize,
    file: PathBuf,
}
struct PartLine {
    name: String,
    tbl: Tbl,
    line: usize,
    file: PathBuf,
}

#[derive(Default)]
struct Parser {
    all: Vec<(String, String)>,
    top: Vec<(&'static str, String, usize, PathBuf)>,
    controllers: Vec<(ControllerHost, usize, PathBuf)>,
    node_lines: Vec<NodeLine>,
    part_lines: Vec<PartLine>,
    nodesets: Vec<(String, Tbl, usize, PathBuf)>,
    node_default: Tbl,
    part_default: Tbl,
    warnings: Vec<String>,
    depth: usize,
}

fn cerr(path: &Path, line: usize, msg: impl Into<String>) -> ConfError {
    ConfError { path: path.to_path_buf(), line: Some(line), message: msg.into(), parse_error: None }
}

fn parse_error_line(path: &Path, line: usize, rest: &str) -> String {
    format!("Parse error in file {} line {}: \"{}\"", path.display(), line, rest.trim_end_matches(['\r', '\n']))
}

impl Parser {
    /// Parse the pairs of a handler line against `table`; on failure Slurm
    /// prints the key's error then `Parse error in file ...`.
    fn parse_sub(
        &mut self,
        table: &[(&'static str, K)],
        rest: &str,
        path: &Path,
        line: usize,
    ) -> Result<Tbl, ConfError> {
        let mut tbl = Tbl::default();
        let mut r = rest;
        while let Some((k, v, nr)) = next_kv(r) {
            let fail = |msg: String| {
                let mut e = cerr(path, line, msg);
                e.parse_error = Some(parse_error_line(path, line, r));
                e
            };
            let (canon, kind) = match lookup(table, &k) {
                Some(x) => x,
                None => return Err(fail(format!("Parsing error at unrecognized key: {}", k))),
            };
            check_typed(canon, kind, &v).map_err(fail)?;
            tbl.set(canon, v);
            r = nr;
        }
        if !r.bytes().all(is_space) {
            let mut e = cerr(path, line, parse_error_line(path, line, r));
            e.parse_error = Some(e.message.clone());
            return Err(e);
        }
        Ok(tbl)
    }

    fn parse_text(&mut self, text: &str, path: &Path, conf_dir: &Path) -> Result<(), ConfError> {
        for (line, l) in logical_lines(text) {
            // Include directive
            if l.len() > 7 && l.as_bytes()[..7].eq_ignore_ascii_case(b"include") && is_space(l.as_bytes()[7]) {
                let after = l[7..].trim_start_matches(|c: char| c.is_ascii_whitespace());
                let fname_end = after.find(|c: char| c.is_ascii_whitespace()).unwrap_or(after.len());
                let fname = &after[..fname_end];
                let rest = &after[fname_end..];
                self.include(fname, path, conf_dir, line)?;
                if !rest.bytes().all(is_space) {
                    return Err(cerr(path, line, parse_error_line(path, line, rest)));
                }
                continue;
            }
            let (key, value, rest) = match next_kv(&l) {
                Some(x) => x,
                None => {
                    if l.bytes().all(is_space) {
                        continue;
                    }
                    return Err(cerr(path, line, parse_error_line(path, line, &l)));
                }
            };
            let kl = key.to_ascii_lowercase();
            let rest = match kl.as_str() {
                "nodename" => {
                    let tbl = self.parse_sub(NODE_KEYS, rest, path, line)?;
                    self.all.push((key.clone(), value.clone()));
                    self.node_line(&value, tbl, path, line)?;
                    ""
                }
                "partitionname" => {
                    let tbl = self.parse_sub(PART_KEYS, rest, path, line)?;
                    self.all.push((key.clone(), value.clone()));
                    if value.eq_ignore_ascii_case("DEFAULT") {
                        let mut t = tbl;
                        t.merge_defaults(&self.part_default);
                        self.part_default = t;
                    } else {
                        self.part_lines.push(PartLine { name: value.clone(), tbl, line, file: path.into() });
                    }
                    ""
                }
                "slurmctldhost" => {
                    self.parse_sub(&[], rest, path, line)?;
                    let open = value.find('(');
                    let close = value.find(')');
                    let bad = (open.is_some() != close.is_some())
                        || close.is_some_and(|c| c + 1 != value.len() || value.rfind(')') != Some(c));
                    if bad {
                        return Err(cerr(path, line, format!("Bad value \"{}\" for SlurmctldHost", value)));
                    }
                    let ch = match (open, close) {
                        (Some(o), Some(c)) if o < c => {
                            ControllerHost { name: value[..o].to_string(), addr: value[o + 1..c].to_string() }
                        }
                        (Some(o), Some(_)) => ControllerHost { name: value[..o].to_string(), addr: String::new() },
                        _ => ControllerHost { name: value.clone(), addr: value.clone() },
                    };
                    self.all.push((key.clone(), value.clone()));
                    self.controllers.push((ch, line, path.into()));
                    ""
                }
                "downnodes" => {
                    self.parse_sub(DOWNNODES_KEYS, rest, path, line)?;
                    self.all.push((key.clone(), value.clone()));
                    ""
                }
                "nodeset" => {
                    let tbl = self.parse_sub(NODESET_KEYS, rest, path, line)?;
                    self.all.push((key.clone(), value.clone()));
                    self.nodesets.push((value.clone(), tbl, line, path.into()));
                    ""
                }
                "frontendname" => {
                    self.parse_sub(FRONTEND_KEYS, rest, path, line)?;
                    return Err(cerr(
                        path,
                        line,
                        "Use of FrontendName in slurm.conf without Slurm being configured/built with the --enable-front-end option",
                    ));
                }
                _ => {
                    let (canon, kind) = match lookup(TOP_KEYS, &key) {
                        Some(x) => x,
                        None => {
                            return Err(cerr(
                                path,
                                line,
                                format!("_parse_next_key: Parsing error at unrecognized key: {}", key),
                            ))
                        }
                    };
                    if kind == K::Defunct {
                        self.warnings
                            .push(format!("The option \"{}\" is defunct, please remove it from slurm.conf.", canon));
                    } else {
                        check_typed(canon, kind, &value).map_err(|m| cerr(path, line, m))?;
                    }
                    self.all.push((key.clone(), value.clone()));
                    self.top.push((canon, value.clone(), line, path.into()));
                    rest
                }
            };
            if !rest.bytes().all(is_space) {
                return Err(cerr(path, line, parse_error_line(path, line, rest)));
            }
        }
        Ok(())
    }

    fn include(&mut self, fname: &str, path: &Path, conf_dir: &Path, line: usize) -> Result<(), ConfError> {
        let mut name = fname.to_string();
        if name.contains("%c") {
            match self.top.iter().rev().find(|t| t.0 == "ClusterName") {
                Some(c) => name = name.replace("%c", &c.1.to_lowercase()),
                None => return Err(cerr(path, line, "_parse_for_format: Did not get ClusterName for include path")),
            }
        }
        let full = if Path::new(&name).is_absolute() { PathBuf::from(&name) } else { conf_dir.join(&name) };
        if name.contains('*') {
            let anc = path.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
            let mut e = cerr(path, line, format!(
                "Slurm does not support glob parsing. {} from {} will be skipped over. If this expected, ignore this message and set DebugFlags=GLOB_SILENCE in your slurm.conf.",
                full.display(), anc));
            e.parse_error = Some(format!("\"Include\" failed in file {} line {}", path.display(), line));
            return Err(e);
        }
        if self.depth > 16 {
            return Err(cerr(path, line, format!("\"Include\" failed in file {} line {}", path.display(), line)));
        }
        let text = match std::fs::read(&full) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) => {
                let mut ce =
                    cerr(path, line, format!("s_p_parse_file: cannot stat file {}: {}", full.display(), io_msg(&e)));
                ce.parse_error = Some(format!("\"Include\" failed in file {} line {}", path.display(), line));
                return Err(ce);
            }
        };
        self.depth += 1;
        let r = self.parse_text(&text, &full, conf_dir);
        self.depth -= 1;
        r
    }

    fn node_line(&mut self, value: &str, tbl: Tbl, path: &Path, line: usize) -> Result<(), ConfError> {
        if value.eq_ignore_ascii_case("DEFAULT") {
            for k in ["NodeHostname", "BcastAddr", "NodeAddr"] {
                if tbl.get(k).is_some() {
                    return Err(cerr(path, line, format!("{} not allowed with NodeName=DEFAULT", k)));
                }
            }
            let mut t = tbl;
            t.merge_defaults(&self.node_default);
            self.node_default = t;
            return Ok(());
        }
        if value.eq_ignore_ascii_case("ALL") {
            return Err(cerr(path, line, format!("'{}' is a reserved word disallowed for use with NodeName", value)));
        }
        let mut t = tbl;
        // Feature/Features from the line win over either from the defaults.
        if t.get("Feature").is_some() || t.get("Features").is_some() {
            let mut d = self.node_default.clone();
            d.0.retain(|(k, _)| *k != "Feature" && *k != "Features");
            t.merge_defaults(&d);
        } else {
            t.merge_defaults(&self.node_default);
        }
        self.node_lines.push(NodeLine { names: value.to_string(), tbl: t, line, file: path.into() });
        Ok(())
    }
}

fn io_msg(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".into(),
        _ => e.to_string(),
    }
}

fn split_list(s: &str) -> Vec<String> {
    s.split(',').filter(|x| !x.is_empty()).map(|x| x.to_string()).collect()
}

fn build_nodes(nl: &NodeLine, slurmd_port: u16) -> Result<Vec<NodeConf>, ConfError> {
    let t = &nl.tbl;
    let f = |m: String| cerr(&nl.file, nl.line, m);
    let u16v = |k: &str| t.get(k).map(|v| num_of(v, K::U16) as u16);
    let names = &nl.names;
    let hostnames = t.get("NodeHostname").unwrap_or(names).to_string();
    let addrs = t.get("NodeAddr").map(|s| s.to_string()).unwrap_or_else(|| hostnames.clone());
    if names.is_empty() {
        return Err(f("Empty NodeName in config.".into()));
    }
    let state = t.get("State").map(|s| s.to_ascii_uppercase()).unwrap_or_else(|| "UNKNOWN".into());
    if !state.split('+').all(|w| NODE_STATES.contains(&w)) {
        return Err(f(format!("Invalid state {} from {}", t.get("State").unwrap_or(""), names)));
    }
    let hl =
        |s: &str, what: &str| hostlist::expand(s).map_err(|_| f(format!("Unable to create {} list from {}", what, s)));
    let alias = hl(names, "NodeName")?;
    let addr = hl(&addrs, "NodeAddr")?;
    let hosts = hl(&hostnames, "NodeHostname")?;
    let ports: Vec<String> = match t.get("Port") {
        Some(p) if !p.is_empty() && !p.starts_with('[') && (p.contains('-') || p.contains(',')) => {
            hl(&format!("[{}]", p), "Port")?
        }
        Some(p) => hl(p, "Port")?,
        None => vec![],
    };
    if addr.len() != alias.len() && addr.len() != 1 {
        return Err(f("NodeAddr count must equal that of NodeName records or  there must be no more than one".into()));
    }
    if hosts.len() != alias.len() && hosts.len() != 1 {
        return Err(f(
            "NodeHostname count must equal that of NodeName records or there must be no more than one".into()
        ));
    }
    if ports.len() != alias.len() && ports.len() > 1 {
        return Err(f(format!(
            "Port count must equal that of NodeName records or there must be no more than one ({} != {})",
            ports.len(),
            alias.len()
        )));
    }
    // CPU topology defaults, as _parse_nodename.
    let mut boards = u16v("Boards").unwrap_or(1);
    let mut cores = u16v("CoresPerSocket").unwrap_or(1);
    let mut threads = u16v("ThreadsPerCore").unwrap_or(1);
    let cpus_opt = u16v("CPUs").or_else(|| u16v("Procs"));
    let mut cpus = cpus_opt.unwrap_or(1);
    let sockets_opt = u16v("Sockets");
    let mut sockets = sockets_opt.unwrap_or(1);
    let spb_opt = u16v("SocketsPerBoard");
    let mut spb = spb_opt.unwrap_or(1);
    let mut no_sockets = sockets_opt.is_none();
    if cores == 0 {
        cores = 1;
    }
    if cpus == 0 {
        cpus = 1;
    }
    if threads == 0 {
        threads = 1;
    }
    if spb == 0 {
        spb = 1;
    }
    if sockets == 0 {
        sockets = 1;
    }
    if spb_opt.is_some() && sockets_opt.is_some() {
        no_sockets = true;
    }
    if boards == 0 {
        boards = 1;
    }
    let ct = cores as u32 * threads as u32;
    if no_sockets {
        sockets = if spb_opt.is_some() {
            (boards as u32 * spb as u32).min(0xffff) as u16
        } else if cpus_opt.is_some() && (cpus as u32 / ct) > 0 && (cpus as u32).is_multiple_of(ct) {
            (cpus as u32 / ct) as u16
        } else {
            boards
        };
    }
    let full = (sockets as u32 * ct).min(0xffff) as u16;
    if cpus_opt.is_none() {
        cpus = full;
    }
    if sockets < boards {
        boards = 1;
    }
    if cpus as u32 != sockets as u32 && cpus as u32 != sockets as u32 * cores as u32 && cpus != full {
        cpus = full;
    }
    let gres = parse_gres_list(t.get("Gres").unwrap_or("")).map_err(|e| f(e.to_string()))?;
    let features = t.get("Features").or_else(|| t.get("Feature")).map(split_list).unwrap_or_default();
    let mut weight = t.get("Weight").map(|v| num_of(v, K::U32) as u32).unwrap_or(1);
    if weight == u32::MAX {
        weight -= 1;
    }
    let real_memory = t.get("RealMemory").map(|v| num_of(v, K::U64)).unwrap_or(1);
    let tmp_disk = t.get("TmpDisk").map(|v| num_of(v, K::U32) as u32).unwrap_or(0);
    let mapped = [
        "NodeAddr",
        "NodeHostname",
        "Port",
        "CPUs",
        "Procs",
        "Boards",
        "Sockets",
        "CoresPerSocket",
        "ThreadsPerCore",
        "RealMemory",
        "Gres",
        "Feature",
        "Features",
        "State",
        "Weight",
        "TmpDisk",
    ];
    let other: Vec<(String, String)> =
        t.0.iter().filter(|(k, _)| !mapped.contains(k)).map(|(k, v)| (k.to_string(), v.clone())).collect();
    let mut out = Vec::with_capacity(alias.len());
    for (i, name) in alias.iter().enumerate() {
        let port = if ports.is_empty() {
            None
        } else {
            let p = &ports[if ports.len() == 1 { 0 } else { i }];
            let n: i64 = p.trim().parse().unwrap_or(0);
            if n <= 0 || n > 0xffff {
                return Err(f(format!("Invalid Port {}", t.get("Port").unwrap_or(""))));
            }
            Some(n as u16)
        };
        let _ = slurmd_port;
        out.push(NodeConf {
            name: name.clone(),
            addr: addr[if addr.len() == 1 { 0 } else { i }].clone(),
            hostname: hosts[if hosts.len() == 1 { 0 } else { i }].clone(),
            port,
            cpus,
            boards,
            sockets,
            cores_per_socket: cores,
            threads_per_core: threads,
            real_memory,
            gres: gres.clone(),
            features: features.clone(),
            state: state.clone(),
            weight,
            tmp_disk,
            nodes_expr: names.clone(),
            line: nl.line,
            other: other.clone(),
        });
    }
    Ok(out)
}

fn build_partition(
    pl: &PartLine,
    dflt: &Tbl,
    nodes: &[NodeConf],
    nodesets: &[(String, Vec<String>)],
) -> Result<PartitionConf, ConfError> {
    let mut t = pl.tbl.clone();
    t.merge_defaults(dflt);
    let f = |m: String| cerr(&pl.file, pl.line, m);
    let time = |k: &str| -> Result<Option<u32>, ConfError> {
        match t.get(k) {
            None => Ok(None),
            Some(v) => match spur_grammar::time::parse_time_limit(v) {
                Ok(Some(m)) => Ok(Some(m)),
                Ok(None) => Ok(Some(INFINITE)),
                Err(_) => Err(f(format!("Bad value \"{}\" for {}", v, k))),
            },
        }
    };
    let max_time = match time("MaxTime")? {
        Some(INFINITE) | None => None,
        Some(m) => Some(m),
    };
    let default_time = time("DefaultTime")?;
    let state = match t.get("State") {
        None => "UP".to_string(),
        Some(v) => {
            let u = v.to_ascii_uppercase();
            let s = ["DOWN", "UP", "DRAIN", "INACTIVE"].iter().find(|w| u.starts_with(*w));
            match s {
                Some(w) => w.to_string(),
                None => return Err(f(format!("Bad value \"{}\" for State", v))),
            }
        }
    };
    let oversubscribe = match t.get("OverSubscribe").or_else(|| t.get("Shared")) {
        None => "NO".to_string(),
        Some(v) => {
            let u = v.to_ascii_uppercase();
            if u == "NO"
                || u == "EXCLUSIVE"
                || u == "YES"
                || u == "FORCE"
                || u.starts_with("YES:")
                || u.starts_with("FORCE:")
            {
                u
            } else {
                return Err(f(format!("Bad value \"{}\" for OverSubscribe", v)));
            }
        }
    };
    if let Some(v) = t.get("SelectTypeParameters") {
        let u = v.to_ascii_lowercase();
        if !["cr_core_memory", "cr_core", "cr_socket_memory", "cr_socket"].iter().any(|p| u.starts_with(p)) {
            return Err(f(format!("Bad value for SelectTypeParameters: {}", v)));
        }
    }
    if let Some(v) = t.get("PreemptMode") {
        let ok = v.split(',').all(|w| {
            ["off", "cancel", "gang", "requeue", "suspend", "preempt", "within", "priority"]
                .contains(&w.to_ascii_lowercase().as_str())
        });
        if !ok {
            return Err(f(format!("Bad value \"{}\" for PreemptMode", v)));
        }
    }
    if let Some(v) = t.get("SuspendTime") {
        if !v.eq_ignore_ascii_case("INFINITE") && v != "-1" {
            let n = c_strtoul(v).map(|x| x.1).unwrap_or(0);
            if n > u32::MAX as u128 {
                return Err(f(format!("Bad value \"{}\" for SuspendTime", v)));
            }
        }
    }
    let mut nodes_expr = t.get("Nodes").unwrap_or("").replace(|c: char| c.is_ascii_whitespace(), ",");
    let mut list = Vec::new();
    if nodes_expr.eq_ignore_ascii_case("ALL") {
        list = nodes.iter().map(|n| n.name.clone()).collect();
        // slurmctld keeps the nodes, not the word: the Perl API's `nodes`
        // of a Nodes=ALL partition is "n[1-2]" on 22.05 (packaging/upgrade-test.sh)
        nodes_expr = hostlist::compress(&list);
    } else if !nodes_expr.is_empty() {
        // Tokens naming a NodeSet (or ALL) are replaced; the rest is a hostlist.
        for tok in hostlist_tokens(&nodes_expr) {
            if tok.eq_ignore_ascii_case("ALL") {
                list.extend(nodes.iter().map(|n| n.name.clone()));
            } else if let Some((_, ns)) = nodesets.iter().find(|(n, _)| n == tok) {
                list.extend(ns.iter().cloned());
            } else {
                let names =
                    hostlist::expand(tok).map_err(|_| f(format!("Invalid node names in partition {}", pl.name)))?;
                for n in names {
                    if !nodes.iter().any(|x| x.name == n) {
                        let mut e = f(format!("build_part_bitmap: invalid node name {} in partition", n));
                        e.parse_error = Some(format!("Invalid node names in partition {}", pl.name));
                        return Err(e);
                    }
                    list.push(n);
                }
            }
        }
    }
    let u16v = |k: &str, d: u16| t.get(k).map(|v| num_of(v, K::U16) as u16).unwrap_or(d);
    let mut priority_tier = u16v("PriorityTier", 1);
    let mut priority_job_factor = u16v("PriorityJobFactor", 1);
    if let Some(p) = t.get("Priority") {
        let p = num_of(p, K::U16) as u16;
        priority_tier = p;
        priority_job_factor = p;
    }
    let all_or = |v: Option<&str>, lower: bool| -> Option<Vec<String>> {
        let v = v?;
        if v.eq_ignore_ascii_case("ALL") {
            return None;
        }
        Some(split_list(&if lower { v.to_lowercase() } else { v.to_string() }))
    };
    let max_nodes = t.get("MaxNodes").map(|v| num_of(v, K::U32) as u32).filter(|&v| v != u32::MAX);
    let mapped = [
        "Nodes",
        "Default",
        "MaxTime",
        "DefaultTime",
        "MaxNodes",
        "MinNodes",
        "State",
        "OverSubscribe",
        "Shared",
        "PriorityTier",
        "PriorityJobFactor",
        "Priority",
        "AllowGroups",
        "AllowAccounts",
        "Hidden",
    ];
    Ok(PartitionConf {
        name: pl.name.clone(),
        nodes: list,
        nodes_expr,
        default: t.get("Default").map(bool_of).unwrap_or(false),
        max_time,
        default_time,
        max_nodes,
        min_nodes: t.get("MinNodes").map(|v| num_of(v, K::U32) as u32).unwrap_or(0),
        state,
        oversubscribe,
        priority_tier,
        priority_job_factor,
        allow_groups: all_or(t.get("AllowGroups"), false),
        allow_accounts: all_or(t.get("AllowAccounts"), true),
        hidden: t.get("Hidden").map(bool_of).unwrap_or(false),
        line: pl.line,
        other: t.0.iter().filter(|(k, _)| !mapped.contains(k)).map(|(k, v)| (k.to_string(), v.clone())).collect(),
    })
}

/// Split a node expression into hostlist tokens (commas inside brackets kept).
fn hostlist_tokens(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth <= 0 => {
                if i > start {
                    out.push(&s[start..i]);
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// Read and parse a slurm.conf file (Includes resolved relative to its directory).
/// Where slurm.conf is: `$SLURM_CONF`, else /etc/slurm/slurm.conf (as every
/// Slurm command and daemon looks for it).
pub fn default_path() -> std::path::PathBuf {
    match std::env::var("SLURM_CONF") {
        Ok(p) if !p.is_empty() => std::path::PathBuf::from(p),
        _ => std::path::PathBuf::from("/etc/slurm/slurm.conf"),
    }
}

pub fn load(path: &Path) -> Result<SlurmConf, ConfError> {
    let text = match std::fs::read(path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            return Err(ConfError {
                path: path.to_path_buf(),
                line: None,
                message: format!("s_p_parse_file: unable to read \"{}\": {}", path.display(), io_msg(&e)),
                parse_error: None,
            })
        }
    };
    parse_str(&text, path)
}

/// A `gres.conf` slurmd would not start with: its error lines, then the fatal one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GresConfError {
    pub errors: Vec<String>,
    pub fatal: String,
}

impl GresConfError {
    /// The lines slurmd prints, `prog: error: ...` then `prog: fatal: ...`.
    pub fn report(&self, prog: &str) -> String {
        let mut out = String::new();
        for e in &self.errors {
            out.push_str(&format!("{}: error: {}\n", prog, e));
        }
        out.push_str(&format!("{}: fatal: {}\n", prog, self.fatal));
        out
    }
}

/// The `gres.conf` beside `slurm_conf` (where slurmd looks for it), parsed;
/// `Ok(None)` when there is none. A line Slurm would reject gives slurmd's
/// messages (checked against slurmd 22.05: the key's error, `Parse error in
/// file F line N: "<the line from that key on>"`, `fatal: error
/// opening/reading F`).
pub fn load_gres_conf(slurm_conf: &Path) -> Result<Option<Vec<crate::gres_conf::GresConfLine>>, GresConfError> {
    let path = slurm_conf.parent().map(|d| d.join("gres.conf")).unwrap_or_else(|| PathBuf::from("gres.conf"));
    let fatal = format!("error opening/reading {}", path.display());
    let text = match std::fs::read(&path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(GresConfError {
                errors: vec![format!("s_p_parse_file: unable to read \"{}\": {}", path.display(), io_msg(&e))],
                fatal,
            })
        }
    };
    let e = match crate::gres_conf::parse_gres_conf(&text) {
        Ok(lines) => return Ok(Some(lines)),
        Err(e) => e,
    };
    // "line N: message"
    let (line, message) = match e.strip_prefix("line ").and_then(|r| r.split_once(": ")) {
        Some((n, m)) => (n.parse::<usize>().ok(), m.to_string()),
        None => (None, e),
    };
    let mut errors = vec![message.clone()];
    if let Some(n) = line {
        let logical = logical_lines(&text).into_iter().find(|(l, _)| *l == n).map(|(_, t)| t).unwrap_or_default();
        // the rest of the line from the offending key on, with the blank before it
        let rest = message
            .strip_prefix("Parsing error at unrecognized key: ")
            .and_then(|k| logical.find(&format!("{}=", k)))
            .map(|i| {
                let start = logical[..i].trim_end_matches([' ', '\t']).len();
                logical[start..].to_string()
            });
        match rest {
            Some(r) => errors.push(format!(
                "Parse error in file {} line {}: \"{}\"",
                path.display(),
                n,
                r.trim_end_matches(['\r', '\n'])
            )),
            None => errors.push(format!("Parse error in file {} line {}", path.display(), n)),
        }
    }
    Err(GresConfError { errors, fatal })
}

/// Parse slurm.conf text; `path` names it in errors and anchors Includes.
pub fn parse_str(text: &str, path: &Path) -> Result<SlurmConf, ConfError> {
    let conf_dir = path.parent().map(|p| p.to_path_buf()).unwrap_or_else(|| PathBuf::from("."));
    let mut p = Parser::default();
    p.parse_text(text, path, &conf_dir)?;
    let whole = |m: String| ConfError { path: path.to_path_buf(), line: None, message: m, parse_error: None };
    let last = |k: &str| p.top.iter().rev().find(|t| t.0 == k).map(|t| (t.1.clone(), t.2, t.3.clone()));
    let at = |k: &str, m: String| match p.top.iter().rev().find(|t| t.0 == k) {
        Some(t) => cerr(&t.3, t.2, m),
        None => whole(m),
    };
    let num = |k: &str, kind: K, d: u64| last(k).map(|v| num_of(&v.0, kind)).unwrap_or(d);

    let cluster_name = match last("ClusterName") {
        Some(v) => v.0.to_lowercase(),
        None => return Err(whole("ClusterName needs to be specified".into())),
    };
    // Controllers
    let mut controllers: Vec<ControllerHost> = Vec::new();
    for (c, line, file) in &p.controllers {
        if controllers.iter().any(|x| x.name == c.name) {
            return Err(cerr(file, *line, format!("Duplicate SlurmctldHost records: {}", c.name)));
        }
        controllers.push(c.clone());
    }
    if controllers.is_empty() {
        if let Some((cm, _, _)) = last("ControlMachine") {
            let addr = last("ControlAddr").map(|v| v.0);
            if cm.contains(',') && addr.is_none() {
                return Err(at(
                    "ControlMachine",
                    "ControlMachine has multiple host names, so ControlAddr must be specified.".into(),
                ));
            }
            let name = cm.split(',').next().unwrap_or("").to_string();
            controllers.push(ControllerHost { addr: addr.unwrap_or_else(|| name.clone()), name });
            if let Some((bc, _, _)) = last("BackupController") {
                let ba = last("BackupAddr").map(|v| v.0).unwrap_or_else(|| bc.clone());
                controllers.push(ControllerHost { name: bc, addr: ba });
            } else if last("BackupAddr").is_some() {
                return Err(at("BackupAddr", "BackupAddr specified without BackupController".into()));
            }
        } else {
            return Err(whole("No SlurmctldHost defined.".into()));
        }
    } else {
        for k in ["ControlMachine", "ControlAddr", "BackupController", "BackupAddr"] {
            if last(k).is_some() {
                p.warnings.push(format!("Ignoring {} since SlurmctldHost is set.", k));
            }
        }
    }
    // SlurmctldPort: N or N-M
    let (slurmctld_port, slurmctld_port_count) = match last("SlurmctldPort") {
        None => (6817u16, 1u16),
        Some((v, line, file)) => {
            let bad = || cerr(&file, line, format!("Invalid SlurmctldPort {}", v));
            let (a, b) = match v.split_once('-') {
                Some((a, b)) => (a, Some(b)),
                None => (v.as_str(), None),
            };
            let pa: u32 = a.parse().ok().filter(|&x| x > 0 && x <= 0xffff).ok_or_else(bad)?;
            match b {
                None => (pa as u16, 1),
                Some(b) => {
                    let pb: u32 = b.parse().ok().filter(|&x| x > pa && x <= 0xffff).ok_or_else(bad)?;
                    (pa as u16, (pb + 1 - pa) as u16)
                }
            }
        }
    };
    let slurmd_port = match last("SlurmdPort") {
        None => 6818u16,
        Some((v, line, file)) => {
            let n = num_of(&v, K::U32);
            if n == 0 || n > 0xffff {
                return Err(cerr(&file, line, format!("Invalid SlurmdPort {}", v)));
            }
            n as u16
        }
    };
    let first_job_id = num("FirstJobId", K::U32, 1) as u32;
    if first_job_id == 0 {
        return Err(at("FirstJobId", "FirstJobId cannot be zero".into()));
    }
    let max_job_id = num("MaxJobId", K::U32, 0x03ff_0000) as u32;
    let max_job_count = num("MaxJobCount", K::U32, 10000) as u32;
    let def_mem_per_cpu = last("DefMemPerCPU").map(|v| num_of(&v.0, K::U64));
    let def_mem_per_node = last("DefMemPerNode").map(|v| num_of(&v.0, K::U64));
    if def_mem_per_cpu.is_some() && def_mem_per_node.is_some() {
        p.warnings.push("DefMemPerCPU ignored, since it's mutually exclusive with DefMemPerNode".into());
    }

    // Nodes
    let mut nodes: Vec<NodeConf> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for nl in &p.node_lines {
        for n in build_nodes(nl, slurmd_port)? {
            if !seen.insert(n.name.clone()) {
                return Err(cerr(&nl.file, nl.line, format!("Duplicated NodeName {} in the config file", n.name)));
            }
            nodes.push(n);
        }
    }
    // NodeSets
    let mut nodesets = Vec::new();
    for (name, tbl, line, file) in &p.nodesets {
        let mut v = Vec::new();
        if let Some(feat) = tbl.get("Feature") {
            v.extend(nodes.iter().filter(|n| n.features.iter().any(|f| f == feat)).map(|n| n.name.clone()));
        }
        if let Some(ns) = tbl.get("Nodes") {
            if ns.eq_ignore_ascii_case("ALL") {
                v.extend(nodes.iter().map(|n| n.name.clone()));
            } else {
                let names =
                    hostlist::expand(ns).map_err(|e| cerr(file, *line, format!("Invalid NodeSet {}: {}", name, e)))?;
                v.extend(names);
            }
        }
        nodesets.push((name.clone(), v));
    }
    // Partitions
    let mut partitions: Vec<PartitionConf> = Vec::new();
    for pl in &p.part_lines {
        let part = build_partition(pl, &p.part_default, &nodes, &nodesets)?;
        if let Some(i) = partitions.iter().position(|x| x.name == part.name) {
            // Slurm updates an existing partition record of the same name.
            partitions[i] = part;
        } else {
            partitions.push(part);
        }
    }

    Ok(SlurmConf {
        path: path.to_path_buf(),
        cluster_name,
        controllers,
        slurmctld_port,
        slurmctld_port_count,
        slurmd_port,
        state_save_location: last("StateSaveLocation").map(|v| v.0).unwrap_or_else(|| "/var/spool".into()),
        slurmd_spool_dir: last("SlurmdSpoolDir").map(|v| v.0).unwrap_or_else(|| "/var/spool/slurmd".into()),
        first_job_id,
        max_job_id,
        max_job_count,
        slurmd_timeout: num("SlurmdTimeout", K::U16, 300) as u16,
        kill_wait: num("KillWait", K::U16, 30) as u16,
        gres_types: last("GresTypes").map(|v| split_list(&v.0)).unwrap_or_default(),
        slurm_user: last("SlurmUser").map(|v| v.0).unwrap_or_else(|| "root".into()),
        auth_info: last("AuthInfo").map(|v| v.0),
        def_mem_per_cpu: if def_mem_per_node.is_some() { None } else { def_mem_per_cpu },
        def_mem_per_node,
        nodes,
        partitions,
        nodesets,
        all: p.all,
        warnings: p.warnings,
    })
}

/// One numeric key of `SchedulerParameters`, read as slurmctld reads them:
/// the first `KEY=` anywhere in the value, any case, then atoi (`None`: no
/// such key).
pub fn scheduler_param(params: &str, key: &str) -> Option<i64> {
    let at = params.to_ascii_lowercase().find(&format!("{}=", key.to_ascii_lowercase()))?;
    Some(spur_grammar::num::atoi(&params[at + key.len() + 1..]) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "ClusterName=Test\nSlurmctldHost=ctl1(10.0.0.1)\nSlurmctldHost=ctl2\n";

    fn parse(extra: &str) -> Result<SlurmConf, ConfError> {
        parse_str(&format!("{}{}", BASE, extra), Path::new("/etc/slurm/slurm.conf"))
    }
    fn msg(extra: &str) -> String {
        parse(extra).unwrap_err().message
    }

    /// `JobAcctGatherParams=OverMemoryKill` and the task value of
    /// `JobAcctGatherFrequency` (`task=N` among others, or a bare `N`).
    #[test]
    fn memory_check_period() {
        let secs = |extra: &str| parse(extra).unwrap().mem_check_secs();
        assert_eq!(secs(""), 0);
        assert_eq!(secs("JobAcctGatherFrequency=5\n"), 0);
        assert_eq!(secs("JobAcctGatherParams=UsePss,OverMemoryKill\n"), 30);
        assert_eq!(secs("JobAcctGatherParams=overmemorykill\nJobAcctGatherFrequency=energy=5,task=2\n"), 2);
        assert_eq!(secs("JobAcctGatherParams=OverMemoryKill\nJobAcctGatherFrequency=7\n"), 7);
        assert_eq!(secs("JobAcctGatherParams=OverMemoryKill\nJobAcctGatherFrequency=task=0\n"), 0);
        assert_eq!(secs("JobAcctGatherParams=NoShared\nJobAcctGatherFrequency=task=1\n"), 0);
        let every = |extra: &str| parse(extra).unwrap().acct_gather_secs();
        assert_eq!(every(""), 30);
        assert_eq!(every("JobAcctGatherFrequency=energy=5,task=2\n"), 2);
        assert_eq!(every("JobAcctGatherFrequency=1\n"), 1);
        assert_eq!(every("JobAcctGatherType=jobacct_gather/none\nJobAcctGatherFrequency=1\n"), 0);
    }

    #[test]
    fn basic_conf() {
        let c = parse(
            "SlurmctldPort=6817-6820\nSlurmdPort=7000\nStateSaveLocation=/var/spool/spur\n\
             SlurmdSpoolDir=/var/spool/slurmd/%n\nFirstJobId=100\nMaxJobCount=5000\n\
             SlurmdTimeout=120\nKillWait=10\nGresTypes=gpu,mps\nSlurmUser=slurm\n\
             AuthInfo=socket=/run/munge.sock\nDefMemPerCPU=2048\nMaxJobId=999999\n\
             slurmctldtimeout=60 # comment\n\
             NodeName=DEFAULT CPUs=8 RealMemory=16000 State=UNKNOWN\n\
             NodeName=gpu[01-04] Gres=gpu:mi300x:8 Features=mi300x,fast NodeAddr=10.1.0.[1-4] Port=[6001-6004]\n\
             NodeName=cpu1 CPUs=4 Weight=10 TmpDisk=100\n\
             PartitionName=DEFAULT MaxTime=60 State=UP\n\
             PartitionName=gpu Nodes=gpu[01-04] Default=YES MaxTime=2-00:00:00 DefaultTime=30 \\\n  MaxNodes=2 PriorityTier=5 AllowGroups=a,b AllowAccounts=PROJ Hidden=YES OverSubscribe=FORCE:2\n\
             PartitionName=all Nodes=ALL MaxTime=UNLIMITED\n",
        )
        .unwrap();
        assert_eq!(c.cluster_name, "test");
        assert_eq!(
            c.controllers,
            vec![
                ControllerHost { name: "ctl1".into(), addr: "10.0.0.1".into() },
                ControllerHost { name: "ctl2".into(), addr: "ctl2".into() }
            ]
        );
        assert_eq!((c.slurmctld_port, c.slurmctld_port_count), (6817, 4));
        assert_eq!(c.slurmd_port, 7000);
        assert_eq!(c.state_save_location, "/var/spool/spur");
        assert_eq!(c.spool_dir_for("gpu02"), "/var/spool/slurmd/gpu02");
        assert_eq!(c.first_job_id, 100);
        assert_eq!(c.max_job_count, 5000);
        assert_eq!(c.max_job_id, 999999);
        assert_eq!(c.slurmd_timeout, 120);
        assert_eq!(c.kill_wait, 10);
        assert_eq!(c.gres_types, vec!["gpu", "mps"]);
        assert_eq!(c.slurm_user, "slurm");
        assert_eq!(c.auth_info.as_deref(), Some("socket=/run/munge.sock"));
        assert_eq!(c.def_mem_per_cpu, Some(2048));
        assert_eq!(c.get("SlurmctldTimeout"), Some("60"));
        assert_eq!(c.nodes.len(), 5);
        let g2 = c.node("gpu02").unwrap();
        assert_eq!(g2.addr, "10.1.0.2");
        assert_eq!(g2.hostname, "gpu02");
        assert_eq!(g2.port, Some(6002));
        assert_eq!(g2.cpus, 8);
        assert_eq!(g2.sockets, 8);
        assert_eq!(g2.real_memory, 16000);
        assert_eq!(g2.gres, vec![GresSpec { name: "gpu".into(), type_: Some("mi300x".into()), count: 8, extra: None }]);
        assert_eq!(g2.features, vec!["mi300x", "fast"]);
        assert_eq!(g2.state, "UNKNOWN");
        let c1 = c.node("cpu1").unwrap();
        assert_eq!((c1.cpus, c1.weight, c1.tmp_disk, c1.port), (4, 10, 100, None));
        let p = c.partition("gpu").unwrap();
        assert_eq!(p.nodes, vec!["gpu01", "gpu02", "gpu03", "gpu04"]);
        assert!(p.default);
        assert_eq!(p.max_time, Some(2880));
        assert_eq!(p.default_time, Some(30));
        assert_eq!(p.max_nodes, Some(2));
        assert_eq!(p.min_nodes, 0);
        assert_eq!(p.priority_tier, 5);
        assert_eq!(p.priority_job_factor, 1);
        assert_eq!(p.allow_groups, Some(vec!["a".to_string(), "b".to_string()]));
        assert_eq!(p.allow_accounts, Some(vec!["proj".to_string()]));
        assert!(p.hidden);
        assert_eq!(p.oversubscribe, "FORCE:2");
        assert_eq!(p.state, "UP");
        let a = c.partition("all").unwrap();
        assert_eq!(a.nodes.len(), 5);
        assert_eq!(a.max_time, None);
        assert_eq!(a.default_time, None);
        assert_eq!(a.max_nodes, None);
        assert_eq!(a.oversubscribe, "NO");
        assert_eq!(c.default_partition().unwrap().name, "gpu");
    }

    #[test]
    fn private_data_and_user_permissions_as_slurmctld_reads_them() {
        let base = "NodeName=n1\nPartitionName=p Nodes=n1\n";
        let c = |extra: &str| parse(&format!("{base}{extra}")).unwrap();
        assert_eq!(c("").private_data(), PrivateData::default());
        let p = c("PrivateData=jobs,Reservations\n").private_data();
        assert!(p.jobs && p.reservations && !p.nodes && !p.partitions && !p.users);
        // words anywhere in the value, singular or plural
        let p = c("PrivateData=job,node\n").private_data();
        assert!(p.jobs && p.nodes && !p.reservations);
        let p = c("PrivateData=ALL\n").private_data();
        assert!(p.jobs && p.nodes && p.partitions && p.reservations && p.accounts && p.events && p.usage && p.users);
        assert!(!c("").enable_user_top());
        assert!(c("SchedulerParameters=bf_continue,Enable_User_Top\n").enable_user_top());
        assert!(!c("").user_resv_delete());
        assert!(c("SlurmctldParameters=user_resv_delete\n").user_resv_delete());
    }

    #[test]
    fn max_script_size_as_slurmctld_reads_it() {
        let base = "NodeName=n1\nPartitionName=p Nodes=n1\n";
        assert_eq!(parse(base).unwrap().max_script_size(), 4 * 1024 * 1024);
        let with = |v: &str| parse(&format!("{base}SchedulerParameters={v}\n")).unwrap().max_script_size();
        assert_eq!(with("max_script_size=1000"), 1000);
        assert_eq!(with("bf_continue,MAX_SCRIPT_SIZE=2048k"), 2048);
        assert_eq!(with("bf_continue"), 4 * 1024 * 1024);
    }

    #[test]
    fn defaults() {
        let c = parse("NodeName=n1\nPartitionName=p Nodes=n1\n").unwrap();
        let n = &c.nodes[0];
        assert_eq!((n.cpus, n.boards, n.sockets, n.cores_per_socket, n.threads_per_core), (1, 1, 1, 1, 1));
        assert_eq!((n.real_memory, n.weight, n.tmp_disk), (1, 1, 0));
        assert_eq!(
            (c.slurmctld_port, c.slurmd_port, c.first_job_id, c.kill_wait, c.slurmd_timeout),
            (6817, 6818, 1, 30, 300)
        );
        assert_eq!(c.max_job_count, 10000);
        assert_eq!(c.max_job_id, 0x03ff0000);
        assert_eq!(c.state_save_location, "/var/spool");
        assert_eq!(c.slurmd_spool_dir, "/var/spool/slurmd");
        assert_eq!(c.slurm_user, "root");
        let p = &c.partitions[0];
        assert_eq!((p.priority_tier, p.priority_job_factor, p.state.as_str()), (1, 1, "UP"));
        // topology inference
        let c = parse("NodeName=a Sockets=2 CoresPerSocket=4 ThreadsPerCore=2\nNodeName=b CPUs=16 CoresPerSocket=4 ThreadsPerCore=2\nNodeName=c CPUs=6 CoresPerSocket=4\n").unwrap();
        assert_eq!(c.nodes[0].cpus, 16);
        assert_eq!(c.nodes[1].sockets, 2);
        assert_eq!((c.nodes[2].cpus, c.nodes[2].sockets), (4, 1)); // CPUs reset as Slurm does
    }

    #[test]
    fn syntax() {
        // case-insensitive keys, quoted values, escapes, continuation, comments
        let c = parse("clustername=other\nkillwait=5 # c\n\n   \nSlurmctldLogFile=\"/var/log/a b\"\nMailProg=/bin/a\\#b\nPrologFlags=Alloc,\\\nContain\nProlog=/a\nProlog=/b\n").unwrap();
        assert_eq!(c.cluster_name, "other");
        assert_eq!(c.kill_wait, 5);
        assert_eq!(c.get("slurmctldlogfile"), Some("/var/log/a b"));
        assert_eq!(c.get("MailProg"), Some("/bin/a#b"));
        assert_eq!(c.get("PrologFlags"), Some("Alloc,Contain"));
        assert_eq!(c.all.iter().filter(|(k, _)| k == "Prolog").count(), 2);
        // ControlMachine fallback
        let c = parse_str(
            "ClusterName=x\nControlMachine=h1\nControlAddr=1.2.3.4\nBackupController=h2\n",
            Path::new("/s.conf"),
        )
        .unwrap();
        assert_eq!(c.controllers.len(), 2);
        assert_eq!(c.controllers[0].addr, "1.2.3.4");
        // a defunct key is accepted
        assert!(parse("PowerPlugin=foo\n").unwrap().warnings[0].contains("defunct"));
        // every known top-level key is accepted
        let mut all = String::new();
        for (k, kind) in TOP_KEYS {
            let v = match kind {
                K::Bool => "yes",
                K::U16 | K::U32 | K::U64 => "1",
                _ => "x",
            };
            if *k != "ClusterName" && *k != "SlurmctldPort" && *k != "SlurmdPort" {
                all.push_str(&format!("{}={}\n", k, v));
            }
        }
        parse(&all).unwrap();
    }

    #[test]
    fn slurm_error_wording() {
        assert_eq!(msg("FooBar=1\n"), "_parse_next_key: Parsing error at unrecognized key: FooBar");
        let e = parse("FooBar=1\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "/etc/slurm/slurm.conf:4: _parse_next_key: Parsing error at unrecognized key: FooBar"
        );
        assert_eq!(msg("KillWait=abc\n"), "KillWait value \"abc\" is not a valid number");
        assert_eq!(msg("KillWait=99999999\n"), "KillWait value (99999999) is greater than 65535");
        assert_eq!(msg("MaxJobCount=x\n"), "MaxJobCount value (x) is not a valid number");
        assert_eq!(msg("DefMemPerCPU=4G\n"), "DefMemPerCPU value (4G) is not a valid number");
        assert_eq!(msg("KillWait=\n"), "Parse error in file /etc/slurm/slurm.conf line 4: \"KillWait=\"");
        assert_eq!(
            msg("KillWait=1 SlurmdTimeout=2\n"),
            "Parse error in file /etc/slurm/slurm.conf line 4: \" SlurmdTimeout=2\""
        );
        assert_eq!(msg("TrackWCKey=maybe\n"), "\"maybe\" is not a valid option for \"TrackWCKey\"");
        let e = parse("NodeName=n[1-2] CPUs=2 junk\n").unwrap_err();
        assert_eq!(e.message, "Parse error in file /etc/slurm/slurm.conf line 4: \" junk\"");
        let e = parse("NodeName=n[1-2] CPUs=70000\n").unwrap_err();
        assert_eq!(e.message, "CPUs value (70000) is greater than 65535");
        assert_eq!(e.parse_error.as_deref(), Some("Parse error in file /etc/slurm/slurm.conf line 4: \" CPUs=70000\""));
        assert_eq!(msg("NodeName=n1 CPUs=-1\n"), "CPUs value (-1) is less than zero");
        assert_eq!(msg("NodeName=n1 RealMemory=4G\n"), "RealMemory value (4G) is not a valid number");
        let e = parse("NodeName=n[1-2] Foo=1\n").unwrap_err();
        assert_eq!(e.message, "Parsing error at unrecognized key: Foo");
        assert_eq!(e.parse_error.as_deref(), Some("Parse error in file /etc/slurm/slurm.conf line 4: \" Foo=1\""));
        assert_eq!(
            msg("NodeName=n1\nPartitionName=p Nodes=n1 Default=maybe\n"),
            "\"maybe\" is not a valid option for \"Default\""
        );
        assert_eq!(msg("NodeName=n1\nPartitionName=p Nodes=n1 MaxTime=abc\n"), "Bad value \"abc\" for MaxTime");
        assert_eq!(
            msg("NodeName=n1\nPartitionName=p Nodes=n1 DefaultTime=1:2:3:4\n"),
            "Bad value \"1:2:3:4\" for DefaultTime"
        );
        assert_eq!(msg("NodeName=n1\nPartitionName=p Nodes=n1 State=BOGUS\n"), "Bad value \"BOGUS\" for State");
        assert_eq!(
            msg("NodeName=n1\nPartitionName=p Nodes=n1 OverSubscribe=sometimes\n"),
            "Bad value \"sometimes\" for OverSubscribe"
        );
        assert_eq!(msg("SlurmctldHost=foo(bar\n"), "Bad value \"foo(bar\" for SlurmctldHost");
        assert_eq!(msg("SlurmctldHost=ctl1\n"), "Duplicate SlurmctldHost records: ctl1");
        let e = parse("NodeName=n[1-2]\nPartitionName=p Nodes=n[1-3]\n").unwrap_err();
        assert_eq!(e.message, "build_part_bitmap: invalid node name n3 in partition");
        assert_eq!(e.parse_error.as_deref(), Some("Invalid node names in partition p"));
        assert_eq!(e.line, Some(5));
        assert_eq!(msg("NodeName=n[1-2]\nNodeName=n2\n"), "Duplicated NodeName n2 in the config file");
        assert_eq!(msg("NodeName=ALL\n"), "'ALL' is a reserved word disallowed for use with NodeName");
        assert_eq!(msg("NodeName=DEFAULT NodeAddr=x\n"), "NodeAddr not allowed with NodeName=DEFAULT");
        assert_eq!(
            msg("NodeName=n[1-3] NodeAddr=a,b\n"),
            "NodeAddr count must equal that of NodeName records or  there must be no more than one"
        );
        assert_eq!(
            msg("NodeName=n[1-3] Port=1-2\n"),
            "Port count must equal that of NodeName records or there must be no more than one (2 != 3)"
        );
        assert_eq!(msg("NodeName=n1 Port=70000\n"), "Invalid Port 70000");
        assert_eq!(msg("NodeName=n1 State=WEIRD\n"), "Invalid state WEIRD from n1");
        assert_eq!(msg("SlurmctldPort=abc\n"), "Invalid SlurmctldPort abc");
        assert_eq!(msg("SlurmctldPort=7000-6000\n"), "Invalid SlurmctldPort 7000-6000");
        assert_eq!(msg("FirstJobId=0\n"), "FirstJobId cannot be zero");
        assert_eq!(
            parse_str("SlurmctldHost=a\n", Path::new("/x")).unwrap_err().message,
            "ClusterName needs to be specified"
        );
        assert_eq!(parse_str("ClusterName=a\n", Path::new("/x")).unwrap_err().message, "No SlurmctldHost defined.");
        assert!(msg("Include /nonexistent/x.conf\n")
            .starts_with("s_p_parse_file: cannot stat file /nonexistent/x.conf: No such file or directory"));
        assert!(msg("Include nodes*.conf\n").starts_with("Slurm does not support glob parsing."));
        assert!(msg("bare words\n").starts_with("Parse error in file"));
        assert!(load(Path::new("/nonexistent/slurm.conf")).is_err());
    }

    #[test]
    fn include_files() {
        let dir = std::env::temp_dir().join(format!("spur-conf-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("nodes.conf"), "NodeName=n[1-2] CPUs=2\n").unwrap();
        std::fs::write(dir.join("test-parts.conf"), "PartitionName=p Nodes=n[1-2]\nBogus=1\n").unwrap();
        std::fs::write(
            dir.join("slurm.conf"),
            "ClusterName=Test\nSlurmctldHost=h\nInclude nodes.conf\ninclude %c-parts.conf\n",
        )
        .unwrap();
        let e = load(&dir.join("slurm.conf")).unwrap_err();
        assert_eq!(e.path, dir.join("test-parts.conf"));
        assert_eq!(e.line, Some(2));
        std::fs::write(dir.join("test-parts.conf"), "PartitionName=p Nodes=n[1-2]\n").unwrap();
        let c = load(&dir.join("slurm.conf")).unwrap();
        assert_eq!(c.nodes.len(), 2);
        assert_eq!(c.partitions[0].nodes.len(), 2);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn nodesets_and_downnodes() {
        let c = parse("NodeName=n[1-4] Feature=big\nNodeName=m1\nNodeSet=bigs Feature=big\nPartitionName=p Nodes=bigs,m1\nDownNodes=n1 Reason=x State=DOWN\n").unwrap();
        assert_eq!(c.partitions[0].nodes, vec!["n1", "n2", "n3", "n4", "m1"]);
        assert_eq!(c.nodes[0].features, vec!["big"]);
    }

    #[test]
    fn lines() {
        let l = logical_lines("a=1\n# c\nb=2 \\\n c=3\nd=\\\\\ne=\\#x\n");
        assert_eq!(
            l,
            vec![
                (1, "a=1\n".to_string()),
                (3, "b=2  c=3\n".to_string()),
                (5, "d=\\\n".to_string()),
                (6, "e=#x\n".to_string())
            ]
        );
        assert_eq!(expand_node_pattern("/x/%n/%h/%%/%q", "n1", "h1"), "/x/n1/h1/%/%q");
    }

    #[test]
    fn reference_site_conf() {
        // The six-node configuration real Slurm 22.05 runs in ../shared/reference.
        let text = "ClusterName=spur22\nSlurmctldHost=myhost(127.0.0.1)\nSlurmctldPort=26817\nSlurmdPort=26818\n\
SlurmUser=root\nSlurmdUser=root\nAuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=/b/munge/munge.socket.2\n\
# bind every daemon\nCommunicationParameters=NoCtldInAddrAny,NoInAddrAny\n\nStateSaveLocation=/b/state/ctld\n\
SlurmdSpoolDir=/b/spool/slurmd.%n\nSlurmctldPidFile=/b/run/slurmctld.pid\nSlurmdPidFile=/b/run/slurmd.%n.pid\n\
SlurmctldLogFile=/b/log/slurmctld.log\nSlurmdLogFile=/b/log/slurmd.%n.log\nSlurmctldDebug=info\nSlurmdDebug=info\n\
MailProg=/bin/true\n\nProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nMpiDefault=none\nSwitchType=switch/none\n\
ReturnToService=2\nSlurmdParameters=config_overrides\n\nSchedulerType=sched/backfill\nSelectType=select/cons_tres\n\
SelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=1024\n\nGresTypes=gpu\n\nAccountingStorageType=accounting_storage/slurmdbd\n\
AccountingStorageHost=127.0.0.1\nAccountingStoragePort=26819\nAccountingStoragePass=/b/munge/munge.socket.2\n\
AccountingStorageTRES=gres/gpu,gres/gpu:mi300x\nJobAcctGatherType=jobacct_gather/linux\nJobAcctGatherFrequency=30\n\
JobCompType=jobcomp/filetxt\nJobCompLoc=/b/log/jobcomp.txt\n\
NodeName=cn01 NodeAddr=127.0.0.1 Port=26818 CPUs=8 Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=16000 State=UNKNOWN\n\
NodeName=cn02 NodeAddr=127.0.0.1 Port=26820 CPUs=8 Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=16000 State=UNKNOWN\n\
NodeName=cn03 NodeAddr=127.0.0.1 Port=26821 CPUs=8 Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=16000 State=UNKNOWN\n\
NodeName=cn04 NodeAddr=127.0.0.1 Port=26822 CPUs=8 Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=16000 State=UNKNOWN\n\
NodeName=gn01 NodeAddr=127.0.0.1 Port=26823 CPUs=16 Sockets=2 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=64000 Gres=gpu:mi300x:8 State=UNKNOWN\n\
NodeName=gn02 NodeAddr=127.0.0.1 Port=26824 CPUs=16 Sockets=2 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=64000 Gres=gpu:mi300x:8 State=UNKNOWN\n\n\
PartitionName=cpu Nodes=cn[01-04] Default=YES MaxTime=1-00:00:00 DefaultTime=01:00:00 State=UP\n\
PartitionName=gpu Nodes=gn[01-02] MaxTime=2-00:00:00 DefaultTime=01:00:00 State=UP\n";
        let c = parse_str(text, Path::new("/b/etc/slurm.conf")).unwrap();
        assert_eq!(c.nodes.len(), 6);
        assert_eq!(c.node("gn02").unwrap().port, Some(26824));
        assert_eq!(c.node("gn02").unwrap().gres[0].count, 8);
        assert_eq!(c.partitions[0].default_time, Some(60));
        assert_eq!(c.partitions[1].max_time, Some(2880));
        assert_eq!(c.spool_dir_for("cn03"), "/b/spool/slurmd.cn03");
        assert_eq!(c.controllers[0].addr, "127.0.0.1");
        assert_eq!((c.slurmctld_port, c.slurmd_port), (26817, 26818));
    }

    #[test]
    fn garbage_never_panics() {
        let alphabet: Vec<char> =
            "NodeName=PartitionName=Nodes=ALL CPUs=[1-3],()\"\\#\n\t0123456789-:xyz\u{e9}".chars().collect();
        let mut seed: u64 = 0x5eed;
        for _ in 0..5000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 60) as usize;
            let mut t = seed;
            let s: String = (0..len)
                .map(|_| {
                    t = t.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    alphabet[((t >> 33) as usize) % alphabet.len()]
                })
                .collect();
            let _ = parse(&s);
            let _ = parse(&format!("NodeName=n1 {}", s));
            let _ = parse(&format!("NodeName=n[1-2]\nPartitionName=p {}", s));
        }
    }
    #[test]
    fn gres_conf_beside_slurm_conf() {
        let d = std::env::temp_dir().join(format!("spur-gres-conf-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&d);
        let sc = d.join("slurm.conf");
        let _ = std::fs::remove_file(d.join("gres.conf"));
        assert_eq!(load_gres_conf(&sc).unwrap(), None);
        std::fs::write(
            d.join("gres.conf"),
            "# GPUs\nNodeName=gn[01-02] Name=gpu Type=mi300x File=/dev/dri/renderD[128-135]\n",
        )
        .unwrap();
        let g = load_gres_conf(&sc).unwrap().unwrap();
        assert_eq!((g.len(), g[0].count, g[0].line), (1, 8, 2));
        std::fs::write(d.join("gres.conf"), "Name=gpu File=/dev/nvidia0\nName=gpu Colour=red\n").unwrap();
        let e = load_gres_conf(&sc).unwrap_err();
        assert_eq!(
            e.report("spurd"),
            format!(
                "spurd: error: Parsing error at unrecognized key: Colour\nspurd: error: Parse error in file {0} line 2: \" Colour=red\"\nspurd: fatal: error opening/reading {0}\n",
                d.join("gres.conf").display()
            )
        );
        let _ = std::fs::remove_dir_all(&d);
    }
}
