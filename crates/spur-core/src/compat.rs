//! Which Slurm release Spur imitates where releases differ.
//!
//! Spur behaves like Slurm 24.11 unless the environment variable
//! `SPUR_SLURM_COMPAT`, or else the file `spur-compat` beside slurm.conf
//! (`SLURM_CONF`'s directory, or /etc/slurm), names an older release that
//! Spur knows (`22.05`); then the commands, the controller and the agents
//! follow that release where its behaviour is known to differ. It is read
//! once per process; `spur cluster up --compat 22.05` writes the file, so
//! every process of the cluster agrees, and no variable of Spur's own reaches
//! the jobs' environments (srun and sbatch pass theirs on, as Slurm's do).
//!
//! Every difference is one named field of [`Profile`], and each release is
//! one table of them ([`SLURM_24_11`], [`SLURM_22_05`]): code asks
//! `compat::profile().some_behaviour`, never which release it is. Adding a
//! release is adding a table (and its `Release` variant); a new difference
//! is a new field, set in every table, with the recording that shows it.

use std::sync::OnceLock;

/// The environment variable that selects the release.
pub const ENV: &str = "SPUR_SLURM_COMPAT";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Release {
    /// Slurm 22.05 (Debian 12's 22.05.8).
    V22_05,
    /// Slurm 24.11 (Debian 13's 24.11.5), the default.
    V24_11,
}

impl Release {
    /// `22.05`, `22.05.8`, `24.11`, `24.11.5` (surrounding blanks ignored);
    /// anything else is not a release Spur imitates.
    pub fn parse(s: &str) -> Option<Release> {
        match s.trim() {
            "22.05" | "22.05.8" => Some(Release::V22_05),
            "24.11" | "24.11.5" => Some(Release::V24_11),
            _ => None,
        }
    }

    /// The full version Slurm prints (`sbatch -V`, `Version=` of show node).
    pub fn version(self) -> &'static str {
        match self {
            Release::V22_05 => "22.05.8",
            Release::V24_11 => "24.11.5",
        }
    }

    /// The short name used by `--compat` and the variable.
    pub fn name(self) -> &'static str {
        match self {
            Release::V22_05 => "22.05",
            Release::V24_11 => "24.11",
        }
    }

    /// slurm.conf's `PriorityType` when the key is absent.
    pub fn default_priority_type(self) -> &'static str {
        self.profile().default_priority_type
    }

    /// The table of this release's behaviours.
    pub fn profile(self) -> &'static Profile {
        match self {
            Release::V22_05 => &SLURM_22_05,
            Release::V24_11 => &SLURM_24_11,
        }
    }
}

/// Where releases differ, one field per behaviour. `recorded/R/S/N` names a
/// conformance recording (release R, scenario S, step N) that shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profile {
    pub release: Release,
    /// slurm.conf's `PriorityType` when the key is absent.
    pub default_priority_type: &'static str,
    /// Error texts where this release's differ from 22.05's table
    /// (`errors::ERRORS`): the number and the text, None for a number the
    /// release does not have (measured with each release's own library).
    pub error_texts: &'static [(i32, Option<&'static str>)],
    /// The signal names sbatch/scancel know (24.11 added CHLD and PIPE).
    pub signal_names: spur_grammar::signal::Names,
    /// `scontrol show hostnames` reads host lists with 22.05's parser
    /// (`spur_grammar::hostlist::expand_22_05`).
    pub hostlist_22_05_parser: bool,
    /// Usage and help texts (`squeue --usage`, `sbatch --usage`) end before
    /// the options added after 22.05.
    pub usage_texts_22_05: bool,
    /// scontrol, after refusing a bad partition value itself (a time,
    /// YES/NO, OverSubscribe) or a bad `Flags=` of a reservation update,
    /// still prints `slurm_update error: No error` (recorded/22.05/scontrol_keys).
    pub update_refusal_says_no_error: bool,
    /// A bad node `Weight=` is refused with 22.05's words (`Weight value (V)
    /// is not a valid number`, then `No changes specified`).
    pub node_weight_text_22_05: bool,
    /// sbatch as 22.05's: its log level counts only the command line's `-v`
    /// (not `SBATCH_DEBUG`), `-v` also logs the select plugins' loading
    /// lines and shows `--gres` as `gres:NAME`, the options added since
    /// (`--oom-kill-step --segment --stepmgr --resv-ports --extra
    /// --container-id --tres-bind --tres-per-task`) are unknown, and a bad
    /// `--gres-flags` is not named (recorded/22.05/sbatch_surface).
    pub sbatch_22_05: bool,
    /// A submission refused for an unknown feature (`--constraint`,
    /// `--prefer`) uses up a job id: 22.05 checks the features after
    /// creating the job record, 24.11 before (recorded/*/sbatch_surface/053-056).
    pub feature_rejection_consumes_job_id: bool,
    /// Without accounting, `scontrol show job` shows the QOS the job asked
    /// for (24.11) rather than `(null)` (22.05; recorded/*/sbatch_surface/048).
    pub job_qos_shown_without_accounting: bool,

    // ---- squeue, sinfo, JSON -------------------------------------------------
    /// squeue's "Valid job states include:" list is in upper case.
    pub job_state_list_upper_case: bool,
    /// squeue's field table has the fields added after 22.05 (and `-O ExcNodes`).
    pub squeue_newer_fields: bool,
    /// `ExitCode`/`DerivedEC` print the raw wait status, not `code:signal`.
    pub exit_codes_raw: bool,
    /// sbatch's `-c N` becomes the TRES per task `cpu=N` (squeue `TresPerTask`,
    /// `scontrol show job`'s `TresPerTask=`).
    pub cpus_per_task_as_tres: bool,
    /// squeue's `StdErr` of a batch job without `-e` is its output file (else
    /// `slurm-<id>.out`) instead of nothing.
    pub squeue_stderr_falls_back_to_output: bool,
    /// Output file patterns expand only `%A %a %j %u %x` (22.05's squeue/scontrol).
    pub fname_format_22_05: bool,
    /// `--json`/`--yaml` write openapi/v0.0.38 through 22.05's serializer
    /// instead of data_parser v0.0.42, and load every job unfiltered.
    pub json_v0_0_38: bool,
    /// sinfo's error for a bad state lists 22.05's node states.
    pub node_state_list_22_05: bool,
    /// sinfo has the reservation field (`%i`, `-O Reservation`) and its long
    /// listing the RESERVATION column.
    pub sinfo_reservation_field: bool,
    /// sinfo counts a node whose only jobs are suspended as idle, not mixed
    /// (recorded/22.05/scontrol/122).
    pub suspended_only_node_idle: bool,

    // ---- scontrol ------------------------------------------------------------
    /// `show job` has one TRES line (allocated once there are any, else
    /// requested) instead of `ReqTRES=` and `AllocTRES=`.
    pub show_job_single_tres_line: bool,
    /// `show job`'s `Command=` is the script and its arguments joined by
    /// blanks (recorded/22.05/sbatch_options/075).
    pub show_job_command_with_args: bool,
    /// `show job` ends with a `Power=` line.
    pub show_job_power_line: bool,
    /// `show node` prints `LastBusyTime=` without `ResumeAfterTime=`, and the
    /// power and external sensor lines (`CapWatts=n/a`, ...).
    pub show_node_22_05_lines: bool,
    /// `update NodeName= ResumeAfter=` exists (24.11; 22.05: not a key).
    pub node_resume_after: bool,
    /// `show partition` has `ExclusiveTopo=` and `MaxCPUsPerSocket=`.
    pub show_partition_topo_fields: bool,
    /// Reservation messages and fields of 22.05: the "must be specified" list
    /// names Watts, an update error repeats as `slurm_update error:`, and
    /// `show reservation` prints `Watts=n/a`.
    pub reservation_22_05_texts: bool,

    // ---- batch job environment (spurd) -------------------------------------
    /// sbatch sets `SLURM_WORKING_CLUSTER` (cluster:address:port:protocol:select
    /// id) and none of the TRES-per-task and MPI launcher variables.
    pub env_working_cluster: bool,
    /// The job gets `SLURM_NODE_ALIASES=(null)`.
    pub env_node_aliases: bool,
    /// The job gets `SLURM_OOM_KILL_STEP` and 24.11's other newer variables.
    pub env_24_11_variables: bool,
    /// A step's tasks get srun's `SLURM_JOB_NAME` (the allocation's, inherited),
    /// else the step's name (srun's `-J` or command), where 24.11 always has
    /// the job's (recorded/22.05/srun_env/19, 30, 39).
    pub step_job_name_from_step: bool,
    /// srun in an existing allocation adds `SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0`
    /// (recorded/22.05/srun_env/19; not for its own allocation, 01).
    pub srun_pack_group_variable: bool,
    /// srun's step warnings as 22.05 words them: `srun: Warning: ...`, and
    /// `with the number of requested nodes` where 24.11 says `maximum number`
    /// (recorded/22.05/srun_env/17).
    pub srun_warnings_22_05: bool,
    /// A batch job whose script came on stdin (named `sbatch`) has no
    /// `SLURM_JOB_NAME` (recorded/22.05/srun_env/18), so its sruns name
    /// their tasks' after the step (19).
    pub stdin_batch_job_name_unset: bool,

    // ---- controller (validation) and state machine -------------------------
    /// A job asking for more nodes than its partition has is accepted and
    /// pends (`PartitionConfig`/`PartitionNodeLimit`, recorded/22.05/errors/57);
    /// its will-run test still refuses it (recorded/22.05/sbatch_options/141).
    pub oversized_jobs_pend: bool,
    /// A job held at submission shows `NumNodes=1-1` (recorded/24.11/basic/047;
    /// 22.05: `NumNodes=1`, recorded/22.05/basic/051).
    pub held_job_fixes_max_nodes: bool,
    /// afterok/afternotok on a job the controller does not know is refused
    /// (22.05 takes it as satisfied: recorded/22.05/errors/20).
    pub dependency_on_unknown_job_refused: bool,
    /// `--deadline` is compared with the time limit also when no `--time-min`
    /// was given (22.05 only with a zero one: recorded/22.05/sbatch_options/146).
    pub deadline_checks_time_limit: bool,
    /// A rejection for node configuration or count also uses up a
    /// priority/basic priority.
    pub node_rejection_consumes_priority: bool,
    /// A node that registers in service has no reason and no reason author
    /// (recorded/22.05/sinfo_formats/063, 160).
    pub registration_clears_reason: bool,
    /// Resuming a DOWN or drained node forgets its reason
    /// (recorded/22.05/scontrol/168, sinfo_formats/160).
    pub resume_forgets_reason: bool,
    /// A batch script killed by a signal fails with `JobLaunchFailure`
    /// (recorded/22.05/errors/84; 24.11: `RaisedSignal:9(Killed)`).
    pub signal_death_is_launch_failure: bool,
    /// A requeued job and a `NumNodes=` update keep only the minimum node
    /// count (`NumNodes=2`, 24.11 `2-2`: recorded/22.05/scontrol/131).
    pub node_count_min_only: bool,
    /// At `-v`, loading the job list logs the four select plugins it loaded
    /// (`scancel: select/cons_tres: common_init: select/cons_tres loaded`,
    /// ...: recorded/22.05/query_surface/146).
    pub verbose_logs_select_plugins: bool,
    /// A cluster name that cannot be resolved (`-M`, `SLURM_CLUSTERS`) ends
    /// with `fatal: Could not get cluster information`, and the variable is
    /// named `--cluster` too (22.05: no fatal line, `SLURM_CLUSTERS`:
    /// recorded/*/query_surface/029, 034).
    pub clusters_error_fatal: bool,
    /// The options squeue, sinfo and scancel gained after 22.05: squeue
    /// `--notme`, `--only-job-state`, `--expand-patterns`, sinfo
    /// `-F/--future`, scancel `-c/--cron` (22.05: unrecognized,
    /// recorded/22.05/query_surface/020, 055, 061, 113, 164).
    pub query_options_after_22_05: bool,
}

/// Slurm 24.11.5, the default.
pub const SLURM_24_11: Profile = Profile {
    error_texts: crate::errors::ERRORS_24_11,
    release: Release::V24_11,
    default_priority_type: "priority/multifactor",
    signal_names: spur_grammar::signal::Names::V24_11,
    hostlist_22_05_parser: false,
    usage_texts_22_05: false,
    update_refusal_says_no_error: false,
    node_weight_text_22_05: false,
    sbatch_22_05: false,
    feature_rejection_consumes_job_id: false,
    job_qos_shown_without_accounting: true,
    job_state_list_upper_case: false,
    squeue_newer_fields: true,
    exit_codes_raw: false,
    cpus_per_task_as_tres: true,
    squeue_stderr_falls_back_to_output: false,
    fname_format_22_05: false,
    json_v0_0_38: false,
    node_state_list_22_05: false,
    sinfo_reservation_field: true,
    suspended_only_node_idle: false,
    show_job_single_tres_line: false,
    show_job_command_with_args: false,
    show_job_power_line: false,
    show_node_22_05_lines: false,
    node_resume_after: true,
    show_partition_topo_fields: true,
    reservation_22_05_texts: false,
    env_working_cluster: false,
    env_node_aliases: false,
    env_24_11_variables: true,
    step_job_name_from_step: false,
    srun_pack_group_variable: false,
    srun_warnings_22_05: false,
    stdin_batch_job_name_unset: false,
    oversized_jobs_pend: false,
    held_job_fixes_max_nodes: true,
    dependency_on_unknown_job_refused: true,
    deadline_checks_time_limit: true,
    node_rejection_consumes_priority: false,
    registration_clears_reason: false,
    resume_forgets_reason: false,
    signal_death_is_launch_failure: false,
    node_count_min_only: false,
    verbose_logs_select_plugins: false,
    clusters_error_fatal: true,
    query_options_after_22_05: true,
};

/// Slurm 22.05.8 (Debian 12).
pub const SLURM_22_05: Profile = Profile {
    error_texts: &[],
    release: Release::V22_05,
    default_priority_type: "priority/basic",
    signal_names: spur_grammar::signal::Names::V22_05,
    hostlist_22_05_parser: true,
    usage_texts_22_05: true,
    update_refusal_says_no_error: true,
    node_weight_text_22_05: true,
    sbatch_22_05: true,
    feature_rejection_consumes_job_id: true,
    job_qos_shown_without_accounting: false,
    job_state_list_upper_case: true,
    squeue_newer_fields: false,
    exit_codes_raw: true,
    cpus_per_task_as_tres: false,
    squeue_stderr_falls_back_to_output: true,
    fname_format_22_05: true,
    json_v0_0_38: true,
    node_state_list_22_05: true,
    sinfo_reservation_field: false,
    suspended_only_node_idle: true,
    show_job_single_tres_line: true,
    show_job_command_with_args: true,
    show_job_power_line: true,
    show_node_22_05_lines: true,
    node_resume_after: false,
    show_partition_topo_fields: false,
    reservation_22_05_texts: true,
    env_working_cluster: true,
    env_node_aliases: true,
    env_24_11_variables: false,
    step_job_name_from_step: true,
    srun_pack_group_variable: true,
    srun_warnings_22_05: true,
    stdin_batch_job_name_unset: true,
    oversized_jobs_pend: true,
    held_job_fixes_max_nodes: false,
    dependency_on_unknown_job_refused: false,
    deadline_checks_time_limit: false,
    node_rejection_consumes_priority: true,
    registration_clears_reason: true,
    resume_forgets_reason: true,
    signal_death_is_launch_failure: true,
    node_count_min_only: true,
    verbose_logs_select_plugins: true,
    clusters_error_fatal: false,
    query_options_after_22_05: false,
};

static RELEASE: OnceLock<Release> = OnceLock::new();

/// What Spur's own programs (`spur`, `spurctld`, `spurd`, `spurstepd`)
/// print for `--version`: Spur's version and the Slurm release its commands
/// imitate (the Slurm commands print that release's own line).
pub fn spur_version_line() -> String {
    format!("spur {} (Slurm {})\n", env!("CARGO_PKG_VERSION"), release().version())
}

/// The release this process imitates: `SPUR_SLURM_COMPAT` if it names a known
/// release, else 24.11 (an unknown value is ignored, not an error, so that a
/// stray setting can never stop a command from running).
pub fn release() -> Release {
    *RELEASE.get_or_init(|| {
        let from_env = std::env::var(ENV).ok().and_then(|v| Release::parse(&v));
        from_env
            .or_else(|| std::fs::read_to_string(file()).ok().and_then(|v| Release::parse(v.trim())))
            .unwrap_or(Release::V24_11)
    })
}

/// Fix the release this process imitates before anything has asked
/// (libspur_compat is built for one release: it calls this first). False
/// when the release was already decided otherwise.
pub fn set_release(r: Release) -> bool {
    *RELEASE.get_or_init(|| r) == r
}

/// The file beside slurm.conf that names the release (`spur cluster up --compat`).
pub fn file() -> std::path::PathBuf {
    let conf =
        std::env::var_os("SLURM_CONF").map(std::path::PathBuf::from).unwrap_or_else(|| "/etc/slurm/slurm.conf".into());
    conf.parent().unwrap_or(std::path::Path::new("/")).join(FILE)
}

/// The name of that file.
pub const FILE: &str = "spur-compat";

/// The behaviours of the release this process imitates.
pub fn profile() -> &'static Profile {
    release().profile()
}

/// The PriorityType in force: the configured one, else the release's default.
pub fn priority_type(configured: Option<&str>) -> &str {
    match configured {
        Some(s) if !s.is_empty() => s,
        _ => release().default_priority_type(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_names() {
        assert_eq!(Release::parse("22.05"), Some(Release::V22_05));
        assert_eq!(Release::parse(" 22.05.8\n"), Some(Release::V22_05));
        assert_eq!(Release::parse("24.11"), Some(Release::V24_11));
        assert_eq!(Release::parse(""), None);
        assert_eq!(Release::parse("23.02"), None);
        assert_eq!(Release::parse("\u{0}garbage"), None);
        assert_eq!(Release::V22_05.version(), "22.05.8");
        assert_eq!(Release::V24_11.default_priority_type(), "priority/multifactor");
    }

    #[test]
    fn each_release_has_its_own_table() {
        for r in [Release::V22_05, Release::V24_11] {
            assert_eq!(r.profile().release, r);
        }
        assert_ne!(SLURM_22_05, SLURM_24_11);
    }

    #[test]
    fn configured_priority_type_wins() {
        assert_eq!(priority_type(Some("priority/basic")), "priority/basic");
    }
}
