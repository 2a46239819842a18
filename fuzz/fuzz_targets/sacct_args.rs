//! sacct's, sstat's and sacctmgr's command lines and environment
//! (`spur_cli_query::sacct::parse`, `sstat::parse`, `sacctmgr::parse`;
//! words split on NUL, `\x01NAME=VALUE` an environment entry); sacctmgr's
//! listing or its checked and echoed change of a few QOS records (`-i`: no
//! question asked, nothing sent); then sacct's output for a few
//! records of every kind: the field list, widths, units, states, the time
//! window read from `-S`/`-E`, and the `--json`/`--yaml` documents.
#![no_main]
use libfuzzer_sys::fuzz_target;
use spur_cli_query::{sacct, sacctmgr, sstat};
use spur_core::acct::{AcctJob, AcctState, AcctStep};

fuzz_target!(|data: &[u8]| {
    let (args, env) = spur_fuzz::command_line(data);
    let _ = sstat::parse(&args);
    if let Ok((mut o, cmd)) = sacctmgr::parse(&args) {
        o.immediate = true;
        let mut high = spur_core::qos::Qos::new(2, "high", "high");
        high.preempt = vec![1];
        let all = vec![spur_core::qos::Qos::normal(), high];
        match cmd {
            sacctmgr::Cmd::List { names, format } => {
                let _ = sacctmgr::render_list(&o, &names, &format, &all);
            }
            sacctmgr::Cmd::Help | sacctmgr::Cmd::Version => {}
            cmd => {
                if let Ok(conf) =
                    spur_core::config::parse_str("ClusterName=c\nSlurmctldHost=h\n", std::path::Path::new("slurm.conf"))
                {
                    let _ = sacctmgr::change(&o, &conf, |_| Ok(vec![]), cmd, &all);
                }
            }
        }
    }
    let Ok(o) = sacct::parse(&args, &env, 1_700_000_000, 0) else { return };
    // (a field is as wide as asked, as Slurm's: widths of a million or more
    // are left out)
    if args.iter().chain(env.values()).any(|w| w.as_bytes().windows(7).any(|d| d.iter().all(u8::is_ascii_digit))) {
        return;
    }
    let _ = sacct::render(&o, &records(), 1_700_000_100);
});

fn records() -> Vec<AcctJob> {
    let usage = spur_core::usage::NodeUsage {
        node: "node1".into(),
        ntasks: 2,
        user_us: 1_500_000,
        max_rss_kb: 1 << 40,
        tot_cpu_freq: 5192,
        ..Default::default()
    };
    let step = |step_id, state| AcctStep {
        step_id,
        state,
        start: 1_699_999_990,
        end: 1_700_000_050,
        nodes: vec!["node1".into()],
        ntasks: 2,
        cpus: 2,
        usage: vec![usage.clone()],
        ..Default::default()
    };
    vec![
        AcctJob {
            job_id: 7,
            name: "wrap".into(),
            user_name: "root".into(),
            state: AcctState::Cancelled,
            cancelled_by: Some(0),
            submit: 1_699_999_980,
            eligible: 1_699_999_980,
            start: 1_699_999_990,
            end: 1_700_000_050,
            nodes: vec!["node1".into(), "node2".into()],
            req_cpus: 2,
            alloc_cpus: 2,
            time_limit: Some(u32::MAX),
            exit_status: i32::MAX,
            steps: vec![step(spur_core::model::BATCH_STEP, AcctState::Cancelled), step(0, AcctState::Failed)],
            ..Default::default()
        },
        AcctJob {
            job_id: 9,
            array_job_id: 8,
            array_task_id: Some(3),
            state: AcctState::Pending,
            submit: i64::MAX,
            ..Default::default()
        },
        AcctJob {
            job_id: 8,
            array_job_id: 8,
            array_tasks: "0-2,4".into(),
            state: AcctState::Requeued,
            end: i64::MIN,
            ..Default::default()
        },
    ]
}
