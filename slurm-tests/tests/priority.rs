//! Issue 15, point 2: `PriorityType=priority/multifactor` and `sprio`
//! through the real daemons and commands, in the scenario measured on Slurm
//! 22.05 (crates/spur-core/tests/priority-22.05.md) on this cluster's
//! shape: four nodes of 8 CPUs (32 in all), partition `debug` over all of
//! them (PriorityJobFactor 1) and `pj` over node[1-2] (PriorityJobFactor
//! 2). One job fills the cluster; five wait: held, `-N2 -n16`, `--nice=100`,
//! `-p pj`, `-n4`. The figures follow the measured formulas: job size
//! (nodes/4 + CPUs/32)/2, partition factor/2, fair-share 1, nice
//! subtracted, the sum truncated. The cluster imitates 22.05 (`--compat
//! 22.05`), whose sprio was measured.

use slurm_tests::*;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

#[test]
fn multifactor_priorities_and_sprio() {
    let extra = std::env::temp_dir().join(format!("spur-priority-{}.conf", std::process::id()));
    std::fs::write(
        &extra,
        "PriorityType=priority/multifactor\n\
         PriorityWeightAge=1000\nPriorityWeightJobSize=1000\nPriorityWeightPartition=1000\n\
         PriorityWeightFairshare=1000\nPriorityWeightQOS=1000\nPriorityMaxAge=1-0\n\
         PartitionName=pj Nodes=node[1-2] PriorityJobFactor=2 State=UP\n",
    )
    .unwrap();
    let c = Cluster::up(
        "priority",
        4,
        &["--cpus", "8", "--memory", "16000", "--compat", "22.05", "--extra-conf", &extra.to_string_lossy()],
    );
    let _ = std::fs::remove_file(&extra);
    let sleep = "sleep 300";
    let big = c.sbatch(&["-N4", "-n32", "--wrap", sleep]);
    c.wait_state(&big.to_string(), "RUNNING", T);
    let held = c.sbatch(&["-n1", "--hold", "--wrap", sleep]);
    let wide = c.sbatch(&["-N2", "-n16", "--wrap", sleep]);
    let nice = c.sbatch(&["-n1", "--nice=100", "--wrap", sleep]);
    let pj = c.sbatch(&["-p", "pj", "-n1", "--wrap", sleep]);
    let four = c.sbatch(&["-n4", "--wrap", sleep]);
    // the priorities the controller gave them: (1/4+1/32)/2 = 140.625 for
    // one CPU, 500 for -N2 -n16, 187.5 for -n4; the running job's 1000 (all of it) + 1000 + 500
    let q = c.run("squeue", &["-h", "-o", "%i %Q", "--sort", "i"]).stdout;
    assert_eq!(q, format!("{big} 2500\n{held} 0\n{wide} 2000\n{nice} 1540\n{pj} 2140\n{four} 1687\n"), "squeue %Q");
    let o = c.run("scontrol", &["show", "job", &wide.to_string()]).stdout;
    assert_eq!(field(&o, "Priority"), "2000");
    // sprio: the held job is not listed; columns of the weights set
    let o = c.run("sprio", &[]);
    assert_eq!((o.code, o.stderr.as_str()), (0, ""));
    assert_eq!(
        o.stdout,
        format!(
            "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE    JOBSIZE  PARTITION        QOS\n\
             {wide:>15} debug           2000          0          0       1000        500        500          0\n\
             {nice:>15} debug           1540          0          0       1000        141        500          0\n\
             {pj:>15} pj              2140          0          0       1000        141       1000          0\n\
             {four:>15} debug           1687          0          0       1000        188        500          0\n"
        )
    );
    let o = c.run("sprio", &["-w"]).stdout;
    assert_eq!(
        o.lines().nth(1),
        Some("        Weights                               1       1000       1000       1000       1000       1000")
    );
    let o = c.run("sprio", &["-n", "-h", "-j", &wide.to_string()]).stdout;
    assert_eq!(o, format!("{wide:>15} debug     0.00000046 0.0000000  1.0000000  0.5000000  0.5000000  0.0000000 \n"));
    let o = c.run("sprio", &["-l", "-h", "-j", &nice.to_string()]).stdout;
    assert_eq!(
        o,
        format!(
            "{nice:>15} debug         root       1540          0          0          0       1000        141        500          0         100                     \n"
        )
    );
    let o = c.run("sprio", &["-h", "-S", "-y", "-o", "%i"]).stdout;
    assert_eq!(o, format!("{pj}\n{wide}\n{four}\n{nice}\n"));
    let o = c.run("sprio", &["-j", "999"]);
    assert_eq!((o.code, o.stdout.as_str()), (0, "Unable to find jobs matching user/id(s) specified\n"));
    let o = c.run("sprio", &["-l", "-o", "%i"]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    // an operator's priority is the job's own from then on (slurmctld's
    // direct_set_prio: the recalculation leaves it); a hold and a release
    // give it its factors again
    let q = |id: u32| c.run("squeue", &["-h", "-o", "%Q", "-j", &id.to_string()]).stdout.trim().to_string();
    c.run("scontrol", &["update", &format!("JobId={four}"), "Priority=5000"]).ok();
    assert_eq!(q(four), "5000");
    c.run("scontrol", &["hold", &four.to_string()]).ok();
    c.run("scontrol", &["release", &four.to_string()]).ok();
    wait_for("the computed priority again", T, || q(four) == "1687");
    // a released job gets its factors at once, not at the next period
    c.run("scontrol", &["release", &held.to_string()]).ok();
    wait_for("the released job's priority", T, || {
        c.run("squeue", &["-h", "-o", "%Q", "-j", &held.to_string()]).stdout.trim() == "1640"
    });
    // the highest, alone in its partition, starts first once the big job ends
    c.run("scancel", &[&big.to_string()]).ok();
    c.wait_state(&pj.to_string(), "RUNNING", T);
}
