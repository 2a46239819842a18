//! Slurm's error numbers (slurm_errno.h) and the text `slurm_strerror` gives
//! for each: commands print these texts, and the C ABI returns these numbers.
//! The table was produced by calling the real library's slurm_strerror.

pub const SUCCESS: i32 = 0;
/// Slurm's generic failure (`SLURM_ERROR`).
pub const SLURM_ERROR_ANY: i32 = -1;
pub const SLURM_UNEXPECTED_MSG_ERROR: i32 = 1000;
pub const SLURM_COMMUNICATIONS_CONNECTION_ERROR: i32 = 1001;
pub const SLURM_COMMUNICATIONS_SEND_ERROR: i32 = 1002;
pub const SLURM_COMMUNICATIONS_RECEIVE_ERROR: i32 = 1003;
pub const SLURM_COMMUNICATIONS_SHUTDOWN_ERROR: i32 = 1004;
pub const SLURM_PROTOCOL_VERSION_ERROR: i32 = 1005;
pub const SLURM_PROTOCOL_IO_STREAM_VERSION_ERROR: i32 = 1006;
pub const SLURM_PROTOCOL_AUTHENTICATION_ERROR: i32 = 1007;
pub const SLURM_PROTOCOL_INSANE_MSG_LENGTH: i32 = 1008;
pub const SLURM_MPI_PLUGIN_NAME_INVALID: i32 = 1009;
pub const SLURM_MPI_PLUGIN_PRELAUNCH_SETUP_FAILED: i32 = 1010;
pub const SLURM_PLUGIN_NAME_INVALID: i32 = 1011;
pub const SLURM_UNKNOWN_FORWARD_ADDR: i32 = 1012;
pub const SLURM_COMMUNICATIONS_MISSING_SOCKET_ERROR: i32 = 1013;
pub const SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR: i32 = 1800;
pub const SLURMCTLD_COMMUNICATIONS_SEND_ERROR: i32 = 1801;
pub const SLURMCTLD_COMMUNICATIONS_RECEIVE_ERROR: i32 = 1802;
pub const SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR: i32 = 1803;
pub const SLURM_NO_CHANGE_IN_DATA: i32 = 1900;
pub const ESLURM_INVALID_PARTITION_NAME: i32 = 2000;
pub const ESLURM_DEFAULT_PARTITION_NOT_SET: i32 = 2001;
pub const ESLURM_ACCESS_DENIED: i32 = 2002;
pub const ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP: i32 = 2003;
pub const ESLURM_REQUESTED_NODES_NOT_IN_PARTITION: i32 = 2004;
pub const ESLURM_TOO_MANY_REQUESTED_CPUS: i32 = 2005;
pub const ESLURM_INVALID_NODE_COUNT: i32 = 2006;
pub const ESLURM_ERROR_ON_DESC_TO_RECORD_COPY: i32 = 2007;
pub const ESLURM_JOB_MISSING_SIZE_SPECIFICATION: i32 = 2008;
pub const ESLURM_JOB_SCRIPT_MISSING: i32 = 2009;
pub const ESLURM_USER_ID_MISSING: i32 = 2010;
pub const ESLURM_DUPLICATE_JOB_ID: i32 = 2011;
pub const ESLURM_PATHNAME_TOO_LONG: i32 = 2012;
pub const ESLURM_NOT_TOP_PRIORITY: i32 = 2013;
pub const ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE: i32 = 2014;
pub const ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE: i32 = 2015;
pub const ESLURM_NODES_BUSY: i32 = 2016;
pub const ESLURM_INVALID_JOB_ID: i32 = 2017;
pub const ESLURM_INVALID_NODE_NAME: i32 = 2018;
pub const ESLURM_WRITING_TO_FILE: i32 = 2019;
pub const ESLURM_TRANSITION_STATE_NO_UPDATE: i32 = 2020;
pub const ESLURM_ALREADY_DONE: i32 = 2021;
pub const ESLURM_INTERCONNECT_FAILURE: i32 = 2022;
pub const ESLURM_BAD_DIST: i32 = 2023;
pub const ESLURM_JOB_PENDING: i32 = 2024;
pub const ESLURM_BAD_TASK_COUNT: i32 = 2025;
pub const ESLURM_INVALID_JOB_CREDENTIAL: i32 = 2026;
pub const ESLURM_IN_STANDBY_MODE: i32 = 2027;
pub const ESLURM_INVALID_NODE_STATE: i32 = 2028;
pub const ESLURM_INVALID_FEATURE: i32 = 2029;
pub const ESLURM_INVALID_AUTHTYPE_CHANGE: i32 = 2030;
pub const ESLURM_ACTIVE_FEATURE_NOT_SUBSET: i32 = 2031;
pub const ESLURM_INVALID_SCHEDTYPE_CHANGE: i32 = 2032;
pub const ESLURM_INVALID_SELECTTYPE_CHANGE: i32 = 2033;
pub const ESLURM_INVALID_SWITCHTYPE_CHANGE: i32 = 2034;
pub const ESLURM_FRAGMENTATION: i32 = 2035;
pub const ESLURM_NOT_SUPPORTED: i32 = 2036;
pub const ESLURM_DISABLED: i32 = 2037;
pub const ESLURM_DEPENDENCY: i32 = 2038;
pub const ESLURM_BATCH_ONLY: i32 = 2039;
pub const ESLURM_TASKDIST_ARBITRARY_UNSUPPORTED: i32 = 2040;
pub const ESLURM_TASKDIST_REQUIRES_OVERCOMMIT: i32 = 2041;
pub const ESLURM_JOB_HELD: i32 = 2042;
pub const ESLURM_INVALID_CRED_TYPE_CHANGE: i32 = 2043;
pub const ESLURM_INVALID_TASK_MEMORY: i32 = 2044;
pub const ESLURM_INVALID_ACCOUNT: i32 = 2045;
pub const ESLURM_INVALID_PARENT_ACCOUNT: i32 = 2046;
pub const ESLURM_SAME_PARENT_ACCOUNT: i32 = 2047;
pub const ESLURM_INVALID_LICENSES: i32 = 2048;
pub const ESLURM_NEED_RESTART: i32 = 2049;
pub const ESLURM_ACCOUNTING_POLICY: i32 = 2050;
pub const ESLURM_INVALID_TIME_LIMIT: i32 = 2051;
pub const ESLURM_RESERVATION_ACCESS: i32 = 2052;
pub const ESLURM_RESERVATION_INVALID: i32 = 2053;
pub const ESLURM_INVALID_TIME_VALUE: i32 = 2054;
pub const ESLURM_RESERVATION_BUSY: i32 = 2055;
pub const ESLURM_RESERVATION_NOT_USABLE: i32 = 2056;
pub const ESLURM_INVALID_WCKEY: i32 = 2057;
pub const ESLURM_RESERVATION_OVERLAP: i32 = 2058;
pub const ESLURM_PORTS_BUSY: i32 = 2059;
pub const ESLURM_PORTS_INVALID: i32 = 2060;
pub const ESLURM_PROLOG_RUNNING: i32 = 2061;
pub const ESLURM_NO_STEPS: i32 = 2062;
pub const ESLURM_INVALID_BLOCK_STATE: i32 = 2063;
pub const ESLURM_INVALID_BLOCK_LAYOUT: i32 = 2064;
pub const ESLURM_INVALID_BLOCK_NAME: i32 = 2065;
pub const ESLURM_INVALID_QOS: i32 = 2066;
pub const ESLURM_QOS_PREEMPTION_LOOP: i32 = 2067;
pub const ESLURM_NODE_NOT_AVAIL: i32 = 2068;
pub const ESLURM_INVALID_CPU_COUNT: i32 = 2069;
pub const ESLURM_PARTITION_NOT_AVAIL: i32 = 2070;
pub const ESLURM_CIRCULAR_DEPENDENCY: i32 = 2071;
pub const ESLURM_INVALID_GRES: i32 = 2072;
pub const ESLURM_JOB_NOT_PENDING: i32 = 2073;
pub const ESLURM_QOS_THRES: i32 = 2074;
pub const ESLURM_PARTITION_IN_USE: i32 = 2075;
pub const ESLURM_STEP_LIMIT: i32 = 2076;
pub const ESLURM_JOB_SUSPENDED: i32 = 2077;
pub const ESLURM_CAN_NOT_START_IMMEDIATELY: i32 = 2078;
pub const ESLURM_INTERCONNECT_BUSY: i32 = 2079;
pub const ESLURM_RESERVATION_EMPTY: i32 = 2080;
pub const ESLURM_INVALID_ARRAY: i32 = 2081;
pub const ESLURM_RESERVATION_NAME_DUP: i32 = 2082;
pub const ESLURM_JOB_STARTED: i32 = 2083;
pub const ESLURM_JOB_FINISHED: i32 = 2084;
pub const ESLURM_JOB_NOT_RUNNING: i32 = 2085;
pub const ESLURM_JOB_NOT_PENDING_NOR_RUNNING: i32 = 2086;
pub const ESLURM_JOB_NOT_SUSPENDED: i32 = 2087;
pub const ESLURM_JOB_NOT_FINISHED: i32 = 2088;
pub const ESLURM_TRIGGER_DUP: i32 = 2089;
pub const ESLURM_INTERNAL: i32 = 2090;
pub const ESLURM_INVALID_BURST_BUFFER_CHANGE: i32 = 2091;
pub const ESLURM_BURST_BUFFER_PERMISSION: i32 = 2092;
pub const ESLURM_BURST_BUFFER_LIMIT: i32 = 2093;
pub const ESLURM_INVALID_BURST_BUFFER_REQUEST: i32 = 2094;
pub const ESLURM_PRIO_RESET_FAIL: i32 = 2095;
pub const ESLURM_CANNOT_MODIFY_CRON_JOB: i32 = 2096;
pub const ESLURM_INVALID_MCS_LABEL: i32 = 2099;
pub const ESLURM_BURST_BUFFER_WAIT: i32 = 2100;
pub const ESLURM_PARTITION_DOWN: i32 = 2101;
pub const ESLURM_DUPLICATE_GRES: i32 = 2102;
pub const ESLURM_JOB_SETTING_DB_INX: i32 = 2103;
pub const ESLURM_RSV_ALREADY_STARTED: i32 = 2104;
pub const ESLURM_SUBMISSIONS_DISABLED: i32 = 2105;
pub const ESLURM_NOT_HET_JOB: i32 = 2106;
pub const ESLURM_NOT_HET_JOB_LEADER: i32 = 2107;
pub const ESLURM_NOT_WHOLE_HET_JOB: i32 = 2108;
pub const ESLURM_CORE_RESERVATION_UPDATE: i32 = 2109;
pub const ESLURM_DUPLICATE_STEP_ID: i32 = 2110;
pub const ESLURM_INVALID_CORE_CNT: i32 = 2111;
pub const ESLURM_X11_NOT_AVAIL: i32 = 2112;
pub const ESLURM_GROUP_ID_MISSING: i32 = 2113;
pub const ESLURM_BATCH_CONSTRAINT: i32 = 2114;
pub const ESLURM_INVALID_TRES: i32 = 2115;
pub const ESLURM_INVALID_TRES_BILLING_WEIGHTS: i32 = 2116;
pub const ESLURM_INVALID_JOB_DEFAULTS: i32 = 2117;
pub const ESLURM_RESERVATION_MAINT: i32 = 2118;
pub const ESLURM_INVALID_GRES_TYPE: i32 = 2119;
pub const ESLURM_REBOOT_IN_PROGRESS: i32 = 2120;
pub const ESLURM_MULTI_KNL_CONSTRAINT: i32 = 2121;
pub const ESLURM_UNSUPPORTED_GRES: i32 = 2122;
pub const ESLURM_INVALID_NICE: i32 = 2123;
pub const ESLURM_INVALID_TIME_MIN_LIMIT: i32 = 2124;
pub const ESLURM_DEFER: i32 = 2125;
pub const ESLURM_CONFIGLESS_DISABLED: i32 = 2126;
pub const ESLURM_ENVIRONMENT_MISSING: i32 = 2127;
pub const ESLURM_RESERVATION_NO_SKIP: i32 = 2128;
pub const ESLURM_RESERVATION_USER_GROUP: i32 = 2129;
pub const ESLURM_PARTITION_ASSOC: i32 = 2130;
pub const ESLURM_IN_STANDBY_USE_BACKUP: i32 = 2131;
pub const ESLURM_BAD_THREAD_PER_CORE: i32 = 2132;
pub const ESLURM_INVALID_PREFER: i32 = 2133;
pub const ESLURM_INSUFFICIENT_GRES: i32 = 2134;
pub const ESLURM_PREEMPTION_REQUIRED: i32 = 2179;
pub const ESPANK_ERROR: i32 = 3000;
pub const ESPANK_BAD_ARG: i32 = 3001;
pub const ESPANK_NOT_TASK: i32 = 3002;
pub const ESPANK_ENV_EXISTS: i32 = 3003;
pub const ESPANK_ENV_NOEXIST: i32 = 3004;
pub const ESPANK_NOSPACE: i32 = 3005;
pub const ESPANK_NOT_REMOTE: i32 = 3006;
pub const ESPANK_NOEXIST: i32 = 3007;
pub const ESPANK_NOT_EXECD: i32 = 3008;
pub const ESPANK_NOT_AVAIL: i32 = 3009;
pub const ESPANK_NOT_LOCAL: i32 = 3010;
pub const ESLURMD_PIPE_ERROR_ON_TASK_SPAWN: i32 = 4000;
pub const ESLURMD_KILL_TASK_FAILED: i32 = 4001;
pub const ESLURMD_INVALID_ACCT_FREQ: i32 = 4003;
pub const ESLURMD_INVALID_JOB_CREDENTIAL: i32 = 4004;
pub const ESLURMD_UID_NOT_FOUND: i32 = 4005;
pub const ESLURMD_GID_NOT_FOUND: i32 = 4006;
pub const ESLURMD_CREDENTIAL_EXPIRED: i32 = 4007;
pub const ESLURMD_CREDENTIAL_REVOKED: i32 = 4008;
pub const ESLURMD_CREDENTIAL_REPLAYED: i32 = 4009;
pub const ESLURMD_CREATE_BATCH_DIR_ERROR: i32 = 4010;
pub const ESLURMD_MODIFY_BATCH_DIR_ERROR: i32 = 4011;
pub const ESLURMD_CREATE_BATCH_SCRIPT_ERROR: i32 = 4012;
pub const ESLURMD_MODIFY_BATCH_SCRIPT_ERROR: i32 = 4013;
pub const ESLURMD_SETUP_ENVIRONMENT_ERROR: i32 = 4014;
pub const ESLURMD_SHARED_MEMORY_ERROR: i32 = 4015;
pub const ESLURMD_SET_UID_OR_GID_ERROR: i32 = 4016;
pub const ESLURMD_SET_SID_ERROR: i32 = 4017;
pub const ESLURMD_CANNOT_SPAWN_IO_THREAD: i32 = 4018;
pub const ESLURMD_FORK_FAILED: i32 = 4019;
pub const ESLURMD_EXECVE_FAILED: i32 = 4020;
pub const ESLURMD_IO_ERROR: i32 = 4021;
pub const ESLURMD_PROLOG_FAILED: i32 = 4022;
pub const ESLURMD_EPILOG_FAILED: i32 = 4023;
pub const ESLURMD_SESSION_KILLED: i32 = 4024;
pub const ESLURMD_TOOMANYSTEPS: i32 = 4025;
pub const ESLURMD_STEP_EXISTS: i32 = 4026;
pub const ESLURMD_JOB_NOTRUNNING: i32 = 4027;
pub const ESLURMD_STEP_SUSPENDED: i32 = 4028;
pub const ESLURMD_STEP_NOTSUSPENDED: i32 = 4029;
pub const ESLURMD_INVALID_SOCKET_NAME_LEN: i32 = 4030;
pub const ESLURMD_CONTAINER_RUNTIME_INVALID: i32 = 4031;
pub const ESLURMD_CPU_BIND_ERROR: i32 = 4032;
pub const ESLURMD_CPU_LAYOUT_ERROR: i32 = 4033;
pub const SLURM_PROTOCOL_SOCKET_IMPL_ZERO_RECV_LENGTH: i32 = 5000;
pub const SLURM_PROTOCOL_SOCKET_IMPL_NEGATIVE_RECV_LENGTH: i32 = 5001;
pub const SLURM_PROTOCOL_SOCKET_IMPL_NOT_ALL_DATA_SENT: i32 = 5002;
pub const ESLURM_PROTOCOL_INCOMPLETE_PACKET: i32 = 5003;
pub const SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT: i32 = 5004;
pub const SLURM_PROTOCOL_SOCKET_ZERO_BYTES_SENT: i32 = 5005;
pub const ESLURM_AUTH_CRED_INVALID: i32 = 6000;
pub const ESLURM_AUTH_FOPEN_ERROR: i32 = 6001;
pub const ESLURM_AUTH_NET_ERROR: i32 = 6002;
pub const ESLURM_AUTH_BADARG: i32 = 6004;
pub const ESLURM_AUTH_MEMORY: i32 = 6005;
pub const ESLURM_AUTH_INVALID: i32 = 6006;
pub const ESLURM_AUTH_UNPACK: i32 = 6007;
pub const ESLURM_AUTH_SKIP: i32 = 6008;
pub const ESLURM_DB_CONNECTION: i32 = 7000;
pub const ESLURM_JOBS_RUNNING_ON_ASSOC: i32 = 7001;
pub const ESLURM_CLUSTER_DELETED: i32 = 7002;
pub const ESLURM_ONE_CHANGE: i32 = 7003;
pub const ESLURM_BAD_NAME: i32 = 7004;
pub const ESLURM_OVER_ALLOCATE: i32 = 7005;
pub const ESLURM_RESULT_TOO_LARGE: i32 = 7006;
pub const ESLURM_DB_QUERY_TOO_WIDE: i32 = 7007;
pub const ESLURM_DB_CONNECTION_INVALID: i32 = 7008;
pub const ESLURM_NO_REMOVE_DEFAULT_ACCOUNT: i32 = 7009;
pub const ESLURM_FED_CLUSTER_MAX_CNT: i32 = 7100;
pub const ESLURM_FED_CLUSTER_MULTIPLE_ASSIGNMENT: i32 = 7101;
pub const ESLURM_INVALID_CLUSTER_FEATURE: i32 = 7102;
pub const ESLURM_JOB_NOT_FEDERATED: i32 = 7103;
pub const ESLURM_INVALID_CLUSTER_NAME: i32 = 7104;
pub const ESLURM_FED_JOB_LOCK: i32 = 7105;
pub const ESLURM_FED_NO_VALID_CLUSTERS: i32 = 7106;
pub const ESLURM_MISSING_TIME_LIMIT: i32 = 8000;
pub const ESLURM_INVALID_KNL: i32 = 8001;
pub const ESLURM_PLUGIN_INVALID: i32 = 8002;
pub const ESLURM_PLUGIN_INCOMPLETE: i32 = 8003;
pub const ESLURM_REST_INVALID_QUERY: i32 = 9000;
pub const ESLURM_REST_FAIL_PARSING: i32 = 9001;
pub const ESLURM_REST_INVALID_JOBS_DESC: i32 = 9002;
pub const ESLURM_REST_EMPTY_RESULT: i32 = 9003;

/// The system errno slurmctld answers when it cannot take a job now: all job
/// ids in use (job_mgr.c `_set_job_id`: "We have exhausted our supply of valid
/// job id values") or MaxJobCount reached (`job_allocate`: "MaxJobCount limit
/// from slurm.conf reached"). sbatch then says "Slurm temporarily unable to
/// accept job, sleeping and retrying" and retries.
pub const EAGAIN: i32 = 11;

/// The texts of the system errnos Spur answers with (glibc's `strerror`,
/// which `slurm_strerror` falls back to for a number not in its table).
static SYSTEM_ERRORS: &[(i32, &str)] = &[(EAGAIN, "Resource temporarily unavailable")];

/// (number, text) for every error Slurm 22.05 knows, in order: its whole
/// `slurm_errtab` (src/common/slurm_errno.c), whose first three entries are
/// SLURM_SUCCESS, SLURM_ERROR and EINPROGRESS. Where 24.11's differ:
/// [`ERRORS_24_11`], which the release's profile names (`error_texts`).
pub static ERRORS: &[(i32, &str)] = &[
    (-1, "Unspecified error"),
    (0, "No error"),
    (115, "Operation now in progress"),
    (1000, "Unexpected message received"),
    (1001, "Communication connection failure"),
    (1002, "Message send failure"),
    (1003, "Message receive failure"),
    (1004, "Communication shutdown failure"),
    (1005, "Incompatible versions of client and server code"),
    (1006, "I/O stream version number error"),
    (1007, "Protocol authentication error"),
    (1008, "Insane message length"),
    (1009, "Invalid MPI plugin name"),
    (1010, "MPI plugin's pre-launch setup failed"),
    (1011, "Plugin initialization failed"),
    (1012, "Can't find an address, check slurm.conf"),
    (1013, "Unexpected missing socket error"),
    (1800, "Unable to contact slurm controller (connect failure)"),
    (1801, "Unable to contact slurm controller (send failure)"),
    (1802, "Unable to contact slurm controller (receive failure)"),
    (1803, "Unable to contact slurm controller (shutdown failure)"),
    (1900, "Data has not changed since time specified"),
    (2000, "Invalid partition name specified"),
    (2001, "No partition specified or system default partition"),
    (2002, "Access/permission denied"),
    (2003, "User's group not permitted to use this partition"),
    (2004, "Requested nodes not in this partition"),
    (2005, "More processors requested than permitted"),
    (2006, "Node count specification invalid"),
    (2007, "Unable to create job record, try again"),
    (2008, "Job size specification needs to be provided"),
    (2009, "Job script not specified"),
    (2010, "Invalid user id"),
    (2011, "Duplicate job id"),
    (2012, "Pathname of a file, directory or other parameter too long"),
    (2013, "Immediate execution impossible, insufficient priority"),
    (2014, "Requested node configuration is not available"),
    (2015, "Requested partition configuration not available now"),
    (2016, "Requested nodes are busy"),
    (2017, "Invalid job id specified"),
    (2018, "Invalid node name specified"),
    (2019, "I/O error writing script/environment to file"),
    (2020, "Job can not be altered now, try again later"),
    (2021, "Job/step already completing or completed"),
    (2022, "Error configuring interconnect"),
    (2023, "Task distribution specification invalid"),
    (2024, "Job is pending execution"),
    (2025, "Task count specification invalid"),
    (2026, "Error generating job credential"),
    (2027, "Slurm backup controller in standby mode"),
    (2028, "Invalid node state specified"),
    (2029, "Invalid feature specification"),
    (2030, "AuthType change requires restart of all Slurm daemons and commands to take effect"),
    (2031, "Active features not subset of available features"),
    (2032, "SchedulerType change requires restart of the slurmctld daemon to take effect"),
    (2033, "SelectType change requires restart of the slurmctld daemon to take effect"),
    (2034, "SwitchType change requires restart of all Slurm daemons and jobs to take effect"),
    (2035, "Immediate execution impossible, resources too fragmented for allocation"),
    (2036, "Requested operation not supported on this system"),
    (2037, "Requested operation is presently disabled"),
    (2038, "Job dependency problem"),
    (2039, "Only batch jobs are accepted or processed"),
    (2040, "Current SwitchType does not permit arbitrary task distribution"),
    (2041, "Requested more tasks than available processors"),
    (2042, "Job is in held state, pending scheduler release"),
    (2043, "CredType change requires restart of all Slurm daemons to take effect"),
    (2044, "Memory required by task is not available"),
    (2045, "Invalid account or account/partition combination specified"),
    (2046, "Invalid parent account specified"),
    (2047, "Account already child of parent account specified"),
    (2048, "Invalid license specification"),
    (2049, "The node configuration changes that were made require restart of the slurmctld daemon to take effect"),
    (2050, "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)"),
    (2051, "Requested time limit is invalid (missing or exceeds some limit)"),
    (2052, "Access denied to requested reservation"),
    (2053, "Requested reservation is invalid"),
    (2054, "Invalid time specified"),
    (2055, "Requested reservation is in use"),
    (2056, "Requested reservation not usable now"),
    (2057, "Invalid wckey specification"),
    (2058, "Requested reservation overlaps with another reservation"),
    (2059, "Required ports are in use"),
    (2060, "Requires more ports than can be reserved"),
    (2061, "PrologSlurmctld is still running"),
    (2062, "Job steps can not be run on this cluster"),
    (2063, "Invalid block state specified"),
    (2064, "Functionality not available with current block layout mode"),
    (2065, "Invalid block name specified"),
    (2066, "Invalid qos specification"),
    (2067, "QOS Preemption loop detected"),
    (2068, "Required node not available (down, drained or reserved)"),
    (2069, "CPU count specification invalid"),
    (2070, "Required partition not available (inactive or drain)"),
    (2071, "Circular job dependency"),
    (2072, "Invalid generic resource (gres) specification"),
    (2073, "Job is no longer pending execution"),
    (2074, "Requested account has breached requested QOS usage threshold"),
    (2075, "Partition is in use"),
    (2076, "Step limit reached for this job"),
    (2077, "Job is current suspended, requested operation disabled"),
    (2078, "Job can not start immediately"),
    (2079, "Switch resources currently not available"),
    (2080, "Reservation request lacks users, groups or accounts"),
    (2081, "Invalid job array specification"),
    (2082, "Duplicate reservation name"),
    (2083, "Job has already started"),
    (2084, "Job has already finished"),
    (2085, "Job is not running"),
    (2086, "Job is not pending nor running"),
    (2087, "Job is not suspended"),
    (2088, "Job is not finished"),
    (2089, "Duplicate event trigger"),
    (2090, "Slurm internal error, contact system administrator"),
    (2091, "BurstBufferType change requires restart of slurmctld daemon to take effect"),
    (2092, "Burst Buffer permission denied"),
    (2093, "Burst Buffer resource limit exceeded"),
    (2094, "Burst Buffer request invalid"),
    (2095, "Changes to job priority are not persistent, change nice instead"),
    (2096, "Cannot modify scrontab jobs through scontrol"),
    (2099, "Invalid mcs_label specified"),
    (2100, "Waiting for burst buffer"),
    (2101, "Partition in DOWN state"),
    (2102, "Duplicate generic resource (gres) specification"),
    (2103, "Job update not available right now, the DB index is being set, try again in a bit"),
    (2104, "Reservation already started"),
    (2105, "System submissions disabled"),
    (2106, "Job not heterogeneous job"),
    (2107, "Job not heterogeneous job leader"),
    (2108, "Operation not permitted on individual component of heterogeneous job"),
    (2109, "Core-based reservation can not be updated"),
    (2110, "Duplicate job step id"),
    (2111, "Core count for reservation node list is not consistent!"),
    (2112, "X11 forwarding not available"),
    (2113, "Invalid group id"),
    (2114, "Job --batch option is invalid or not a subset of --constraints"),
    (2115, "Invalid Trackable RESource (TRES) specification"),
    (2116, "Invalid TRESBillingWeights specification"),
    (2117, "Invalid JobDefaults specification"),
    (2118, "Job can not start due to maintenance reservation."),
    (2119, "Invalid GRES specification (with and without type identification)"),
    (2120, "Reboot already in progress"),
    (2121, "Multiple KNL NUMA and/or MCDRAM constraints require use of a heterogeneous job"),
    (2122, "Requested GRES option unsupported by configured SelectType plugin"),
    (2123, "Invalid --nice value"),
    (2124, "Invalid time-min specification (exceeds job's time or other limits)"),
    (2125, "Immediate execution impossible. Individual job submission scheduling attempts deferred"),
    (2126, "ConfigLess mode is disabled in slurm configuration."),
    (2127, "Environment is missing in job"),
    (2128, "Reservation given is not skipable, try deleting instead"),
    (2129, "Reservations can't have users and groups specified, only one or the other"),
    (2130, "Multiple partition job request not supported when a partition is set in the association"),
    (2131, "Controller is in standby mode, try a different controller"),
    (2132, "Cannot request more threads per core than the job allocation"),
    (2133, "Invalid preferred feature specification"),
    (2134, "Insufficient GRES available in allocation"),
    (3000, "Generic error"),
    (3001, "Bad argument"),
    (3002, "Not in task context"),
    (3003, "Environment variable exists"),
    (3004, "No such environment variable"),
    (3005, "Buffer too small"),
    (3006, "Valid only in remote context"),
    (3007, "Id/PID does not exist on this node"),
    (3008, "Lookup by PID requested, but no tasks running"),
    (3009, "Item not available from this callback"),
    (3010, "Valid only in local or allocator context"),
    (4000, "Pipe error on task spawn"),
    (4001, "Kill task failed"),
    (4003, "Invalid accounting frequency requested"),
    (4004, "Invalid job credential"),
    (4005, "User not found on host"),
    (4006, "Group ID not found on host"),
    (4007, "Job credential expired"),
    (4008, "Job credential revoked"),
    (4009, "Job credential replayed"),
    (4010, "Slurmd could not create a batch directory or file"),
    (4011, "Slurmd could not chown or chmod a batch directory"),
    (4012, "Slurmd could not create a batch script"),
    (4013, "Slurmd could not chown or chmod a batch script"),
    (4014, "Slurmd could not set up environment for batch job"),
    (4015, "Slurmd shared memory error"),
    (4016, "Slurmd could not set UID or GID"),
    (4017, "Slurmd could not set session ID"),
    (4018, "Slurmd could not spawn I/O thread"),
    (4019, "Slurmd could not fork job"),
    (4020, "Slurmd could not execve job"),
    (4021, "Slurmd could not connect IO"),
    (4022, "Job prolog failed"),
    (4023, "Job epilog failed"),
    (4024, "Session manager killed"),
    (4025, "Too many job steps on node"),
    (4026, "Job step already exists"),
    (4027, "Job step not running"),
    (4028, "Job step is suspended"),
    (4029, "Job step is not currently suspended"),
    (4030, "Unix socket name exceeded maximum length"),
    (4031, "Container runtime not configured or invalid"),
    (4032, "Unable to satisfy cpu bind request"),
    (4033, "Unable to layout tasks on given cpus"),
    (4100, "unable to change directory to work directory"),
    (4101, "could not open output file"),
    (4102, "Script terminated with non-zero exit code"),
    (5000, "Received zero length message"),
    (5001, "Received message length < 0"),
    (5002, "Failed to send entire message"),
    (5003, "Header lengths are longer than data received"),
    (5004, "Socket timed out on send/recv operation"),
    (5005, "Zero Bytes were transmitted or received"),
    (6000, "Invalid authentication credential"),
    (6001, "Failed to open authentication public key"),
    (6002, "Failed to connect to authentication agent"),
    (6004, "Bad argument to plugin function"),
    (6005, "Memory management error"),
    (6006, "Authentication credential invalid"),
    (6007, "Cannot unpack credential"),
    (6008, "Authentication does not apply to request"),
    (7000, "Unable to connect to database"),
    (7001, "Job(s) active, cancel job(s) before remove"),
    (7002, "Cluster deleted, commit/rollback immediately"),
    (7003, "Can only change one at a time"),
    (7004, "Unacceptable name given. (No '.' in name allowed)"),
    (7005, "You can not allocate more than 100% of a resource"),
    (7006, "Query result exceeds size limit"),
    (7007, "Too wide of a date range in query"),
    (7008, "Database connection reference is invalid"),
    (7009, "You can not remove the default account of a user"),
    (7100, "Too many clusters in federation"),
    (7101, "Clusters can only be assigned to one federation"),
    (7102, "Invalid cluster feature specification"),
    (7103, "Not a valid federated job"),
    (7104, "Invalid cluster name"),
    (7105, "Job locked by another sibling"),
    (7106, "No eligible clusters for federated job"),
    (8000, "Time limit specification required, but not provided"),
    (8001, "Invalid KNL configuration (MCDRAM or NUMA option)"),
    (8002, "Plugin has invalid format or unable to be loaded"),
    (8003, "Plugin missing required symbol or function"),
    (9000, "Query empty or not RFC7320 compliant"),
    (9001, "Failure during parsing"),
    (9002, "Jobs description entry not found, empty or not dictionary or list"),
    (9003, "Nothing found with query"),
    (9200, "Unable to resolve path"),
    (9201, "Data pointer is NULL"),
    (9202, "Unable to convert Data type"),
    (9203, "Unable to compile regex"),
    (9204, "MIME type is unknown to any loaded plugins"),
    (9205, "DATA too large to handle"),
];

/// Where Slurm 24.11's texts differ from 22.05's (`ERRORS`): the number and
/// 24.11's text, or None where 24.11 has no such error ("Unknown error N").
/// Measured: `slurm_strerror` of every number from -5 to 9999 with Debian 12's
/// libslurm.so.38 and Debian 13's libslurm.so.42.
pub const ERRORS_24_11: &[(i32, Option<&str>)] = &[
    (1014, Some("Unable to process incoming file descriptor")),
    (1015, Some("Unable to process outgoing file descriptor")),
    (1016, Some("Unable to process incoming and outgoing file descriptors")),
    (1804, Some("Rate limit exceeded, please retry momentarily")),
    (1805, Some("Rate limit exceeded, please retry later")),
    (2040, Some("Licenses currently unavailable")),
    (2041, Some("Unable to takeover, heartbeat file is missing")),
    (2063, Some("Job cannot be submitted without the current working directory specified.")),
    (2064, None),
    (2065, None),
    (2097, Some("JobContainerType change requires restart of all Slurm daemons and commands to take effect")),
    (2098, Some("Cannot cancel scrontab jobs without --cron flag.")),
    (2103, None),
    (2114, Some("Job --batch option is invalid or not a subset of --constraint")),
    (2135, Some("Invalid container id specified")),
    (2136, Some("JobID must not be an empty string")),
    (2137, Some("JobID can not be zero")),
    (2138, Some("JobID can not be a negative number")),
    (2139, Some("JobID larger than acceptable range")),
    (2140, Some("JobID includes unexpected non-numeric characters")),
    (2141, Some("Job Array ID must not be an empty string")),
    (2142, Some("Job Array ID can not be a negative number")),
    (2143, Some("Job Array ID larger than acceptable range")),
    (2144, Some("Job Array ID includes unexpected non-numeric characters")),
    (2146, Some("HetJob component must not be an empty string")),
    (2147, Some("HetJob component can not be a negative number")),
    (2148, Some("HetJob component larger than acceptable range")),
    (2150, Some("StepID must not be an empty string")),
    (2151, Some("StepID can not be a negative number")),
    (2152, Some("StepID larger than acceptable range")),
    (2153, Some("StepID includes unexpected non-numeric characters")),
    (2154, Some("HetStep component must not be an empty string")),
    (2155, Some("HetStep component can not be zero")),
    (2156, Some("HetStep component can not be a negative number")),
    (2157, Some("HetStep component larger than acceptable range")),
    (2158, Some("HetStep component includes unexpected non-numeric characters")),
    (2159, Some("HetJob can not Het step id")),
    (2160, Some("Job killed due hitting max wall clock limit")),
    (2161, Some("Job killed due node failure")),
    (2162, Some("Empty list")),
    (2163, Some("Invalid group ID")),
    (2164, Some("Unable to resolve group ID to group name")),
    (2165, Some("Invalid user ID")),
    (2166, Some("Unable to resolve user ID to user name")),
    (2167, Some("Invalid or unknown association")),
    (2168, Some("Node already exists in the node table")),
    (2169, Some("Unable to add node, node table is full")),
    (2170, Some("Invalid QOS specification, relative QOS can only be used in a single partition per cluster.")),
    (2171, Some("Invalid extra constraints specification")),
    (2172, Some("Cannot signal job")),
    (2173, Some("Invalid signal jobs request, at least one job id or filter is required.")),
    (2174, Some("RestrictedCoresPerGPU: Not enough unique cores per GPU")),
    (2175, Some("RestrictedCoresPerGPU: Missing core topology for GPUs")),
    (2176, Some("RestrictedCoresPerGPU: No GPUs configured on node")),
    (2177, Some("Max powered up nodes reached")),
    (2178, Some("Requested topology configuration is not available")),
    (2179, Some("Preemption is required but is disabled on this system")),
    (4000, None),
    (4005, None),
    (4006, None),
    (4011, None),
    (4012, None),
    (4013, None),
    (4015, None),
    (4017, None),
    (4018, None),
    (4019, None),
    (4024, None),
    (4100, None),
    (4101, None),
    (4102, None),
    (5000, None),
    (5001, None),
    (5002, None),
    (6001, Some("Authentication credential expired")),
    (6002, None),
    (6005, None),
    (6006, None),
    (6009, Some("Token Generation failed.")),
    (7010, Some("There is something internally wrong with the SQL needed for this. Please consult the slurmdbd log for more info.")),
    (7011, Some("This request would make it so some associations would not have access to their default qos.")),
    (7012, Some("Coordinators can not increase job limits beyond the parent ones")),
    (8004, Some("Required plugin type not loaded or initialized")),
    (8005, Some("Plugin file not found")),
    (8006, Some("Plugin access denied")),
    (8007, Some("Dlopen of plugin file failed")),
    (8008, Some("Plugin init() callback failed")),
    (8009, Some("Plugin name/type/version symbol missing")),
    (8010, Some("Incompatible plugin version")),
    (9004, Some("Missing UNIX user in the system")),
    (9005, Some("Missing UNIX group in the system")),
    (9205, Some("Data too large to handle")),
    (9206, Some("Data parser expects flags to be a list")),
    (9207, Some("Data parser unable to parse invalid flag")),
    (9208, Some("Data parser expected a list")),
    (9209, Some("Data parser expected a dictionary or object")),
    (9210, Some("Request matched more than one object to modify. Modifications must only apply to a single object. Try adding more properties to make update match a unique object.")),
    (9211, Some("Request matched more than one object to query. Request is limited to query of a single matching object.")),
    (9212, Some("Request to parse empty string rejected")),
    (9213, Some("Invalid parser requested")),
    (9214, Some("Parsing tree too deep. Possible cyclic parsing detected")),
    (9215, Some("Parser went into an invalid state. Possible library issue.")),
];

/// The text Slurm prints for an error number (`slurm_strerror`).
pub fn strerror(code: i32) -> String {
    strerror_in(crate::compat::profile(), code)
}

/// The text a release's Slurm gives (its profile's `error_texts` over
/// [`ERRORS`]): None where that release has no such error.
pub fn text_in(profile: &crate::compat::Profile, code: i32) -> Option<&'static str> {
    if let Some((_, t)) = profile.error_texts.iter().find(|e| e.0 == code) {
        return *t;
    }
    ERRORS.binary_search_by_key(&code, |e| e.0).ok().map(|i| ERRORS[i].1)
}

/// [`strerror`] as the release of `profile` gives it.
pub fn strerror_in(profile: &crate::compat::Profile, code: i32) -> String {
    match text_in(profile, code) {
        Some(t) => t.to_string(),
        None => match SYSTEM_ERRORS.iter().find(|e| e.0 == code) {
            Some(e) => e.1.to_string(),
            None => format!("Unknown error {}", code),
        },
    }
}

/// strsignal(3)'s text for a signal (Slurm's `RaisedSignal:9(Killed)` reason,
/// recorded/24.11/errors/84; srun's `task 0: Killed`).
pub fn signal_text(sig: i32) -> String {
    let t = match sig {
        1 => "Hangup",
        2 => "Interrupt",
        3 => "Quit",
        4 => "Illegal instruction",
        5 => "Trace/breakpoint trap",
        6 => "Aborted",
        7 => "Bus error",
        8 => "Floating point exception",
        9 => "Killed",
        10 => "User defined signal 1",
        11 => "Segmentation fault",
        12 => "User defined signal 2",
        13 => "Broken pipe",
        14 => "Alarm clock",
        15 => "Terminated",
        24 => "CPU time limit exceeded",
        25 => "File size limit exceeded",
        _ => return format!("Unknown signal {}", sig),
    };
    t.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn lookup() {
        assert_eq!(strerror(ESLURM_INVALID_PARTITION_NAME), "Invalid partition name specified");
        assert_eq!(strerror(ESLURM_INVALID_JOB_ID), "Invalid job id specified");
        assert!(ERRORS.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!((strerror(0).as_str(), strerror(SLURM_ERROR_ANY).as_str()), ("No error", "Unspecified error"));
        // a system errno: glibc's text, as slurm_strerror falls back to it
        assert_eq!(strerror(EAGAIN), "Resource temporarily unavailable");
    }
}
