//! Issue 15, point 2: fair-share from recorded usage. Accounts, users and
//! associations (`sacctmgr add|modify|delete|list account|user|assoc`),
//! a job charged to its user's default account or the one it names, the
//! association enforced, the usage a job runs up, and the Fair Tree factor
//! in `sshare` and `sprio`, through the real daemons and commands, as Slurm
//! 22.05 answered the same commands (crates/spur-sched/tests/
//! fairshare-22.05.md). One cluster for the file: two nodes of 8 CPUs,
//! accounting on with `AccountingStorageEnforce=associations`, and
//! priority/multifactor with `PriorityWeightFairshare=10000` only.

use slurm_tests::*;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

/// The `-P` rows of `sshare -a -P -o ...` as (account, user, rest).
fn rows(text: &str) -> Vec<Vec<String>> {
    text.lines().skip(1).map(|l| l.split('|').map(str::to_string).collect()).collect()
}

#[test]
fn accounts_users_usage_and_fair_share() {
    ensure_test_user();
    let conf = std::env::temp_dir().join(format!("spur-fs-{}.conf", std::process::id()));
    std::fs::write(
        &conf,
        "AccountingStorageType=accounting_storage/slurmdbd\n\
         AccountingStorageEnforce=associations\n\
         PriorityType=priority/multifactor\nPriorityWeightFairshare=10000\n\
         PriorityDecayHalfLife=0-1\nPriorityCalcPeriod=1\n",
    )
    .unwrap();
    let c = Cluster::up(
        "fairshare",
        2,
        &["--cpus", "8", "--memory", "16000", "--compat", "22.05", "--extra-conf", &conf.to_string_lossy()],
    );
    let _ = std::fs::remove_file(&conf);
    let sacctmgr = |args: &[&str]| c.run("sacctmgr", args);

    // a new cluster has root's account and association, as slurmdbd makes them
    let o = sacctmgr(&["-P", "list", "assoc", "format=cluster,account,user,share"]);
    assert_eq!(o.stdout, "Cluster|Account|User|Share\nspur|root||1\nspur|root|root|1\n", "{}", o.stderr);

    // add accounts and a user, echoed as sacctmgr echoes them
    let o = sacctmgr(&["-i", "add", "account", "physics", "Description=phys", "Organization=uni", "Fairshare=3"]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (
            0,
            " Adding Account(s)\n  physics\n Settings\n  Description     = phys\n  Organization    = uni\n \
             Associations\n  A = physics    C = spur      \n Settings\n  Fairshare     = 3\n  Parent        = root\n"
        )
    );
    sacctmgr(&["-i", "add", "account", "chem"]).ok();
    let o = sacctmgr(&["-i", "add", "user", TEST_USER, "Account=physics"]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (
            0,
            " Adding User(s)\n  spurtest\n Associations =\n  U = spurtest  A = physics    C = spur      \n \
             Non Default Settings\n"
        )
    );
    // errors
    let o = sacctmgr(&["-i", "add", "account", "physics"]);
    assert_eq!((o.code, o.stdout.as_str()), (1, " Nothing new added.\n"));
    let o = sacctmgr(&["-i", "add", "user", TEST_USER, "Account=nosuch"]);
    assert_eq!(
        (o.code, o.stdout.as_str(), o.stderr.as_str()),
        (
            1,
            " Nothing new added.\n",
            " This account 'nosuch' doesn't exist.\n        Contact your admin to add this account.\n"
        )
    );
    let o = sacctmgr(&["-i", "add", "account", "x1", "Parent=nosuch"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (
            1,
            " Parent account 'nosuch' doesn't exist on cluster spur\n        Contact your admin to add this account.\n \
             No associations created.\n"
        )
    );
    // only an administrator adds (after the echo), but a user may choose
    // their own default account
    let o = c.run_as(TEST_USER, "sacctmgr", &["-i", "add", "account", "mine"]);
    assert_eq!((o.code, o.stderr.as_str()), (1, " Problem adding accounts: Access/permission denied\n"));
    assert!(o.stdout.starts_with(" Adding Account(s)\n  mine\n"), "{}", o.stdout);
    let o = c.run_as(TEST_USER, "sacctmgr", &["-i", "modify", "user", TEST_USER, "set", "DefaultAccount=physics"]);
    assert_eq!((o.code, o.stdout.as_str()), (0, " Modified users...\n  spurtest\n"), "{}", o.stderr);
    let o = c.run_as(TEST_USER, "sacctmgr", &["-i", "delete", "account", "chem"]);
    assert_eq!(
        (o.code, o.stdout.as_str(), o.stderr.as_str()),
        (
            1,
            "",
            "sacctmgr: error: Your user doesn't have privilege to perform this action\n \
             Error with request: Access/permission denied\n"
        )
    );
    // the listings
    let o = sacctmgr(&["-P", "list", "user"]);
    assert_eq!(o.stdout, "User|Def Acct|Admin\nroot|root|Administrator\nspurtest|physics|None\n");
    let o = sacctmgr(&["list", "assoc", "tree", "format=account,user,share"]);
    let want = [
        "Account                    User     Share ",
        "-------------------- ---------- --------- ",
        "root                                    1 ",
        " root                      root         1 ",
        " chem                                   1 ",
        " physics                                3 ",
        "  physics              spurtest         1 ",
    ];
    assert_eq!(o.stdout.lines().collect::<Vec<_>>(), want);

    // jobs: the default account, a named one, and the association enforced
    let id = c.sbatch_as(TEST_USER, &["-o", "/dev/null", "--wrap", "true"]);
    let o = c.run("squeue", &["-h", "-t", "all", "-j", &id, "-o", "%a %u"]);
    assert_eq!(o.stdout.trim(), "physics spurtest");
    let o = c.run_as(TEST_USER, "sbatch", &["-A", "chem", "-o", "/dev/null", "--wrap", "true"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (1, "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified\n")
    );
    let o = c.run("sbatch", &["-A", "physics", "-o", "/dev/null", "--wrap", "true"]);
    assert_eq!(o.code, 1, "root has no association with physics");
    c.wait_state(&id, "COMPLETED", T);

    // usage: 4 CPUs for two seconds and more, charged when the job ends
    let id = c.sbatch_as(TEST_USER, &["-n", "4", "-o", "/dev/null", "--wrap", "sleep 2"]);
    c.wait_state(&id, "COMPLETED", T);
    let o = sacctmgr(&["-i", "modify", "account", "chem", "set", "Fairshare=1"]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, " Modified account associations...\n  C = spur       A = chem of root\n")
    );
    let o = c.run("sshare", &["-a", "-P", "-o", "Account,User,RawShares,NormShares,RawUsage,FairShare"]);
    let r = rows(&o.stdout);
    assert_eq!(r.len(), 5, "{}", o.stdout);
    let used: u64 = r[4][4].parse().unwrap();
    // (4 CPU-seconds a second, a little decayed since: RawUsage is truncated)
    assert!(used >= 7, "4 CPUs for 2 seconds or more: {}", o.stdout);
    // (every account above holds its users' usage)
    assert_eq!((r[0][4].as_str(), r[3][4].as_str()), (r[4][4].as_str(), r[4][4].as_str()));
    // shares: root's user 1, chem 1, physics 3 of 5
    assert_eq!((r[1][3].as_str(), r[2][3].as_str(), r[3][3].as_str()), ("0.200000", "0.200000", "0.600000"));
    // Fair Tree: root's user and chem have no usage (tied, first); spurtest
    // in physics, the one with usage, ranks last of two user associations
    assert_eq!((r[1][1].as_str(), r[1][5].as_str()), ("root", "1.000000"));
    assert_eq!((r[4][1].as_str(), r[4][5].as_str()), ("spurtest", "0.500000"));

    // sprio: the factor times the weight
    let blocker = c.sbatch(&["-N", "2", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 60"]);
    c.wait_state(&blocker.to_string(), "RUNNING", T);
    let waiting = c.sbatch_as(TEST_USER, &["-o", "/dev/null", "--wrap", "true"]);
    let o = c.run("sprio", &["-h", "-j", &waiting, "-o", "%i %u %F"]);
    assert_eq!(o.stdout.split_whitespace().collect::<Vec<_>>(), [waiting.as_str(), TEST_USER, "5000"]);

    // deletes: an association with a job not yet finished stays
    let o = sacctmgr(&["-i", "delete", "user", TEST_USER, "where", "account=physics"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (
            1,
            format!(
                " Error with request: Job(s) active, cancel job(s) before remove\n  \
                 JobID = {:<10} C = spur       A = physics    U = spurtest \n",
                waiting
            )
            .as_str()
        )
    );
    c.run("scancel", &[&waiting, &blocker.to_string()]).ok();
    c.wait_state(&waiting, "CANCELLED", T);
    let o = sacctmgr(&["-i", "delete", "account", "chem"]);
    assert_eq!((o.code, o.stdout.as_str()), (0, " Deleting accounts...\n  chem\n"));
    let o = sacctmgr(&["-n", "-P", "list", "account", "format=account"]);
    assert_eq!(o.stdout, "physics\nroot\n");

    // QOS lists: an association runs in its account's (normal at the top)
    // until it is given its own; the lists show sorted by name
    sacctmgr(&["-i", "add", "qos", "high"]).ok();
    sacctmgr(&["-i", "add", "qos", "low"]).ok();
    let qos_of = |who: &str| sacctmgr(&["-n", "-P", "list", "assoc", who, "format=account,user,qos,defaultqos"]).stdout;
    assert_eq!(qos_of("user=spurtest"), "physics|spurtest|normal|\n");
    let o = sacctmgr(&["list", "assoc", "user=spurtest", "format=cluster,account,user,qos,defaultqos"]);
    assert_eq!(
        o.stdout,
        "   Cluster    Account       User                  QOS   Def QOS \n\
         ---------- ---------- ---------- -------------------- --------- \n      \
         spur    physics   spurtest               normal           \n"
    );
    let o = sacctmgr(&["-i", "modify", "user", TEST_USER, "set", "QOS+=high"]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, " Modified user associations...\n  C = spur       A = physics              U = spurtest \n")
    );
    assert_eq!(qos_of("user=spurtest"), "physics|spurtest|high,normal|\n");
    let o = sacctmgr(&["-i", "modify", "user", TEST_USER, "set", "QOS=nosuch"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (
            1,
            "sacctmgr: error: You gave a bad qos 'nosuch'. Valid QOS's are normal,high,low\n \
             Unknown option: QOS=nosuch\n Use keyword 'where' to modify condition\n"
        )
    );
    // an account's default QOS is the QOS of its jobs that name none
    let o = sacctmgr(&["-i", "add", "account", "bio", "QOS=normal,low", "DefaultQOS=low"]);
    assert!(
        o.stdout.ends_with(" Settings\n  Parent        = root\n  QOS           = low,normal\n  DefQOS        = low\n"),
        "{}",
        o.stdout
    );
    sacctmgr(&["-i", "add", "user", "root", "Account=bio"]).ok();
    assert_eq!(qos_of("account=bio"), "bio||low,normal|low\nbio|root|low,normal|low\n");
    let j = c.sbatch(&["-A", "bio", "--hold", "--wrap", "true"]).to_string();
    assert_eq!(c.run("squeue", &["-h", "-o", "%q", "-j", &j]).stdout, "low\n");
    // a change to an account's list reaches the user associations under
    // it that keep none of their own, and sacctmgr names them (L7)
    let o = sacctmgr(&["-i", "modify", "account", "bio", "set", "QOS+=high"]);
    assert_eq!(
        o.stdout,
        " Modified account associations...\n  C = spur       A = bio of root\n  \
         C = spur       A = bio                  U = root     \n"
    );
    assert_eq!(qos_of("account=bio"), "bio||high,low,normal|low\nbio|root|high,low,normal|low\n");
    let o = sacctmgr(&["-i", "add", "user", "bob", "Account=bio", "QOS=low"]);
    assert!(o.stdout.ends_with(" Non Default Settings\n  QOS           = low\n"), "{}", o.stdout);
    // and `QOS=` asks for it again
    c.run("scontrol", &["update", &format!("JobId={j}"), "QOS=normal"]).ok();
    assert_eq!(c.run("squeue", &["-h", "-o", "%q", "-j", &j]).stdout, "normal\n");
    c.run("scontrol", &["update", &format!("JobId={j}"), "QOS="]).ok();
    assert_eq!(c.run("squeue", &["-h", "-o", "%q", "-j", &j]).stdout, "low\n");
    c.run("scancel", &[&j]).ok();
    // a default QOS outside the list: said, not made, and exit 0 (L14)
    sacctmgr(&["-i", "modify", "account", "bio", "set", "QOS-=high"]).ok();
    let o = sacctmgr(&["-i", "modify", "account", "bio", "set", "DefaultQOS=high"]);
    assert_eq!(
        (o.code, o.stdout.as_str(), o.stderr.as_str()),
        (
            0,
            "",
            " These associations don't have access to their default qos.\n \
             Please give them access before they the default can be set to this.\n  \
             DefQOS = high       C = spur       A = bio                  \n"
        )
    );
    assert_eq!(qos_of("account=bio"), "bio||low,normal|low\nbio|bob|low|low\nbio|root|low,normal|low\n");
    // an empty list is its account's again (X6)
    sacctmgr(&["-i", "modify", "user", TEST_USER, "set", "QOS="]).ok();
    assert_eq!(qos_of("user=spurtest"), "physics|spurtest|normal|\n");

    // the classic fair-share (PriorityFlags=NO_FAIR_TREE), taken up by
    // `scontrol reconfigure`: no LevelFS in the long format, and every
    // association's factor 2^-(EffectvUsage/NormShares), root's 1/2 (the
    // formulas checked against 22.05 in assoc.rs's
    // classic_and_depth_oblivious_as_measured)
    let conf = c.dir.join("slurm.conf");
    let text = std::fs::read_to_string(&conf).unwrap();
    std::fs::write(&conf, format!("{text}PriorityFlags=NO_FAIR_TREE\n")).unwrap();
    c.run("scontrol", &["reconfigure"]).ok();
    let mut o = String::new();
    wait_for("the classic sshare", T, || {
        o = c.run("sshare", &["-a", "-l"]).stdout;
        o.starts_with("Account                    User  RawShares  NormShares    RawUsage   NormUsage  EffectvUsage  FairShare                    GrpTRESMins                    TRESRunMins \n")
    });
    // (the users' factors are the controller's, once it has started again)
    let classic = |rows: &[Vec<String>]| {
        rows.iter().all(|r| {
            let num = |i: usize| r[i].parse::<f64>().unwrap_or(f64::NAN);
            let want = if num(2) > 0.0 { 2f64.powf(-num(3) / num(2)) } else { 0.0 };
            (num(4) - want).abs() < 1e-5
        })
    };
    let mut last = vec![];
    wait_for("the controller's classic factors", T, || {
        last = rows(&c.run("sshare", &["-a", "-P", "-o", "Account,User,NormShares,EffectvUsage,FairShare"]).stdout);
        classic(&last)
    });
    assert!(last.len() > 4 && last.iter().filter(|r| !r[1].is_empty()).count() >= 3, "{last:?}");
    assert_eq!(last[0][2..], ["1.000000", "1.000000", "0.500000"], "root");
    c.down();
}
