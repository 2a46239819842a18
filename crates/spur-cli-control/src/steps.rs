//! `scontrol show step [JOB[.STEP]]`: the running jobs' steps (the extern
//! step, the batch step, then the others as they were created), as
//! `slurm_sprint_job_step_info` prints them.

use spur_cli_base::Output;
use spur_core::model::{ClusterView, Job, JobState, Step, BATCH_STEP, EXTERN_STEP};

pub fn steps_text(view: &ClusterView, id: Option<&str>, one_liner: bool) -> Output {
    let (want_job, mut want_step) = match id {
        None => (None, None),
        Some(id) => match id.split_once('.') {
            Some((j, st)) => (Some(j.to_string()), Some(st.to_string())),
            None => (Some(id.to_string()), None),
        },
    };
    // 22.05's scontrol reads a step name as a number (`1.batch` is step 0)
    let v22 = spur_core::compat::profile().release == spur_core::compat::Release::V22_05;
    let mut shown = id.map(String::from);
    if v22 {
        if let (Some(j), Some(st)) = (&want_job, &want_step) {
            if st.parse::<u32>().is_err() {
                shown = Some(format!("{}.0", j));
                want_step = Some("0".into());
            }
        }
    }
    let le = if one_liner { " " } else { "\n   " };
    let mut jobs: Vec<&Job> = view
        .jobs
        .iter()
        .filter(|j| matches!(j.state, JobState::Running | JobState::Suspended))
        .filter(|j| want_job.as_ref().is_none_or(|w| *w == j.job_id.to_string() || *w == j.display_id()))
        .collect();
    jobs.sort_by_key(|j| j.job_id);
    let mut out = String::new();
    for j in jobs {
        let steps: Vec<Step> = j.steps_shown();
        for st in steps {
            let label = spur_core::model::step_label(&j.display_id(), st.step_id);
            if let Some(w) = &want_step {
                if label.rsplit('.').next() != Some(w.as_str()) {
                    continue;
                }
            }
            out.push_str(&step_text(j, &st, &label, le));
            out.push_str(if one_liner { "\n" } else { "\n\n" });
        }
    }
    if out.is_empty() {
        return match shown.as_deref() {
            None => Output::ok("No job steps in the system\n"),
            Some(id) => {
                let shown = if id.contains('.') { id.to_string() } else { format!("{}.", id) };
                Output { stdout: format!("Job step {} not found\n", shown), stderr: String::new(), code: 1 }
            }
        };
    }
    Output::ok(out)
}

fn step_text(j: &Job, st: &Step, label: &str, le: &str) -> String {
    let nodes = spur_grammar::hostlist::compress_sorted(&st.node_names());
    // the batch and extern steps hold no CPUs of their own and have no TRES
    let batch = st.step_id == BATCH_STEP || st.step_id == EXTERN_STEP;
    let cpus: u32 = if batch { 0 } else { st.allocs.iter().map(|a| a.cpus).sum() };
    let mem: u64 = st.allocs.iter().map(|a| a.mem_mb).sum();
    let mut tres = format!("cpu={}", cpus);
    if mem > 0 {
        tres.push_str(&format!(",mem={}", spur_cli_base::format::convert_num_unit(mem as f64, 2)));
    }
    tres.push_str(&format!(",node={}", st.allocs.len()));
    if batch {
        tres = "(null)".into();
    }
    let mut out = format!(
        "StepId={} UserId={} StartTime={} TimeLimit={}",
        label,
        j.user_id,
        spur_cli_base::format::time_str(st.start_time),
        spur_grammar::time::fmt_limit_scontrol(st.time_limit)
    );
    out.push_str(le);
    out.push_str(&format!("State=RUNNING Partition={} NodeList={}", j.partition, nodes));
    out.push_str(le);
    out.push_str(&format!(
        "Nodes={} CPUs={} Tasks={} Name={} Network=(null)",
        st.allocs.len(),
        cpus,
        st.num_tasks,
        st.name
    ));
    out.push_str(le);
    out.push_str(&format!("TRES={}", tres));
    out.push_str(le);
    if st.resv_ports.is_empty() {
        out.push_str("ResvPorts=(null)");
    } else {
        out.push_str(&format!("ResvPorts={}", st.resv_ports));
    }
    out.push_str(le);
    out.push_str("CPUFreqReq=Default");
    if !batch {
        let d = match st.distribution.as_str() {
            "cyclic" => "Cyclic",
            "arbitrary" => "Arbitrary",
            p if p.starts_with("plane") => "Plane",
            _ => "Block",
        };
        out.push_str(&format!(" Dist={}", d));
    }
    out.push_str(le);
    if st.srun_host.is_empty() {
        out.push_str("SrunHost:Pid=(null):0");
    } else {
        out.push_str(&format!("SrunHost:Pid={}:{}", st.srun_host, st.srun_pid));
    }
    out
}
