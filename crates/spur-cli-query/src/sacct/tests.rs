//! sacct's parse and render against the recordings of
//! conformance/recorded/24.11/sacct (the records built by hand as the
//! controller would send them).

use super::*;
use spur_core::usage::NodeUsage;

const NOW: i64 = 1_796_212_800;

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

fn run(a: &[&str], jobs: &[AcctJob]) -> Output {
    match parse(&args(a), &HashMap::new(), NOW, 0) {
        Ok(o) => render(&o, jobs, NOW),
        Err(e) => e,
    }
}

fn batch(state: AcctState, status: i32, cpus: u32, mem: u64) -> AcctStep {
    AcctStep {
        step_id: spur_core::model::BATCH_STEP,
        name: "batch".into(),
        state,
        start: NOW - 100,
        end: NOW - 90,
        exit_status: Some(status),
        nodes: vec!["node1".into()],
        ntasks: 1,
        cpus,
        mem_mb: mem,
        ..Default::default()
    }
}

fn job(id: u32, name: &str, state: AcctState, status: i32) -> AcctJob {
    AcctJob {
        job_id: id,
        cluster: "spur".into(),
        partition: "debug".into(),
        account: "root".into(),
        name: name.into(),
        user_name: "root".into(),
        group_name: "root".into(),
        state,
        reason: "None".into(),
        submit: NOW - 102,
        eligible: NOW - 102,
        start: NOW - 100,
        end: NOW - 90,
        exit_status: status,
        nodes: vec!["node1".into()],
        req_nodes: 1,
        req_cpus: 1,
        alloc_cpus: 1,
        req_mem_mb: 500,
        alloc_mem_mb: 500,
        priority: 1,
        steps: vec![batch(state, status, 1, 500)],
        ..Default::default()
    }
}

fn held() -> AcctJob {
    AcctJob {
        job_id: 6,
        name: "held_job".into(),
        state: AcctState::Pending,
        start: 0,
        end: 0,
        eligible: 0,
        nodes: vec![],
        alloc_cpus: 0,
        alloc_mem_mb: 0,
        priority: 0,
        steps: vec![],
        ..job(6, "held_job", AcctState::Pending, 0)
    }
}

fn cancelled() -> AcctJob {
    let mut j = job(8, "cancel_run", AcctState::Cancelled, 0);
    j.cancelled_by = Some(0);
    j.steps[0].state = AcctState::Cancelled;
    j.steps[0].exit_status = Some(15);
    j
}

const HEAD: &str = "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode \n------------ ---------- ---------- ---------- ---------- ---------- -------- \n";

#[test]
fn default_columns_recorded() {
    // recorded/24.11/sacct/033, 034, 036, 038
    let o = run(&["-j", "3"], &[job(3, "ok_job", AcctState::Completed, 0)]);
    assert_eq!(
        o.stdout,
        format!(
            "{}{}",
            HEAD,
            "3                ok_job      debug       root          1  COMPLETED      0:0 \n3.batch           batch                  root          1  COMPLETED      0:0 \n"
        )
    );
    let o = run(&["-j", "4"], &[job(4, "fail_job", AcctState::Failed, 3 << 8)]);
    assert!(o.stdout.ends_with("4.batch           batch                  root          1     FAILED      3:0 \n"));
    let o = run(&["-j", "6"], &[held()]);
    assert_eq!(
        o.stdout,
        format!("{}6              held_job      debug       root          0    PENDING      0:0 \n", HEAD)
    );
    let o = run(&["-j", "8"], &[cancelled()]);
    assert_eq!(
        o.stdout,
        format!(
            "{}{}",
            HEAD,
            "8            cancel_run      debug       root          1 CANCELLED+      0:0 \n8.batch           batch                  root          1  CANCELLED     0:15 \n"
        )
    );
    // recorded/24.11/sacct/070
    let o = run(&["-X", "-P", "--format=JobID,State,ExitCode", "-j", "8"], &[cancelled()]);
    assert_eq!(o.stdout, "JobID|State|ExitCode\n8|CANCELLED by 0|0:0\n");
    // recorded/24.11/sacct/077
    let o = run(&["-X", "--noheader", "--format=jobid,state%20", "--job", "8"], &[cancelled()]);
    assert_eq!(o.stdout, "8                  CANCELLED by 0 \n");
}

#[test]
fn arrays_sorted_and_named() {
    // recorded/24.11/sacct/061: the meta record (10) last, as task 3
    let task = |id: u32, t: u32, submit: i64| AcctJob {
        array_job_id: 10,
        array_task_id: Some(t),
        submit,
        ..job(id, "arr_job", AcctState::Completed, 0)
    };
    let jobs = vec![task(10, 3, NOW - 50), task(11, 0, NOW - 50), task(13, 2, NOW - 50), task(12, 1, NOW - 50)];
    let o = run(&["-X", "-j", "10", "-o", "JobIDRaw,JobID,Cluster,QOS,Restarts"], &jobs);
    assert_eq!(
        o.stdout,
        "JobIDRaw     JobID           Cluster        QOS Restarts \n------------ ------------ ---------- ---------- -------- \n\
11           10_0               spur     normal        0 \n\
12           10_1               spur     normal        0 \n\
13           10_2               spur     normal        0 \n\
10           10_3               spur     normal        0 \n"
    );
    let o = run(&["-j", "10_2", "-o", "JobIDRaw,JobID,Restarts"], &jobs[2..3]);
    assert!(o.stdout.ends_with("13           10_2                0 \n13.batch     10_2.batch            \n"));
}

#[test]
fn tres_and_counts_recorded() {
    // recorded/24.11/sacct/060
    let o = run(
        &["-j", "3,6", "-o", "JobID,ReqTRES%40,AllocTRES%40,ReqCPUS,AllocCPUS,ReqMem,ReqNodes,AllocNodes"],
        &[job(3, "ok_job", AcctState::Completed, 0), held()],
    );
    assert_eq!(
        o.stdout,
        "JobID                                         ReqTRES                                AllocTRES  ReqCPUS  AllocCPUS     ReqMem ReqNodes AllocNodes \n\
------------ ---------------------------------------- ---------------------------------------- -------- ---------- ---------- -------- ---------- \n\
3                     billing=1,cpu=1,mem=500M,node=1          billing=1,cpu=1,mem=500M,node=1        1          1       500M        1          1 \n\
3.batch                                                                  cpu=1,mem=500M,node=1        1          1                   1          1 \n\
6                     billing=1,cpu=1,mem=500M,node=1                                                 1          0       500M        1          0 \n"
    );
}

#[test]
fn times_limits_flags_recorded() {
    // recorded/24.11/sacct/058 and 063 (dates in this machine's zone)
    let mut c = job(3, "ok_job", AcctState::Completed, 0);
    c.time_limit = None;
    let mut y = held();
    y.job_id = 9;
    y.state = AcctState::Cancelled;
    y.end = NOW - 10;
    let o = run(&["-X", "-j", "3,9", "-o", "JobID,Start,Eligible,Timelimit,Reason,Flags"], &[c, y]);
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "JobID                      Start            Eligible  Timelimit                 Reason               Flags "
    );
    assert!(lines[2].ends_with("  UNLIMITED                   None SchedMain,StartRec+ "));
    assert!(lines[3].contains("                None             Unknown Partition+                   None"));
    // relative times: today's show the clock (recorded/24.11/sacct/165)
    assert_eq!(acctprint::relative_date(NOW - 5, NOW).len(), 8);
    assert_eq!(acctprint::relative_date(0, NOW), "Unknown");
}

#[test]
fn usage_of_steps_recorded() {
    // recorded/24.11/sacct/050 and 055: one task on node1
    let mut u = job(15, "usage_job", AcctState::Completed, 0);
    u.steps[0].start = NOW - 104;
    u.steps[0].end = NOW - 100;
    u.start = NOW - 104;
    u.end = NOW - 100;
    u.steps[0].usage = vec![NodeUsage {
        node: "node1".into(),
        ntasks: 1,
        user_us: 5_000,
        sys_us: 3_000,
        max_rss_kb: 11424,
        tot_rss_kb: 11424,
        max_vmsize_kb: 219600,
        tot_vmsize_kb: 219600,
        max_read_bytes: 20_000,
        tot_read_bytes: 20_000,
        max_write_bytes: 100,
        tot_write_bytes: 100,
        ..Default::default()
    }];
    let o = run(
        &["-j", "15", "-o", "JobID,JobName,NTasks,MaxRSS,AveRSS,MaxVMSize,MaxRSSNode,MaxRSSTask,AveCPU,TotalCPU,MinCPU,MaxDiskRead,MaxDiskWrite"],
        &[u.clone()],
    );
    assert_eq!(
        o.stdout,
        "JobID           JobName   NTasks     MaxRSS     AveRSS  MaxVMSize MaxRSSNode MaxRSSTask     AveCPU   TotalCPU     MinCPU  MaxDiskRead MaxDiskWrite \n\
------------ ---------- -------- ---------- ---------- ---------- ---------- ---------- ---------- ---------- ---------- ------------ ------------ \n\
15            usage_job                                                                             00:00.008                                      \n\
15.batch          batch        1     11424K     11424K    219600K      node1          0   00:00:00  00:00.008   00:00:00        0.02M        0.00M \n"
    );
    let o = run(&["-j", "15", "-P", "-o", "JobID,MaxRSS,Elapsed,TotalCPU,CPUTime,CPUTimeRAW,ElapsedRaw"], &[u.clone()]);
    assert_eq!(
        o.stdout,
        "JobID|MaxRSS|Elapsed|TotalCPU|CPUTime|CPUTimeRAW|ElapsedRaw\n15||00:00:04|00:00.008|00:00:04|4|4\n15.batch|11424K|00:00:04|00:00.008|00:00:04|4|4\n"
    );
    // recorded/24.11/sacct/051-054
    u.req_mem_mb = 400;
    let units = |a: &str| run(&["-j", "15", a, "-o", "JobID,MaxRSS,ReqMem"], &[u.clone()]).stdout;
    assert!(run(&["-j", "15", "--units=K", "-o", "JobID,MaxRSS,ReqMem"], &[u.clone()])
        .stdout
        .contains("15                         409600K \n"));
    assert!(units("--units=M").contains("15.batch         11.16M            \n"));
    assert!(units("--units=G").contains("15.batch          0.01G            \n"));
    assert!(units("--noconvert").contains("15.batch       11698176            \n"));
}

#[test]
fn errors_recorded() {
    // recorded/24.11/sacct/062, 129, 170-174
    let e = run(&["-j", "10", "-o", "JobID,ArrayJobID,ArrayTaskID"], &[]);
    assert_eq!((e.stderr.as_str(), e.code), ("sacct: error: Invalid field requested: \"ArrayJobID\"\n", 1));
    let e = run(&["-X", "-s", "nosuchstate"], &[]);
    assert_eq!((e.stderr.as_str(), e.code), ("sacct: fatal: unrecognized job state value 'nosuchstate'\n", 1));
    assert_eq!(run(&["-s", "CG"], &[]).stderr, "sacct: fatal: job state CG is not supported / accounted\n");
    assert_eq!(run(&["--bogus"], &[]).stderr, "sacct: unrecognized option '--bogus'\n");
    assert_eq!(run(&["-j", "abc"], &[]).stderr, "sacct: fatal: Bad job/step specified: abc\n");
    assert_eq!(run(&["-S", "garbage"], &[]).stderr, "Invalid time specification (pos=0): garbage\n");
    assert_eq!(run(&["--usage"], &[]).stdout, "Usage: sacct [options]\n\tUse --help for help\n");
    assert_eq!(run(&["-j", "999999"], &[]).stdout, HEAD);
    assert_eq!(run(&["--user=nosuchuser"], &[]).stderr, "sacct: error: Invalid user id: nosuchuser\n");
    let e = run(&["-l", "-o", "jobid"], &[]);
    assert_eq!(
        e.stderr,
        "sacct: fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please remove one and retry.\n"
    );
    let e = run(&["--units=Q"], &[]);
    assert_eq!(
        e.stderr,
        "sacct: error: Invalid unit type 'Q'. Possible options are 'KMGTP'\nsacct: fatal: Invalid unit type\n"
    );
    let e = run(&["-S", "now+1hour"], &[]);
    assert!(e.stderr.starts_with("sacct: error: Start time ("), "{}", e.stderr);
    assert!(run(&["stray"], &[]).stderr.contains("sacct: error: Unknown arguments:\nsacct: error:  stray\n"));
}

#[test]
fn helpformat_recorded() {
    let h = run(&["--helpformat"], &[]).stdout;
    assert!(h.starts_with("Account             AdminComment        AllocCPUS           AllocNodes         \n"));
    assert!(h.ends_with("WCKeyID             WorkDir            \n"));
    assert_eq!(h, run(&["-e"], &[]).stdout);
}

#[test]
fn widths_and_step_selection() {
    // recorded/24.11/sacct/064, 065
    let c = job(3, "ok_job", AcctState::Completed, 0);
    let o = run(&["-X", "-j", "3", "-o", "JobID%20,JobName%-10,State%-12,ExitCode%3"], std::slice::from_ref(&c));
    assert_eq!(
        o.stdout,
        "               JobID JobName    State        Exi \n-------------------- ---------- ------------ --- \n                   3 ok_job     COMPLETED    0:0 \n"
    );
    let o = run(&["-X", "-j", "3", "-o", "jobid,jobname%5,state%2"], std::slice::from_ref(&c));
    assert_eq!(o.stdout, "JobID        JobNa St \n------------ ----- -- \n3            ok_j+ C+ \n");
    // a named step: that row alone; an unknown step: none (recorded/24.11/sacct/169)
    assert_eq!(run(&["-j", "3.batch", "-n", "-P", "-o", "jobid"], std::slice::from_ref(&c)).stdout, "3.batch\n");
    assert_eq!(run(&["-j", "3.7"], &[c]).stdout, HEAD);
}

#[test]
fn window_and_users() {
    let o = parse(&args(&[]), &HashMap::new(), NOW, 1500).unwrap();
    assert_eq!(o.query.user_ids, vec![1500]);
    assert!(o.query.start <= NOW && o.query.start > NOW - 86400 && o.query.end == NOW + 1);
    let o = parse(&args(&["-j", "5"]), &HashMap::new(), NOW, 1500).unwrap();
    assert_eq!((o.query.user_ids.len(), o.query.start, o.query.end), (0, 0, NOW + 1));
    let o = parse(&args(&["-s", "CD"]), &HashMap::new(), NOW, 0).unwrap();
    assert_eq!((o.query.start, o.query.end), (NOW, NOW + 1));
    let o = parse(&args(&["-a"]), &HashMap::new(), NOW, 1500).unwrap();
    assert!(o.query.user_ids.is_empty());
    // nothing panics on odd input
    for a in [
        &["-o", "%"][..],
        &["-o", ",,,"],
        &["-o", "jobid%99999999999999"],
        &["-j", "1_"],
        &["-S", "uts9"],
        &["-k", "x"],
        &["-i", "9-"],
    ] {
        let _ = run(a, &[job(1, "x", AcctState::Running, 0)]);
    }
}

#[test]
fn json_document_outline_recorded() {
    // recorded/24.11/sacct/161 and 163: the keys of the document, a job, a step
    let j = job(3, "ok_job", AcctState::Completed, 0);
    let m = spur_cli_base::data::Mime { yaml: false, version: None };
    let out = crate::json::sacct(&m, &args(&["--json"]), &[&j], "spur", NOW).stdout;
    let keys = |v: &str, indent: usize| -> Vec<String> {
        let pad = " ".repeat(indent);
        let mut k: Vec<String> = v
            .lines()
            .filter(|l| l.starts_with(&format!("{}\"", pad)) && !l.starts_with(&format!("{} ", pad)))
            .map(|l| l.trim().split('"').nth(1).unwrap_or("").to_string())
            .collect();
        k.sort();
        k.dedup();
        k
    };
    assert_eq!(keys(&out, 2), ["errors", "jobs", "meta", "warnings"]);
    let jobs_part = out.split("\n  \"meta\"").next().unwrap_or("");
    let job_keys = keys(jobs_part, 6);
    assert_eq!(
        job_keys.join(","),
        "account,allocation_nodes,array,association,block,cluster,comment,constraints,container,derived_exit_code,exit_code,extra,failed_node,flags,group,het,hold,job_id,kill_request_user,licenses,mcs,name,nodes,partition,priority,qos,qosreq,required,reservation,restart_cnt,script,state,stderr,stderr_expanded,stdin,stdin_expanded,stdout,stdout_expanded,steps,submit_line,time,tres,used_gres,user,wckey,working_directory"
    );
}

#[test]
fn truncate_cuts_to_the_window() {
    let mut j = job(3, "ok_job", AcctState::Running, 0);
    j.start = NOW - 7200;
    j.end = 0;
    let o =
        run(&["-X", "-T", "-j", "3", "-S", "now-1hour", "-E", "now", "-P", "-n", "-o", "jobid,elapsed"], &[j.clone()]);
    // the window ends a second after now, as slurmdbd takes -E now
    assert_eq!(o.stdout, "3|01:00:01\n");
    let o = run(&["-X", "-j", "3", "-P", "-n", "-o", "jobid,elapsed"], &[j]);
    assert_eq!(o.stdout, "3|02:00:00\n");
}

#[test]
fn no_panic_on_odd_words() {
    let words = [
        "-o",
        "%",
        "%-",
        "%-2147483648",
        "a%0",
        "jobid%",
        ",",
        "-j",
        "1.",
        "1_",
        "_",
        "4294967296",
        "-S",
        "uts",
        "-E",
        "13/45",
        "-s",
        "",
        "--units=",
        "--delimiter=",
        "-p",
        "-P",
        "-n",
        "--array",
        "-X",
        "-T",
        "-N",
        "[",
        "-u",
        "-1",
        "-k",
        "0",
        "-i",
        "1-",
        "--name",
        "é",
        "-l",
        "-b",
        "-M",
        "all",
        "-e",
        "-v",
        "--json=x",
    ];
    let jobs = vec![job(1, "x", AcctState::Running, 0), held(), cancelled()];
    let mut seed: u64 = 7;
    for _ in 0..3000 {
        let n = (seed % 6) as usize + 1;
        let mut a = Vec::new();
        for _ in 0..n {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            a.push(words[(seed >> 33) as usize % words.len()]);
        }
        let _ = run(&a, &jobs);
    }
}
