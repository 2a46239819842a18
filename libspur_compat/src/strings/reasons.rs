//! The reasons a job waits or failed (slurm.h's `enum job_state_reason`)
//! as text, and back: squeue's `%r` and scontrol's `Reason=` words
//! (`Priority`, `Resources`, `Dependency`, `JobHeldUser`, ...).
//!
//! 22.05 exports `slurm_job_reason_string` (an unknown number is printed
//! as a decimal) and `slurm_job_reason_num`; 24.11 renamed them
//! `slurm_job_state_reason_string` (an unknown number or a retired one,
//! `DEFUNCT_WAIT_*`, is `InvaildReason`, spelled as Slurm spells it) and
//! `slurm_job_state_reason_num`. The texts are data that must match
//! Slurm's, byte for byte: the tests compare some with Debian's real
//! libslurm.so.38 and Spur's own reason names (spur-core's `Reason`).

use crate::guard;
use crate::sys;
use std::ffi::c_char;

#[cfg(feature = "slurm-22-05")]
use std::ffi::c_int;

/// Every reason with a text, in increasing number (the reverse lookup
/// answers the first of two reasons with the same text, as Slurm does).
const REASONS: &[(sys::job_state_reason, &str)] = &[
    (sys::WAIT_NO_REASON, "None"),
    (sys::WAIT_PRIORITY, "Priority"),
    (sys::WAIT_DEPENDENCY, "Dependency"),
    (sys::WAIT_RESOURCES, "Resources"),
    (sys::WAIT_PART_NODE_LIMIT, "PartitionNodeLimit"),
    (sys::WAIT_PART_TIME_LIMIT, "PartitionTimeLimit"),
    (sys::WAIT_PART_DOWN, "PartitionDown"),
    (sys::WAIT_PART_INACTIVE, "PartitionInactive"),
    (sys::WAIT_HELD, "JobHeldAdmin"),
    (sys::WAIT_TIME, "BeginTime"),
    (sys::WAIT_LICENSES, "Licenses"),
    (sys::WAIT_ASSOC_JOB_LIMIT, "AssociationJobLimit"),
    (sys::WAIT_ASSOC_RESOURCE_LIMIT, "AssociationResourceLimit"),
    (sys::WAIT_ASSOC_TIME_LIMIT, "AssociationTimeLimit"),
    (sys::WAIT_RESERVATION, "Reservation"),
    (sys::WAIT_NODE_NOT_AVAIL, "ReqNodeNotAvail"),
    (sys::WAIT_HELD_USER, "JobHeldUser"),
    (sys::WAIT_FRONT_END, "FrontEndDown"),
    (sys::FAIL_DEFER, "SchedDefer"),
    (sys::FAIL_DOWN_PARTITION, "PartitionDown"),
    (sys::FAIL_DOWN_NODE, "NodeDown"),
    (sys::FAIL_BAD_CONSTRAINTS, "BadConstraints"),
    (sys::FAIL_SYSTEM, "SystemFailure"),
    (sys::FAIL_LAUNCH, "JobLaunchFailure"),
    (sys::FAIL_EXIT_CODE, "NonZeroExitCode"),
    (sys::FAIL_TIMEOUT, "TimeLimit"),
    (sys::FAIL_INACTIVE_LIMIT, "InactiveLimit"),
    (sys::FAIL_ACCOUNT, "InvalidAccount"),
    (sys::FAIL_QOS, "InvalidQOS"),
    (sys::WAIT_QOS_THRES, "QOSUsageThreshold"),
    (sys::WAIT_QOS_JOB_LIMIT, "QOSJobLimit"),
    (sys::WAIT_QOS_RESOURCE_LIMIT, "QOSResourceLimit"),
    (sys::WAIT_QOS_TIME_LIMIT, "QOSTimeLimit"),
    #[cfg(feature = "slurm-22-05")]
    (sys::WAIT_BLOCK_MAX_ERR, "BlockMaxError"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::FAIL_SIGNAL, "RaisedSignal"),
    #[cfg(feature = "slurm-22-05")]
    (sys::WAIT_BLOCK_D_ACTION, "BlockFreeAction"),
    (sys::WAIT_CLEANING, "Cleaning"),
    (sys::WAIT_PROLOG, "Prolog"),
    (sys::WAIT_QOS, "QOSNotAllowed"),
    (sys::WAIT_ACCOUNT, "AccountNotAllowed"),
    (sys::WAIT_DEP_INVALID, "DependencyNeverSatisfied"),
    (sys::WAIT_QOS_GRP_CPU, "QOSGrpCpuLimit"),
    (sys::WAIT_QOS_GRP_CPU_MIN, "QOSGrpCPUMinutesLimit"),
    (sys::WAIT_QOS_GRP_CPU_RUN_MIN, "QOSGrpCPURunMinutesLimit"),
    (sys::WAIT_QOS_GRP_JOB, "QOSGrpJobsLimit"),
    (sys::WAIT_QOS_GRP_MEM, "QOSGrpMemLimit"),
    (sys::WAIT_QOS_GRP_NODE, "QOSGrpNodeLimit"),
    (sys::WAIT_QOS_GRP_SUB_JOB, "QOSGrpSubmitJobsLimit"),
    (sys::WAIT_QOS_GRP_WALL, "QOSGrpWallLimit"),
    (sys::WAIT_QOS_MAX_CPU_PER_JOB, "QOSMaxCpuPerJobLimit"),
    (sys::WAIT_QOS_MAX_CPU_MINS_PER_JOB, "QOSMaxCpuMinutesPerJobLimit"),
    (sys::WAIT_QOS_MAX_NODE_PER_JOB, "QOSMaxNodePerJobLimit"),
    (sys::WAIT_QOS_MAX_WALL_PER_JOB, "QOSMaxWallDurationPerJobLimit"),
    (sys::WAIT_QOS_MAX_CPU_PER_USER, "QOSMaxCpuPerUserLimit"),
    (sys::WAIT_QOS_MAX_JOB_PER_USER, "QOSMaxJobsPerUserLimit"),
    (sys::WAIT_QOS_MAX_NODE_PER_USER, "QOSMaxNodePerUserLimit"),
    (sys::WAIT_QOS_MAX_SUB_JOB, "QOSMaxSubmitJobPerUserLimit"),
    (sys::WAIT_QOS_MIN_CPU, "QOSMinCpuNotSatisfied"),
    (sys::WAIT_ASSOC_GRP_CPU, "AssocGrpCpuLimit"),
    (sys::WAIT_ASSOC_GRP_CPU_MIN, "AssocGrpCPUMinutesLimit"),
    (sys::WAIT_ASSOC_GRP_CPU_RUN_MIN, "AssocGrpCPURunMinutesLimit"),
    (sys::WAIT_ASSOC_GRP_JOB, "AssocGrpJobsLimit"),
    (sys::WAIT_ASSOC_GRP_MEM, "AssocGrpMemLimit"),
    (sys::WAIT_ASSOC_GRP_NODE, "AssocGrpNodeLimit"),
    (sys::WAIT_ASSOC_GRP_SUB_JOB, "AssocGrpSubmitJobsLimit"),
    (sys::WAIT_ASSOC_GRP_WALL, "AssocGrpWallLimit"),
    (sys::WAIT_ASSOC_MAX_JOBS, "AssocMaxJobsLimit"),
    (sys::WAIT_ASSOC_MAX_CPU_PER_JOB, "AssocMaxCpuPerJobLimit"),
    (sys::WAIT_ASSOC_MAX_CPU_MINS_PER_JOB, "AssocMaxCpuMinutesPerJobLimit"),
    (sys::WAIT_ASSOC_MAX_NODE_PER_JOB, "AssocMaxNodePerJobLimit"),
    (sys::WAIT_ASSOC_MAX_WALL_PER_JOB, "AssocMaxWallDurationPerJobLimit"),
    (sys::WAIT_ASSOC_MAX_SUB_JOB, "AssocMaxSubmitJobLimit"),
    (sys::WAIT_MAX_REQUEUE, "JobHoldMaxRequeue"),
    (sys::WAIT_ARRAY_TASK_LIMIT, "JobArrayTaskLimit"),
    (sys::WAIT_BURST_BUFFER_RESOURCE, "BurstBufferResources"),
    (sys::WAIT_BURST_BUFFER_STAGING, "BurstBufferStageIn"),
    (sys::FAIL_BURST_BUFFER_OP, "BurstBufferOperation"),
    #[cfg(feature = "slurm-22-05")]
    (sys::WAIT_POWER_NOT_AVAIL, "PowerNotAvail"),
    #[cfg(feature = "slurm-22-05")]
    (sys::WAIT_POWER_RESERVED, "PowerReserved"),
    (sys::WAIT_ASSOC_GRP_UNK, "AssocGrpUnknown"),
    (sys::WAIT_ASSOC_GRP_UNK_MIN, "AssocGrpUnknownMinutes"),
    (sys::WAIT_ASSOC_GRP_UNK_RUN_MIN, "AssocGrpUnknownRunMinutes"),
    (sys::WAIT_ASSOC_MAX_UNK_PER_JOB, "AssocMaxUnknownPerJob"),
    (sys::WAIT_ASSOC_MAX_UNK_PER_NODE, "AssocMaxUnknownPerNode"),
    (sys::WAIT_ASSOC_MAX_UNK_MINS_PER_JOB, "AssocMaxUnknownMinutesPerJob"),
    (sys::WAIT_ASSOC_MAX_CPU_PER_NODE, "AssocMaxCpuPerNode"),
    (sys::WAIT_ASSOC_GRP_MEM_MIN, "AssocGrpMemMinutes"),
    (sys::WAIT_ASSOC_GRP_MEM_RUN_MIN, "AssocGrpMemRunMinutes"),
    (sys::WAIT_ASSOC_MAX_MEM_PER_JOB, "AssocMaxMemPerJob"),
    (sys::WAIT_ASSOC_MAX_MEM_PER_NODE, "AssocMaxMemPerNode"),
    (sys::WAIT_ASSOC_MAX_MEM_MINS_PER_JOB, "AssocMaxMemMinutesPerJob"),
    (sys::WAIT_ASSOC_GRP_NODE_MIN, "AssocGrpNodeMinutes"),
    (sys::WAIT_ASSOC_GRP_NODE_RUN_MIN, "AssocGrpNodeRunMinutes"),
    (sys::WAIT_ASSOC_MAX_NODE_MINS_PER_JOB, "AssocMaxNodeMinutesPerJob"),
    (sys::WAIT_ASSOC_GRP_ENERGY, "AssocGrpEnergy"),
    (sys::WAIT_ASSOC_GRP_ENERGY_MIN, "AssocGrpEnergyMinutes"),
    (sys::WAIT_ASSOC_GRP_ENERGY_RUN_MIN, "AssocGrpEnergyRunMinutes"),
    (sys::WAIT_ASSOC_MAX_ENERGY_PER_JOB, "AssocMaxEnergyPerJob"),
    (sys::WAIT_ASSOC_MAX_ENERGY_PER_NODE, "AssocMaxEnergyPerNode"),
    (sys::WAIT_ASSOC_MAX_ENERGY_MINS_PER_JOB, "AssocMaxEnergyMinutesPerJob"),
    (sys::WAIT_ASSOC_GRP_GRES, "AssocGrpGRES"),
    (sys::WAIT_ASSOC_GRP_GRES_MIN, "AssocGrpGRESMinutes"),
    (sys::WAIT_ASSOC_GRP_GRES_RUN_MIN, "AssocGrpGRESRunMinutes"),
    (sys::WAIT_ASSOC_MAX_GRES_PER_JOB, "AssocMaxGRESPerJob"),
    (sys::WAIT_ASSOC_MAX_GRES_PER_NODE, "AssocMaxGRESPerNode"),
    (sys::WAIT_ASSOC_MAX_GRES_MINS_PER_JOB, "AssocMaxGRESMinutesPerJob"),
    (sys::WAIT_ASSOC_GRP_LIC, "AssocGrpLicense"),
    (sys::WAIT_ASSOC_GRP_LIC_MIN, "AssocGrpLicenseMinutes"),
    (sys::WAIT_ASSOC_GRP_LIC_RUN_MIN, "AssocGrpLicenseRunMinutes"),
    (sys::WAIT_ASSOC_MAX_LIC_PER_JOB, "AssocMaxLicensePerJob"),
    (sys::WAIT_ASSOC_MAX_LIC_MINS_PER_JOB, "AssocMaxLicenseMinutesPerJob"),
    (sys::WAIT_ASSOC_GRP_BB, "AssocGrpBB"),
    (sys::WAIT_ASSOC_GRP_BB_MIN, "AssocGrpBBMinutes"),
    (sys::WAIT_ASSOC_GRP_BB_RUN_MIN, "AssocGrpBBRunMinutes"),
    (sys::WAIT_ASSOC_MAX_BB_PER_JOB, "AssocMaxBBPerJob"),
    (sys::WAIT_ASSOC_MAX_BB_PER_NODE, "AssocMaxBBPerNode"),
    (sys::WAIT_ASSOC_MAX_BB_MINS_PER_JOB, "AssocMaxBBMinutesPerJob"),
    (sys::WAIT_QOS_GRP_UNK, "QOSGrpUnknown"),
    (sys::WAIT_QOS_GRP_UNK_MIN, "QOSGrpUnknownMinutes"),
    (sys::WAIT_QOS_GRP_UNK_RUN_MIN, "QOSGrpUnknownRunMinutes"),
    (sys::WAIT_QOS_MAX_UNK_PER_JOB, "QOSMaxUnknownPerJob"),
    (sys::WAIT_QOS_MAX_UNK_PER_NODE, "QOSMaxUnknownPerNode"),
    (sys::WAIT_QOS_MAX_UNK_PER_USER, "QOSMaxUnknownPerUser"),
    (sys::WAIT_QOS_MAX_UNK_MINS_PER_JOB, "QOSMaxUnknownMinutesPerJob"),
    (sys::WAIT_QOS_MIN_UNK, "QOSMinUnknown"),
    (sys::WAIT_QOS_MAX_CPU_PER_NODE, "QOSMaxCpuPerNode"),
    (sys::WAIT_QOS_GRP_MEM_MIN, "QOSGrpMemoryMinutes"),
    (sys::WAIT_QOS_GRP_MEM_RUN_MIN, "QOSGrpMemoryRunMinutes"),
    (sys::WAIT_QOS_MAX_MEM_MINS_PER_JOB, "QOSMaxMemoryMinutesPerJob"),
    (sys::WAIT_QOS_MAX_MEM_PER_JOB, "QOSMaxMemoryPerJob"),
    (sys::WAIT_QOS_MAX_MEM_PER_NODE, "QOSMaxMemoryPerNode"),
    (sys::WAIT_QOS_MAX_MEM_PER_USER, "QOSMaxMemoryPerUser"),
    (sys::WAIT_QOS_MIN_MEM, "QOSMinMemory"),
    (sys::WAIT_QOS_GRP_ENERGY, "QOSGrpEnergy"),
    (sys::WAIT_QOS_GRP_ENERGY_MIN, "QOSGrpEnergyMinutes"),
    (sys::WAIT_QOS_GRP_ENERGY_RUN_MIN, "QOSGrpEnergyRunMinutes"),
    (sys::WAIT_QOS_MAX_ENERGY_PER_JOB, "QOSMaxEnergyPerJob"),
    (sys::WAIT_QOS_MAX_ENERGY_PER_NODE, "QOSMaxEnergyPerNode"),
    (sys::WAIT_QOS_MAX_ENERGY_PER_USER, "QOSMaxEnergyPerUser"),
    (sys::WAIT_QOS_MAX_ENERGY_MINS_PER_JOB, "QOSMaxEnergyMinutesPerJob"),
    (sys::WAIT_QOS_MIN_ENERGY, "QOSMinEnergy"),
    (sys::WAIT_QOS_GRP_NODE_MIN, "QOSGrpNodeMinutes"),
    (sys::WAIT_QOS_GRP_NODE_RUN_MIN, "QOSGrpNodeRunMinutes"),
    (sys::WAIT_QOS_MAX_NODE_MINS_PER_JOB, "QOSMaxNodeMinutesPerJob"),
    (sys::WAIT_QOS_MIN_NODE, "QOSMinNode"),
    (sys::WAIT_QOS_GRP_GRES, "QOSGrpGRES"),
    (sys::WAIT_QOS_GRP_GRES_MIN, "QOSGrpGRESMinutes"),
    (sys::WAIT_QOS_GRP_GRES_RUN_MIN, "QOSGrpGRESRunMinutes"),
    (sys::WAIT_QOS_MAX_GRES_PER_JOB, "QOSMaxGRESPerJob"),
    (sys::WAIT_QOS_MAX_GRES_PER_NODE, "QOSMaxGRESPerNode"),
    (sys::WAIT_QOS_MAX_GRES_PER_USER, "QOSMaxGRESPerUser"),
    (sys::WAIT_QOS_MAX_GRES_MINS_PER_JOB, "QOSMaxGRESMinutesPerJob"),
    (sys::WAIT_QOS_MIN_GRES, "QOSMinGRES"),
    (sys::WAIT_QOS_GRP_LIC, "QOSGrpLicense"),
    (sys::WAIT_QOS_GRP_LIC_MIN, "QOSGrpLicenseMinutes"),
    (sys::WAIT_QOS_GRP_LIC_RUN_MIN, "QOSGrpLicenseRunMinutes"),
    (sys::WAIT_QOS_MAX_LIC_PER_JOB, "QOSMaxLicensePerJob"),
    (sys::WAIT_QOS_MAX_LIC_PER_USER, "QOSMaxLicensePerUser"),
    (sys::WAIT_QOS_MAX_LIC_MINS_PER_JOB, "QOSMaxLicenseMinutesPerJob"),
    (sys::WAIT_QOS_MIN_LIC, "QOSMinLicense"),
    (sys::WAIT_QOS_GRP_BB, "QOSGrpBB"),
    (sys::WAIT_QOS_GRP_BB_MIN, "QOSGrpBBMinutes"),
    (sys::WAIT_QOS_GRP_BB_RUN_MIN, "QOSGrpBBRunMinutes"),
    (sys::WAIT_QOS_MAX_BB_PER_JOB, "QOSMaxBBPerJob"),
    (sys::WAIT_QOS_MAX_BB_PER_NODE, "QOSMaxBBPerNode"),
    (sys::WAIT_QOS_MAX_BB_PER_USER, "QOSMaxBBPerUser"),
    (sys::WAIT_QOS_MAX_BB_MINS_PER_JOB, "AssocMaxBBMinutesPerJob"),
    (sys::WAIT_QOS_MIN_BB, "QOSMinBB"),
    (sys::FAIL_DEADLINE, "DeadLine"),
    (sys::WAIT_QOS_MAX_BB_PER_ACCT, "MaxBBPerAccount"),
    (sys::WAIT_QOS_MAX_CPU_PER_ACCT, "MaxCpuPerAccount"),
    (sys::WAIT_QOS_MAX_ENERGY_PER_ACCT, "MaxEnergyPerAccount"),
    (sys::WAIT_QOS_MAX_GRES_PER_ACCT, "MaxGRESPerAccount"),
    (sys::WAIT_QOS_MAX_NODE_PER_ACCT, "MaxNodePerAccount"),
    (sys::WAIT_QOS_MAX_LIC_PER_ACCT, "MaxLicensePerAccount"),
    (sys::WAIT_QOS_MAX_MEM_PER_ACCT, "MaxMemoryPerAccount"),
    (sys::WAIT_QOS_MAX_UNK_PER_ACCT, "MaxUnknownPerAccount"),
    (sys::WAIT_QOS_MAX_JOB_PER_ACCT, "MaxJobsPerAccount"),
    (sys::WAIT_QOS_MAX_SUB_JOB_PER_ACCT, "MaxSubmitJobsPerAccount"),
    (sys::WAIT_PART_CONFIG, "PartitionConfig"),
    (sys::WAIT_ACCOUNT_POLICY, "AccountingPolicy"),
    (sys::WAIT_FED_JOB_LOCK, "FedJobLock"),
    (sys::FAIL_OOM, "OutOfMemory"),
    (sys::WAIT_PN_MEM_LIMIT, "MaxMemPerLimit"),
    (sys::WAIT_ASSOC_GRP_BILLING, "AssocGrpBilling"),
    (sys::WAIT_ASSOC_GRP_BILLING_MIN, "AssocGrpBillingMinutes"),
    (sys::WAIT_ASSOC_GRP_BILLING_RUN_MIN, "AssocGrpBillingRunMinutes"),
    (sys::WAIT_ASSOC_MAX_BILLING_PER_JOB, "AssocMaxBillingPerJob"),
    (sys::WAIT_ASSOC_MAX_BILLING_PER_NODE, "AssocMaxBillingPerNode"),
    (sys::WAIT_ASSOC_MAX_BILLING_MINS_PER_JOB, "AssocMaxBillingMinutesPerJob"),
    (sys::WAIT_QOS_GRP_BILLING, "QOSGrpBilling"),
    (sys::WAIT_QOS_GRP_BILLING_MIN, "QOSGrpBillingMinutes"),
    (sys::WAIT_QOS_GRP_BILLING_RUN_MIN, "QOSGrpBillingRunMinutes"),
    (sys::WAIT_QOS_MAX_BILLING_PER_JOB, "QOSMaxBillingPerJob"),
    (sys::WAIT_QOS_MAX_BILLING_PER_NODE, "QOSMaxBillingPerNode"),
    (sys::WAIT_QOS_MAX_BILLING_PER_USER, "QOSMaxBillingPerUser"),
    (sys::WAIT_QOS_MAX_BILLING_MINS_PER_JOB, "QOSMaxBillingMinutesPerJob"),
    (sys::WAIT_QOS_MAX_BILLING_PER_ACCT, "MaxBillingPerAccount"),
    (sys::WAIT_QOS_MIN_BILLING, "QOSMinBilling"),
    (sys::WAIT_RESV_DELETED, "ReservationDeleted"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_RESV_INVALID, "ReservationInvalid"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::FAIL_CONSTRAINTS, "Constraints"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_QOS_MAX_BB_RUN_MINS_PER_ACCT, "MaxBBRunMinsPerAccount"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_QOS_MAX_BILLING_RUN_MINS_PER_ACCT, "MaxBillingRunMinsPerAccount"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_QOS_MAX_CPU_RUN_MINS_PER_ACCT, "MaxCpuRunMinsPerAccount"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_QOS_MAX_ENERGY_RUN_MINS_PER_ACCT, "MaxEnergyRunMinsPerAccount"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_QOS_MAX_GRES_RUN_MINS_PER_ACCT, "MaxGRESRunMinsPerAccount"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_QOS_MAX_NODE_RUN_MINS_PER_ACCT, "MaxNodeRunMinsPerAccount"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_QOS_MAX_LIC_RUN_MINS_PER_ACCT, "MaxLicenseRunMinsPerAccount"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_QOS_MAX_MEM_RUN_MINS_PER_ACCT, "MaxMemoryRunMinsPerAccount"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_QOS_MAX_UNK_RUN_MINS_PER_ACCT, "MaxUnknownRunMinsPerAccount"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_QOS_MAX_BB_RUN_MINS_PER_USER, "MaxBBRunMinsPerUser"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_QOS_MAX_BILLING_RUN_MINS_PER_USER, "MaxBillingRunMinsPerUser"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_QOS_MAX_CPU_RUN_MINS_PER_USER, "MaxCpuRunMinsPerUser"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_QOS_MAX_ENERGY_RUN_MINS_PER_USER, "MaxEnergyRunMinsPerUser"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_QOS_MAX_GRES_RUN_MINS_PER_USER, "MaxGRESRunMinsPerUser"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_QOS_MAX_NODE_RUN_MINS_PER_USER, "MaxNodeRunMinsPerUser"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_QOS_MAX_LIC_RUN_MINS_PER_USER, "MaxLicenseRunMinsPerUser"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_QOS_MAX_MEM_RUN_MINS_PER_USER, "MaxMemoryRunMinsPerUser"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_QOS_MAX_UNK_RUN_MINS_PER_USER, "MaxUnknownRunMinsPerUser"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_MAX_POWERED_NODES, "MaxPoweredUpNodes"),
    #[cfg(not(feature = "slurm-22-05"))]
    (sys::WAIT_MPI_PORTS_BUSY, "MpiPortsBusy"),
];

/// The text of a reason number, if the release has one.
pub(crate) fn reason_text(inx: sys::job_state_reason) -> Option<&'static str> {
    REASONS.iter().find(|(n, _)| *n == inx).map(|(_, t)| *t)
}

/// The number of a reason text (any case): the lowest number with that
/// text. 22.05's reverse lookup leaves out `SchedDefer`.
pub(crate) fn reason_num(text: &str) -> Option<sys::job_state_reason> {
    REASONS
        .iter()
        .filter(|(n, _)| !(cfg!(feature = "slurm-22-05") && *n == sys::FAIL_DEFER))
        .find(|(_, t)| t.eq_ignore_ascii_case(text))
        .map(|(n, _)| *n)
}

/// A static copy of a reason's text (the table's texts hold no NUL).
fn ctext(t: &'static str) -> *mut c_char {
    super::cstatic(t)
}

/// `char *slurm_job_reason_string(enum job_state_reason inx)` (22.05):
/// the reason's text; an unknown number as a decimal (in a per-thread
/// buffer that the next such call overwrites, where Slurm has one shared
/// buffer). Not to be freed.
#[cfg(feature = "slurm-22-05")]
#[no_mangle]
pub extern "C" fn slurm_job_reason_string(inx: sys::job_state_reason) -> *mut c_char {
    guard(std::ptr::null_mut(), || match reason_text(inx) {
        Some(t) => ctext(t),
        None => {
            thread_local! {
                static VAL: std::cell::UnsafeCell<[c_char; 32]> = const { std::cell::UnsafeCell::new([0; 32]) };
            }
            // (printed as Slurm's "%d" prints the enum's value)
            let text = (inx as c_int).to_string();
            VAL.with(|v| {
                let p = v.get().cast::<c_char>();
                // SAFETY: the buffer is this thread's, 32 bytes; put writes
                // at most 32 bytes, NUL included.
                unsafe { super::put(p, 32, &text) };
                p
            })
        }
    })
}

/// `enum job_state_reason slurm_job_reason_num(char *reason)` (22.05): the
/// number of a reason text, in any case; NO_VAL for an unknown text and
/// NULL.
///
/// # Safety
/// `reason` is NULL or NUL-terminated.
#[cfg(feature = "slurm-22-05")]
#[no_mangle]
pub unsafe extern "C" fn slurm_job_reason_num(reason: *mut c_char) -> sys::job_state_reason {
    guard(sys::NO_VAL, || {
        // SAFETY: the contract above.
        unsafe { crate::text(reason) }.and_then(reason_num).unwrap_or(sys::NO_VAL)
    })
}

/// `const char *slurm_job_state_reason_string(enum job_state_reason inx)`
/// (24.11): the reason's text; `InvaildReason` for an unknown or retired
/// number. Not to be freed.
#[cfg(feature = "slurm-24-11")]
#[no_mangle]
pub extern "C" fn slurm_job_state_reason_string(inx: sys::job_state_reason) -> *const c_char {
    guard(std::ptr::null(), || ctext(reason_text(inx).unwrap_or("InvaildReason")).cast_const())
}

/// `enum job_state_reason slurm_job_state_reason_num(char *reason)`
/// (24.11): the number of a reason text, in any case; NO_VAL for an
/// unknown text. NULL answers the first retired number, as Slurm's
/// comparison of NULL with a missing text does.
///
/// # Safety
/// `reason` is NULL or NUL-terminated.
#[cfg(feature = "slurm-24-11")]
#[no_mangle]
pub unsafe extern "C" fn slurm_job_state_reason_num(reason: *mut c_char) -> sys::job_state_reason {
    guard(sys::NO_VAL, || {
        if reason.is_null() {
            return (0..sys::REASON_END).find(|&n| reason_text(n).is_none()).unwrap_or(sys::NO_VAL);
        }
        // SAFETY: not NULL, NUL-terminated (the contract above).
        unsafe { crate::text(reason) }.and_then(reason_num).unwrap_or(sys::NO_VAL)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::model::Reason;
    use std::ffi::CStr;

    fn string(inx: sys::job_state_reason) -> String {
        #[cfg(feature = "slurm-22-05")]
        let p = slurm_job_reason_string(inx).cast_const();
        #[cfg(feature = "slurm-24-11")]
        let p = slurm_job_state_reason_string(inx);
        // SAFETY: static or per-thread NUL-terminated text.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    fn num(text: &CStr) -> sys::job_state_reason {
        // SAFETY: NUL-terminated literal.
        #[cfg(feature = "slurm-22-05")]
        return unsafe { slurm_job_reason_num(text.as_ptr().cast_mut()) };
        // SAFETY: as above.
        #[cfg(feature = "slurm-24-11")]
        return unsafe { slurm_job_state_reason_num(text.as_ptr().cast_mut()) };
    }

    #[test]
    fn table_in_order() {
        assert!(REASONS.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(REASONS.iter().all(|(_, t)| !t.is_empty() && t.is_ascii()));
    }

    #[test]
    fn texts() {
        assert_eq!(string(sys::WAIT_NO_REASON), "None");
        assert_eq!(string(sys::WAIT_PRIORITY), "Priority");
        assert_eq!(string(sys::WAIT_RESOURCES), "Resources");
        assert_eq!(string(sys::WAIT_DEPENDENCY), "Dependency");
        assert_eq!(string(sys::WAIT_HELD_USER), "JobHeldUser");
        assert_eq!(string(sys::WAIT_HELD), "JobHeldAdmin");
        assert_eq!(string(sys::WAIT_TIME), "BeginTime");
        assert_eq!(string(sys::WAIT_NODE_NOT_AVAIL), "ReqNodeNotAvail");
        assert_eq!(string(sys::FAIL_TIMEOUT), "TimeLimit");
        assert_eq!(string(sys::WAIT_QOS_GRP_JOB), "QOSGrpJobsLimit");
        assert_eq!(string(sys::WAIT_QOS_MAX_BB_MINS_PER_JOB), "AssocMaxBBMinutesPerJob");
        assert_eq!(string(sys::WAIT_RESV_DELETED), "ReservationDeleted");
        #[cfg(feature = "slurm-22-05")]
        {
            assert_eq!(string(sys::WAIT_BLOCK_MAX_ERR), "BlockMaxError");
            assert_eq!(string(sys::WAIT_POWER_RESERVED), "PowerReserved");
            assert_eq!(string(199), "199");
            assert_eq!(string(u32::MAX), "-1");
        }
        #[cfg(feature = "slurm-24-11")]
        {
            assert_eq!(string(sys::FAIL_SIGNAL), "RaisedSignal");
            assert_eq!(string(sys::WAIT_MPI_PORTS_BUSY), "MpiPortsBusy");
            assert_eq!(string(sys::DEFUNCT_WAIT_34), "InvaildReason");
            assert_eq!(string(sys::REASON_END), "InvaildReason");
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(num(c"priority"), sys::WAIT_PRIORITY);
        assert_eq!(num(c"PartitionDown"), sys::WAIT_PART_DOWN);
        assert_eq!(num(c"AssocMaxBBMinutesPerJob"), sys::WAIT_ASSOC_MAX_BB_MINS_PER_JOB);
        assert_eq!(num(c"Nope"), sys::NO_VAL);
        #[cfg(feature = "slurm-22-05")]
        {
            assert_eq!(num(c"SchedDefer"), sys::NO_VAL);
            // SAFETY: NULL is allowed.
            assert_eq!(unsafe { slurm_job_reason_num(std::ptr::null_mut()) }, sys::NO_VAL);
        }
        #[cfg(feature = "slurm-24-11")]
        {
            assert_eq!(num(c"SchedDefer"), sys::FAIL_DEFER);
            // SAFETY: NULL is allowed.
            assert_eq!(unsafe { slurm_job_state_reason_num(std::ptr::null_mut()) }, sys::DEFUNCT_WAIT_34);
        }
        // every text maps back to itself (for the first of a pair)
        for (n, t) in REASONS {
            if let Some(back) = reason_num(t) {
                assert_eq!(reason_text(back), Some(*t), "{}", n);
            }
        }
    }

    #[test]
    fn spur_reasons_are_slurm_texts() {
        use Reason::*;
        for r in [
            None,
            Priority,
            Resources,
            Dependency,
            DependencyNeverSatisfied,
            JobHeldUser,
            JobHeldAdmin,
            BeginTime,
            PartitionNodeLimit,
            PartitionTimeLimit,
            PartitionDown,
            PartitionInactive,
            NodeDown,
            BadConstraints,
            JobArrayTaskLimit,
            NonZeroExitCode,
            TimeLimit,
            ReqNodeNotAvail,
            InvalidAccount,
        ] {
            let n = reason_num(r.text()).unwrap_or_else(|| panic!("{} is not a Slurm reason", r.text()));
            assert_eq!(reason_text(n), Some(r.text()));
        }
    }
}
