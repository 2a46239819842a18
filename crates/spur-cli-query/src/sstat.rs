//! `sstat`: what the running steps of a job use, as Slurm 24.11's sstat
//! prints it (src/sstat/sstat.c, options.c, print.c), through the
//! controller's `StepStat` call.
//!
//! Slurm's order: the options (an option error or a bad `-j` ends it);
//! `--help`, `--helpformat`, `--usage` print and exit 0; the field list is
//! checked (`Invalid field requested`, exit 1); no job at all is `You
//! didn't give me any jobs to stat.` (exit 1); then the header, and per
//! `-j` element its steps: without a step id the first ordinary step of
//! the job (every step with `-a`), a named step alone. A job that is not
//! running (unknown, pending, ended) is an error line for that element,
//! and sstat goes on; its exit status is 0 once the header is printed.

use crate::acctprint::{self, parse_fields, usage_value, Field, Kind, Parsable, Selected, Stats, Units, Val, UF};
use spur_cli_base::opts::{self, ArgKind::*, Mode, OptSpec};
use spur_cli_base::process::{client, emit, runtime};
use spur_cli_base::version::version_line;
use spur_cli_base::Output;
use spur_core::acct::AcctStep;
use spur_core::usage::NodeUsage;
use std::collections::HashMap;

/// sstat's field keys: the usage fields and four of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TF {
    JobId,
    NodeList,
    NTasks,
    Pids,
    U(UF),
}

/// sstat's field table, in its order.
pub static FIELDS: &[Field<TF>] = &[
    Field::new(10, "AveCPU", Kind::Str, TF::U(UF::AveCpu)),
    Field::new(10, "AveCPUFreq", Kind::Str, TF::U(UF::AveCpuFreq)),
    Field::new(12, "AveDiskRead", Kind::Str, TF::U(UF::AveDiskRead)),
    Field::new(12, "AveDiskWrite", Kind::Str, TF::U(UF::AveDiskWrite)),
    Field::new(10, "AvePages", Kind::Str, TF::U(UF::AvePages)),
    Field::new(10, "AveRSS", Kind::Str, TF::U(UF::AveRss)),
    Field::new(10, "AveVMSize", Kind::Str, TF::U(UF::AveVmSize)),
    Field::new(14, "ConsumedEnergy", Kind::Str, TF::U(UF::ConsumedEnergy)),
    Field::new(17, "ConsumedEnergyRaw", Kind::Uint64, TF::U(UF::ConsumedEnergyRaw)),
    Field::new(-12, "JobID", Kind::Str, TF::JobId),
    Field::new(12, "MaxDiskRead", Kind::Str, TF::U(UF::MaxDiskRead)),
    Field::new(15, "MaxDiskReadNode", Kind::Str, TF::U(UF::MaxDiskReadNode)),
    Field::new(15, "MaxDiskReadTask", Kind::Uint, TF::U(UF::MaxDiskReadTask)),
    Field::new(12, "MaxDiskWrite", Kind::Str, TF::U(UF::MaxDiskWrite)),
    Field::new(16, "MaxDiskWriteNode", Kind::Str, TF::U(UF::MaxDiskWriteNode)),
    Field::new(16, "MaxDiskWriteTask", Kind::Uint, TF::U(UF::MaxDiskWriteTask)),
    Field::new(8, "MaxPages", Kind::Str, TF::U(UF::MaxPages)),
    Field::new(12, "MaxPagesNode", Kind::Str, TF::U(UF::MaxPagesNode)),
    Field::new(14, "MaxPagesTask", Kind::Uint, TF::U(UF::MaxPagesTask)),
    Field::new(10, "MaxRSS", Kind::Str, TF::U(UF::MaxRss)),
    Field::new(10, "MaxRSSNode", Kind::Str, TF::U(UF::MaxRssNode)),
    Field::new(10, "MaxRSSTask", Kind::Uint, TF::U(UF::MaxRssTask)),
    Field::new(10, "MaxVMSize", Kind::Str, TF::U(UF::MaxVmSize)),
    Field::new(14, "MaxVMSizeNode", Kind::Str, TF::U(UF::MaxVmSizeNode)),
    Field::new(14, "MaxVMSizeTask", Kind::Uint, TF::U(UF::MaxVmSizeTask)),
    Field::new(10, "MinCPU", Kind::Str, TF::U(UF::MinCpu)),
    Field::new(10, "MinCPUNode", Kind::Str, TF::U(UF::MinCpuNode)),
    Field::new(10, "MinCPUTask", Kind::Uint, TF::U(UF::MinCpuTask)),
    Field::new(20, "Nodelist", Kind::Str, TF::NodeList),
    Field::new(8, "NTasks", Kind::Uint, TF::NTasks),
    Field::new(20, "Pids", Kind::Str, TF::Pids),
    Field::new(10, "ReqCPUFreq", Kind::Str, TF::U(UF::ReqCpuFreqMin)),
    Field::new(13, "ReqCPUFreqMin", Kind::Str, TF::U(UF::ReqCpuFreqMin)),
    Field::new(13, "ReqCPUFreqMax", Kind::Str, TF::U(UF::ReqCpuFreqMax)),
    Field::new(13, "ReqCPUFreqGov", Kind::Str, TF::U(UF::ReqCpuFreqGov)),
    Field::new(14, "TRESUsageInAve", Kind::Str, TF::U(UF::TresUsageInAve)),
    Field::new(14, "TRESUsageInMax", Kind::Str, TF::U(UF::TresUsageInMax)),
    Field::new(18, "TRESUsageInMaxNode", Kind::Str, TF::U(UF::TresUsageInMaxNode)),
    Field::new(18, "TRESUsageInMaxTask", Kind::Str, TF::U(UF::TresUsageInMaxTask)),
    Field::new(14, "TRESUsageInMin", Kind::Str, TF::U(UF::TresUsageInMin)),
    Field::new(18, "TRESUsageInMinNode", Kind::Str, TF::U(UF::TresUsageInMinNode)),
    Field::new(18, "TRESUsageInMinTask", Kind::Str, TF::U(UF::TresUsageInMinTask)),
    Field::new(14, "TRESUsageInTot", Kind::Str, TF::U(UF::TresUsageInTot)),
    Field::new(15, "TRESUsageOutAve", Kind::Str, TF::U(UF::TresUsageOutAve)),
    Field::new(15, "TRESUsageOutMax", Kind::Str, TF::U(UF::TresUsageOutMax)),
    Field::new(19, "TRESUsageOutMaxNode", Kind::Str, TF::U(UF::TresUsageOutMaxNode)),
    Field::new(19, "TRESUsageOutMaxTask", Kind::Str, TF::U(UF::TresUsageOutMaxTask)),
    Field::new(15, "TRESUsageOutMin", Kind::Str, TF::U(UF::TresUsageOutMin)),
    Field::new(19, "TRESUsageOutMinNode", Kind::Str, TF::U(UF::TresUsageOutMinNode)),
    Field::new(19, "TRESUsageOutMinTask", Kind::Str, TF::U(UF::TresUsageOutMinTask)),
    Field::new(15, "TRESUsageOutTot", Kind::Str, TF::U(UF::TresUsageOutTot)),
];

/// The default fields (`STAT_FIELDS`) and `-i`'s.
pub const STAT_FIELDS: &str = "jobid,maxvmsize,maxvmsizenode,maxvmsizetask,avevmsize,maxrss,maxrssnode,maxrsstask,averss,maxpages,maxpagesnode,maxpagestask,avepages,mincpu,mincpunode,mincputask,avecpu,ntasks,avecpufreq,reqcpufreqmin,reqcpufreqmax,reqcpufreqgov,consumedenergy,maxdiskread,maxdiskreadnode,maxdiskreadtask,avediskread,maxdiskwrite,maxdiskwritenode,maxdiskwritetask,avediskwrite,tresusageinave,tresusageinmax,tresusageinmaxn,tresusageinmaxt,tresusageinmin,tresusageinminn,tresusageinmint,tresusageintot,tresusageoutave,tresusageoutmax,tresusageoutmaxn,tresusageoutmaxt,tresusageoutmin,tresusageoutminn,tresusageoutmint,tresusageouttot";
pub const STAT_FIELDS_PID: &str = "jobid,nodelist,pids";

const SPECS: &[OptSpec] = &[
    OptSpec::new(None, "autocomplete", Required, "autocomplete"),
    OptSpec::new(Some('a'), "allsteps", None_, "a"),
    OptSpec::new(Some('e'), "helpformat", None_, "e"),
    OptSpec::new(Some('h'), "help", None_, "h"),
    OptSpec::new(Some('j'), "jobs", Required, "j"),
    OptSpec::new(Some('n'), "noheader", None_, "n"),
    OptSpec::new(Some('o'), "fields", Required, "o"),
    OptSpec::new(Some('o'), "format", Required, "o"),
    OptSpec::new(None, "noconvert", None_, "noconvert"),
    OptSpec::new(Some('i'), "pidformat", None_, "i"),
    OptSpec::new(Some('p'), "parsable", None_, "p"),
    OptSpec::new(Some('P'), "parsable2", None_, "P"),
    OptSpec::new(None, "usage", None_, "usage"),
    OptSpec::new(Some('v'), "verbose", None_, "v"),
    OptSpec::new(Some('V'), "version", None_, "V"),
];

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SstatOpts {
    pub selected: Vec<Selected>,
    pub all_steps: bool,
    pub pid_format: bool,
    pub layout: acctprint::Layout,
    pub units: Units,
}

pub fn specs() -> Vec<OptSpec> {
    if spur_core::compat::release() == spur_core::compat::Release::V22_05 {
        opts::without(SPECS, &["autocomplete"])
    } else {
        SPECS.to_vec()
    }
}

/// `--helpformat`.
fn help_fields() -> String {
    acctprint::help_names(FIELDS.iter().map(|f| f.name))
}

/// Parse sstat's command line.
pub fn parse(args: &[String]) -> Result<SstatOpts, Output> {
    let mut o = SstatOpts::default();
    let mut fields = String::new();
    let mut help: Option<String> = None;
    let mut header = true;
    let mut parsable = Parsable::No;
    let mut job_args: Vec<String> = Vec::new();
    let p = opts::parse("sstat", &specs(), args, Mode::Permute);
    for (id, val) in &p.opts {
        let v = val.clone().unwrap_or_default();
        match *id {
            "a" => o.all_steps = true,
            "e" => help = Some(help_fields()),
            "h" => help = Some(include_str!("text/sstat_help.txt").to_string()),
            "usage" => help = Some("Usage: sstat [options] -j <job(.stepid)>\n\tUse --help for help\n".into()),
            "i" => {
                o.pid_format = true;
                fields.push_str(STAT_FIELDS_PID);
                fields.push(',');
            }
            "j" => job_args.push(v.clone()),
            "n" => header = false,
            "noconvert" => o.units.no_convert = true,
            "o" => {
                fields.push_str(&v);
                fields.push(',');
            }
            "p" => parsable = Parsable::Ending,
            "P" => parsable = Parsable::NoEnding,
            "V" => return Err(Output::ok(version_line())),
            "autocomplete" => return Err(Output::ok("")),
            _ => {}
        }
        // a bad -j ends sstat where getopt reads it
        if *id == "j" {
            let sel = acctprint::parse_selected(&v).map_err(|e| Output::err(format!("sstat: fatal: {}\n", e), 1))?;
            for s in sel {
                if !o.selected.contains(&s) {
                    o.selected.push(s);
                }
            }
        }
    }
    if let Some(e) = p.error {
        return Err(Output::err(e.message, 1));
    }
    if let Some(h) = help {
        return Err(Output::ok(h));
    }
    if let Some(first) = p.operands.first() {
        let sel = acctprint::parse_selected(first).map_err(|e| Output::err(format!("sstat: fatal: {}\n", e), 1))?;
        for s in sel {
            if !o.selected.contains(&s) {
                o.selected.push(s);
            }
        }
    }
    if fields.is_empty() {
        fields = format!("{},", STAT_FIELDS);
    }
    o.layout = parse_fields(&fields, FIELDS, false, false)
        .map_err(|b| Output::err(format!("sstat: error: Invalid field requested: \"{}\"\n", b.0), 1))?;
    o.layout.header = header;
    o.layout.parsable = parsable;
    if o.selected.is_empty() {
        return Err(Output::err("sstat: error: You didn't give me any jobs to stat.\n", 1));
    }
    Ok(o)
}

/// One running step as the controller answered for it: its record and
/// the use its nodes report, or the error text of the request.
pub type StepAnswer = (AcctStep, Result<Vec<NodeUsage>, String>);

/// What the controller said of one `-j` element.
pub enum Answer {
    /// The job's running steps.
    Steps(Vec<StepAnswer>),
    /// No such job (`couldn't get steps`).
    NoJob,
}

/// Which of a job's running steps sstat asks for: the named one, every
/// one with `-a`, else the first ordinary step.
pub fn pick(sel: &Selected, all: bool, ids: &[u32]) -> Vec<u32> {
    match sel.step {
        Some(id) => ids.iter().copied().filter(|s| *s == id).collect(),
        None if all => ids.to_vec(),
        None => ids.iter().copied().filter(|s| !acctprint::is_special(*s)).take(1).collect(),
    }
}

/// One row of a step.
fn row(o: &SstatOpts, job_id: u32, s: &AcctStep, usage: &[NodeUsage]) -> String {
    let stats = Stats::of(usage);
    let id = format!("{}.{}", job_id, acctprint::step_name(s.step_id));
    let nodes = spur_grammar::hostlist::compress(&usage.iter().map(|u| u.node.clone()).collect::<Vec<_>>());
    o.layout.row(FIELDS, |k| match k {
        TF::JobId => Val::s(id.clone()),
        TF::NodeList => Val::s(nodes.clone()),
        TF::NTasks => Val::n(stats.as_ref().map(|x| x.ntasks).unwrap_or(0)),
        TF::Pids => Val::null(),
        // the batch and extern steps carry frequencies of 0, srun's none
        // (recorded/24.11/sstat/10)
        TF::U(UF::ReqCpuFreqMin | UF::ReqCpuFreqMax | UF::ReqCpuFreqGov) if acctprint::is_special(s.step_id) => {
            Val::s("0")
        }
        // sstat gives the disk figures in bytes (recorded/24.11/sstat/08: `24222`)
        TF::U(f @ (UF::MaxDiskRead | UF::AveDiskRead | UF::MaxDiskWrite | UF::AveDiskWrite)) => match &stats {
            Some(x) => {
                let v = match f {
                    UF::MaxDiskRead => x.max_read.0,
                    UF::AveDiskRead => x.ave(x.tot_read),
                    UF::MaxDiskWrite => x.max_write.0,
                    _ => x.ave(x.tot_write),
                };
                Val::s(acctprint::small_double(v as f64, acctprint::UNIT_NONE, o.units))
            }
            None => Val::s(""),
        },
        TF::U(UF::TresUsageInMaxTask | UF::TresUsageInMinTask) if stats.is_some() => {
            stats.as_ref().map(|x| acctprint::in_tasks(x, true)).unwrap_or_else(Val::null)
        }
        TF::U(u) => usage_value(*u, stats.as_ref(), o.units),
    })
}

/// The header, then each element's rows or its error line.
pub fn render(o: &SstatOpts, answers: &[(Selected, Answer)]) -> Output {
    let mut out = Output { stdout: o.layout.header_text(FIELDS), ..Default::default() };
    for (sel, a) in answers {
        match a {
            Answer::NoJob => out.stderr.push_str(&format!("sstat: error: couldn't get steps for job {}\n", sel.job_id)),
            Answer::Steps(steps) => {
                let ids: Vec<u32> = steps.iter().map(|(s, _)| s.step_id).collect();
                let picked = pick(sel, o.all_steps, &ids);
                if picked.is_empty() {
                    match sel.step {
                        None => {
                            out.stderr.push_str(&format!("sstat: error: No steps running for job {}\n", sel.job_id))
                        }
                        Some(st) => out.stderr.push_str(&format!(
                            "sstat: error: StepId={}.{} not found running.\n",
                            sel.job_id,
                            acctprint::step_name(st)
                        )),
                    }
                }
                for (s, answer) in steps.iter().filter(|(s, _)| picked.contains(&s.step_id)) {
                    match answer {
                        Ok(usage) => out.stdout.push_str(&row(o, sel.job_id, s, usage)),
                        // as _do_stat reports a refused request
                        Err(why) => out.stderr.push_str(&format!(
                            "sstat: error: slurm_job_step_stat: there was an error with the request to {} rc = {}\n\
                             sstat: error: problem getting step_layout for StepId={}.{}: {}\n",
                            s.nodes.first().map(String::as_str).unwrap_or(""),
                            why,
                            sel.job_id,
                            acctprint::step_name(s.step_id),
                            why
                        )),
                    }
                }
            }
        }
    }
    out
}

/// sstat as a process.
pub fn run(args: &[String], env: &HashMap<String, String>) -> i32 {
    let _ = env;
    let o = match parse(args) {
        Ok(o) => o,
        Err(e) => return emit(&e),
    };
    let c = match client("sstat") {
        Ok(c) => c,
        Err(e) => return emit(&e),
    };
    let rt = runtime();
    let mut answers = Vec::new();
    for sel in &o.selected {
        // the job's steps as slurmctld lists them (slurm_get_job_steps),
        // then each one's use from its nodes
        let q = spur_core::request::Query { jobs: true, job_ids: vec![sel.job_id.to_string()], ..Default::default() };
        let view = rt.block_on(c.query(&q)).ok();
        let job = view.as_ref().and_then(|v| {
            v.jobs.iter().find(|j| match sel.task {
                Some(t) => j.array.as_ref().is_some_and(|a| a.array_job_id == sel.job_id && a.task_id == Some(t)),
                None => j.job_id == sel.job_id,
            })
        });
        let Some(job) = job else {
            answers.push((sel.clone(), Answer::NoJob));
            continue;
        };
        // the running steps, each with its first node: extern, batch, then
        // by number
        let mut live: Vec<(u32, String)> = Vec::new();
        if job.state.is_active() && job.start_time != 0 {
            live = job
                .steps
                .iter()
                .map(|s| (s.step_id, s.allocs.first().map(|a| a.node.clone()).unwrap_or_default()))
                .collect();
            if job.batch_flag != 0 && !live.iter().any(|(id, _)| *id == spur_core::model::BATCH_STEP) {
                live.push((
                    spur_core::model::BATCH_STEP,
                    job.allocs.first().map(|a| a.node.clone()).unwrap_or_default(),
                ));
            }
            live.sort_by_key(|(id, _)| match *id {
                spur_core::model::EXTERN_STEP => (0, 0),
                spur_core::model::BATCH_STEP => (1, 0),
                n => (2, n),
            });
        }
        // without a gathering plugin the step daemons count no task and
        // measure nothing (recorded/24.11/steps/24: NTasks 0)
        let gather = c.conf().get("JobAcctGatherType").is_some_and(|t| !t.eq_ignore_ascii_case("jobacct_gather/none"));
        let ids: Vec<u32> = live.iter().map(|(id, _)| *id).collect();
        let wanted = pick(sel, o.all_steps, &ids);
        let mut steps: Vec<StepAnswer> = Vec::new();
        for (id, node) in live.into_iter().filter(|(id, _)| wanted.contains(id)) {
            match rt.block_on(c.step_stat(job.job_id, id)) {
                Ok((st, usage)) => steps.push((st, Ok(if gather { usage } else { vec![] }))),
                Err(e) => {
                    let why = match e {
                        spur_client::ClientError::Slurm(_, text) => text,
                        other => other.to_string(),
                    };
                    steps.push((AcctStep { step_id: id, nodes: vec![node], ..Default::default() }, Err(why)));
                }
            }
        }
        let sel = Selected { job_id: job.job_id, ..sel.clone() };
        answers.push((sel, Answer::Steps(steps)));
    }
    emit(&render(&o, &answers))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn recorded_ntasks_layout() {
        // recorded/24.11/steps/25: a step without gathered usage
        let o = parse(&args(&["-j", "1.2", "-o", "JobID,NTasks"])).unwrap();
        let step = AcctStep { step_id: 2, ..Default::default() };
        let out = render(&o, &[(o.selected[0].clone(), Answer::Steps(vec![(step, Ok(vec![]))]))]);
        assert_eq!(out.stdout, "JobID          NTasks \n------------ -------- \n1.2                 0 \n");
        let o = parse(&args(&["-j", "1.2", "--noheader", "-o", "JobID,NTasks"])).unwrap();
        let step = AcctStep { step_id: 2, ..Default::default() };
        let out = render(&o, &[(o.selected[0].clone(), Answer::Steps(vec![(step, Ok(vec![]))]))]);
        assert_eq!(out.stdout, "1.2                 0 \n");
    }

    #[test]
    fn errors_as_slurm() {
        assert_eq!(parse(&args(&[])).unwrap_err().stderr, "sstat: error: You didn't give me any jobs to stat.\n");
        assert_eq!(
            parse(&args(&["-o", "bogus", "-j", "1"])).unwrap_err().stderr,
            "sstat: error: Invalid field requested: \"bogus\"\n"
        );
        assert_eq!(parse(&args(&["-j", "abc"])).unwrap_err().stderr, "sstat: fatal: Bad job/step specified: abc\n");
        assert_eq!(parse(&args(&["--bogus"])).unwrap_err().stderr, "sstat: unrecognized option '--bogus'\n");
        let u = parse(&args(&["--usage"])).unwrap_err();
        assert_eq!(
            (u.stdout.as_str(), u.code),
            ("Usage: sstat [options] -j <job(.stepid)>\n\tUse --help for help\n", 0)
        );
        let o = parse(&args(&["-j", "7"])).unwrap();
        let out = render(&o, &[(o.selected[0].clone(), Answer::NoJob)]);
        assert_eq!(out.stderr, "sstat: error: couldn't get steps for job 7\n");
        assert_eq!(out.code, 0);
    }

    #[test]
    fn helpformat_as_22_05_binary() {
        // the host's /usr/bin/sstat --helpformat
        let h = help_fields();
        assert!(h.starts_with("AveCPU              AveCPUFreq          AveDiskRead         AveDiskWrite       \n"));
        assert_eq!(h, include_str!("text/sstat_helpformat_22_05.out"));
    }

    #[test]
    fn default_step_and_usage() {
        let usage = vec![
            NodeUsage {
                node: "n1".into(),
                ntasks: 2,
                user_us: 3_000_000,
                sys_us: 1_000_000,
                min_cpu_us: 1_500_000,
                min_cpu_task: 1,
                max_rss_kb: 2048,
                max_rss_task: 0,
                tot_rss_kb: 3072,
                ..Default::default()
            },
            NodeUsage {
                node: "n2".into(),
                ntasks: 1,
                max_rss_kb: 1224,
                tot_rss_kb: 1224,
                min_cpu_us: 900_000,
                ..Default::default()
            },
        ];
        let steps = vec![
            (AcctStep { step_id: spur_core::model::EXTERN_STEP, ..Default::default() }, Ok(vec![])),
            (AcctStep { step_id: 0, ..Default::default() }, Ok(usage)),
        ];
        let o =
            parse(&args(&["-j", "5", "-o", "jobid,ntasks,maxrss,maxrssnode,averss,mincpu,mincpunode,avecpu", "-P"]))
                .unwrap();
        let out = render(&o, &[(o.selected[0].clone(), Answer::Steps(steps))]);
        assert_eq!(
            out.stdout,
            "JobID|NTasks|MaxRSS|MaxRSSNode|AveRSS|MinCPU|MinCPUNode|AveCPU\n5.0|3|2M|n1|1432K|00:00:00|n2|00:00:01\n"
        );
    }
}

#[cfg(test)]
mod more_tests {
    use super::*;

    #[test]
    fn another_users_step_recorded() {
        // recorded/24.11/sstat/21: header, then the node's refusal
        let o = parse(&["-j".to_string(), "1".to_string(), "-o".to_string(), "JobID,NTasks".to_string()]).unwrap();
        let step = AcctStep { step_id: 0, nodes: vec!["node1".into()], ..Default::default() };
        let out = render(&o, &[(o.selected[0].clone(), Answer::Steps(vec![(step, Err("Invalid user id".into()))]))]);
        assert_eq!(out.stdout, "JobID          NTasks \n------------ -------- \n");
        assert_eq!(
            out.stderr,
            "sstat: error: slurm_job_step_stat: there was an error with the request to node1 rc = Invalid user id\n\
             sstat: error: problem getting step_layout for StepId=1.0: Invalid user id\n"
        );
        assert_eq!(out.code, 0);
    }
}
