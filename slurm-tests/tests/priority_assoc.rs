//! Issue 15, point 2: the TRES factor (`PriorityWeightTRES`), running jobs'
//! priorities (`PriorityFlags=CALCULATE_RUNNING`), the association factor
//! (`PriorityWeightAssoc`, `sacctmgr ... set Priority=`) and the
//! association limits (`MaxJobs`, `MaxSubmitJobs`, `MaxWall`, `GrpTRES`,
//! `GrpJobs`, `MaxTRES`), through the real daemons and commands.
//!
//! The TRES figures are the formula measured on Slurm 22.05
//! (crates/spur-core/tests/priority-tres-fairshare-22.05.md: each TRES the
//! weights name, the job's count over its partition's, times the weight;
//! sprio prints the weighted ones `%.0f`, the normalised ones `%.2f`) on
//! this cluster's shape: four nodes of 8 CPUs, 16000 MB and 4 GPUs (32
//! CPUs, 64000 MB and 16 GPUs in the partition, as the measured `cpu`
//! partition's CPUs and memory and the `gpu` partition's GPUs), with
//! `DefMemPerCPU=1024` as there. One cluster for the file.

use slurm_tests::*;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

#[test]
fn tres_factor_running_jobs_association_priority_and_limits() {
    ensure_test_user();
    let conf = std::env::temp_dir().join(format!("spur-prio-assoc-{}.conf", std::process::id()));
    std::fs::write(
        &conf,
        "AccountingStorageType=accounting_storage/slurmdbd\n\
         AccountingStorageEnforce=associations,limits,qos\n\
         AccountingStorageTRES=gres/gpu\nDefMemPerCPU=1024\n\
         PriorityType=priority/multifactor\nPriorityWeightJobSize=1000\nPriorityWeightPartition=1000\n\
         PriorityWeightAssoc=1000\nPriorityWeightTRES=CPU=1000,Mem=2000,GRES/gpu=3000\n\
         PriorityFlags=CALCULATE_RUNNING,MAX_TRES\n\
         PartitionName=billed Nodes=node[1-4] TRESBillingWeights=\"CPU=1.0,Mem=0.25G,GRES/gpu=2.0\" DefaultTime=01:00:00 State=UP\n",
    )
    .unwrap();
    let c = Cluster::up(
        "prioassoc",
        4,
        &[
            "--cpus",
            "8",
            "--memory",
            "16000",
            "--gpus-per-node",
            "4",
            "--compat",
            "22.05",
            "--extra-conf",
            &conf.to_string_lossy(),
        ],
    );
    let _ = std::fs::remove_file(&conf);
    let sleep = "sleep 300";

    // the weights; the TRES ones as slurm.conf writes them, and none in %t
    let o = c.run("sprio", &["-w", "-o", "%i|%Y|%J|%P|%T|%t"]);
    assert_eq!(
        o.stdout,
        "JOBID|PRIORITY|JOBSIZE|PARTITION|TRES|TRES\nWeights||1000|1000|CPU=1000,Mem=2000,GRES/gpu=3000|\n"
    );

    // every node taken, then five shapes wait
    let fill: Vec<u32> =
        (0..4).map(|_| c.sbatch(&["-N1", "--exclusive", "-o", "/dev/null", "--wrap", sleep])).collect();
    for f in &fill {
        c.wait_state(&f.to_string(), "RUNNING", T);
    }
    let one = c.sbatch(&["-n1", "-o", "/dev/null", "--wrap", sleep]);
    let mem = c.sbatch(&["-n4", "--mem=2000", "-o", "/dev/null", "--wrap", sleep]);
    let wide = c.sbatch(&["-N2", "-n16", "-o", "/dev/null", "--wrap", sleep]);
    let gres = c.sbatch(&["-n2", "--gres=gpu:2", "-o", "/dev/null", "--wrap", sleep]);
    let gpus = c.sbatch(&["--gpus=3", "-o", "/dev/null", "--wrap", sleep]);
    // job size (nodes/4 + CPUs/32)/2, partition 1, and the TRES: CPUs/32,
    // MB/64000 (1024 a CPU, or --mem a node), GPUs/16
    let o = c.run("sprio", &["-h", "-o", "%i|%Y|%J|%T|%t", "-j", &format!("{one},{mem},{wide},{gres},{gpus}")]);
    assert_eq!(
        o.stdout,
        format!(
            "{one}|1203|141|cpu=31,mem=32|cpu=0.03,mem=0.02\n\
             {mem}|1375|188|cpu=125,mem=62|cpu=0.12,mem=0.03\n\
             {wide}|2512|500|cpu=500,mem=512|cpu=0.50,mem=0.26\n\
             {gres}|1657|156|cpu=62,mem=64,gres/gpu=375|cpu=0.06,mem=0.03,gres/gpu=0.12\n\
             {gpus}|1766|141|cpu=31,mem=32,gres/gpu=562|cpu=0.03,mem=0.02,gres/gpu=0.19\n"
        ),
        "{}",
        o.stderr
    );
    // the default columns: those with a weight (root's association has no
    // priority), and the TRES one last (20 wide, cut)
    let o = c.run("sprio", &["-j", &gres.to_string()]).stdout;
    assert_eq!(
        o.lines().nth(1),
        Some(
            format!("{gres:>15} debug           1657          0          0        156       1000 cpu=62,mem=64,gres/g")
                .as_str()
        )
    );
    // squeue's priority is the controller's, the same sum truncated
    let q = c.run("squeue", &["-h", "-o", "%i %Q", "-j", &format!("{one},{gres}")]).stdout;
    assert!(q.contains(&format!("{one} 1203\n")) && q.contains(&format!("{gres} 1657\n")), "{q}");

    // billing with TRESBillingWeights under MAX_TRES (measured:
    // priority-tres-fairshare-22.05.md 1f): the largest weighted node TRES,
    // for the partition max(32 CPUs, 62.5 GB x 0.25, 16 GPUs x 2) = 32 (79
    // summed), for a job of 16 CPUs and 16 GB max(16, 4) = 16 (20 summed)
    let o = c.run("scontrol", &["show", "partition", "billed"]).stdout;
    assert!(o.contains("   TRES=cpu=32,mem=62.50G,node=4,billing=32\n"), "{o}");
    let billed = c.sbatch(&["-p", "billed", "-N2", "-n16", "-o", "/dev/null", "--wrap", sleep]);
    let o = c.run("scontrol", &["show", "job", &billed.to_string()]).stdout;
    assert!(o.contains("   TRES=cpu=16,mem=16G,node=2,billing=16\n"), "{o}");
    c.run("scancel", &[&billed.to_string()]).ok();

    // CALCULATE_RUNNING: sprio lists the running jobs too, with what they
    // were given
    let f = fill[0].to_string();
    let o = c.run("sprio", &["-h", "-o", "%i %T", "-j", &f]);
    let row: Vec<&str> = o.stdout.split_whitespace().collect();
    assert_eq!((row.len(), row.first().copied()), (2, Some(f.as_str())), "{}", o.stdout);
    assert!(row[1].starts_with("cpu=250,"), "a whole node's 8 CPUs of 32: {}", o.stdout);

    // the association factor: the association's priority (its own, or its
    // account's) over the largest of any
    let sacctmgr = |args: &[&str]| c.run("sacctmgr", args);
    sacctmgr(&["-i", "add", "account", "proj"]).ok();
    sacctmgr(&["-i", "add", "account", "sub", "Parent=proj"]).ok();
    sacctmgr(&["-i", "add", "user", TEST_USER, "Account=proj,sub"]).ok();
    // (a limit passed down names the associations below that take it, the
    // newest first: assoc-limits-22.05.md 7b)
    let o = sacctmgr(&["-i", "modify", "account", "proj", "set", "Priority=10"]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (
            0,
            " Modified account associations...\n  C = spur       A = proj of root\n  \
             C = spur       A = proj                 U = spurtest \n  \
             C = spur       A = sub                  U = spurtest \n"
        )
    );
    let o = sacctmgr(&["-i", "modify", "user", TEST_USER, "where", "account=sub", "set", "Priority=4"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let o = sacctmgr(&["-P", "show", "assoc", "format=account,user,priority"]);
    assert_eq!(
        o.stdout,
        "Account|User|Priority\nroot||\nroot|root|\nproj||10\nproj|spurtest|10\nsub||10\nsub|spurtest|4\n"
    );
    // (the nodes still taken: they wait)
    let waiting: Vec<String> = ["proj", "sub"]
        .iter()
        .map(|a| c.sbatch_as(TEST_USER, &["-A", a, "-n1", "-o", "/dev/null", "--wrap", sleep]))
        .collect();
    let o = c.run("sprio", &["-h", "-o", "%i %B %b %Y", "-j", &waiting.join(",")]).stdout;
    assert_eq!(o, format!("{} 1000 1.0000000 2203\n{} 400 0.4000000 1603\n", waiting[0], waiting[1]));
    let all: Vec<String> =
        fill.iter().chain([&one, &mem, &wide, &gres, &gpus]).map(|i| i.to_string()).chain(waiting).collect();
    c.run("scancel", &all.iter().map(String::as_str).collect::<Vec<_>>()).ok();
    wait_for("the queue to empty", T, || c.run("squeue", &["-h"]).stdout.is_empty());

    // the limits: MaxJobs and MaxSubmitJobs of the user association;
    // MaxWall of its account, passed down (a job that gives no limit gets it)
    let o =
        sacctmgr(&["-i", "modify", "user", TEST_USER, "where", "account=proj", "set", "MaxJobs=1", "MaxSubmitJobs=3"]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, " Modified user associations...\n  C = spur       A = proj                 U = spurtest \n")
    );
    sacctmgr(&["-i", "modify", "account", "proj", "set", "MaxWall=10", "GrpTRES=cpu=8"]).ok();
    let o = sacctmgr(&["-P", "show", "assoc", "format=account,user,maxjobs,maxsubmit,grptres,maxwall"]);
    assert_eq!(
        o.stdout,
        "Account|User|MaxJobs|MaxSubmit|GrpTRES|MaxWall\nroot|||||\nroot|root||||\nproj||||cpu=8|00:10:00\n\
         proj|spurtest|1|3||00:10:00\nsub|||||00:10:00\nsub|spurtest||||00:10:00\n"
    );
    let a: Vec<String> =
        (0..3).map(|_| c.sbatch_as(TEST_USER, &["-A", "proj", "-n2", "-o", "/dev/null", "--wrap", sleep])).collect();
    c.wait_state(&a[0], "RUNNING", T);
    let o = c.run_as(TEST_USER, "sbatch", &["-A", "proj", "-o", "/dev/null", "--wrap", sleep]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (
            1,
            "sbatch: error: AssocMaxSubmitJobLimit\nsbatch: error: Batch job submission failed: Job violates \
             accounting/QOS policy (job submit limit, user's size and/or time limits)\n"
        )
    );
    wait_for("the limit's reason", T, || {
        c.run("squeue", &["-h", "-o", "%r", "-j", &a[1]]).stdout.trim() == "AssocMaxJobsLimit"
    });
    let o = c.run("scontrol", &["show", "job", &a[0]]).stdout;
    assert_eq!(field(&o, "TimeLimit"), "00:10:00");
    // in sub (below proj): over MaxWall, and proj's GrpTRES counts sub's jobs
    let long = c.sbatch_as(TEST_USER, &["-A", "sub", "-t", "20", "-o", "/dev/null", "--wrap", sleep]);
    // (a partition's DefaultTime comes before MaxWall: over it, the job
    // waits; assoc-limits-22.05.md 4)
    let dflt = c.sbatch_as(TEST_USER, &["-A", "sub", "-p", "billed", "-o", "/dev/null", "--wrap", sleep]);
    assert_eq!(field(&c.run("scontrol", &["show", "job", &dflt]).stdout, "TimeLimit"), "01:00:00");
    let big = c.sbatch_as(TEST_USER, &["-A", "sub", "-n8", "-o", "/dev/null", "--wrap", sleep]);
    let fits = c.sbatch_as(TEST_USER, &["-A", "sub", "-n6", "-o", "/dev/null", "--wrap", sleep]);
    c.wait_state(&fits, "RUNNING", T);
    wait_for("the limits' reasons", T, || {
        let r = |j: &str| c.run("squeue", &["-h", "-o", "%r", "-j", j]).stdout.trim().to_string();
        r(&long) == "AssocMaxWallDurationPerJobLimit"
            && r(&dflt) == "AssocMaxWallDurationPerJobLimit"
            && r(&big) == "AssocGrpCpuLimit"
    });
    // a limit set while jobs wait: GrpJobs on sub's association
    sacctmgr(&["-i", "modify", "user", TEST_USER, "where", "account=sub", "set", "GrpJobs=1"]).ok();
    wait_for("GrpJobs", T, || c.run("squeue", &["-h", "-o", "%r", "-j", &big]).stdout.trim() == "AssocGrpJobsLimit");
    // and a bad value changes nothing (assoc-limits-22.05.md 9)
    let o = sacctmgr(&["-i", "modify", "user", TEST_USER, "set", "MaxJobs=abc"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (
            1,
            "sacctmgr: error: Invalid value for MaxJobs (abc)\n Unknown option: MaxJobs=abc\n \
             Use keyword 'where' to modify condition\n"
        )
    );
    let who = format!("user={TEST_USER}");
    let o = sacctmgr(&["-n", "-P", "show", "assoc", "where", "account=proj", &who, "format=maxjobs"]);
    assert_eq!(o.stdout, "1\n");
    c.down();
}
