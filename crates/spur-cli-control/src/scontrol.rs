//! `scontrol`: argument parsing into [`ScontrolCmd`], the `show` renderings
//! (job, node, partition, hostnames/hostlist/hostlistsorted) as Slurm 24.11
//! prints them (src/scontrol/info_job.c, src/api/node_info.c,
//! src/api/partition_info.c), and the execution against the controller.

use spur_cli_base::format::convert_num_unit;
use spur_cli_base::opts::{self, ArgKind::*, Mode, OptSpec};
use spur_cli_base::process::{client, emit, runtime};
use spur_cli_base::records::{default_out, dependency_text, fname_format, job_nodes, reason_text, tres_str};
use spur_cli_base::show::JobInfo;
use spur_cli_base::version::version_line;
use spur_cli_base::Output;
use spur_core::model::{ClusterView, Job, JobState, Node, NodeBase, PartState, Partition};
use spur_core::request::{self as rq, JobControl, NodeStateChange, UnsupportedJobField as JF, INFINITE};
use spur_grammar::time::{fmt_limit_scontrol, fmt_secs_scontrol};
use std::collections::HashMap;

/// Global flags of one scontrol invocation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    pub one_liner: bool,
    pub details: bool,
    pub all: bool,
    /// 1 = `-Q` (quiet), -1 = `-v`, 0 = normal (Slurm's `quiet_flag`).
    pub quiet: i32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShowWhat {
    Job,
    Node,
    Partition,
    Hostnames,
    Hostlist,
    HostlistSorted,
    Config,
    Licenses,
    Reservation,
    /// `show steps [ID]`: Spur shows no steps yet.
    Steps,
    Daemons,
    Aliases,
    Slurmd,
    /// `show federation|burstbuffer|bbstat|dwstat|frontend|topology`:
    /// subsystems Spur does not have, answered as Slurm answers without them.
    Absent(Absent),
    /// `show assoc_mgr`: the flags asked for (users, assoc, qos).
    AssocMgr {
        users: bool,
        assoc: bool,
        qos: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Absent {
    Federation,
    BurstBuffer,
    BbStat,
    Frontend,
    Topology,
}

#[derive(Clone, Debug, PartialEq, Eq)]
// (one command per process: the size of its largest variant does not matter)
#[allow(clippy::large_enum_variant)]
pub enum ScontrolCmd {
    /// `reconfigure`: every daemon reads slurm.conf again.
    Reconfigure,
    /// `completing`: jobs in the COMPLETING state and their nodes.
    Completing {
        flags: Flags,
    },
    /// `notify JOBID MSG`.
    Notify {
        job: String,
    },
    /// `wait_job JOBID`.
    WaitJob {
        job: String,
    },
    /// `listpids [JOBID[.STEP]]`, `listjobs`, `liststeps`: about the
    /// slurmstepd processes of this host (Spur has none).
    ListLocal {
        id: Option<String>,
        which: &'static str,
        /// `listpids`' NODENAME.
        node: Option<String>,
    },
    /// `cancel_reboot NODES`.
    CancelReboot {
        nodes: String,
    },
    Show {
        flags: Flags,
        what: ShowWhat,
        id: Option<String>,
    },
    /// `hold` (admin=true), `uhold`/`holdu` (admin=false).
    Hold {
        flags: Flags,
        job_ids: Vec<String>,
        user: bool,
    },
    Release {
        flags: Flags,
        job_ids: Vec<String>,
    },
    Requeue {
        flags: Flags,
        job_ids: Vec<String>,
        hold: bool,
        special_exit: bool,
    },
    Suspend {
        flags: Flags,
        job_ids: Vec<String>,
    },
    Resume {
        flags: Flags,
        job_ids: Vec<String>,
    },
    Top {
        flags: Flags,
        job_ids: Vec<String>,
    },
    /// `update JobId=… Key=Value…`: the ids as given (or the jobs of a
    /// name), the parsed update, a `TimeLimit=+N`/`-N` step (minutes, added
    /// to the job's limit when run), and a value scontrol could not read
    /// (Slurm's error number, reported for the job when run).
    UpdateJob {
        flags: Flags,
        job_ids: Vec<String>,
        update: rq::JobUpdate,
        time_step: Option<i64>,
        by_name: Option<String>,
        invalid: Option<i32>,
    },
    UpdateNode {
        flags: Flags,
        update: rq::NodeUpdate,
    },
    UpdatePartition {
        flags: Flags,
        update: rq::PartitionUpdate,
    },
    /// `write config [FILE]`: the running configuration to FILE (else
    /// `$SLURM_CONF_OUT`, else slurm.conf's own path) with `.<time>` appended.
    WriteConfig {
        base: Option<String>,
    },
    /// `write batch_script JOBID [FILE]` (`-` = stdout).
    WriteBatchScript {
        flags: Flags,
        job_id: String,
        file: Option<String>,
    },
    Version,
    Help,
    /// Print, and end the session (Slurm's `fatal()`).
    Fatal(Output),
    /// No command: read commands from stdin, one a line, after a prompt.
    Interactive {
        flags: Flags,
    },
    /// Nothing to do but print (an error found while parsing that Slurm
    /// reports with exit 1 after printing).
    Print(Output),
    Ping,
    /// `create|update|delete reservation` (the word naming it, for messages).
    Reservation {
        arg: String,
        req: rq::ReservationRequest,
    },
}

fn kw(tag: &str, word: &str, min: usize) -> bool {
    let n = tag.len().max(min);
    tag.len() >= n && word.len() >= n && tag.len() <= word.len() && word[..tag.len()].eq_ignore_ascii_case(tag)
}

fn err_out(msg: String) -> Output {
    Output::err(msg, 1)
}

/// scontrol's options (`adhM:FoQu:vV` and its long options), for
/// getopt_long: GNU permutation, so `scontrol show nodes -o` is `-o`.
pub const SPECS: &[OptSpec] = &[
    OptSpec::new(None, "autocomplete", Required, "autocomplete"),
    OptSpec::new(Some('a'), "all", None_, "all"),
    OptSpec::new(Some('M'), "cluster", Required, "clusters"),
    OptSpec::new(None, "clusters", Required, "clusters"),
    OptSpec::new(Some('d'), "details", None_, "details"),
    OptSpec::new(None, "federation", None_, "federation"),
    OptSpec::new(Some('F'), "future", None_, "future"),
    OptSpec::new(Some('h'), "help", None_, "help"),
    OptSpec::new(None, "hide", None_, "hide"),
    OptSpec::new(None, "json", Optional, "json"),
    OptSpec::new(None, "local", None_, "local"),
    OptSpec::new(Some('o'), "oneliner", None_, "oneliner"),
    OptSpec::new(Some('Q'), "quiet", None_, "quiet"),
    OptSpec::new(None, "sibling", None_, "sibling"),
    OptSpec::new(Some('u'), "uid", Required, "uid"),
    OptSpec::new(None, "usage", None_, "help"),
    OptSpec::new(Some('v'), "verbose", None_, "verbose"),
    OptSpec::new(Some('V'), "version", None_, "version"),
    OptSpec::new(None, "yaml", Optional, "yaml"),
];

/// The options of scontrol's command line, read as its getopt_long loop
/// reads them: options anywhere (GNU permutation; `POSIXLY_CORRECT` in the
/// environment stops at the first word, as glibc does), `--` ends them, a
/// first word `setdebugflags` ends them too (its `-FLAG` words are not
/// options). `-h`/`--usage` and `-V` act when reached; a bad option prints
/// glibc's line and `Try "scontrol --help"...`, exit 1. Returns the flags
/// and the command words, or what to print instead.
pub fn parse_options(args: &[String], env: &HashMap<String, String>) -> Result<(Flags, Vec<String>), Box<ScontrolCmd>> {
    let mut flags = Flags::default();
    if env.contains_key("SCONTROL_ALL") {
        flags.all = true;
    }
    let mode = if env.contains_key("POSIXLY_CORRECT") { Mode::StopAtFirstOperand } else { Mode::Permute };
    let mut p = opts::parse("scontrol", SPECS, args, mode);
    if p.operands.first().is_some_and(|w| kw(w, "setdebugflags", 8)) {
        p = opts::parse("scontrol", SPECS, args, Mode::StopAtFirstOperand);
    }
    for (id, val) in &p.opts {
        match *id {
            "all" => flags.all = true,
            "details" => flags.details = true,
            "hide" => {
                flags.all = false;
                flags.details = false;
            }
            "json" | "yaml" => flags.details = true,
            "oneliner" => flags.one_liner = true,
            "quiet" => flags.quiet = 1,
            "verbose" => flags.quiet = -1,
            "help" => return Err(Box::new(ScontrolCmd::Help)),
            "version" => return Err(Box::new(ScontrolCmd::Version)),
            "autocomplete" => return Err(Box::new(ScontrolCmd::Print(Output::ok("")))),
            "uid" => {
                let v = val.as_deref().unwrap_or("");
                let known = !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) && v.parse::<u32>().is_ok()
                    || nix::unistd::User::from_name(v).ok().flatten().is_some();
                if !known {
                    return Err(Box::new(ScontrolCmd::Print(Output::err(
                        format!("scontrol: error: --uid=\"{}\" invalid\n", v),
                        0,
                    ))));
                }
            }
            _ => {}
        }
    }
    if let Some(e) = p.error {
        return Err(Box::new(ScontrolCmd::Print(e.into_output("scontrol", 1))));
    }
    let cluster = p.opts.iter().rev().find(|(id, _)| *id == "clusters").and_then(|(_, v)| v.clone());
    if let Some(name) = cluster {
        return Err(Box::new(ScontrolCmd::Print(no_cluster(&name, "--cluster"))));
    }
    if let Some(name) = env.get("SLURM_CLUSTERS") {
        // 24.11 names the option even for the variable (scontrol_surface 054)
        let source = if spur_core::compat::profile().usage_texts_22_05 { "SLURM_CLUSTERS" } else { "--cluster" };
        return Err(Box::new(ScontrolCmd::Print(no_cluster(name, source))));
    }
    Ok((flags, p.operands))
}

/// What scontrol prints when told to use a cluster by name (`-M`,
/// `SLURM_CLUSTERS`, the `cluster` command): that needs slurmdbd, which a
/// Spur cluster (like the recorded ones) does not have. 22.05 exits without
/// the `fatal:` line (scontrol_surface 045, 054, 244).
fn no_cluster(name: &str, source: &str) -> Output {
    let mut m = format!(
        "scontrol: error: Problem talking to database\nscontrol: error: '{}' can't be reached now, or it is an invalid entry for {}.  Use 'sacctmgr list clusters' to see available clusters.\n",
        name, source
    );
    if !spur_core::compat::profile().usage_texts_22_05 {
        m.push_str("scontrol: fatal: Could not get cluster information\n");
    }
    Output::err(m, 1)
}

/// Parse scontrol's command line (without `argv[0]`).
pub fn parse(args: &[String], env: &HashMap<String, String>) -> Result<ScontrolCmd, Output> {
    let (flags, words) = match parse_options(args, env) {
        Ok(x) => x,
        Err(cmd) => match *cmd {
            ScontrolCmd::Print(o) if o.code != 0 => return Err(o),
            cmd => return Ok(cmd),
        },
    };
    if words.is_empty() {
        return Ok(ScontrolCmd::Interactive { flags });
    }
    parse_words(flags, &words, env)
}

/// One command's words (the command line after its options, or one line of
/// the interactive mode), with the flags in force.
pub fn parse_words(flags: Flags, words: &[String], env: &HashMap<String, String>) -> Result<ScontrolCmd, Output> {
    let argv: Vec<&str> = words.iter().map(|s| s.as_str()).collect();
    let Some(&tag) = argv.first() else {
        return Ok(ScontrolCmd::Interactive { flags });
    };
    let few = || err_out(format!("too few arguments for keyword:{}\n", tag));
    let many = || err_out(format!("too many arguments for keyword:{}\n", tag));
    let rest: Vec<String> = argv[1..].iter().map(|s| s.to_string()).collect();
    let v22 = spur_core::compat::profile().usage_texts_22_05;
    let root = nix::unistd::getuid().is_root();
    let missing = || err_out(format!("missing argument for keyword:{}\n", tag));
    let print = |o: Output| Ok(ScontrolCmd::Print(o));
    // scontrol's commands in the order of its chain (so `co` is completing,
    // `l` listpids, `n` notify), with its argument-count messages
    if kw(tag, "cancel_reboot", 3) {
        return match argv.len() {
            n if n > 2 => Err(many()),
            n if n < 2 => Err(missing()),
            _ => Ok(ScontrolCmd::CancelReboot { nodes: argv[1].to_string() }),
        };
    }
    if kw(tag, "completing", 2) {
        if argv.len() > 1 {
            return Err(many());
        }
        return Ok(ScontrolCmd::Completing { flags });
    }
    if kw(tag, "cluster", 2) {
        // naming a cluster needs slurmdbd, which Spur does not have
        return Ok(ScontrolCmd::Fatal(no_cluster(argv.get(1).copied().unwrap_or(""), "--cluster")));
    }
    if kw(tag, "errnumstr", 2) || kw(tag, "errnostr", 2) {
        if argv.len() != 2 {
            return Err(err_out(format!("one arguments required for keyword:{}\n", tag)));
        }
        let c = spur_grammar::num::strtol(argv[1], 10);
        if c.end != argv[1].len() && !argv[1].is_empty() {
            return Err(err_out(format!("numeric arguments required for keyword:{}\n", tag)));
        }
        return print(Output::ok(format!("{}\n", spur_core::errors::strerror(c.value as i32))));
    }
    if kw(tag, "pidinfo", 3) {
        return match argv.len() {
            n if n > 2 => Err(many()),
            n if n < 2 => Err(missing()),
            // slurmd answers for the processes of its job steps; no Spur
            // step runs under a slurmd of this host's name
            _ => Err(err_out("Failed to locate job for requested pid\n".into())),
        };
    }
    if kw(tag, "power", 2) && !v22 {
        return Err(err_out("scontrol_power_nodes error: Invalid node state specified\n".into()));
    }
    if kw(tag, "reboot_nodes", 3) {
        return Err(err_out(
            "scontrol: error: RebootProgram isn't defined\nscontrol_reboot_nodes error: Unspecified error\n".into(),
        ));
    }
    if kw(tag, "reconfigure", 3) {
        if argv.len() > 2 {
            return Err(many());
        }
        return Ok(ScontrolCmd::Reconfigure);
    }
    if kw(tag, "token", 3) {
        return Err(err_out(if v22 {
            "Error fetching token\n".into()
        } else {
            "scontrol: error: slurm_fetch_token: error with request: Required plugin type not loaded or initialized\n"
                .into()
        }));
    }
    if kw(tag, "wait_job", 2) {
        return match argv.len() {
            n if n > 2 => Err(many()),
            n if n < 2 => Err(few()),
            _ => Ok(ScontrolCmd::WaitJob { job: argv[1].to_string() }),
        };
    }
    for (word, min, call) in [
        ("setdebugflags", 9, "slurm_set_debug_flags"),
        ("fsdampeningfactor", 3, "slurm_set_fs_dampeningfactor"),
        ("fairsharedampeningfactor", 3, "slurm_set_fs_dampeningfactor"),
        ("setdebug", 2, "slurm_set_debug_level"),
        ("schedloglevel", 3, "slurm_set_schedlog_level"),
    ] {
        if kw(tag, word, min) {
            if argv.len() < 2 {
                return Err(few());
            }
            // slurmctld's log levels: only root may set them; Spur's
            // logging is configured when its daemons start
            return if root {
                print(Output::ok(""))
            } else {
                Err(err_out(format!("{} error: Permission denied\n", call)))
            };
        }
    }
    if kw(tag, "takeover", 8) {
        // one slurmctld and no backup: Slurm's answer
        return Err(err_out(
            "scontrol: error: slurm_get_port: Address family '0' not supported\nscontrol: error: Error connecting, bad data: family = 0, port = 0\nslurm_takeover error: Unable to contact slurm controller (connect failure)\n".into(),
        ));
    }
    if kw(tag, "shutdown", 8) {
        return Err(err_out(if root {
            "slurm_shutdown error: Requested operation not supported on this system\n".into()
        } else {
            "slurm_shutdown error: Invalid user id\n".into()
        }));
    }
    if kw(tag, "listpids", 1) {
        if argv.len() > if v22 { 2 } else { 3 } {
            return Err(many());
        }
        if let Some(id) = argv.get(1) {
            if !id.starts_with(|c: char| c.is_ascii_digit() || c == '*') {
                return Err(err_out(format!(
                    "\"{}\" does not look like a jobid\n",
                    id.split('.').next().unwrap_or(id)
                )));
            }
        }
        return Ok(ScontrolCmd::ListLocal {
            id: argv.get(1).map(|s| s.to_string()),
            which: "listpids",
            node: argv.get(2).map(|s| s.to_string()),
        });
    }
    if !v22 && (kw(tag, "listjobs", 1) || kw(tag, "liststeps", 1)) {
        if argv.len() > 1 {
            return Err(many());
        }
        return Ok(ScontrolCmd::ListLocal { id: None, which: "liststeps", node: None });
    }
    if kw(tag, "notify", 1) {
        if argv.len() < 3 {
            return Err(few());
        }
        return Ok(ScontrolCmd::Notify { job: argv[1].to_string() });
    }

    if kw(tag, "show", 3) {
        if argv.len() < 2 {
            return Err(few());
        }
        let ent_full = argv[1];
        // `show ENTITY=VALUE` is `show ENTITY VALUE`
        let (ent, eq_val) = match ent_full.find('=') {
            Some(p) => (&ent_full[..p], Some(ent_full[p + 1..].to_string())),
            None => (ent_full, None),
        };
        if kw(ent, "assoc_mgr", 2) || kw(ent, "cache", 2) {
            let (mut users, mut assoc, mut qos) = (false, false, false);
            for a in &argv[2..] {
                let (k, v) = match a.find('=') {
                    Some(p) => (&a[..p], &a[p + 1..]),
                    None => (*a, ""),
                };
                if v.is_empty() {
                    return Err(Output::err(format!("No value given for option {}\n", a), 0));
                }
                if kw(k, "flags", 1) {
                    let lv = v.to_ascii_lowercase();
                    users |= lv.contains("users");
                    assoc |= lv.contains("assoc");
                    qos |= lv.contains("qos");
                    if !(users || assoc || qos) {
                        return Err(Output::err(
                            format!("invalid flag '{}', valid options are 'Assoc, QOS, and/or Users'\n", v),
                            0,
                        ));
                    }
                } else if !(kw(k, "accounts", 1) || kw(k, "qos", 1) || kw(k, "users", 1)) {
                    return Err(err_out(format!("invalid entity: {} for keyword:show assoc_mgr\n", k)));
                }
            }
            if !(users || assoc || qos) {
                (users, assoc, qos) = (true, true, true);
            }
            return Ok(ScontrolCmd::Show { flags, what: ShowWhat::AssocMgr { users, assoc, qos }, id: None });
        }
        if argv.len() > 3 {
            return Err(many());
        }
        let id = eq_val.or_else(|| argv.get(2).map(|s| s.to_string()));
        // scontrol's order and abbreviations (`show a` is aliases)
        let what = if kw(ent, "aliases", 1) {
            ShowWhat::Aliases
        } else if kw(ent, "bbstat", 2) || kw(ent, "dwstat", 2) {
            ShowWhat::Absent(Absent::BbStat)
        } else if kw(ent, "burstbuffer", 2) {
            ShowWhat::Absent(Absent::BurstBuffer)
        } else if kw(ent, "config", 1) {
            ShowWhat::Config
        } else if kw(ent, "daemons", 1) {
            if id.is_some() {
                return Err(err_out(format!("too many arguments for keyword:{}\n", tag)));
            }
            ShowWhat::Daemons
        } else if kw(ent, "federations", 1) {
            ShowWhat::Absent(Absent::Federation)
        } else if kw(ent, "frontendname", 1) {
            ShowWhat::Absent(Absent::Frontend)
        } else if kw(ent, "hostnames", 5) {
            ShowWhat::Hostnames
        } else if kw(ent, "hostlist", 5) {
            ShowWhat::Hostlist
        } else if kw(ent, "hostlistsorted", 9) {
            ShowWhat::HostlistSorted
        } else if kw(ent, "jobs", 1) || kw(ent, "jobid", 1) {
            ShowWhat::Job
        } else if kw(ent, "licenses", 2) {
            ShowWhat::Licenses
        } else if kw(ent, "nodes", 1) {
            ShowWhat::Node
        } else if kw(ent, "partitions", 2) || kw(ent, "partitionname", 2) {
            ShowWhat::Partition
        } else if kw(ent, "reservations", 1) || kw(ent, "reservationname", 1) {
            ShowWhat::Reservation
        } else if kw(ent, "slurmd", 2) {
            ShowWhat::Slurmd
        } else if kw(ent, "steps", 2) {
            ShowWhat::Steps
        } else if kw(ent, "topology", 1) {
            ShowWhat::Absent(Absent::Topology)
        } else {
            return Err(err_out(format!("invalid entity:{} for keyword:{} \n", ent, tag)));
        };
        if matches!(what, ShowWhat::Hostlist | ShowWhat::HostlistSorted) && id.is_none() {
            return Err(err_out(format!("invalid encode argument\n{}", "scontrol [<OPTION>] [<COMMAND>]\n")));
        }
        let id = match (&what, id) {
            (ShowWhat::Hostnames, None) => env.get("SLURM_NODELIST").cloned(),
            (_, id) => id,
        };
        return Ok(ScontrolCmd::Show { flags, what, id });
    }
    if kw(tag, "write", 5) {
        if argv.len() < 2 {
            return Err(few());
        }
        if kw(argv[1], "batch_script", argv[1].len().max(5)) {
            if argv.len() > 4 {
                return Err(many());
            }
            let Some(id) = argv.get(2) else {
                return Ok(ScontrolCmd::Print(Output::ok("")));
            };
            return Ok(ScontrolCmd::WriteBatchScript {
                flags,
                job_id: id.to_string(),
                file: argv.get(3).map(|s| s.to_string()),
            });
        }
        if kw(argv[1], "config", argv[1].len().max(6)) {
            if argv.len() > 3 {
                return Err(many());
            }
            let base = argv.get(2).map(|s| s.to_string()).or_else(|| env.get("SLURM_CONF_OUT").cloned());
            return Ok(ScontrolCmd::WriteConfig { base });
        }
        return Err(err_out(format!("invalid write argument:{}\n", argv[1])));
    }
    if kw(tag, "requeuehold", 11) || kw(tag, "requeue", 3) {
        let hold = kw(tag, "requeuehold", 11);
        if argv.len() < 2 {
            return Err(few());
        }
        let mut special_exit = false;
        let mut ids = Vec::new();
        for a in &rest {
            if a.eq_ignore_ascii_case("state=specialexit") || a.eq_ignore_ascii_case("state=special_exit") {
                special_exit = true;
            } else {
                ids.push(a.clone());
            }
        }
        return Ok(ScontrolCmd::Requeue { flags, job_ids: ids, hold, special_exit });
    }
    if tag.len() >= 4 && (kw(tag, "hold", 4) || kw(tag, "holdu", 5) || kw(tag, "uhold", 5)) || kw(tag, "release", 3) {
        if argv.len() < 2 {
            return Err(few());
        }
        if kw(tag, "release", 3) {
            return Ok(ScontrolCmd::Release { flags, job_ids: rest });
        }
        let user = !tag.eq_ignore_ascii_case("hold");
        return Ok(ScontrolCmd::Hold { flags, job_ids: rest, user });
    }
    if kw(tag, "suspend", 2) || kw(tag, "resume", 3) {
        if argv.len() < 2 {
            return Err(few());
        }
        return Ok(if kw(tag, "suspend", 2) {
            ScontrolCmd::Suspend { flags, job_ids: rest }
        } else {
            ScontrolCmd::Resume { flags, job_ids: rest }
        });
    }
    if kw(tag, "top", 3) {
        if argv.len() < 2 {
            return Err(few());
        }
        if argv.len() > 2 {
            return Err(many());
        }
        // scontrol_top_job: a `JobId=` or `Job=` prefix is dropped
        let mut ids = argv[1];
        for prefix in ["jobid=", "job="] {
            if ids.get(..prefix.len()).is_some_and(|p| p.eq_ignore_ascii_case(prefix)) {
                ids = &ids[prefix.len()..];
            }
        }
        return Ok(ScontrolCmd::Top { flags, job_ids: ids.split(',').map(String::from).collect() });
    }
    if kw(tag, "create", 2) || kw(tag, "delete", 3) {
        return crate::resv::parse(tag, &rest);
    }
    if kw(tag, "update", 1) {
        if argv.len() < 2 {
            return Err(err_out(format!("too few arguments for {} keyword\n", tag)));
        }
        // the entity: any JobId/JobName, NodeName or PartitionName tag (Slurm's _update_it)
        let (mut job_tag, mut node_tag, mut part_tag) = (false, false, false);
        let mut i = 0;
        while i < rest.len() {
            let a = &rest[i];
            let t = match a.find('=') {
                Some(p) => a[..p].trim_end_matches(['+', '-']),
                None => {
                    i += 1;
                    a.as_str()
                }
            };
            if kw(t, "reservationname", 3) && !job_tag {
                return crate::resv::parse("update", &rest);
            }
            if t.get(..10).is_some_and(|p| p.eq_ignore_ascii_case("suspendexc"))
                && !spur_core::compat::profile().usage_texts_22_05
            {
                // power saving's exclusions: Spur has no power saving
                return Err(err_out(if nix::unistd::getuid().is_root() {
                    "slurm_update error: Requested operation not supported on this system\n".into()
                } else {
                    "slurm_update error: Permission denied\n".into()
                }));
            }
            if kw(t, "nodename", 3) {
                node_tag = true;
            } else if kw(t, "partitionname", 3) {
                part_tag = true;
            } else if kw(t, "jobid", 3) || kw(t, "jobname", 3) {
                job_tag = true;
            }
            i += 1;
        }
        if job_tag {
            return parse_update_job(flags, &rest);
        }
        if node_tag {
            return parse_update_node(flags, &rest);
        }
        if part_tag {
            return parse_update_part(flags, &rest);
        }
        return Err(err_out(
            "No valid entity in update command\nInput line must include \"NodeName\", \"PartitionName\", \"Reservation\", \"JobId\", or \"SlurmctldDebug\"\n".into(),
        ));
    }
    if kw(tag, "version", 4) {
        if argv.len() > 1 {
            let mut o = Output::ok(version_line());
            o.stderr = format!("too many arguments for {} keyword\n", tag);
            o.code = 1;
            return print(o);
        }
        return Ok(ScontrolCmd::Version);
    }
    if kw(tag, "ping", 3) {
        return Ok(ScontrolCmd::Ping);
    }
    if kw(tag, "help", 2) {
        if argv.len() > 1 {
            // the text, then the complaint (scontrol_surface 060)
            let mut o = Output::ok(usage_text());
            o.stderr = format!("too many arguments for keyword:{}\n", tag);
            o.code = 1;
            return Ok(ScontrolCmd::Print(o));
        }
        return Ok(ScontrolCmd::Help);
    }
    Err(err_out(format!("invalid keyword: {}\n", tag)))
}

/// How one `TAG=value` of `scontrol update job` sets its field of the request.
type SetField = Box<dyn FnOnce(&mut rq::JobUpdate) -> Result<(), Output>>;

/// `update JobId=…|JobName=… Key=Value…` as scontrol_update_job reads it: tags
/// by their shortest accepted abbreviation, values parsed with Slurm's
/// messages; the controller gets a typed update.
fn parse_update_job(flags: Flags, args: &[String]) -> Result<ScontrolCmd, Output> {
    let mut job_ids: Vec<String> = Vec::new();
    let mut u = rq::JobUpdate::default();
    let mut changes = 0;
    let mut time_step = None;
    let mut invalid = None;
    let mut name: Option<String> = None;
    let abort = |msg: String| Err(err_out(msg));
    let error = |msg: &str| Err(err_out(format!("scontrol: error: {}\n", msg)));
    let unsupported = |u: &mut rq::JobUpdate, f: JF| {
        if !u.unsupported.contains(&f) {
            u.unsupported.push(f);
        }
    };
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        let (tag, add, val): (String, Option<char>, String) = match arg.find('=') {
            Some(p) => {
                let mut t = &arg[..p];
                let mut add = None;
                if p > 0 && (t.ends_with('+') || t.ends_with('-')) {
                    add = t.chars().last();
                    t = &t[..t.len() - 1];
                }
                (t.to_string(), add, arg[p + 1..].to_string())
            }
            None if kw(arg, "nice", 2) => {
                u.nice = Some(100);
                changes += 1;
                i += 1;
                continue;
            }
            None if kw(arg, "resetaccruetime", 3) => {
                u.reset_accrue_time = true;
                changes += 1;
                i += 1;
                continue;
            }
            None if i + 1 < args.len() => {
                i += 1;
                (arg.clone(), None, args[i].clone())
            }
            None => return abort(format!("Invalid input: {}\nRequest aborted\n", arg)),
        };
        i += 1;
        let t = tag.as_str();
        let v = val.clone();
        if kw(t, "jobid", 3) {
            // cut at commas outside brackets (`1_[1,5-6]` is one reference)
            job_ids.extend(spur_grammar::jobref::split_list(std::slice::from_ref(&val)));
            if add.is_some() {
                return error(&format!("Option {} does not accept [+|-]= syntax", t));
            }
            continue;
        } else if kw(t, "timelimit", 5) {
            let (sign, body) = match val.chars().next() {
                Some(c @ ('+' | '-')) => {
                    if add.is_some() {
                        return error("Invalid syntax, variations of +=- are not accepted.");
                    }
                    (Some(c), &val[1..])
                }
                _ => (add, val.as_str()),
            };
            let limit = match spur_grammar::time::parse_time_limit(body) {
                Ok(m) if !body.is_empty() => m,
                _ => return error("Invalid TimeLimit value"),
            };
            changes += 1;
            if let Some(c) = sign {
                if job_ids.is_empty() {
                    return error("JobId must precede TimeLimit increment or decrement");
                }
                let delta = limit.unwrap_or(0) as i64;
                time_step = Some(if c == '+' { delta } else { -delta });
                u.time_limit = None;
            } else {
                time_step = None;
                u.time_limit = Some(limit.unwrap_or(INFINITE));
            }
            continue;
        }
        // every other tag refuses [+|-]=
        let take: SetField = if kw(t, "arraytaskthrottle", 10) {
            // strtoll: `abc` is 0 (no limit); a negative count is refused here
            let n = spur_grammar::num::strtol(&val, 10).value;
            if n < 0 {
                return error("Invalid ArrayTaskThrottle value");
            }
            let n = n.min(i64::from(u32::MAX)) as u32;
            Box::new(move |u| {
                u.array_throttle = Some(n);
                Ok(())
            })
        } else if kw(t, "comment", 3) {
            Box::new(move |u| {
                u.comment = Some(v);
                Ok(())
            })
        } else if kw(t, "admincomment", 6) {
            if add.is_some() {
                return error("Invalid syntax, AdminComment can not be added/subtracted from.");
            }
            Box::new(move |u| {
                u.admin_comment = Some(v);
                Ok(())
            })
        } else if kw(t, "sitefactor", 5) {
            let n = spur_grammar::num::strtol(&val, 10).value;
            if n.unsigned_abs() > 2147483645 {
                return error("SiteFactor value out of range (+/- 2147483645). Value ignored");
            }
            Box::new(move |u| {
                u.site_factor = Some(n);
                Ok(())
            })
        } else if kw(t, "delayboot", 5) {
            match spur_grammar::time::parse_duration_secs(&val) {
                Ok(secs) => {
                    let secs = secs.map(|s| s as u32).unwrap_or(INFINITE);
                    Box::new(move |u| {
                        u.delay_boot = Some(secs);
                        Ok(())
                    })
                }
                Err(_) => return error("Invalid DelayBoot value"),
            }
        } else if kw(t, "extra", 3) && !spur_core::compat::profile().usage_texts_22_05 {
            // (22.05's scontrol does not know the key: scontrol_surface 117)
            Box::new(move |u| {
                u.extra = Some(v);
                Ok(())
            })
        } else if kw(t, "timemin", 5) {
            match spur_grammar::time::parse_time_limit(&val) {
                Ok(m) => Box::new(move |u| {
                    u.time_min = Some(m.unwrap_or(INFINITE));
                    Ok(())
                }),
                Err(_) => return error("Invalid TimeMin value"),
            }
        } else if kw(t, "priority", 2) {
            match val.parse::<u32>() {
                Ok(n) => Box::new(move |u| {
                    u.priority = Some(n);
                    Ok(())
                }),
                Err(_) => return error(&format!("Invalid Priority value: {}", val)),
            }
        } else if kw(t, "nice", 2) {
            let n: i64 = spur_grammar::num::atol(&val); // atoll
            if n.unsigned_abs() > 2147483645 {
                return error("Nice value out of range (+/- 2147483645). Value ignored");
            }
            u.nice = Some(n as i32);
            changes += 1;
            continue;
        } else if kw(t, "cpuspertask", 9) {
            match uint_arg(&val, NO_VAL16) {
                Some(n) => Box::new(move |u| {
                    u.cpus_per_task = Some(n as _);
                    Ok(())
                }),
                None => return error(&format!("Invalid CPUsPerTask value: {}", val)),
            }
        } else if kw(t, "numcpus", 6) {
            // MIN[-MAX], MIN at least 1 (the maximum is not kept)
            match num_range(&val) {
                Some(n) => Box::new(move |u| {
                    u.num_cpus = Some(n);
                    Ok(())
                }),
                None => return error(&format!("Invalid NumCPUs value: {}", val)),
            }
        } else if kw(t, "reqsockets", 4) || kw(t, "reqcores", 4) || kw(t, "reqthreads", 4) {
            let (which, name) = if kw(t, "reqsockets", 4) {
                (0, "ReqSockets")
            } else if kw(t, "reqcores", 4) {
                (1, "ReqCores")
            } else {
                (2, "ReqThreads")
            };
            match uint_arg(&val, NO_VAL16) {
                Some(n) => Box::new(move |u| {
                    let n = Some(n as u32);
                    match which {
                        0 => u.sockets_per_node = n,
                        1 => u.cores_per_socket = n,
                        _ => u.threads_per_core = n,
                    }
                    Ok(())
                }),
                None => return error(&format!("Invalid {} value: {}", name, val)),
            }
        } else if kw(t, "numtasks", 8) || kw(t, "reqprocs", 8) {
            match val.parse::<u32>() {
                Ok(n) => Box::new(move |u| {
                    u.num_tasks = Some(n);
                    Ok(())
                }),
                Err(_) => return error(&format!("Invalid NumTasks value: {}", val)),
            }
        } else if kw(t, "requeue", 4) {
            match val.parse::<u16>() {
                Ok(n) => Box::new(move |u| {
                    u.requeue = Some(n != 0);
                    Ok(())
                }),
                Err(_) => return error(&format!("Invalid Requeue value: {}", val)),
            }
        } else if kw(t, "reqnodes", 8) || kw(t, "numnodes", 8) {
            // the minimum of a range; a bad count is reported for the job
            match val.split('-').next().unwrap_or("").parse::<u32>() {
                Ok(n) => Box::new(move |u| {
                    u.num_nodes = Some(n);
                    Ok(())
                }),
                Err(_) => {
                    invalid = invalid.or(Some(spur_core::errors::ESLURM_INVALID_NODE_COUNT));
                    Box::new(|_| Ok(()))
                }
            }
        } else if kw(t, "tasKspernode", 2) {
            match uint_arg(&val, NO_VAL16) {
                Some(n) => Box::new(move |u| {
                    u.ntasks_per_node = Some(n as _);
                    Ok(())
                }),
                None => return error(&format!("Invalid TasksPerNode value: {}", val)),
            }
        } else if kw(t, "mincpusnode", 4) {
            match uint_arg(&val, NO_VAL16) {
                Some(n) => Box::new(move |u| {
                    u.min_cpus_node = Some(n as _);
                    Ok(())
                }),
                None => return error(&format!("Invalid MinCPUsNode value: {}", val)),
            }
        } else if kw(t, "minmemorynode", 10) {
            match val.parse::<u64>() {
                Ok(n) => Box::new(move |u| {
                    u.mem_per_node = Some(n);
                    Ok(())
                }),
                Err(_) => return error(&format!("Invalid MinMemoryNode value: {}", val)),
            }
        } else if kw(t, "minmemorycpu", 10) {
            match val.parse::<u64>() {
                Ok(n) => Box::new(move |u| {
                    u.mem_per_cpu = Some(n);
                    Ok(())
                }),
                Err(_) => return error(&format!("Invalid MinMemoryCPU value: {}", val)),
            }
        } else if kw(t, "mintmpdisknode", 5) {
            match uint_arg(&val, NO_VAL32) {
                Some(n) => Box::new(move |u| {
                    u.tmp_disk = Some(n as _);
                    Ok(())
                }),
                None => return error(&format!("Invalid MinTmpDiskNode value: {}", val)),
            }
        } else if kw(t, "partition", 2) {
            Box::new(move |u| {
                u.partition = Some(v);
                Ok(())
            })
        } else if kw(t, "qos", 2) {
            Box::new(move |u| {
                u.qos = Some(v);
                Ok(())
            })
        } else if kw(t, "reservationname", 3) {
            Box::new(move |u| {
                u.reservation = Some(v);
                Ok(())
            })
        } else if kw(t, "name", 2) || kw(t, "jobname", 4) {
            name = Some(val.clone());
            Box::new(move |u| {
                u.name = Some(v);
                Ok(())
            })
        } else if kw(t, "wckey", 1) {
            Box::new(move |u| {
                u.wckey = Some(v);
                Ok(())
            })
        } else if (kw(t, "stderr", 6) || kw(t, "stdin", 5)) && spur_core::compat::profile().usage_texts_22_05 {
            // 22.05's scontrol knows only StdOut (scontrol_surface 105, 106)
            return abort(format!("Update of this parameter is not supported: {}\nRequest aborted\n", arg));
        } else if kw(t, "stderr", 6) {
            Box::new(move |u| {
                u.std_err = Some(v);
                Ok(())
            })
        } else if kw(t, "stdin", 5) {
            Box::new(move |u| {
                u.std_in = Some(v);
                Ok(())
            })
        } else if kw(t, "stdout", 6) {
            Box::new(move |u| {
                u.std_out = Some(v);
                Ok(())
            })
        } else if kw(t, "oversubscribe", 2) || kw(t, "shared", 2) {
            match yes_no_arg(&val) {
                Some(b) => Box::new(move |u| {
                    u.shared = Some(b);
                    Ok(())
                }),
                None => return error(&format!("Invalid OverSubscribe value: {}", val)),
            }
        } else if kw(t, "contiguous", 3) {
            match yes_no_arg(&val) {
                Some(b) => Box::new(move |u| {
                    u.contiguous = Some(b);
                    Ok(())
                }),
                None => return error(&format!("Invalid Contiguous value: {}", val)),
            }
        } else if kw(t, "reboot", 3) {
            match yes_no_arg(&val) {
                Some(b) => Box::new(move |u| {
                    u.reboot = Some(b);
                    Ok(())
                }),
                None => return error(&format!("Invalid reboot value: {}", val)),
            }
        } else if kw(t, "switches", 5) {
            Box::new(move |u| {
                u.switches = Some(v);
                Ok(())
            })
        } else if kw(t, "prefer", 3) {
            Box::new(move |u| {
                u.prefer = Some(v);
                Ok(())
            })
        } else if kw(t, "excnodelist", 3) {
            Box::new(move |u| {
                u.exc_nodes = Some(v);
                Ok(())
            })
        } else if kw(t, "nodelist", 8) || kw(t, "reqnodelist", 8) {
            Box::new(move |u| {
                u.req_nodes = Some(v);
                Ok(())
            })
        } else if kw(t, "features", 1) {
            Box::new(move |u| {
                u.features = Some(v);
                Ok(())
            })
        } else if kw(t, "gres", 2) || kw(t, "tresPerNode", 8) {
            Box::new(move |u| {
                u.gres = Some(match u.gres.take() {
                    Some(g) => format!("{},{}", g, v),
                    None => v,
                });
                Ok(())
            })
        } else if kw(t, "account", 1) {
            Box::new(move |u| {
                u.account = Some(v);
                Ok(())
            })
        } else if kw(t, "dependency", 1) {
            Box::new(move |u| {
                u.dependency = Some(v);
                Ok(())
            })
        } else if kw(t, "licenses", 1) {
            // Spur has no licenses: slurmctld's answer for one it does not
            // know (scontrol_surface 132)
            if !val.is_empty() {
                invalid = invalid.or(Some(spur_core::errors::ESLURM_INVALID_LICENSES));
            }
            Box::new(move |u| {
                unsupported(u, JF::Licenses);
                Ok(())
            })
        } else if kw(t, "burstbuffer", 2) {
            // no burst buffer plugin (scontrol_surface 133)
            invalid = invalid.or(Some(spur_core::errors::ESLURM_NOT_SUPPORTED));
            Box::new(|_| Ok(()))
        } else if kw(t, "clusters", 8) || kw(t, "clusterfeatures", 8) {
            // not a federation (scontrol_surface 134, 135)
            invalid = invalid.or(Some(spur_core::errors::SLURM_ERROR_ANY));
            Box::new(|_| Ok(()))
        } else if kw(t, "corespec", 4) || kw(t, "threadspec", 4) {
            // no specialised cores or threads to give (scontrol_surface 121, 122)
            invalid = invalid.or(Some(spur_core::errors::ESLURM_ACCESS_DENIED));
            Box::new(|_| Ok(()))
        } else if kw(t, "eligibletime", 2) || kw(t, "starttime", 2) {
            // a bad time is reported for the job
            match spur_grammar::time::parse_time(&val, now(), false) {
                Ok(t) => Box::new(move |u| {
                    u.begin_time = Some(t);
                    Ok(())
                }),
                Err(_) => {
                    invalid = invalid.or(Some(spur_core::errors::ESLURM_INVALID_TIME_VALUE));
                    Box::new(|_| Ok(()))
                }
            }
        } else if kw(t, "deadline", 3) {
            // a time that does not read is no change at all (parse_time's 0)
            match spur_grammar::time::parse_time(&val, now(), false) {
                Ok(d) if d != 0 => Box::new(move |u| {
                    u.deadline = Some(d);
                    Ok(())
                }),
                _ => {
                    if add.is_some() {
                        return error(&format!("Option {} does not accept [+|-]= syntax", t));
                    }
                    continue;
                }
            }
        } else if kw(t, "endtime", 2) {
            // (a time that does not read is sent as none: no change)
            let e = spur_grammar::time::parse_time(&val, now(), false).unwrap_or(0);
            Box::new(move |u| {
                u.end_time = Some(e).filter(|e| *e != 0);
                Ok(())
            })
        } else if kw(t, "workdir", 2) {
            Box::new(move |u| {
                u.work_dir = Some(v);
                Ok(())
            })
        } else if kw(t, "mailtype", 5) {
            if !spur_cli_base::records::valid_mail_type(&val) {
                return abort(format!("Invalid MailType: {}\n", val));
            }
            Box::new(move |u| {
                u.mail_type = Some(v);
                Ok(())
            })
        } else if kw(t, "mailuser", 5) {
            Box::new(move |u| {
                u.mail_user = Some(v);
                Ok(())
            })
        } else if kw(t, "userid", 3) {
            continue;
        } else {
            return abort(format!("Update of this parameter is not supported: {}\nRequest aborted\n", arg));
        };
        if add.is_some() {
            return error(&format!("Option {} does not accept [+|-]= syntax", t));
        }
        take(&mut u)?;
        changes += 1;
    }
    if changes == 0 {
        return abort("No changes specified\n".into());
    }
    if job_ids.is_empty() {
        match name {
            // translated to the ids of the user's jobs of that name when run
            Some(n) => {
                return Ok(ScontrolCmd::UpdateJob {
                    flags,
                    job_ids: vec![],
                    update: u,
                    time_step,
                    by_name: Some(n),
                    invalid,
                })
            }
            None => return error("No job ID specified"),
        }
    }
    Ok(ScontrolCmd::UpdateJob { flags, job_ids, update: u, time_step, by_name: None, invalid })
}

/// Slurm's `NO_VAL16` and `NO_VAL`: the bounds of `parse_uint16`/`parse_uint32`.
const NO_VAL16: u64 = 0xfffe;
const NO_VAL32: u64 = 0xffff_fffe;

/// A count as Slurm's `parse_uint16`/`parse_uint32` read it: the whole
/// value a number, not negative, below `max` (NO_VAL16 / NO_VAL).
fn uint_arg(v: &str, max: u64) -> Option<u64> {
    let c = spur_grammar::num::strtol(v, 10);
    if v.is_empty() || c.end != v.len() || c.overflow || c.value < 0 || c.value as u64 >= max {
        return None;
    }
    Some(c.value as u64)
}

/// `YES`/`NO` (any abbreviation, any case) or a number (`OverSubscribe=`,
/// `Contiguous=`, `Reboot=`).
fn yes_no_arg(v: &str) -> Option<bool> {
    let abbrev = |w: &str| !v.is_empty() && w.len() >= v.len() && w[..v.len()].eq_ignore_ascii_case(v);
    if abbrev("YES") {
        Some(true)
    } else if abbrev("NO") {
        Some(false)
    } else {
        uint_arg(v, NO_VAL16).map(|n| n != 0)
    }
}

/// `NumCPUs=MIN[-MAX]`: the minimum, at least 1, not above the maximum.
fn num_range(v: &str) -> Option<u32> {
    let (lo, hi) = match v.split_once('-') {
        Some((a, b)) => (a, Some(b)),
        None => (v, None),
    };
    let lo = uint_arg(lo, NO_VAL32)?;
    let hi = match hi {
        Some(h) => uint_arg(h, NO_VAL32)?,
        None => 0,
    };
    if lo == 0 || (hi != 0 && hi < lo) {
        return None;
    }
    Some(lo as u32)
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// `update NodeName=… Key=Value…` as scontrol_update_node reads it.
fn parse_update_node(flags: Flags, args: &[String]) -> Result<ScontrolCmd, Output> {
    let mut u = rq::NodeUpdate::default();
    let mut changes = 0;
    for arg in args {
        let Some(p) = arg.find('=') else {
            return Err(err_out(format!("scontrol: error: Invalid input: {}  Request aborted\n", arg)));
        };
        let (t, v) = (&arg[..p], &arg[p + 1..]);
        if kw(t, "nodeaddr", 5) {
            u.node_addr = Some(v.into());
        } else if kw(t, "nodehostname", 5) {
            u.node_hostname = Some(v.into());
        } else if kw(t, "nodename", 1) {
            u.nodes = v.to_string();
            continue;
        } else if kw(t, "activefeatures", 3) {
            u.active_features = Some(v.into());
        } else if kw(t, "cpubind", 7) {
            match cpu_bind_bits(v) {
                Some(b) => u.cpu_bind = Some(b),
                None => return Err(err_out(format!("scontrol: error: Invalid input {}\n{}", arg, no_error_22_05()))),
            }
        } else if kw(t, "extra", 1) {
            u.extra = Some(v.into());
        } else if kw(t, "features", 1) || kw(t, "availablefeatures", 3) {
            u.available_features = Some(v.into());
        } else if kw(t, "gres", 1) {
            u.gres = Some(v.into());
        } else if kw(t, "weight", 1) {
            match v.parse::<u32>() {
                Ok(w) => u.weight = Some(w),
                Err(_) if spur_core::compat::profile().node_weight_text_22_05 => {
                    return Err(err_out(format!(
                        "scontrol: error: Weight value ({}) is not a valid number\nNo changes specified\n",
                        v
                    )))
                }
                Err(_) => return Err(err_out(format!("scontrol: error: Invalid value {} for Weight\n", arg))),
            }
        } else if kw(t, "comment", 2) {
            u.comment = Some(v.into());
        } else if kw(t, "reason", 1) {
            let r = v.strip_prefix('"').unwrap_or(v);
            let r = r.strip_suffix('"').unwrap_or(r);
            u.reason = Some(r.to_string());
        } else if kw(t, "resumeafter", 1) && spur_core::compat::profile().node_resume_after {
            // seconds, -1: never (22.05 has no such key)
            match v {
                "-1" => u.resume_after = Some(rq::INFINITE),
                _ => match parse_u32_strict(v) {
                    Some(n) => u.resume_after = Some(n),
                    None => return Err(err_out(format!("scontrol: error: Invalid value {} for ResumeAfter\n", arg))),
                },
            }
        } else if kw(t, "state", 1) {
            let named = [
                ("noresp", "NORESP", 3),
                ("cancel_reboot", "CANCEL_REBOOT", 3),
                ("drain", "DRAIN", 3),
                ("fail", "FAIL", 3),
                ("future", "FUTURE", 3),
                ("resume", "RESUME", 3),
                ("power_down_asap", "POWER_DOWN_ASAP", 12),
                ("power_down_force", "POWER_DOWN_FORCE", 12),
                ("power_down", "POWER_DOWN", 7),
                ("power_up", "POWER_UP", 7),
                ("undrain", "UNDRAIN", 3),
            ];
            let base = ["UNKNOWN", "DOWN", "IDLE", "ALLOCATED", "ERROR", "MIXED", "FUTURE"];
            let hit = named
                .iter()
                .find(|(w, _, m)| kw(v, w, *m))
                .map(|x| x.1.to_string())
                .or_else(|| base.iter().find(|b| kw(v, b, 3)).map(|b| b.to_string()));
            match hit.and_then(|h| NodeStateChange::ALL.iter().find(|s| s.name() == h)) {
                Some(h) => u.state = Some(*h),
                None => {
                    return Err(err_out(format!(
                        "Invalid input: {}\nRequest aborted\nValid states are: NoResp DRAIN FAIL FUTURE RESUME POWER_DOWN POWER_UP UNDRAIN\nNot all states are valid given a node's prior state\n",
                        arg
                    )))
                }
            }
        } else {
            return Err(err_out(format!("Update of this parameter is not supported: {}\nRequest aborted\n", arg)));
        }
        changes += 1;
    }
    let downing = matches!(u.state, Some(NodeStateChange::Down | NodeStateChange::Drain | NodeStateChange::Fail));
    if downing && u.reason.as_deref().unwrap_or("").is_empty() {
        return Err(err_out("You must specify a reason when DOWNING or DRAINING a node. Request denied\n".into()));
    }
    let draining = matches!(u.state, Some(NodeStateChange::Down | NodeStateChange::Drain));
    if u.resume_after.is_some() && !draining {
        return Err(err_out(
            "You can only specify a resume time when DOWNING or DRAINING a node. Request denied\n".into(),
        ));
    }
    if changes == 0 {
        return Err(err_out("No changes specified\n".into()));
    }
    Ok(ScontrolCmd::UpdateNode { flags, update: u })
}

/// Slurm's cpu_bind_type bits for a `CpuBind=` value (xlate_cpu_bind_str):
/// one binding (none, sockets, ldoms, cores, threads, off) and `verbose`,
/// separated by `,` or `;`, any case; `None` for anything else.
fn cpu_bind_bits(v: &str) -> Option<u32> {
    let mut bits = 0u32;
    let mut have_type = false;
    for tok in v.split([',', ';']).filter(|t| !t.is_empty()) {
        let t = tok.to_ascii_lowercase();
        let b = match t.as_str() {
            "v" | "verbose" => {
                bits |= 0x1;
                continue;
            }
            "no" | "none" => 0x20,
            "socket" | "sockets" => 0x8,
            "ldom" | "ldoms" => 0x10,
            "core" | "cores" => 0x4,
            "thread" | "threads" => 0x2,
            "off" => 0x80000,
            _ => return None,
        };
        if have_type {
            return None;
        }
        have_type = true;
        bits |= b;
    }
    Some(bits)
}

/// slurm_sprint_cpu_bind_type for the bits a node's `CpuBind=` can hold.
pub fn cpu_bind_text(bits: u32) -> String {
    let names = [
        (0x1, "verbose"),
        (0x2, "threads"),
        (0x4, "cores"),
        (0x8, "sockets"),
        (0x10, "ldoms"),
        (0x20, "none"),
        (0x80000, "off"),
    ];
    let v: Vec<&str> = names.iter().filter(|(b, _)| bits & b != 0).map(|(_, n)| *n).collect();
    if v.is_empty() {
        "(null type)".into()
    } else {
        v.join(",")
    }
}

/// parse_uint32: decimal digits only, within u32 (below NO_VAL).
fn parse_u32_strict(v: &str) -> Option<u32> {
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    v.parse::<u64>().ok().filter(|n| *n < 0xfffffffe).map(|n| n as u32)
}

/// `update PartitionName=P Key=Value…` (scontrol_parse_part_options).
fn parse_update_part(flags: Flags, args: &[String]) -> Result<ScontrolCmd, Output> {
    let error =
        |msgs: &[String]| Err(err_out(msgs.iter().map(|m| format!("scontrol: error: {}\n", m)).collect::<String>()));
    let mut u = rq::PartitionUpdate::default();
    // a value the controller would refuse (Slurm's error number), reported as its answer
    let mut invalid: Option<i32> = None;
    for arg in args {
        let Some(p) = arg.find('=') else {
            return error(&[format!("Invalid input: {}  Request aborted", arg)]);
        };
        let (t, v) = (&arg[..p], &arg[p + 1..]);
        let yes_no = |key: &str| -> Result<bool, Output> {
            if kw(v, "yes", 1) || kw(v, "no", 1) {
                Ok(kw(v, "yes", 1))
            } else {
                Err(err_out(format!(
                    "scontrol: error: Invalid input: {}\nscontrol: error: Acceptable {} values are YES and NO\n{}",
                    arg,
                    key,
                    no_error_22_05()
                )))
            }
        };
        let count = |v: &str| -> Result<u32, i32> {
            if v.eq_ignore_ascii_case("unlimited") || v.eq_ignore_ascii_case("infinite") {
                Ok(INFINITE)
            } else {
                v.parse().map_err(|_| spur_core::errors::ESLURM_INVALID_NODE_COUNT)
            }
        };
        let number =
            |v: &str| -> Result<u32, i32> { v.parse().map_err(|_| spur_core::errors::ESLURM_INVALID_PARTITION_NAME) };
        if kw(t, "partitionname", 2) {
            u.name = v.to_string();
        } else if kw(t, "maxtime", 4) || kw(t, "defaulttime", 8) {
            let m = match spur_grammar::time::parse_time_limit(v) {
                Ok(m) if !v.is_empty() => m.unwrap_or(INFINITE),
                _ => return Err(err_out(format!("scontrol: error: Invalid input {}\n{}", arg, no_error_22_05()))),
            };
            if kw(t, "maxtime", 4) {
                u.max_time = Some(m);
            } else {
                u.default_time = Some(m);
            }
        } else if kw(t, "maxnodes", 4) || kw(t, "minnodes", 2) {
            let key = if kw(t, "maxnodes", 4) { "MaxNodes" } else { "MinNodes" };
            match count(v) {
                Ok(n) if key == "MaxNodes" => u.max_nodes = Some(n),
                Ok(n) => u.min_nodes = Some(n),
                // not a number at all: scontrol itself refuses it
                Err(_) if !v.starts_with(|c: char| c.is_ascii_digit() || c == '-') => {
                    return error(&[format!("Invalid numeric value \"{}\" for {}.", v, key)])
                }
                Err(code) => invalid = invalid.or(Some(code)),
            }
        } else if kw(t, "default", 7) {
            u.default = Some(yes_no("Default")?);
        } else if kw(t, "hidden", 1) {
            u.hidden = Some(yes_no("Hidden")?);
        } else if kw(t, "state", 2) {
            let st = [
                ("UP", PartState::Up),
                ("DOWN", PartState::Down),
                ("DRAIN", PartState::Drain),
                ("INACTIVE", PartState::Inactive),
            ]
            .into_iter()
            .find(|(s, _)| kw(v, s, 2) || v.eq_ignore_ascii_case(s));
            match st {
                Some((_, s)) => u.state = Some(s),
                None => {
                    return error(&[
                        format!("Invalid input: {}", arg),
                        "Acceptable State values are UP, DOWN, DRAIN and INACTIVE".into(),
                    ])
                }
            }
        } else if kw(t, "priorityjobfactor", 3) && t.len() > 8 {
            match number(v) {
                Ok(n) => u.priority_job_factor = Some(n),
                Err(code) => invalid = invalid.or(Some(code)),
            }
        } else if kw(t, "prioritytier", 3) && t.len() > 8 {
            match number(v) {
                Ok(n) => u.priority_tier = Some(n),
                Err(code) => invalid = invalid.or(Some(code)),
            }
        } else if kw(t, "oversubscribe", 5) || kw(t, "shared", 2) {
            if !oversubscribe_ok(v) {
                return Err(err_out(format!(
                    "scontrol: error: Invalid input: {}\n\
                     scontrol: error: Acceptable OverSubscribe values are NO, EXCLUSIVE, YES:#, and FORCE:#\n{}",
                    arg,
                    no_error_22_05()
                )));
            }
            u.oversubscribe = Some(v.to_string());
        } else if let Some(key) = part_key(t) {
            match key.canonical(v, arg) {
                Ok(c) => u.settings.push((key, c)),
                Err(lines) => {
                    let mut e: String = lines.iter().map(|m| format!("scontrol: error: {}\n", m)).collect();
                    e.push_str(no_error_22_05());
                    return Err(err_out(e));
                }
            }
        } else {
            return Err(err_out(format!(
                "scontrol: error: Update of this parameter is not supported: {}\n\nscontrol: error: Request aborted\n{}",
                arg,
                no_error_22_05()
            )));
        }
    }
    if u.name.is_empty() {
        return error(&["PartitionName must be given.".into()]);
    }
    if let Some(code) = invalid {
        // what slurmctld answers for such a value
        return Err(err_out(format!("slurm_update error: {}\n", spur_core::errors::strerror(code))));
    }
    Ok(ScontrolCmd::UpdatePartition { flags, update: u })
}

/// The partition keys of [`rq::PartKey`] with the shortest abbreviation
/// scontrol takes, in the order it tries them (scontrol_parse_part_options).
fn part_key(t: &str) -> Option<rq::PartKey> {
    use rq::PartKey::*;
    const KEYS: &[(&str, usize, rq::PartKey)] = &[
        ("cpubind", 7, CpuBind),
        ("maxcpuspernode", 4, MaxCpusPerNode),
        ("maxcpuspersocket", 4, MaxCpusPerSocket),
        ("disablerootjobs", 1, DisableRootJobs),
        ("exclusiveuser", 1, ExclusiveUser),
        ("lln", 1, Lln),
        ("rootonly", 3, RootOnly),
        ("reqresv", 3, ReqResv),
        ("overtimelimit", 5, OverTimeLimit),
        ("preemptmode", 3, PreemptMode),
        ("nodes", 1, Nodes),
        ("allowgroups", 6, AllowGroups),
        ("allowaccounts", 6, AllowAccounts),
        ("allowqos", 6, AllowQos),
        ("denyaccounts", 5, DenyAccounts),
        ("denyqos", 5, DenyQos),
        ("allocnodes", 6, AllocNodes),
        ("alternate", 3, Alternate),
        ("gracetime", 5, GraceTime),
        ("defmempercpu", 10, DefMemPerCpu),
        ("defmempernode", 10, DefMemPerNode),
        ("maxmempercpu", 10, MaxMemPerCpu),
        ("maxmempernode", 10, MaxMemPerNode),
        ("qos", 3, Qos),
        ("jobdefaults", 4, JobDefaults),
        ("tresbillingweights", 1, TresBillingWeights),
    ];
    KEYS.iter()
        .find(|(w, min, _)| kw(t, w, *min))
        .map(|k| k.2)
        // 22.05's scontrol has no MaxCPUsPerSocket (nor ExclusiveTopo)
        .filter(|k| *k != MaxCpusPerSocket || spur_core::compat::profile().show_partition_topo_fields)
}

/// `scontrol --help` / `help`: Slurm's text, captured from each release
/// (scontrol_surface 056: 24.11 trimmed trailing blanks that 22.05 prints).
fn usage_text() -> String {
    if spur_core::compat::profile().usage_texts_22_05 {
        include_str!("text/scontrol_help_22.05.txt").into()
    } else {
        include_str!("text/scontrol_help.txt").into()
    }
}

/// Commands answered without the controller.
pub fn run_local(cmd: &ScontrolCmd) -> Option<Output> {
    match cmd {
        ScontrolCmd::Version => Some(Output::ok(version_line())),
        ScontrolCmd::Help => Some(Output::ok(usage_text())),
        ScontrolCmd::Print(o) | ScontrolCmd::Fatal(o) => Some(o.clone()),
        // Slurm reports a bad or missing list on stderr and still exits 0.
        ScontrolCmd::Show { what: ShowWhat::Hostnames, id, .. } => Some(match id {
            None => Output::err("scontrol: error: host list is empty\n", 0),
            Some(expr) => {
                // 22.05's parser differs (see spur_grammar::hostlist::expand_22_05)
                let hosts = if spur_core::compat::profile().hostlist_22_05_parser {
                    spur_grammar::hostlist::expand_22_05(expr)
                } else {
                    spur_grammar::hostlist::expand(expr)
                };
                match hosts {
                    Ok(h) => Output::ok(h.iter().map(|x| format!("{}\n", x)).collect::<String>()),
                    Err(e) => {
                        let mut msg = String::new();
                        if e.detail.starts_with("_parse_single_range") {
                            msg.push_str(&format!("scontrol: error: {}\n", e.detail));
                        }
                        msg.push_str(&format!("Invalid hostlist: {}\n", expr));
                        Output::err(msg, 0)
                    }
                }
            }
        }),
        ScontrolCmd::Show { what: ShowWhat::Hostlist, id: Some(expr), .. } => Some(encode(expr, false)),
        ScontrolCmd::Show { what: ShowWhat::HostlistSorted, id: Some(expr), .. } => Some(encode(expr, true)),
        _ => None,
    }
}

/// The jobs `hold`/`uhold`/`release` act on, as scontrol_hold reads its
/// words: a `JobID=`/`Job=` prefix is dropped; `Name=X`/`JobName=X` is every
/// job named X that is pending (a running array task is skipped, any other
/// job is still asked, so that slurmctld refuses it), array tasks as
/// `ARRAY_TASK`; anything else goes as given (slurmctld refuses what is
/// not a job id).
async fn hold_targets(c: &spur_client::Client, words: &[String]) -> Vec<String> {
    let strip =
        |w: &str, p: &str| w.get(..p.len()).filter(|h| h.eq_ignore_ascii_case(p)).map(|_| w[p.len()..].to_string());
    let mut out = Vec::new();
    for w in words {
        let mut w = w.clone();
        for p in ["jobid=", "job="] {
            if let Some(r) = strip(&w, p) {
                w = r;
            }
        }
        let Some(name) = strip(&w, "name=").or_else(|| strip(&w, "jobname=")) else {
            out.push(w);
            continue;
        };
        let q = spur_core::request::Query { jobs: true, ..Default::default() };
        let Ok(view) = c.query(&q).await else { continue };
        for j in view.jobs.iter().filter(|j| *j.desc.name == *name) {
            let task = j.array.as_ref().and_then(|a| a.task_id.map(|t| (a.array_job_id, t)));
            if j.state != JobState::Pending && task.is_some() {
                continue;
            }
            out.push(match (&j.array, task) {
                (_, Some((a, t))) => format!("{}_{}", a, t),
                (Some(a), None) => format!("{}_[{}]", a.array_job_id, a.spec),
                (None, None) => j.job_id.to_string(),
            });
        }
    }
    out
}

/// This host's name up to the first dot (Slurm's `gethostname_short`).
fn short_hostname() -> String {
    let h = nix::unistd::gethostname().ok().and_then(|h| h.into_string().ok()).unwrap_or_default();
    h.split('.').next().unwrap_or("").to_string()
}

/// `scontrol completing`: one line per job in the COMPLETING state, with
/// the time since it ended and which of its nodes are completing or down.
pub fn completing_text(view: &ClusterView, now: i64) -> String {
    let mut out = String::new();
    for j in view.jobs.iter().filter(|j| j.state == JobState::Completing) {
        let (mut comp, mut down) = (Vec::new(), Vec::new());
        for name in j.node_names() {
            match view.nodes.iter().find(|n| n.name == name) {
                Some(n) if n.flags.completing => comp.push(name),
                Some(n) if matches!(n.base, NodeBase::Down) => down.push(name),
                _ => {}
            }
        }
        out.push_str(&format!(
            "JobId={} EndTime={} CompletingTime={} ",
            j.job_id,
            ts(j.end_time),
            fmt_secs_scontrol((now - j.end_time).max(0))
        ));
        if !comp.is_empty() {
            out.push_str(&format!("Nodes(COMPLETING)={} ", spur_grammar::hostlist::compress_unique(&comp)));
        }
        if !down.is_empty() {
            out.push_str(&format!("Nodes(DOWN)={} ", spur_grammar::hostlist::compress_unique(&down)));
        }
        out.push('\n');
    }
    out
}

fn encode(expr: &str, sorted: bool) -> Output {
    let r = if sorted { spur_grammar::hostlist::reformat_sorted(expr) } else { spur_grammar::hostlist::reformat(expr) };
    match r {
        Ok(s) => Output::ok(format!("{}\n", s)),
        Err(_) => Output::err(format!("scontrol: error: Invalid hostlist: {}\n", expr), 1),
    }
}

/// Run a command against the controller.
pub async fn execute(cmd: &ScontrolCmd, c: &spur_client::Client) -> Output {
    use spur_core::request::Query as QueryRequest;
    if let Some(o) = run_local(cmd) {
        return o;
    }
    match cmd {
        ScontrolCmd::Ping => crate::ping::ping(c).await,
        ScontrolCmd::Show { what: ShowWhat::Licenses, .. } => Output::ok("No licenses configured in Slurm.\n"),
        ScontrolCmd::Show { what: ShowWhat::Reservation, id, flags } => {
            return match c.query(&QueryRequest::default()).await {
                Ok(view) => crate::resv::show(&view, id.as_deref(), flags.one_liner, flags.quiet == 1),
                Err(e) => Output::err(format!("slurm_load_reservations error: {}\n", e), 1),
            };
        }
        ScontrolCmd::Reservation { arg, req } => {
            return crate::resv::execute(c, arg, req).await;
        }
        ScontrolCmd::Show { what: ShowWhat::AssocMgr { users, assoc, qos }, .. } => {
            Output::ok(show_assoc_mgr(*users, *assoc, *qos))
        }
        ScontrolCmd::Show { what: ShowWhat::Config, .. } => {
            let q = QueryRequest { partitions: true, ..Default::default() };
            return match c.query(&q).await {
                Ok(view) => Output::ok(show_config(c.conf(), view.now)),
                Err(e) => Output::err(format!("slurm_load_ctl_conf error: {}\n", e), 1),
            };
        }
        ScontrolCmd::WriteConfig { base } => {
            let q = QueryRequest { nodes: true, partitions: true, ..Default::default() };
            return match c.query(&q).await {
                Ok(view) => write_config(c.conf(), &view, base.as_deref()),
                Err(e) => Output::err(format!("slurm_load_ctl_conf error: {}\n", e), 1),
            };
        }
        ScontrolCmd::WriteBatchScript { flags, job_id, file } => {
            // `(uint32_t) atoll(...)`, as scontrol_batch_script reads it
            let id = spur_grammar::num::atol(job_id) as u32;
            let fname = file.clone().unwrap_or_else(|| format!("slurm-{}.sh", id));
            let q = QueryRequest {
                jobs: true,
                job_ids: vec![id.to_string()],
                all_finished: true,
                with_script: true,
                ..Default::default()
            };
            let script = match c.query(&q).await {
                Ok(view) => match view.jobs.iter().find(|j| j.job_id == id) {
                    Some(j) if !j.desc.script.is_empty() => Ok(j.desc.script.to_string()),
                    Some(_) => Err(spur_core::errors::strerror(spur_core::errors::ESLURM_JOB_SCRIPT_MISSING)),
                    None => Err(spur_core::errors::strerror(spur_core::errors::ESLURM_INVALID_JOB_ID)),
                },
                Err(e) => Err(e.to_string()),
            };
            // Slurm reports a failed retrieval but exits 0.
            match script {
                Err(msg) => Output::err(format!("job script retrieval failed: {}\n", msg), 0),
                Ok(text) if fname == "-" => Output::ok(text),
                Ok(text) => match std::fs::write(&fname, text) {
                    Ok(()) if flags.quiet != 1 => {
                        Output::ok(format!("batch script for job {} written to {}\n", id, fname))
                    }
                    Ok(()) => Output::ok(""),
                    Err(e) => Output::err(
                        format!(
                            "failed to open file `{}`: {}\n",
                            fname,
                            nix::errno::Errno::from_raw(e.raw_os_error().unwrap_or(0)).desc()
                        ),
                        0,
                    ),
                },
            }
        }
        ScontrolCmd::Show { what: ShowWhat::Absent(Absent::Topology), id, .. }
            if spur_core::topology::tree_configured(c.conf()) =>
        {
            // the switches of topology.conf, read as the controller reads it
            match spur_core::topology::load(c.conf()) {
                Ok(Some(t)) => match t.show(id.as_deref()) {
                    Some(text) => Output::ok(topo_len(&text, std::env::var("SLURM_TOPO_LEN").ok().as_deref())),
                    None => Output::err(
                        format!(
                            "scontrol: error: Topology information contains no switch or node named {}\n",
                            id.as_deref().unwrap_or_default()
                        ),
                        0,
                    ),
                },
                _ => Output::err("scontrol: error: No topology information available\n", 0),
            }
        }
        ScontrolCmd::Show { what: ShowWhat::Absent(a), .. } => match a {
            // no federation, burst buffer plugin, front end or topology plugin
            Absent::Frontend => Output::ok("No nodes in the system\n"),
            Absent::Topology if spur_core::compat::profile().usage_texts_22_05 => {
                Output::err("scontrol: error: No topology information available\n", 0)
            }
            _ => Output::ok(""),
        },
        ScontrolCmd::Show { what: ShowWhat::Steps, id, flags } => {
            let q = QueryRequest { jobs: true, ..Default::default() };
            match c.query(&q).await {
                Ok(view) => crate::steps::steps_text(&view, id.as_deref(), flags.one_liner),
                Err(e) => Output::err(format!("slurm_get_job_steps error: {}\n", e), 1),
            }
        }
        ScontrolCmd::Show { what: ShowWhat::Daemons, .. } => {
            // the daemons slurm.conf places on this host: slurmctld where a
            // SlurmctldHost names it, slurmd where a node's NodeHostname does
            let host = short_hostname();
            let conf = c.conf();
            let mut out = String::new();
            if conf.controllers.iter().any(|h| h.name == host || h.name == "localhost") {
                out.push_str("slurmctld ");
            }
            if conf.nodes.iter().any(|n| n.hostname == host || n.name == host) {
                out.push_str("slurmd ");
            }
            out.push('\n');
            Output::ok(out)
        }
        ScontrolCmd::Show { what: ShowWhat::Aliases, id, .. } => {
            // the node names whose NodeHostname is this host (or the one given)
            let host = id.clone().unwrap_or_else(short_hostname);
            let names: Vec<String> =
                c.conf().nodes.iter().filter(|n| n.hostname == host).map(|n| n.name.clone()).collect();
            if names.is_empty() {
                Output::ok("")
            } else {
                Output::ok(format!("{}\n", names.join(" ")))
            }
        }
        ScontrolCmd::Show { what: ShowWhat::Slurmd, .. } => Output::err(
            "scontrol: error: slurm_slurmd_info: Connection refused\nslurm_load_slurmd_status: Connection refused\n",
            1,
        ),
        ScontrolCmd::ListLocal { id, which: "listpids", node } if !spur_core::compat::profile().usage_texts_22_05 => {
            match crate::listpids::parse(id.as_deref()) {
                Ok(want) => crate::listpids::listpids(c.conf(), want, node.as_deref(), &short_hostname()),
                Err(o) => o,
            }
        }
        ScontrolCmd::ListLocal { id, which, .. } => {
            // no slurmstepd of this host: Slurm looks for their sockets in
            // SlurmdSpoolDir (24.11) or for this host's node name (22.05)
            let v22 = spur_core::compat::profile().usage_texts_22_05;
            let mut o = Output::ok("");
            if *which == "listpids" && v22 {
                o.stdout = "PID      JOBID    STEPID   LOCALID GLOBALID\n".into();
            }
            if v22 {
                o.stderr = "scontrol: error: stepd_available: Couldn't find nodename\n".into();
            } else {
                let host = short_hostname();
                let dir = c.conf().slurmd_spool_dir.replace("%n", &host).replace("%h", &host);
                o.stderr = format!("scontrol: error: Domain socket directory {}: No such file or directory\n", dir);
            }
            match (which, id) {
                (&"listpids", Some(id)) => {
                    let job = id.split('.').next().unwrap_or(id);
                    o.stderr.push_str(&format!("JobId={} does not exist on node (null).\n", job));
                    o.code = 1;
                }
                (&"listpids", None) => {}
                _ => o.stderr.push_str("No slurmstepd's found on this node\n"),
            }
            o
        }
        ScontrolCmd::Reconfigure => match c.reconfigure().await {
            Ok(()) => Output::ok(""),
            Err(e) => Output::err(format!("slurm_reconfigure error: {}\n", e), 1),
        },
        ScontrolCmd::Completing { flags } => {
            let q = QueryRequest { jobs: true, nodes: true, all_finished: true, ..Default::default() };
            match c.query(&q).await {
                Ok(view) => Output::ok(completing_text(&view, view.now)),
                Err(e) if flags.quiet != 1 => Output::err(format!("slurm_load_jobs error: {}\n", e), 1),
                Err(_) => Output::err("", 1),
            }
        }
        ScontrolCmd::Notify { job } | ScontrolCmd::WaitJob { job } => {
            let notify = matches!(cmd, ScontrolCmd::Notify { .. });
            let id = spur_grammar::num::atol(job) as u32;
            let q =
                QueryRequest { jobs: true, job_ids: vec![id.to_string()], all_finished: true, ..Default::default() };
            let mut state =
                c.query(&q).await.ok().and_then(|v| v.jobs.iter().find(|j| j.job_id == id).map(|j| j.state));
            if notify {
                // the message goes to the job's srun; a job that is not
                // running has none
                return match state {
                    None => Output::err("job notify failure: Invalid job id specified\n", 1),
                    Some(JobState::Running) | Some(JobState::Suspended) => Output::ok(""),
                    Some(_) => Output::err("job notify failure: Requested operation is presently disabled\n", 1),
                };
            }
            // wait_job: until the job's nodes are ready (it runs) or it ended
            while state == Some(JobState::Pending) {
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                state = c.query(&q).await.ok().and_then(|v| v.jobs.iter().find(|j| j.job_id == id).map(|j| j.state));
            }
            match state {
                Some(JobState::Running) | Some(JobState::Suspended) => {
                    Output::err(format!("scontrol: Nodes are ready for job {}\n", id), 0)
                }
                _ => Output::err(format!("scontrol: Problem running job {}\n", id), 1),
            }
        }
        ScontrolCmd::CancelReboot { nodes } => {
            let q = QueryRequest { nodes: true, ..Default::default() };
            let known = match (c.query(&q).await, spur_grammar::hostlist::expand(nodes)) {
                (Ok(view), Ok(names)) => names.iter().all(|n| view.nodes.iter().any(|x| &x.name == n)),
                _ => false,
            };
            // no node of Spur is ever rebooting
            if known {
                Output::err("slurm_update error: Invalid node state specified\n", 1)
            } else {
                Output::err("slurm_update error: Invalid node name specified\n", 1)
            }
        }
        ScontrolCmd::Show { flags, what, id } => {
            let q = QueryRequest {
                jobs: *what == ShowWhat::Job,
                // partitions show their nodes' CPU and memory totals (jobs:
                // the memory of a whole node)
                nodes: matches!(what, ShowWhat::Node | ShowWhat::Partition | ShowWhat::Job),
                partitions: true,
                job_ids: vec![],
                all_finished: true,
                ..Default::default()
            };
            match c.query(&q).await {
                Ok(view) => render_show(cmd, &view, view.now, &ShowConf::of(c.conf())),
                Err(e) => {
                    let what_s = match what {
                        ShowWhat::Job => "slurm_load_jobs error",
                        ShowWhat::Node => "slurm_load_node error",
                        _ => "slurm_load_partitions error",
                    };
                    let _ = (flags, id);
                    Output::err(format!("{}: {}\n", what_s, e), 1)
                }
            }
        }
        ScontrolCmd::UpdatePartition { update, .. } => match c.update_partition(update).await {
            Ok(_) => Output::ok(""),
            Err(e) => Output::err(format!("slurm_update error: {}\n", e), 1),
        },
        ScontrolCmd::UpdateNode { update, .. } => match c.update_node(update).await {
            Ok(_) => Output::ok(""),
            Err(e) => Output::err(format!("slurm_update error: {}\n", e), 1),
        },
        other => {
            let (op, ids, perror): (JobControl, Vec<String>, &str) = match other {
                ScontrolCmd::Hold { job_ids, user, .. } => {
                    (JobControl::Hold { user: *user }, hold_targets(c, job_ids).await, "slurm_suspend error")
                }
                ScontrolCmd::Release { job_ids, .. } => {
                    (JobControl::Release, hold_targets(c, job_ids).await, "slurm_suspend error")
                }
                ScontrolCmd::Requeue { job_ids, hold, special_exit, .. } => (
                    JobControl::Requeue { hold: *hold, special_exit: *special_exit },
                    job_ids.clone(),
                    "Requeue job error",
                ),
                ScontrolCmd::Suspend { job_ids, .. } => (JobControl::Suspend, job_ids.clone(), "slurm_suspend error"),
                ScontrolCmd::Resume { job_ids, .. } => (JobControl::Resume, job_ids.clone(), "slurm_resume error"),
                ScontrolCmd::Top { job_ids, .. } => (JobControl::Top, job_ids.clone(), "slurm_top_job error"),
                ScontrolCmd::UpdateJob { job_ids, update, time_step, by_name, invalid, .. } => {
                    if update.array_throttle.is_some()
                        && job_ids.iter().any(|i| i.contains('_'))
                        && !spur_core::compat::profile().usage_texts_22_05
                    {
                        // a task (slurmctld splits it off, then refuses:
                        // scontrol_surface/222); the throttle is the array's
                        let mut o = Output::ok("");
                        for id in job_ids.iter().filter(|i| i.contains('_')) {
                            o.code = 1;
                            o.stderr.push_str(&format!(
                                "{}: {} (Update of ArrayTaskThrottle is only allowed on ArrayJobId)\n",
                                id,
                                spur_core::errors::strerror(spur_core::errors::ESLURM_NOT_SUPPORTED)
                            ));
                        }
                        return o;
                    }
                    match resolve_update_job(c, job_ids, update, *time_step, by_name.as_deref()).await {
                        Ok((ids, _)) if invalid.is_some() => {
                            // a value scontrol could not read: slurmctld's answer for the first job
                            let code = invalid.unwrap_or(0);
                            let first = crate::scontrol::first_job(&ids);
                            return Output::err(
                                format!("{} for job {}\n", spur_core::errors::strerror(code), first),
                                1,
                            );
                        }
                        Ok((ids, u)) => (JobControl::Update(Box::new(u)), ids, "slurm_update error"),
                        Err(o) => return o,
                    }
                }
                _ => return Output::ok(""),
            };
            if ids.is_empty() {
                // `hold jobname=X` with no such job: nothing asked, nothing said
                return Output::ok("");
            }
            match c.job_control(&ids, &op).await {
                // `top`: one answer for the whole list (an error comes as Err)
                Ok(_) if op == JobControl::Top => Output::ok(""),
                Ok(results) => {
                    let mut out = Output::ok("");
                    for res in results.iter().filter(|r| r.code != 0) {
                        out.code = 1;
                        let msg = spur_core::errors::strerror(res.code);
                        // slurmctld's explanation of a refused ArrayTaskThrottle
                        let why = match &op {
                            JobControl::Update(u)
                                if u.array_throttle.is_some()
                                    && res.code == spur_core::errors::ESLURM_NOT_SUPPORTED =>
                            {
                                Some("Update of ArrayTaskThrottle is only allowed on ArrayJobId")
                            }
                            _ => None,
                        };
                        if res.job_id.contains('_') {
                            // an array task: slurmctld's per-task answer,
                            // printed `ID: error` (scontrol_surface 209, 219, 222)
                            match why {
                                Some(w) => out.stderr.push_str(&format!("{}: {} ({})\n", res.job_id, msg, w)),
                                None => out.stderr.push_str(&format!("{}: {}\n", res.job_id, msg)),
                            }
                            continue;
                        }
                        if let Some(w) = why {
                            out.stderr.push_str(&format!("scontrol: error: {}\n", w));
                        }
                        // Slurm: "<error> for job <id>", then for the
                        // hold family the slurm_perror line.
                        out.stderr.push_str(&format!("{} for job {}\n", msg, res.job_id));
                        if matches!(op, JobControl::Hold { .. } | JobControl::Release) {
                            out.stderr.push_str(&format!("{}: {}\n", perror, msg));
                        }
                    }
                    out
                }
                // `top`: "<error> for job <the list as given>" (scontrol_top_job)
                Err(e) if op == JobControl::Top => Output::err(format!("{} for job {}\n", e, ids.join(",")), 1),
                Err(e) => Output::err(format!("{}: {}\n", perror, e), 1),
            }
        }
    }
}

/// The first job of an id list as the controller splits it (`1,2` → `1`).
pub(crate) fn first_job(ids: &[String]) -> String {
    let first = ids.first().map(|s| s.as_str()).unwrap_or("");
    let mut depth = 0;
    for (i, ch) in first.char_indices() {
        match ch {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth <= 0 => return first[..i].to_string(),
            _ => {}
        }
    }
    first.to_string()
}

/// What scontrol does before sending a job update: translate `JobName=` to
/// the ids of the jobs of that name, and `TimeLimit=+N`/`-N` to a limit from
/// the job's current one.
async fn resolve_update_job(
    c: &spur_client::Client,
    job_ids: &[String],
    update: &rq::JobUpdate,
    time_step: Option<i64>,
    by_name: Option<&str>,
) -> Result<(Vec<String>, rq::JobUpdate), Output> {
    use spur_core::request::Query;
    let error = |m: String| Err(Output::err(format!("scontrol: error: {}\n", m), 1));
    let mut ids = job_ids.to_vec();
    if let Some(name) = by_name {
        let q = Query { jobs: true, all_finished: true, ..Default::default() };
        let view = match c.query(&q).await {
            Ok(v) => v,
            Err(e) => return error(format!("Could not load state information: {}", e)),
        };
        if view.jobs.is_empty() {
            return error(format!("JobName {} not found", name));
        }
        ids = view.jobs.iter().filter(|j| j.desc.name == name).map(|j| j.display_id()).collect();
        if ids.is_empty() {
            return error(format!("No jobs with name '{}'", name));
        }
        ids = vec![ids.join(",")];
    }
    let mut out = update.clone();
    if let Some(step) = time_step {
        let jid = ids.first().cloned().unwrap_or_default();
        let q = Query { jobs: true, job_ids: vec![jid.clone()], all_finished: true, ..Default::default() };
        let cur = match c.query(&q).await {
            Ok(view) if view.jobs.len() == 1 => view.jobs[0].time_limit,
            Ok(view) if view.jobs.is_empty() => return error(format!("Job ID {} not found", jid)),
            Ok(_) => return error("TimeLimit increment/decrement not supported for job arrays".into()),
            Err(e) => return error(format!("{}", e)),
        };
        let Some(cur) = cur.filter(|m| *m != u32::MAX) else {
            return error("Cannot increment/decrement TimeLimit when set to UNLIMITED.".into());
        };
        let delta = step.unsigned_abs().min(u32::MAX as u64) as u32;
        let new = if step >= 0 {
            cur.saturating_add(delta)
        } else if delta > cur {
            return error(format!("TimeLimit decrement larger than current time limit ({} > {})", delta, cur));
        } else {
            cur - delta
        };
        out.time_limit = Some(new);
    }
    Ok((ids, out))
}

// ---------------------------------------------------------------- config

/// `scontrol show config`: slurmctld's key/value list (`%-23s = %s`), the keys
/// in Slurm's order, values from slurm.conf or Slurm 24.11's defaults.
/// `SLURM_TOPO_LEN=N`: each line of `show topology` cut to N characters.
fn topo_len(text: &str, len: Option<&str>) -> String {
    let Some(n) = len.map(spur_grammar::num::atoi) else { return text.to_string() };
    let n = n.max(0) as usize;
    text.lines().map(|l| format!("{}\n", l.chars().take(n).collect::<String>())).collect()
}

pub fn show_config(conf: &spur_core::config::SlurmConf, as_of: i64) -> String {
    let get = |k: &str| conf.get(k).map(|v| v.to_string());
    let or = |k: &str, d: &str| get(k).unwrap_or_else(|| d.to_string());
    let secs = |k: &str, d: &str| format!("{} sec", or(k, d));
    let user = |name: String| {
        let uid = nix::unistd::User::from_name(&name).ok().flatten().map(|u| u.uid.as_raw());
        match uid {
            Some(u) => format!("{}({})", name, u),
            None => name,
        }
    };
    let mem = |k: &str| get(k).unwrap_or_else(|| "UNLIMITED".into());
    let rows: Vec<(&str, String)> = vec![
        ("AccountingStorageBackupHost", or("AccountingStorageBackupHost", "(null)")),
        ("AccountingStorageEnforce", or("AccountingStorageEnforce", "none")),
        ("AccountingStorageHost", or("AccountingStorageHost", "localhost")),
        ("AccountingStorageExternalHost", or("AccountingStorageExternalHost", "(null)")),
        ("AccountingStorageParameters", or("AccountingStorageParameters", "(null)")),
        ("AccountingStoragePort", or("AccountingStoragePort", "0")),
        ("AccountingStorageTRES", spur_core::priority::tres_names(conf).join(",")),
        ("AccountingStorageType", or("AccountingStorageType", "(null)")),
        ("AccountingStorageUser", or("AccountingStorageUser", "N/A")),
        ("AccountingStoreFlags", or("AccountingStoreFlags", "(null)")),
        ("AuthInfo", or("AuthInfo", "(null)")),
        ("AuthType", or("AuthType", "auth/munge")),
        ("BatchStartTimeout", secs("BatchStartTimeout", "10")),
        ("ClusterName", conf.cluster_name.clone()),
        ("CommunicationParameters", or("CommunicationParameters", "(null)")),
        ("CompleteWait", secs("CompleteWait", "0")),
        ("CredType", or("CredType", "cred/munge")),
        ("DefMemPerNode", "UNLIMITED".into()),
        ("DefMemPerCPU", conf.def_mem_per_cpu.map(|m| m.to_string()).unwrap_or_default()),
        ("DisableRootJobs", or("DisableRootJobs", "No")),
        ("FirstJobId", conf.first_job_id.to_string()),
        ("GresTypes", if conf.gres_types.is_empty() { "(null)".into() } else { conf.gres_types.join(",") }),
        ("InactiveLimit", secs("InactiveLimit", "0")),
        ("JobCompType", or("JobCompType", "(null)")),
        ("JobRequeue", or("JobRequeue", "1")),
        ("KillOnBadExit", or("KillOnBadExit", "0")),
        ("KillWait", format!("{} sec", conf.kill_wait)),
        ("MailProg", or("MailProg", "/bin/mail")),
        ("MaxArraySize", or("MaxArraySize", "1001")),
        ("MaxJobCount", conf.max_job_count.to_string()),
        ("MaxJobId", conf.max_job_id.to_string()),
        ("MaxMemPerNode", mem("MaxMemPerNode")),
        ("MessageTimeout", secs("MessageTimeout", "10")),
        ("MinJobAge", secs("MinJobAge", "300")),
        ("MpiDefault", or("MpiDefault", "none")),
        ("OverTimeLimit", format!("{} min", or("OverTimeLimit", "0"))),
        ("PriorityType", or("PriorityType", spur_core::compat::release().default_priority_type())),
        ("ProctrackType", or("ProctrackType", "proctrack/cgroup")),
        ("ReturnToService", or("ReturnToService", "1")),
        ("SchedulerType", or("SchedulerType", "sched/backfill")),
        ("SelectType", or("SelectType", "select/cons_tres")),
        ("SelectTypeParameters", or("SelectTypeParameters", "CR_CORE_MEMORY").to_ascii_uppercase()),
        ("SlurmUser", user(conf.slurm_user.clone())),
        ("SlurmctldPort", conf.slurmctld_port.to_string()),
        ("SlurmctldTimeout", secs("SlurmctldTimeout", "120")),
        ("SlurmdPort", conf.slurmd_port.to_string()),
        ("SlurmdSpoolDir", conf.slurmd_spool_dir.clone()),
        ("SlurmdTimeout", format!("{} sec", conf.slurmd_timeout)),
        ("SlurmdUser", user(or("SlurmdUser", "root"))),
        ("SLURM_CONF", conf.path.display().to_string()),
        ("SLURM_VERSION", spur_core::compat::release().version().into()),
        ("StateSaveLocation", conf.state_save_location.clone()),
        ("TaskPlugin", or("TaskPlugin", "(null)")),
        ("TmpFS", or("TmpFS", "/tmp")),
        ("TreeWidth", or("TreeWidth", "16")),
        ("WaitTime", secs("WaitTime", "0")),
    ];
    let mut o = format!("Configuration data as of {}\n", ts(as_of));
    for (k, v) in rows {
        o.push_str(&format!("{:<23} = {}\n", k, v));
    }
    o
}

/// `scontrol write config`: the configuration `show config` prints, as
/// slurm.conf lines (`Key=Value`; the entries that are not slurm.conf keys
/// commented out), then the nodes and partitions, written to
/// `BASE.<time>` (the time as `slurm_make_time_str` formats it, so
/// `SLURM_TIME_FORMAT` applies); BASE is the given file, else
/// `$SLURM_CONF_OUT`, else the slurm.conf read. Slurm's messages: `Slurm
/// config saved to PATH`, or `Could not create file PATH: ERROR` (exit 0, as
/// scontrol's).
fn write_config(conf: &spur_core::config::SlurmConf, view: &ClusterView, base: Option<&str>) -> Output {
    let base = base.map(String::from).unwrap_or_else(|| conf.path.display().to_string());
    let when = spur_cli_base::format::time_str(view.now);
    let path = format!("{}.{}", base, when);
    let mut text = String::from("########################################################\n");
    text.push_str(&format!("#  Configuration file for Slurm - {}  #\n", when));
    text.push_str("########################################################\n#\n#\n");
    for line in show_config(conf, view.now).lines().skip(1) {
        let Some((k, v)) = line.split_once(" = ") else { continue };
        let k = k.trim_end();
        let v = v.strip_suffix(" sec").unwrap_or(v);
        if v == "(null)" {
            continue; // (unset: no line, as a slurm.conf leaves it out)
        }
        let derived = matches!(k, "SLURM_CONF" | "SLURM_VERSION" | "BOOT_TIME" | "NEXT_JOB_ID");
        text.push_str(&format!("{}{}={}\n", if derived { "#" } else { "" }, k, v));
    }
    text.push_str("#\n# NODES\n");
    for n in &view.nodes {
        text.push_str(&format!(
            "NodeName={} NodeAddr={} CPUs={} Sockets={} CoresPerSocket={} ThreadsPerCore={} RealMemory={}\n",
            n.name, n.addr, n.cpus, n.sockets, n.cores_per_socket, n.threads_per_core, n.real_memory
        ));
    }
    text.push_str("#\n# PARTITIONS\n");
    for p in &view.partitions {
        let max = p.max_time.map_or("UNLIMITED".to_string(), |m| m.to_string());
        text.push_str(&format!(
            "PartitionName={} Nodes={} Default={} MaxTime={} State={}\n",
            p.name,
            if p.nodes_expr.is_empty() { "(null)" } else { &p.nodes_expr },
            if p.default { "YES" } else { "NO" },
            max,
            p.state.name()
        ));
    }
    match std::fs::write(&path, text) {
        Ok(()) => Output::ok(format!("Slurm config saved to {}\n", path)),
        Err(e) => {
            let why = nix::errno::Errno::from_raw(e.raw_os_error().unwrap_or(0)).desc();
            Output::err(format!("Could not create file {}: {}\n", path, why), 0)
        }
    }
}

fn show_assoc_mgr(users: bool, assoc: bool, qos: bool) -> String {
    let mut o = String::from("Current Association Manager state\n");
    if users {
        o.push_str("\nNo users currently cached in Slurm.\n\n");
    }
    if assoc {
        o.push_str("\nNo associations currently cached in Slurm.\n\n");
    }
    if qos {
        o.push_str("\nNo QOS currently cached in Slurm.\n\n");
    }
    o
}

// ---------------------------------------------------------------- show

/// What slurm.conf adds to `show job`.
#[derive(Clone, Debug, PartialEq)]
pub struct ShowConf {
    /// `SchedulerParameters=max_switch_wait=` (the wait a job's `Switches=`
    /// shows, at most).
    pub max_switch_wait: u32,
    /// Preemption (`PreemptEligibleTime=`/`PreemptTime=` of started jobs).
    pub preempt: Option<spur_core::qos::PreemptConf>,
}

impl Default for ShowConf {
    fn default() -> ShowConf {
        ShowConf { max_switch_wait: 300, preempt: None }
    }
}

impl ShowConf {
    pub fn of(conf: &spur_core::config::SlurmConf) -> ShowConf {
        ShowConf {
            max_switch_wait: spur_core::topology::max_switch_wait(conf),
            preempt: spur_core::qos::PreemptConf::from_conf(conf),
        }
    }
}

/// Render a `show job|node|partition` command against a view.
pub fn render_show(cmd: &ScontrolCmd, view: &ClusterView, now: i64, sc: &ShowConf) -> Output {
    let ScontrolCmd::Show { flags, what, id } = cmd else {
        return run_local(cmd).unwrap_or_default();
    };
    match what {
        ShowWhat::Job => show_jobs(view, id.as_deref(), flags, now, sc),
        ShowWhat::Node => show_nodes(view, id.as_deref(), flags),
        ShowWhat::Partition => show_partitions(view, id.as_deref(), flags),
        _ => run_local(cmd).unwrap_or_default(),
    }
}

fn show_jobs(view: &ClusterView, id: Option<&str>, f: &Flags, now: i64, sc: &ShowConf) -> Output {
    let mut out = Output::default();
    let (mut job_id, mut task) = (None, None);
    let mut het = None;
    if let Some(s) = id {
        // scontrol_print_job's reading (spur_grammar::jobref::parse_scontrol_job)
        let r = match spur_grammar::jobref::parse_scontrol_job(s).filter(|_| !s.is_empty()) {
            Some(r) => r,
            None => {
                if f.quiet != 1 {
                    out.stderr = "scontrol_print_job error: Invalid job id specified\n".into();
                }
                out.code = 1;
                return out;
            }
        };
        job_id = Some(r.job_id);
        if let spur_grammar::jobref::Tasks::One(t) = r.tasks {
            task = Some(t);
        }
        het = r.het;
    }
    // slurm_load_job order for one id, the job list otherwise.
    let jobs: Vec<&Job> = match job_id {
        Some(jid) => {
            let head = view.jobs.iter().find(|j| j.job_id == jid);
            let mut v: Vec<&Job> = head.into_iter().collect();
            if head.map(|h| h.array.is_some()).unwrap_or(true) {
                let mut rest: Vec<&Job> = view
                    .jobs
                    .iter()
                    .filter(|j| j.job_id != jid && j.array.as_ref().map(|a| a.array_job_id) == Some(jid))
                    .collect();
                rest.sort_by_key(|j| std::cmp::Reverse(j.job_id));
                v.extend(rest);
            }
            if v.is_empty() {
                out.code = 1;
                if f.quiet != 1 {
                    out.stderr = "slurm_load_jobs error: Invalid job id specified\n".into();
                }
                return out;
            }
            v
        }
        None => view.jobs.iter().collect(),
    };
    let mut printed = 0;
    for j in jobs {
        // a heterogeneous job's component: Spur has none to match
        if het.is_some() {
            continue;
        }
        let mut task_override = None;
        if let Some(t) = task {
            let a = j.array.as_ref();
            let in_job = match a {
                Some(a) if a.task_id == Some(t) => true,
                Some(a) if a.task_id.is_none() => a.pending_tasks.contains(&t),
                _ => false,
            };
            if !in_job {
                continue;
            }
            if a.map(|a| a.task_id.is_none()).unwrap_or(false) {
                task_override = Some(t);
            }
        }
        let ctx = JobCtx {
            offsets: if f.details { cpu_offsets(view, j) } else { HashMap::new() },
            node_mem: view
                .partitions
                .iter()
                .find(|p| p.name == j.partition)
                .map(|p| {
                    view.nodes.iter().filter(|n| p.nodes.contains(&n.name)).map(|n| n.real_memory).max().unwrap_or(0)
                })
                .unwrap_or(0),
            plan: view.plans.get(&j.job_id).cloned(),
            max_switch_wait: sc.max_switch_wait,
            preemptable_time: sc.preempt.as_ref().map_or(0, |p| {
                p.preemptable_time(j, view.partitions.iter().find(|x| x.name == j.partition), &view.qos)
            }),
            part_oversubscribe: view.partitions.iter().find(|p| p.name == j.partition).map(|p| p.oversubscribe.clone()),
            accounting: !view.qos.is_empty(),
            part: view.partitions.iter().find(|p| p.name == j.partition).cloned(),
        };
        out.stdout.push_str(&sprint_job_cpus(j, f, now, task_override, &ctx));
        printed += 1;
    }
    if printed == 0 {
        out.code = 1;
        if f.quiet != 1 {
            out.stdout = match (job_id, task, het) {
                (Some(j), Some(t), _) => format!("Job {}_{} not found\n", j, t),
                (Some(j), None, Some(h)) => format!("Job {}+{} not found\n", j, h),
                (Some(j), None, None) => format!("Job {} not found\n", j),
                _ => "No jobs in the system\n".into(),
            };
        }
        if job_id.is_none() {
            out.code = 0;
        }
    }
    out
}

/// A time as slurm_make_time_str prints it (`SLURM_TIME_FORMAT` applies).
fn ts(t: i64) -> String {
    spur_cli_base::format::time_str(t)
}

/// The first CPU id a running job has on each of its nodes: cons_tres gives
/// the lowest free cores, so the CPUs of the jobs that started there before
/// it come first (`-d`'s `CPU_IDs=`).
fn cpu_offsets(view: &ClusterView, j: &Job) -> HashMap<String, u32> {
    let mut out = HashMap::new();
    if !j.state.is_active() {
        return out;
    }
    for a in &j.allocs {
        let before: u32 = view
            .jobs
            .iter()
            .filter(|o| o.job_id != j.job_id && o.state.is_active())
            .filter(|o| (o.start_time, o.start_pass_ms, o.job_id) < (j.start_time, j.start_pass_ms, j.job_id))
            .flat_map(|o| o.allocs.iter().filter(|x| x.node == a.node).map(|x| x.cpus))
            .sum();
        out.insert(a.node.clone(), before);
    }
    out
}

/// What `show job` takes from the rest of the view.
#[derive(Default)]
struct JobCtx {
    /// First CPU id on each node (`-d`).
    offsets: HashMap<String, u32>,
    /// The memory of the partition's largest node: what a job asking for all
    /// of a node's memory (`MinMemoryNode=0`) requests per node.
    node_mem: u64,
    /// What the backfill scheduler said of the job.
    plan: Option<spur_core::model::JobPlan>,
    /// `SchedulerParameters=max_switch_wait=` (seconds).
    max_switch_wait: u32,
    /// When the job may first be preempted (0: it may not, or preemption
    /// is off): `PreemptEligibleTime=`.
    preemptable_time: i64,
    /// The job's partition's `OverSubscribe=`.
    part_oversubscribe: Option<String>,
    /// The cluster keeps accounting (the view has QOS records): a job's
    /// QOS is shown.
    accounting: bool,
    /// The job's partition (its billing weights).
    part: Option<Partition>,
}

fn sprint_job_cpus(j: &Job, f: &Flags, now: i64, task_override: Option<u32>, ctx: &JobCtx) -> String {
    spur_cli_base::show::sprint_job(&job_info(j, f, task_override, ctx), f.one_liner, now).unwrap_or_default()
}

/// What slurmctld packs of a job for `show job` (Slurm's `job_info_t`), the
/// record [`spur_cli_base::show::sprint_job`] prints.
fn job_info(j: &Job, f: &Flags, task_override: Option<u32>, ctx: &JobCtx) -> JobInfo {
    use spur_cli_base::show::{JobPhase, NodeDetail, MEM_PER_CPU, NO_VAL, NO_VAL16};
    let d = &j.desc;
    let acc = d.accepted.as_deref();
    let pending = j.state == JobState::Pending;
    let u16_or = |v: Option<u32>, unset: u16| v.map(|n| n.min(u16::MAX as u32) as u16).unwrap_or(unset);
    let minutes = |v: Option<&String>| {
        v.and_then(|t| spur_grammar::time::parse_time_limit(t).ok().flatten()).map(|m| m as i64 * 60).unwrap_or(0)
    };
    let mut r = JobInfo {
        job_id: j.job_id,
        // (a job preempted and ended: when; one in its grace time is not known here)
        preemptable_time: ctx.preemptable_time,
        preempt_time: if j.state == JobState::Preempted && ctx.preemptable_time != 0 { j.end_time } else { 0 },
        array_task_id: NO_VAL,
        name: Some(d.name.clone()),
        user: j.user_name.clone(),
        user_id: j.user_id,
        group: j.group_name.clone(),
        group_id: j.group_id,
        priority: j.priority,
        nice: d.nice.unwrap_or(0) as i64,
        account: d.account.clone(),
        qos: d
            .qos_shown(ctx.accounting)
            .map(str::to_string)
            .filter(|_| ctx.accounting || spur_core::compat::profile().job_qos_shown_without_accounting),
        state: j.state.name().to_string(),
        // (a job that never started has run for no time)
        phase: match j.state {
            _ if j.start_time == 0 => JobPhase::Pending,
            JobState::Pending => JobPhase::Pending,
            JobState::Running => JobPhase::Running,
            JobState::Suspended => JobPhase::Suspended,
            _ => JobPhase::Other,
        },
        reason: reason_text(j).replace(char::is_whitespace, "_"),
        dependency: dependency_text(j),
        // options Spur keeps without acting on them still show as slurmctld
        // shows them (recorded/24.11/sbatch_surface/090, 124, 135, 142)
        requeue: d.requeue.unwrap_or(true) as u16,
        restart_cnt: j.restart_count.min(u16::MAX as u32) as u16,
        batch_flag: j.batch_flag.min(1) as u16,
        reboot: acc.is_some_and(|a| a.reboot) as u8,
        exit_code: j.exit_status as u32,
        derived_ec: f.details.then_some(j.derived_exit_code as u32),
        time_limit: j.time_limit.unwrap_or(INFINITE),
        time_min: d.time_min.unwrap_or(0),
        submit_time: j.submit_time,
        eligible_time: j.eligible_time,
        deadline: d.deadline,
        suspend_time: j.suspend_time,
        pre_sus_time: j.pre_sus_time,
        partition: Some(j.partition.clone()),
        alloc_node: Some(d.alloc_node.clone()),
        alloc_sid: d.alloc_sid,
        req_nodes: d.req_nodes.clone(),
        exc_nodes: d.exc_nodes.clone(),
        nodes: job_nodes(j),
        batch_host: j.allocs.first().filter(|_| !pending).map(|a| a.node.clone()),
        num_nodes: j.num_nodes,
        max_nodes: if pending { d.max_nodes.unwrap_or(0) } else { 0 },
        num_cpus: j.num_cpus,
        num_tasks: num_tasks(j),
        cpus_per_task: u16_or(d.cpus_per_task, 1),
        cores_per_socket: u16_or(d.cores_per_socket, NO_VAL16),
        threads_per_core: u16_or(d.threads_per_core, NO_VAL16),
        sockets_per_node: u16_or(d.sockets_per_node, NO_VAL16),
        ntasks_per_node: u16_or(d.ntasks_per_node, 0),
        ntasks_per_socket: u16_or(d.ntasks_per_socket, NO_VAL16),
        ntasks_per_core: u16_or(d.ntasks_per_core, NO_VAL16),
        core_spec: NO_VAL16,
        pn_min_cpus: j.min_cpus_node().min(u16::MAX as u32) as u16,
        pn_min_memory: if j.mem_per_cpu > 0 { j.mem_per_cpu | MEM_PER_CPU } else { j.mem_per_node },
        pn_min_tmp_disk: d.tmp_disk_mb().min(u32::MAX as u64) as u32,
        features: d.constraint.clone(),
        delay_boot: minutes(acc.and_then(|a| a.delay_boot.as_ref())) as u32,
        // (its own line after Features=, as scontrol prints a job's reservation)
        resv_name: d.reservation_name().map(String::from),
        shared: spur_cli_base::show::job_share_value(d.oversubscribe_in(ctx.part_oversubscribe.as_deref())),
        contiguous: d.contiguous() as u16,
        network: acc.and_then(|a| a.network.clone()),
        work_dir: Some(d.work_dir.clone()),
        admin_comment: j.admin_comment.clone(),
        comment: d.comment.clone(),
        extra: acc.and_then(|a| a.extra.clone()),
        cpu_freq_min: NO_VAL,
        cpu_freq_max: NO_VAL,
        cpu_freq_gov: NO_VAL,
        mail_type: d.mail_type.clone(),
        mail_user: d.mail_user.clone(),
        ..Default::default()
    };
    if let Some(a) = &j.array {
        r.array_job_id = a.array_job_id;
        match a.task_id.or(task_override) {
            Some(t) => r.array_task_id = t,
            None => {
                r.array_task_str = Some(
                    spur_core::model::ranges(&a.pending_tasks)
                        + &if a.max_running > 0 { format!("%{}", a.max_running) } else { String::new() },
                )
            }
        }
        r.array_max_tasks = a.max_running;
    }
    // a job held since submission, or requeued after it ended, has accrued nothing
    // (a job requeued after it ended accrues again once the scheduler has seen
    // it: its reason is then set, recorded/24.11/scontrol/194)
    // an allocation (salloc, srun) that started at once never accrued
    // (recorded/24.11/salloc/34)
    let no_accrue = (j.requeued_done && (j.reason == spur_core::model::Reason::None || j.held.is_some()))
        || (pending && j.held.is_some() && j.restart_count == 0)
        || (j.batch_flag == 0 && j.start_time > 0 && j.start_time <= j.submit_time + 1);
    r.accrue_time = if no_accrue { 0 } else { j.eligible_time };
    if pending && d.begin_time > 0 && j.start_time == 0 {
        // the earliest start slurmctld expects: its begin time
        r.start_time = d.begin_time;
        r.end_time = j.time_limit.map(|m| d.begin_time + m as i64 * 60).unwrap_or(0);
    } else {
        r.start_time = j.start_time;
        r.end_time = j.end_time;
    }
    r.last_sched_eval = if j.last_sched_eval != 0 {
        j.last_sched_eval
    } else if j.start_time != 0 {
        j.start_time
    } else {
        j.submit_time
    };
    let mut req = j.clone();
    if let Some((cpus, nodes)) = j.tres_counted {
        // counted before an update slurmctld refused
        req.num_cpus = cpus;
        req.num_nodes = nodes;
    }
    if j.mem_per_node == 0 && j.mem_per_cpu == 0 && ctx.node_mem > 0 && j.allocs.is_empty() {
        // all of a node's memory, as requested
        req.mem_per_node = ctx.node_mem;
    }
    r.tres_req = Some(tres_str(&req, ctx.part.as_slice()));
    if !j.allocs.is_empty() || j.requeued_done {
        r.tres_alloc = Some(tres_str(j, ctx.part.as_slice()));
    }
    if f.details && !j.allocs.is_empty() && !pending {
        let nodes = j
            .allocs
            .iter()
            .map(|a| {
                let first = ctx.offsets.get(&a.node).copied().unwrap_or(0);
                NodeDetail {
                    node: a.node.clone(),
                    cpu_ids: if a.cpus <= 1 { first.to_string() } else { format!("{}-{}", first, first + a.cpus - 1) },
                    mem: Some(a.mem_mb),
                    gres: String::new(),
                }
            })
            .collect();
        r.details = Some((None, nodes));
    }
    // an allocation's command (salloc's, srun's) shows in 24.11, not 22.05
    let v22 = spur_core::compat::profile().release == spur_core::compat::Release::V22_05;
    if !(d.wrapped || (v22 && j.batch_flag == 0 && d.script.is_empty() && d.argv.is_empty())) {
        r.command = d.command.clone();
    }
    if spur_core::compat::profile().show_job_command_with_args && d.argv.len() > 1 {
        // 22.05 packs the whole command line: the script, then its arguments
        // joined by blanks (recorded/22.05/sbatch_options/075)
        r.command = r.command.map(|c| format!("{} {}", c, d.argv[1..].join(" ")));
    }
    if j.batch_flag > 0 {
        let out_path = match &d.std_out {
            Some(p) => fname_format(p, j, task_override),
            None => default_out(j, task_override),
        };
        let err_path = match &d.std_err {
            Some(p) => fname_format(p, j, task_override),
            None => out_path.clone(),
        };
        let in_path = match &d.std_in {
            Some(p) => fname_format(p, j, task_override),
            None => "/dev/null".into(),
        };
        r.std_paths = Some((err_path, in_path, out_path));
    }
    // --switches=N[@WAIT] (SBATCH_REQ_SWITCH, SBATCH_WAIT4SWITCH): the
    // wait in seconds, at most max_switch_wait (also when none is given)
    if let Some((n, wait)) = spur_core::topology::job_switches(
        acc.and_then(|a| a.switches.as_deref()),
        acc.and_then(|a| a.switch_wait.as_deref()),
        ctx.max_switch_wait,
    ) {
        r.req_switch = n;
        r.wait4switch = wait;
    }
    match d.kill_on_invalid_dep() {
        Some(true) => r.flags.kill_inv_dep = true,
        Some(false) => r.flags.no_kill_inv_dep = true,
        None => {}
    }
    if let Some(p) = &ctx.plan {
        // started by the backfill phase; or planned by it (SchedNodeList=)
        r.flags.backfill_sched = p.backfill || (pending && p.considered_at != 0);
        // (libslurm's BACKFILL_LAST: considered by the last backfill cycle)
        r.flags.backfill_last = pending && p.considered_at != 0;
        if pending {
            r.sched_nodes = p.sched_nodes.clone();
        }
    }
    r.tres_per_node = d.gres.as_ref().map(|g| if g.starts_with("gres/") { g.clone() } else { format!("gres/{}", g) });
    r.tres_per_task = match j.submitted_cpus_per_task().filter(|_| spur_core::compat::profile().cpus_per_task_as_tres) {
        // sbatch turns an explicit -c N into tres_per_task cpu=N (24.11; 22.05 does not)
        Some(c) => Some(format!("cpu={}", c)),
        None => acc.and_then(|a| a.tres_per_task.clone()),
    };
    r
}

/// `NumTasks=` as slurmctld packs it: the task count asked for, else the
/// node count (asked for while pending, allocated after), else unset (`N/A`)
/// for a job that ended without an allocation (also one requeued while it ran).
fn num_tasks(j: &Job) -> u32 {
    if let Some(n) = j.desc.num_tasks.filter(|n| *n > 0) {
        return n;
    }
    if j.state == JobState::Pending {
        return j.num_tasks;
    }
    if !j.allocs.is_empty() {
        return j.allocs.len() as u32;
    }
    if j.requeued_done {
        return j.num_nodes;
    }
    spur_cli_base::show::NO_VAL
}

fn node_state_complete(n: &Node) -> String {
    let mut s = match n.base {
        NodeBase::Unknown => "UNKNOWN",
        NodeBase::Idle => "IDLE",
        NodeBase::Allocated if n.is_mixed() => "MIXED",
        NodeBase::Allocated => "ALLOCATED",
        NodeBase::Down => "DOWN",
        NodeBase::Future => "FUTURE",
    }
    .to_string();
    let fl = &n.flags;
    for (on, name) in [
        (fl.completing, "COMPLETING"),
        (fl.drain, "DRAIN"),
        (fl.fail, "FAIL"),
        (fl.maint, "MAINTENANCE"),
        (fl.not_responding, "NOT_RESPONDING"),
        (fl.planned, "PLANNED"),
        (fl.power_down, "POWERED_DOWN"),
        (fl.reboot_requested, "REBOOT_REQUESTED"),
        (fl.reserved, "RESERVED"),
    ] {
        if on {
            s.push('+');
            s.push_str(name);
        }
    }
    s
}

/// One node as `scontrol show node` prints it.
pub fn sprint_node(n: &Node, view: &ClusterView, f: &Flags) -> String {
    let le = if f.one_liner { " " } else { "\n   " };
    let mut o = format!("NodeName={} ", n.name);
    if !n.arch.is_empty() {
        o.push_str(&format!("Arch={} ", n.arch));
    }
    if n.cpu_bind != 0 {
        o.push_str(&format!("CpuBind={} ", cpu_bind_text(n.cpu_bind)));
    }
    o.push_str(&format!("CoresPerSocket={} ", n.cores_per_socket));
    o.push_str(le);
    o.push_str(&format!(
        "CPUAlloc={} CPUEfctv={} CPUTot={} CPULoad={:.2}",
        n.alloc_cpus,
        n.cpus,
        n.cpus,
        n.cpu_load as f64 / 100.0
    ));
    o.push_str(le);
    let feats = if n.features.is_empty() { "(null)".to_string() } else { n.features.join(",") };
    o.push_str(&format!("AvailableFeatures={}", feats));
    o.push_str(le);
    o.push_str(&format!("ActiveFeatures={}", feats));
    o.push_str(le);
    let gres = if let Some(g) = &n.gres_text {
        g.clone()
    } else if n.gres.is_empty() {
        "(null)".to_string()
    } else {
        n.gres
            .iter()
            .map(|(g, t, c)| match t {
                Some(t) => format!("{}:{}:{}", g, t, c),
                None => format!("{}:{}", g, c),
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    o.push_str(&format!("Gres={}", gres));
    o.push_str(le);
    if f.details {
        // slurmctld fills the GRES drain list only for detailed queries
        o.push_str("GresDrain=N/A");
        o.push_str(le);
    }
    o.push_str(&format!("NodeAddr={} NodeHostName={} ", n.addr, n.hostname));
    if n.port != 0 {
        o.push_str(&format!("Port={} ", n.port));
    }
    if !n.version.is_empty() {
        o.push_str(&format!("Version={}", n.version));
    }
    o.push_str(le);
    if !n.os.is_empty() {
        o.push_str(&format!("OS={} ", n.os));
        o.push_str(le);
    }
    o.push_str(&format!(
        "RealMemory={} AllocMem={} FreeMem={} Sockets={} Boards={}",
        n.real_memory,
        n.alloc_mem,
        n.free_mem,
        n.sockets,
        n.boards.max(1)
    ));
    o.push_str(le);
    o.push_str(&format!(
        "State={} ThreadsPerCore={} TmpDisk={} Weight={} Owner=N/A MCS_label=N/A",
        node_state_complete(n),
        n.threads_per_core,
        n.tmp_disk,
        n.weight
    ));
    o.push_str(le);
    let parts: Vec<&str> =
        view.partitions.iter().filter(|p| p.nodes.contains(&n.name)).map(|p| p.name.as_str()).collect();
    if !parts.is_empty() {
        o.push_str(&format!("Partitions={} ", parts.join(",")));
        o.push_str(le);
    }
    o.push_str(&format!(
        "BootTime={} SlurmdStartTime={}",
        if n.boot_time != 0 { ts(n.boot_time) } else { "None".into() },
        if n.slurmd_start_time != 0 { ts(n.slurmd_start_time) } else { "None".into() }
    ));
    o.push_str(le);
    if spur_core::compat::profile().show_node_22_05_lines {
        o.push_str(&format!("LastBusyTime={}", ts(n.last_busy)));
    } else {
        let resume = if n.resume_after != 0 { ts(n.resume_after) } else { "None".into() };
        o.push_str(&format!("LastBusyTime={} ResumeAfterTime={}", ts(n.last_busy), resume));
    }
    o.push_str(le);
    o.push_str(&format!("CfgTRES=cpu={},mem={},billing={}", n.cpus, convert_num_unit(n.real_memory as f64, 2), n.cpus));
    o.push_str(le);
    let mut alloc = String::new();
    if n.alloc_cpus > 0 {
        alloc.push_str(&format!("cpu={}", n.alloc_cpus));
    }
    if n.alloc_mem > 0 {
        if !alloc.is_empty() {
            alloc.push(',');
        }
        alloc.push_str(&format!("mem={}", convert_num_unit(n.alloc_mem as f64, 2)));
    }
    o.push_str(&format!("AllocTRES={}", alloc));
    o.push_str(le);
    if spur_core::compat::profile().show_node_22_05_lines {
        // 22.05: power capping and external sensor lines (nothing configured)
        o.push_str("CapWatts=n/a");
        o.push_str(le);
        o.push_str("CurrentWatts=0 AveWatts=0");
        o.push_str(le);
        o.push_str("ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s");
    } else {
        o.push_str("CurrentWatts=0 AveWatts=0");
        o.push_str(le);
    }
    if let Some(r) = n.reason.as_ref().filter(|r| !r.is_empty()) {
        o.push_str(le);
        for (i, tok) in r.split('\n').filter(|t| !t.is_empty()).enumerate() {
            if i == 0 {
                o.push_str("Reason=");
            } else {
                o.push_str(le);
                o.push_str("       ");
            }
            o.push_str(tok);
            if i == 0 && n.reason_time != 0 {
                let user = nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(n.reason_uid))
                    .ok()
                    .flatten()
                    .map(|u| u.name)
                    .unwrap_or_else(|| n.reason_uid.to_string());
                o.push_str(&format!(" [{}@{}]", user, ts(n.reason_time)));
            }
        }
    }
    if let Some(c) = &n.comment {
        o.push_str(le);
        o.push_str(&format!("Comment={}", c));
    }
    if let Some(e) = &n.extra {
        o.push_str(le);
        o.push_str(&format!("Extra={}", e));
    }
    // the active reservation holding the node
    if let Some(r) = view.reservations.iter().find(|r| r.active(view.now) && r.nodes.contains(&n.name)) {
        o.push_str(le);
        o.push_str(&format!("ReservationName={}", r.name));
    }
    o.push_str(if f.one_liner { "\n" } else { "\n\n" });
    o
}

fn show_nodes(view: &ClusterView, id: Option<&str>, f: &Flags) -> Output {
    let mut out = Output::default();
    match id {
        None => {
            let nodes: Vec<&Node> = view.nodes.iter().filter(|n| f.all || n.base != NodeBase::Future).collect();
            if nodes.is_empty() {
                out.stdout = "No nodes in the system\n".into();
            }
            for n in nodes {
                out.stdout.push_str(&sprint_node(n, view, f));
            }
        }
        Some(expr) => {
            let names = match spur_grammar::hostlist::expand(expr) {
                Ok(h) => h,
                Err(_) => {
                    out.code = 1;
                    out.stderr = format!("unable to parse node list {}\n", expr);
                    return out;
                }
            };
            for name in names {
                match view.nodes.iter().find(|n| n.name == name) {
                    Some(n) => out.stdout.push_str(&sprint_node(n, view, f)),
                    None => {
                        out.code = 1;
                        if f.quiet != 1 {
                            out.stdout.push_str(&format!("Node {} not found\n", name));
                        }
                    }
                }
            }
        }
    }
    out
}

/// One partition as `scontrol show partition` prints it.
pub fn sprint_partition(p: &Partition, view: &ClusterView, f: &Flags) -> String {
    let le = if f.one_liner { " " } else { "\n   " };
    let yn = |b: bool| if b { "YES" } else { "NO" };
    let m = &p.more;
    let mut o = format!("PartitionName={}", p.name);
    o.push_str(le);
    o.push_str(&format!(
        "AllowGroups={}",
        p.allow_groups.as_ref().map(|g| g.join(",")).unwrap_or_else(|| "ALL".into())
    ));
    // DenyAccounts/DenyQos only when there is no allow list (slurm_sprint_partition_info)
    match (&p.allow_accounts, &m.deny_accounts) {
        (None, Some(d)) => o.push_str(&format!(" DenyAccounts={}", d)),
        (a, _) => {
            o.push_str(&format!(" AllowAccounts={}", a.as_ref().map(|g| g.join(",")).unwrap_or_else(|| "ALL".into())))
        }
    }
    match (&m.allow_qos, &m.deny_qos) {
        (None, Some(d)) => o.push_str(&format!(" DenyQos={}", d)),
        (a, _) => o.push_str(&format!(" AllowQos={}", a.as_deref().unwrap_or("ALL"))),
    }
    o.push_str(le);
    o.push_str(&format!("AllocNodes={}", m.alloc_nodes.as_deref().unwrap_or("ALL")));
    if let Some(a) = &m.alternate {
        o.push_str(&format!(" Alternate={}", a));
    }
    o.push_str(&format!(" Default={}", yn(p.default)));
    if let Some(b) = &m.cpu_bind {
        // slurmctld prints a blank after it
        o.push_str(&format!(" CpuBind={} ", b));
    }
    o.push_str(&format!(" QoS={}", m.qos.as_deref().unwrap_or("N/A")));
    o.push_str(le);
    let deftime = match p.default_time {
        None => "NONE".to_string(),
        Some(m) => fmt_limit_scontrol(Some(m)),
    };
    o.push_str(&format!(
        "DefaultTime={} DisableRootJobs={} ExclusiveUser={} ExclusiveTopo=NO GraceTime={} Hidden={}",
        deftime,
        yn(m.disable_root_jobs),
        yn(m.exclusive_user),
        m.grace_time,
        yn(p.hidden)
    ));
    o.push_str(le);
    let unlimited = |v: Option<u32>| v.map(|v| v.to_string()).unwrap_or_else(|| "UNLIMITED".into());
    o.push_str(&format!(
        "MaxNodes={} MaxTime={} MinNodes={} LLN={} MaxCPUsPerNode={} MaxCPUsPerSocket={}",
        unlimited(p.max_nodes),
        fmt_limit_scontrol(p.max_time),
        p.min_nodes,
        yn(m.lln),
        unlimited(m.max_cpus_per_node),
        unlimited(m.max_cpus_per_socket)
    ));
    o.push_str(le);
    // (22.05's `Nodes=ALL` keeps no NodeSets)
    if let Some(ns) = m.nodesets.as_ref().filter(|_| spur_core::compat::release() != spur_core::compat::Release::V22_05)
    {
        o.push_str(&format!("NodeSets={}", ns));
        o.push_str(le);
    }
    o.push_str(&format!("Nodes={}", if p.nodes_expr.is_empty() { "(null)" } else { &p.nodes_expr }));
    o.push_str(le);
    o.push_str(&format!(
        "PriorityJobFactor={} PriorityTier={} RootOnly={} ReqResv={} OverSubscribe={}",
        p.priority_job_factor,
        p.priority_tier,
        yn(m.root_only),
        yn(m.req_resv),
        p.oversubscribe.to_ascii_uppercase()
    ));
    o.push_str(le);
    let otl = match m.over_time_limit {
        None => "NONE".to_string(),
        Some(u16::MAX) => "UNLIMITED".to_string(),
        Some(n) => n.to_string(),
    };
    o.push_str(&format!("OverTimeLimit={} PreemptMode={}", otl, m.preempt_mode.as_deref().unwrap_or("OFF")));
    o.push_str(le);
    let nodes: Vec<&Node> = view.nodes.iter().filter(|n| p.nodes.contains(&n.name)).collect();
    let cpus: u64 = nodes.iter().map(|n| n.cpus as u64).sum();
    let mem: u64 = nodes.iter().map(|n| n.real_memory).sum();
    let state = match p.state {
        PartState::Up => "UP",
        PartState::Down => "DOWN",
        PartState::Drain => "DRAIN",
        PartState::Inactive => "INACTIVE",
    };
    o.push_str(&format!("State={} TotalCPUs={} TotalNodes={} SelectTypeParameters=NONE", state, cpus, p.nodes.len()));
    o.push_str(le);
    o.push_str(&format!("JobDefaults={}", m.job_defaults.as_deref().unwrap_or("(null)")));
    o.push_str(le);
    let mem_limit = |what: &str, l: spur_core::model::MemLimit| match (l.per_cpu, l.mb) {
        (true, 0) => format!("{}PerCPU=UNLIMITED", what),
        (true, n) => format!("{}PerCPU={}", what, n),
        (false, 0) => format!("{}PerNode=UNLIMITED", what),
        (false, n) => format!("{}PerNode={}", what, n),
    };
    o.push_str(&format!("{} {}", mem_limit("DefMem", m.def_mem), mem_limit("MaxMem", m.max_mem)));
    o.push_str(le);
    o.push_str(&format!(
        "TRES=cpu={},mem={},node={},billing={}",
        cpus,
        convert_num_unit(mem as f64, 2),
        p.nodes.len(),
        spur_core::priority::partition_billing(p, &nodes)
    ));
    if let Some(w) = &m.tres_billing_weights {
        o.push_str(le);
        o.push_str(&format!("TRESBillingWeights={}", w));
    }
    o.push('\n');
    if !f.one_liner {
        o.push('\n');
    }
    if !spur_core::compat::profile().show_partition_topo_fields {
        // neither field exists in 22.05
        o = o.replace(" ExclusiveTopo=NO", "");
        if let Some(i) = o.find(" MaxCPUsPerSocket=") {
            let j = o[i + 1..].find([' ', '\n']).map(|j| i + 1 + j).unwrap_or(o.len());
            o.replace_range(i..j, "");
        }
    }
    o
}

fn show_partitions(view: &ClusterView, id: Option<&str>, f: &Flags) -> Output {
    let mut out = Output::default();
    if f.quiet == -1 {
        // `-v`: when the partitions were loaded and how many (scontrol_surface 046)
        out.stdout = format!("last_update_time={}, records={}\n", ts(view.now), view.partitions.len());
    }
    let parts: Vec<&Partition> = view
        .partitions
        .iter()
        .filter(|p| match id {
            Some(n) => p.name == n,
            None => f.all || !p.hidden,
        })
        .collect();
    if parts.is_empty() {
        if let Some(n) = id {
            out.code = 1;
            if f.quiet != 1 {
                out.stdout.push_str(&format!("Partition {} not found\n", n));
            }
        } else if f.quiet != 1 {
            out.stdout.push_str("No partitions in the system\n");
        }
        return out;
    }
    for p in parts {
        out.stdout.push_str(&sprint_partition(p, view, f));
    }
    out
}

/// The words that change the session's flags or end it (`all`, `details`,
/// `exit`, `hide`, `oneliner`, `quiet`, `quit`, `verbose`), by scontrol's
/// abbreviations and in its order (so `d` is `details`, `o` `oneliner`).
/// `Some((exit, output))` when `words` was one of them.
pub fn mode_word(flags: &mut Flags, words: &[String]) -> Option<(bool, Output)> {
    let tag = words.first()?.as_str();
    let many = || Output::err(format!("too many arguments for keyword:{}\n", tag), 1);
    let ok = Output::ok("");
    if kw(tag, "all", 2) {
        flags.all = true;
        return Some((false, ok));
    }
    // completing, cluster and create come before `details` in scontrol's chain
    if kw(tag, "completing", 2) || kw(tag, "cluster", 2) || kw(tag, "create", 2) || kw(tag, "cancel_reboot", 3) {
        return None;
    }
    let exit = kw(tag, "exit", 2) || kw(tag, "quit", 4);
    let setter: Option<fn(&mut Flags)> = if kw(tag, "details", 1) {
        Some(|f| f.details = true)
    } else if kw(tag, "hide", 2) {
        Some(|f| {
            f.all = false;
            f.details = false
        })
    } else if kw(tag, "oneliner", 1) {
        Some(|f| f.one_liner = true)
    } else if kw(tag, "quiet", 4) {
        Some(|f| f.quiet = 1)
    } else if kw(tag, "verbose", 4) {
        Some(|f| f.quiet = -1)
    } else {
        None
    };
    if exit {
        return Some((true, if words.len() > 1 { many() } else { ok }));
    }
    let set = setter?;
    if words.len() > 1 {
        let msg = if kw(tag, "verbose", 4) {
            Output::err(format!("too many arguments for {} keyword\n", tag), 1)
        } else {
            many()
        };
        // `hide` takes no count of its words
        if !kw(tag, "hide", 2) {
            return Some((false, msg));
        }
    }
    set(flags);
    Some((false, ok))
}

/// The words of one interactive line, as scontrol splits it: at blanks
/// outside quotes; the quotes stay in the word.
pub fn split_line(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let (mut dq, mut sq, mut in_word) = (false, false, false);
    for c in line.chars() {
        if !in_word {
            if c.is_ascii_whitespace() {
                continue;
            }
            in_word = true;
            cur.push(c);
            // a quote that starts a word does not open a quoted part
            continue;
        }
        match c {
            '"' => dq = !dq,
            '\'' => sq = !sq,
            c if c.is_ascii_whitespace() && !dq && !sq => {
                words.push(std::mem::take(&mut cur));
                in_word = false;
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if in_word {
        words.push(cur);
    }
    words
}

/// One scontrol session: the flags in force, the exit status so far (any
/// failed command leaves it at its code, as Slurm's global `exit_code`), and
/// the connection, made when a command first needs it.
struct Session {
    flags: Flags,
    env: HashMap<String, String>,
    client: Option<spur_client::Client>,
    rt: Option<tokio::runtime::Runtime>,
    exit_code: i32,
}

impl Session {
    /// Run one command's words; true when the session should end.
    fn command(&mut self, words: &[String]) -> bool {
        if words.is_empty() {
            // scontrol: an empty command sets the exit code and prints nothing
            self.exit_code = 1;
            return false;
        }
        if let Some((exit, o)) = mode_word(&mut self.flags, words) {
            self.emit(&o);
            return exit;
        }
        let cmd = match parse_words(self.flags.clone(), words, &self.env) {
            Ok(c) => c,
            Err(o) => {
                self.emit(&o);
                return false;
            }
        };
        let o = self.execute(&cmd);
        self.emit(&o);
        matches!(cmd, ScontrolCmd::Fatal(_))
    }

    fn execute(&mut self, cmd: &ScontrolCmd) -> Output {
        if let Some(o) = run_local(cmd) {
            return o;
        }
        if self.client.is_none() {
            match client("scontrol") {
                Ok(c) => self.client = Some(c),
                Err(o) => return o,
            }
        }
        let rt = self.rt.get_or_insert_with(runtime);
        match &self.client {
            Some(c) => rt.block_on(execute(cmd, c)),
            None => Output::ok(""),
        }
    }

    fn emit(&mut self, o: &Output) {
        let code = emit(o);
        if code != 0 {
            self.exit_code = code;
        }
    }

    /// Interactive mode (no command on the command line): read lines from
    /// stdin. scontrol reads them with readline, which (stdin not a
    /// terminal) prints the prompt `scontrol: ` and echoes the line read; at
    /// the end of input it prints the prompt and a newline. `!!` runs the
    /// previous line again; `exit`/`quit` end the session.
    fn interactive(&mut self) -> i32 {
        use std::io::{BufRead, Write};
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        let mut last: Option<String> = None;
        loop {
            let mut buf = Vec::new();
            let n = input.read_until(b'\n', &mut buf).unwrap_or(0);
            let mut out = std::io::stdout();
            if n == 0 {
                let _ = out.write_all(b"scontrol: \n");
                let _ = out.flush();
                break;
            }
            if buf.last() == Some(&b'\n') {
                buf.pop();
            }
            let line = String::from_utf8_lossy(&buf).into_owned();
            let _ = out.write_all(format!("scontrol: {}\n", line).as_bytes());
            let _ = out.flush();
            let line = if line == "!!" {
                last.clone().unwrap_or_default()
            } else {
                last = Some(line.clone());
                line
            };
            if self.command(&split_line(&line)) {
                break;
            }
        }
        self.exit_code
    }
}

/// scontrol as a process: the options, then one command (or, with none,
/// the interactive mode); returns the exit status.
pub fn run(args: &[String], env: &HashMap<String, String>) -> i32 {
    let (flags, words) = match parse_options(args, env) {
        Ok(x) => x,
        Err(cmd) => return emit(&run_local(&cmd).unwrap_or_else(|| Output::ok(""))),
    };
    let mut s = Session { flags, env: env.clone(), client: None, rt: None, exit_code: 0 };
    if words.is_empty() {
        return s.interactive();
    }
    s.command(&words);
    s.exit_code
}

/// The line 22.05's scontrol adds after refusing an update value itself.
pub(crate) fn no_error_22_05() -> &'static str {
    if spur_core::compat::profile().update_refusal_says_no_error {
        "slurm_update error: No error\n"
    } else {
        ""
    }
}

/// A partition's `OverSubscribe=` value as scontrol accepts it: NO,
/// EXCLUSIVE, YES or FORCE (any case), the last two optionally `:count`.
fn oversubscribe_ok(v: &str) -> bool {
    let (word, n) = match v.split_once(':') {
        Some((w, n)) => (w, Some(n)),
        None => (v, None),
    };
    let upper = word.to_ascii_uppercase();
    match upper.as_str() {
        "NO" | "EXCLUSIVE" => n.is_none(),
        "YES" | "FORCE" => n.is_none_or(|n| n.parse::<u32>().is_ok()),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_cli_base::fixtures::{basic_view, debug_part, node};

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    fn view() -> ClusterView {
        let mut v = basic_view();
        v.nodes = vec![node(1, 2), node(2, 2), node(3, 2), node(4, 1)];
        v.partitions = vec![debug_part()];
        v
    }

    fn show(a: &[&str]) -> Output {
        let cmd = parse(&args(a), &HashMap::new()).unwrap();
        let v = view();
        render_show(&cmd, &v, v.now, &ShowConf::default())
    }

    /// getopt_long's permutation, POSIXLY_CORRECT and `--`, as recorded in
    /// scontrol_surface 014-034.
    #[test]
    fn options_anywhere() {
        let e = HashMap::new();
        let (f, w) = parse_options(&args(&["show", "job", "-d", "-o", "34"]), &e).unwrap();
        assert!(f.one_liner && f.details);
        assert_eq!(w, args(&["show", "job", "34"]));
        let posix: HashMap<String, String> = [("POSIXLY_CORRECT".to_string(), "1".to_string())].into();
        let (f, w) = parse_options(&args(&["show", "partition", "-o", "debug"]), &posix).unwrap();
        assert!(!f.one_liner);
        assert_eq!(w, args(&["show", "partition", "-o", "debug"]));
        let (f, w) = parse_options(&args(&["show", "partition", "--", "-o"]), &e).unwrap();
        assert!(!f.one_liner);
        assert_eq!(w, args(&["show", "partition", "-o"]));
        // the first of -V/-h wins; a bad option after them is never reached
        assert_eq!(*parse_options(&args(&["show", "job", "-V", "--bogus"]), &e).unwrap_err(), ScontrolCmd::Version);
        match *parse_options(&args(&["show", "-x"]), &e).unwrap_err() {
            ScontrolCmd::Print(o) => {
                assert_eq!(o.stderr, "scontrol: invalid option -- 'x'\nTry \"scontrol --help\" for more information\n");
                assert_eq!(o.code, 1);
            }
            other => panic!("{:?}", other),
        }
        // setdebugflags' `-flag` words are not options
        let (_, w) = parse_options(&args(&["setdebugflags", "-backfill"]), &e).unwrap();
        assert_eq!(w, args(&["setdebugflags", "-backfill"]));
    }

    /// The interactive mode's words (scontrol_surface 062-078).
    #[test]
    fn interactive_words() {
        assert_eq!(split_line("  show  job 3 "), args(&["show", "job", "3"]));
        assert_eq!(split_line("update jobid=3 comment=\"a b\""), args(&["update", "jobid=3", "comment=\"a b\""]));
        let mut f = Flags::default();
        assert_eq!(mode_word(&mut f, &args(&["o"])).map(|(x, o)| (x, o.code)), Some((false, 0)));
        assert!(f.one_liner);
        assert_eq!(mode_word(&mut f, &args(&["d"])).map(|(x, _)| x), Some(false));
        assert!(f.details);
        mode_word(&mut f, &args(&["hide"]));
        assert!(!f.details && !f.all);
        assert_eq!(mode_word(&mut f, &args(&["quit"])).map(|(x, _)| x), Some(true));
        assert_eq!(mode_word(&mut f, &args(&["exit"])).map(|(x, _)| x), Some(true));
        let (_, o) = mode_word(&mut f, &args(&["oneliner", "x"])).unwrap();
        assert_eq!((o.stderr.as_str(), o.code), ("too many arguments for keyword:oneliner\n", 1));
        // `co` is completing, not a mode word
        assert!(mode_word(&mut f, &args(&["co"])).is_none());
        assert!(matches!(parse(&args(&["co"]), &HashMap::new()).unwrap(), ScontrolCmd::Completing { .. }));
    }

    #[test]
    fn parses_commands() {
        let e = HashMap::new();
        assert_eq!(
            parse(&args(&["hold", "9"]), &e).unwrap(),
            ScontrolCmd::Hold { flags: Flags::default(), job_ids: vec!["9".into()], user: false }
        );
        assert_eq!(
            parse(&args(&["update", "JobId=9", "TimeLimit=10"]), &e).unwrap(),
            ScontrolCmd::UpdateJob {
                flags: Flags::default(),
                job_ids: vec!["9".into()],
                update: rq::JobUpdate { time_limit: Some(10), ..Default::default() },
                time_step: None,
                by_name: None,
                invalid: None,
            }
        );
        assert!(matches!(
            parse(&args(&["update", "job=1", "TimeLimit=30"]), &e).unwrap(),
            ScontrolCmd::UpdateJob { .. }
        ));
        assert!(matches!(parse(&args(&["release", "3"]), &e).unwrap(), ScontrolCmd::Release { .. }));
        assert!(matches!(parse(&args(&["uhold", "3"]), &e).unwrap(), ScontrolCmd::Hold { user: true, .. }));
        assert!(matches!(parse(&args(&["requeuehold", "3"]), &e).unwrap(), ScontrolCmd::Requeue { hold: true, .. }));
        assert!(matches!(
            parse(&args(&["update", "NodeName=node1", "State=DRAIN", "Reason=x"]), &e).unwrap(),
            ScontrolCmd::UpdateNode { .. }
        ));
        assert_eq!(parse(&args(&["hold"]), &e).unwrap_err().stderr, "too few arguments for keyword:hold\n");
        let err = |a: &[&str]| parse(&args(a), &e).unwrap_err();
        assert_eq!(err(&["update"]).stderr, "too few arguments for update keyword\n");
        assert_eq!(
            err(&["update", "JobId=2", "Bogus=1"]).stderr,
            "Update of this parameter is not supported: Bogus=1\nRequest aborted\n"
        );
        assert_eq!(err(&["update", "JobId=2", "TimeLimit=abc"]).stderr, "scontrol: error: Invalid TimeLimit value\n");
        assert_eq!(
            err(&["update", "NodeName=node3", "State=DRAIN"]).stderr,
            "You must specify a reason when DOWNING or DRAINING a node. Request denied\n"
        );
        assert!(err(&["update", "NodeName=n", "State=BOGUS", "Reason=x"])
            .stderr
            .starts_with("Invalid input: State=BOGUS\nRequest aborted\n"));
        assert!(matches!(
            parse(&args(&["update", "JobName=x", "Comment=y"]), &e).unwrap(),
            ScontrolCmd::UpdateJob { by_name: Some(_), .. }
        ));
        assert!(matches!(
            parse(&args(&["update", "PartitionName=debug", "MaxTime=60"]), &e).unwrap(),
            ScontrolCmd::UpdatePartition { .. }
        ));
        assert!(matches!(
            parse(&args(&["write", "batch_script", "3", "-"]), &e).unwrap(),
            ScontrolCmd::WriteBatchScript { .. }
        ));
        assert!(matches!(
            parse(&args(&["show", "config"]), &e).unwrap(),
            ScontrolCmd::Show { what: ShowWhat::Config, .. }
        ));
        assert!(matches!(parse(&args(&["-o"]), &e).unwrap(), ScontrolCmd::Interactive { .. }));
        // top: a JobId= or Job= prefix dropped, the list split
        for a in ["5,6", "JobId=5,6", "job=5,6", "jobid=job=5,6"] {
            match parse(&args(&["top", a]), &e).unwrap() {
                ScontrolCmd::Top { job_ids, .. } => assert_eq!(job_ids, ["5", "6"], "{}", a),
                other => panic!("{:?}", other),
            }
        }
        assert!(matches!(parse(&args(&["top", "é"]), &e).unwrap(), ScontrolCmd::Top { .. }));
        assert_eq!(parse(&args(&["bogus"]), &e).unwrap_err().stderr, "invalid keyword: bogus\n");
        assert_eq!(
            err(&["update", "PartitionName=debug", "MaxNodes=many"]).stderr,
            "scontrol: error: Invalid numeric value \"many\" for MaxNodes.\n"
        );
        assert_eq!(
            err(&["update", "PartitionName=debug", "OverSubscribe=bogus"]).stderr,
            "scontrol: error: Invalid input: OverSubscribe=bogus\n\
             scontrol: error: Acceptable OverSubscribe values are NO, EXCLUSIVE, YES:#, and FORCE:#\n"
        );
        for ok in ["NO", "exclusive", "YES:4", "FORCE", "force:2"] {
            assert!(oversubscribe_ok(ok), "{}", ok);
        }
        for bad in ["", "YES:x", "NO:2", "sometimes"] {
            assert!(!oversubscribe_ok(bad), "{}", bad);
        }
        assert_eq!(
            parse(&args(&["show", "bogus"]), &e).unwrap_err().stderr,
            "invalid entity:bogus for keyword:show \n"
        );
        let o = parse(&args(&["-o", "show", "job", "1"]), &e).unwrap();
        assert!(matches!(o, ScontrolCmd::Show { flags: Flags { one_liner: true, .. }, what: ShowWhat::Job, .. }));
    }

    /// scontrol sends typed values: the controller never sees `key=value` text.
    #[test]
    fn updates_are_typed() {
        let e = HashMap::new();
        let job = |a: &[&str]| match parse(&args(a), &e).unwrap() {
            ScontrolCmd::UpdateJob { update, time_step, invalid, .. } => (update, time_step, invalid),
            other => panic!("{:?}", other),
        };
        let (u, step, bad) =
            job(&["update", "JobId=3", "TimeLimit=UNLIMITED", "Partition=p", "ExcNodeList=", "Requeue=0", "Nice"]);
        assert_eq!(u.time_limit, Some(INFINITE));
        assert_eq!(u.partition.as_deref(), Some("p"));
        assert_eq!(u.exc_nodes.as_deref(), Some(""));
        assert_eq!(u.requeue, Some(false));
        assert_eq!(u.nice, Some(100));
        assert_eq!((step, bad), (None, None));
        let (u, step, _) = job(&["update", "JobId=3", "TimeLimit=-5", "Account=a", "MailUser=m", "NumNodes=2-4"]);
        assert_eq!((u.time_limit, step), (None, Some(-5)));
        assert_eq!((u.account.as_deref(), u.mail_user.as_deref()), (Some("a"), Some("m")));
        assert!(u.unsupported.is_empty());
        assert_eq!(u.num_nodes, Some(2));
        // the job's shape and the rest of the keys slurmctld takes (scontrol_surface 086-138)
        let (u, _, _) = job(&[
            "update",
            "JobId=3",
            "MinCPUsNode=2",
            "CPUsPerTask=3",
            "NumCPUs=4-8",
            "TasksPerNode=1",
            "MinTmpDiskNode=100",
            "ReqSockets=1",
            "ReqCores=2",
            "ReqThreads=1",
            "OverSubscribe=yes",
            "Contiguous=n",
            "MailType=end,fail",
            "DelayBoot=10",
            "Reboot=1",
            "Gres=gpu:1",
            "tresPerNode=gres/x:1",
            "ResetAccrueTime",
            "Deadline=2031-01-01T00:00:00",
            "EndTime=bogus",
            "SiteFactor=-5",
            "AdminComment=a",
        ]);
        assert_eq!(
            (u.min_cpus_node, u.cpus_per_task, u.num_cpus, u.ntasks_per_node, u.tmp_disk),
            (Some(2), Some(3), Some(4), Some(1), Some(100))
        );
        assert_eq!((u.sockets_per_node, u.cores_per_socket, u.threads_per_core), (Some(1), Some(2), Some(1)));
        assert_eq!((u.shared, u.contiguous, u.reboot, u.delay_boot), (Some(true), Some(false), Some(true), Some(600)));
        assert_eq!(u.mail_type.as_deref(), Some("end,fail"));
        assert_eq!(u.gres.as_deref(), Some("gpu:1,gres/x:1"));
        assert!(u.reset_accrue_time && u.deadline.is_some() && u.end_time.is_none());
        assert_eq!((u.site_factor, u.admin_comment.as_deref()), (Some(-5), Some("a")));
        // Slurm's messages for values that do not read
        let bad = |a: &[&str]| parse(&args(a), &e).unwrap_err().stderr;
        assert_eq!(bad(&["update", "JobId=3", "CPUsPerTask=x"]), "scontrol: error: Invalid CPUsPerTask value: x\n");
        assert_eq!(bad(&["update", "JobId=3", "NumCPUs=0"]), "scontrol: error: Invalid NumCPUs value: 0\n");
        assert_eq!(bad(&["update", "JobId=3", "NumCPUs=4-2"]), "scontrol: error: Invalid NumCPUs value: 4-2\n");
        assert_eq!(bad(&["update", "JobId=3", "ReqCores=-1"]), "scontrol: error: Invalid ReqCores value: -1\n");
        assert_eq!(
            bad(&["update", "JobId=3", "Shared=maybe"]),
            "scontrol: error: Invalid OverSubscribe value: maybe\n"
        );
        assert_eq!(bad(&["update", "JobId=3", "MailType=sometimes"]), "Invalid MailType: sometimes\n");
        assert_eq!(bad(&["update", "JobId=3", "DelayBoot=x"]), "scontrol: error: Invalid DelayBoot value\n");
        assert_eq!(
            bad(&["update", "JobId=3", "SiteFactor=2147483646"]),
            "scontrol: error: SiteFactor value out of range (+/- 2147483645). Value ignored\n"
        );
        // a deadline that does not read is no change
        assert_eq!(bad(&["update", "JobId=3", "Deadline=bogus"]), "No changes specified\n");
        let (_, _, bad) = job(&["update", "JobId=3", "NumNodes=x"]);
        assert_eq!(bad, Some(spur_core::errors::ESLURM_INVALID_NODE_COUNT));
        let (_, _, bad) = job(&["update", "JobId=3", "StartTime=never"]);
        assert_eq!(bad, Some(spur_core::errors::ESLURM_INVALID_TIME_VALUE));
        match parse(
            &args(&["update", "NodeName=n[1-2]", "State=DRAIN", "Reason=\"a b\"", "Weight=5", "Gres=gpu:1"]),
            &e,
        )
        .unwrap()
        {
            ScontrolCmd::UpdateNode { update, .. } => {
                assert_eq!(update.nodes, "n[1-2]");
                assert_eq!(update.state, Some(NodeStateChange::Drain));
                assert_eq!(update.reason.as_deref(), Some("a b"));
                assert_eq!(update.weight, Some(5));
                assert_eq!(update.gres.as_deref(), Some("gpu:1"));
                assert!(update.unsupported.is_empty());
            }
            other => panic!("{:?}", other),
        }
        match parse(
            &args(&[
                "update",
                "PartitionName=debug",
                "State=DOWN",
                "MaxTime=INFINITE",
                "MaxNodes=unlimited",
                "Hidden=yes",
            ]),
            &e,
        )
        .unwrap()
        {
            ScontrolCmd::UpdatePartition { update, .. } => {
                assert_eq!(update.name, "debug");
                assert_eq!(update.state, Some(PartState::Down));
                assert_eq!(
                    (update.max_time, update.max_nodes, update.hidden),
                    (Some(INFINITE), Some(INFINITE), Some(true))
                );
            }
            other => panic!("{:?}", other),
        }
        assert_eq!(first_job(&["1,2".into()]), "1");
        assert_eq!(first_job(&["5_[1,3],6".into()]), "5_[1,3]");
    }

    #[test]
    fn hostlists() {
        let run = |a: &[&str]| run_local(&parse(&args(a), &HashMap::new()).unwrap()).unwrap();
        assert_eq!(run(&["show", "hostnames", "node[1-3]"]).stdout, "node1\nnode2\nnode3\n");
        assert_eq!(run(&["show", "hostlist", "node1,node2,node3"]).stdout, "node[1-3]\n");
        assert_eq!(run(&["show", "hostlist", "node3,node1,node2,node4"]).stdout, "node[3,1-2,4]\n");
        assert_eq!(run(&["show", "hostlistsorted", "node3,node1,node2"]).stdout, "node[1-3]\n");
    }

    fn strip_times(s: &str) -> String {
        // timestamps depend on the local zone: replace YYYY-MM-DDTHH:MM:SS by T
        let b = s.as_bytes();
        let mut out = String::new();
        let mut i = 0;
        let pat = |w: &[u8]| {
            w.len() == 19
                && w.iter().enumerate().all(|(k, c)| match k {
                    4 | 7 => *c == b'-',
                    10 => *c == b'T',
                    13 | 16 => *c == b':',
                    _ => c.is_ascii_digit(),
                })
        };
        while i < b.len() {
            if i + 19 <= b.len() && pat(&b[i..i + 19]) {
                out.push('T');
                i += 19;
            } else {
                out.push(b[i] as char);
                i += 1;
            }
        }
        out
    }

    #[test]
    fn show_job_running_layout() {
        let o = show(&["show", "job", "1"]);
        let expected = "JobId=1 JobName=wrap
   UserId=root(0) GroupId=root(0) MCS_label=N/A
   Priority=1 Nice=0 Account=(null) QOS=(null)
   JobState=RUNNING Reason=None Dependency=(null)
   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0
   RunTime=00:00:13 TimeLimit=UNLIMITED TimeMin=N/A
   SubmitTime=T EligibleTime=T
   AccrueTime=T
   StartTime=T EndTime=Unknown Deadline=N/A
   SuspendTime=None SecsPreSuspend=0 LastSchedEval=T Scheduler=Main
   Partition=debug AllocNode:Sid=localhost:4057
   ReqNodeList=(null) ExcNodeList=(null)
   NodeList=node1
   BatchHost=node1
   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*
   ReqTRES=cpu=1,mem=500M,node=1,billing=1
   AllocTRES=cpu=1,mem=500M,node=1,billing=1
   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*
   MinCPUsNode=1 MinMemoryCPU=500M MinTmpDiskNode=0
   Features=(null) DelayBoot=00:00:00
   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)
   Command=(null)
   WorkDir=/tmp/spur-conf-work
   StdErr=/tmp/spur-conf-work/slurm-1.out
   StdIn=/dev/null
   StdOut=/tmp/spur-conf-work/slurm-1.out
   

";
        assert_eq!(strip_times(&o.stdout), expected);
        let one = show(&["-o", "show", "job", "1"]);
        assert!(one.stdout.ends_with("StdOut=/tmp/spur-conf-work/slurm-1.out \n"));
        assert_eq!(one.stdout.lines().count(), 1);
    }

    #[test]
    fn show_job_pending_and_arrays() {
        let o = show(&["show", "job", "9"]);
        assert!(o.stdout.contains("\n   JobState=PENDING Reason=Dependency Dependency=afterok:1(unfulfilled)\n"));
        assert!(o.stdout.contains("\n   NodeList=\n   NumNodes=1 NumCPUs=1"));
        assert!(o.stdout.contains("\n   AllocTRES=(null)\n"));
        assert!(o.stdout.contains("EligibleTime=") && o.stdout.contains("StartTime=Unknown EndTime=Unknown"));
        let o = show(&["show", "job", "6"]);
        let heads: Vec<&str> = o.stdout.lines().filter(|l| l.starts_with("JobId=")).collect();
        assert_eq!(
            heads,
            [
                "JobId=6 ArrayJobId=6 ArrayTaskId=3 JobName=wrap",
                "JobId=8 ArrayJobId=6 ArrayTaskId=2 JobName=wrap",
                "JobId=7 ArrayJobId=6 ArrayTaskId=1 JobName=wrap"
            ]
        );
        assert!(o.stdout.contains("StdOut=/tmp/spur-conf-work/slurm-6_3.out\n"));
        let o = show(&["show", "job", "6_2"]);
        assert_eq!(o.stdout.lines().next().unwrap(), "JobId=8 ArrayJobId=6 ArrayTaskId=2 JobName=wrap");
        let o = show(&["show", "job", "77"]);
        assert_eq!(o.stderr, "slurm_load_jobs error: Invalid job id specified\n");
        assert_eq!(o.code, 1);
    }

    #[test]
    fn show_node_and_partition() {
        let o = show(&["show", "node", "node1"]);
        let expected_tail = "   RealMemory=2000 AllocMem=1000 FreeMem=22908 Sockets=1 Boards=1
   State=ALLOCATED ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A
   Partitions=debug 
";
        assert!(o.stdout.starts_with("NodeName=node1 Arch=x86_64 CoresPerSocket=2 \n   CPUAlloc=2 CPUEfctv=2 CPUTot=2 CPULoad=0.44\n   AvailableFeatures=(null)\n   ActiveFeatures=(null)\n   Gres=(null)\n   NodeAddr=127.0.0.1 NodeHostName=node1 Port=47801 Version=24.11.5\n   OS=Linux \n"));
        assert!(o.stdout.contains(expected_tail));
        assert!(o.stdout.ends_with(
            "   CfgTRES=cpu=2,mem=2000M,billing=2\n   AllocTRES=cpu=2,mem=1000M\n   CurrentWatts=0 AveWatts=0\n   \n\n"
        ));
        let o = show(&["show", "node", "node4"]);
        assert!(o.stdout.contains("State=MIXED "));
        let o = show(&["show", "partition", "debug"]);
        assert_eq!(
            o.stdout,
            "PartitionName=debug
   AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL
   AllocNodes=ALL Default=YES QoS=N/A
   DefaultTime=NONE DisableRootJobs=NO ExclusiveUser=NO ExclusiveTopo=NO GraceTime=0 Hidden=NO
   MaxNodes=UNLIMITED MaxTime=UNLIMITED MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED MaxCPUsPerSocket=UNLIMITED
   Nodes=node[1-4]
   PriorityJobFactor=1 PriorityTier=1 RootOnly=NO ReqResv=NO OverSubscribe=NO
   OverTimeLimit=NONE PreemptMode=OFF
   State=UP TotalCPUs=8 TotalNodes=4 SelectTypeParameters=NONE
   JobDefaults=(null)
   DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED
   TRES=cpu=8,mem=8000M,node=4,billing=8

"
        );
        let o = show(&["-o", "show", "partition"]);
        assert!(o.stdout.ends_with("TRES=cpu=8,mem=8000M,node=4,billing=8\n"));
        let o = show(&["show", "partition", "nope"]);
        assert_eq!((o.stdout.as_str(), o.code), ("Partition nope not found\n", 1));
        let o = show(&["show", "node", "nodeX"]);
        assert_eq!((o.stdout.as_str(), o.code), ("Node nodeX not found\n", 1));
    }

    /// The partition keys of format version 3: scontrol's abbreviations,
    /// canonical values and own refusals (recorded/24.11/scontrol_partkeys),
    /// and how `show partition` prints them.
    #[test]
    fn partition_keys_parse_and_show() {
        use rq::PartKey::*;
        let e = HashMap::new();
        let upd = |a: &[&str]| match parse(&args(a), &e) {
            Ok(ScontrolCmd::UpdatePartition { update, .. }) => Ok(update.settings),
            Ok(_) => panic!("not a partition update"),
            Err(o) => Err((o.stderr, o.code)),
        };
        let s = |k: rq::PartKey, v: &str| (k, v.to_string());
        assert_eq!(
            upd(&[
                "update",
                "PartitionName=debug",
                "Root=y",
                "D=no",
                "LLN=YES",
                "CpuBind=v,core",
                "PreemptMode=requeue"
            ]),
            Ok(vec![
                s(RootOnly, "YES"),
                s(DisableRootJobs, "NO"),
                s(Lln, "YES"),
                s(CpuBind, "verbose,cores"),
                s(PreemptMode, "REQUEUE")
            ])
        );
        assert_eq!(
            upd(&[
                "update",
                "PartitionName=debug",
                "MaxCPUs=infinite",
                "OverTime=unlimited",
                "DefMemPerCPU=400",
                "Nodes=n[1-2]"
            ]),
            Ok(vec![
                s(MaxCpusPerNode, "UNLIMITED"),
                s(OverTimeLimit, "UNLIMITED"),
                s(DefMemPerCpu, "400"),
                s(Nodes, "n[1-2]")
            ])
        );
        let bad = |a: &str| upd(&["update", "PartitionName=debug", a]).unwrap_err();
        assert_eq!(bad("GraceTime=x"), ("scontrol: error: Invalid GraceTime value: x\n".into(), 1));
        assert_eq!(bad("CpuBind=bogus"), ("scontrol: error: Invalid input CpuBind=bogus\n".into(), 1));
        assert_eq!(
            bad("PreemptMode=GANG").0,
            "scontrol: error: PreemptMode=GANG is a cluster-wide option and cannot be set at partition level\n"
        );
        assert_eq!(
            bad("LLN=maybe").0,
            "scontrol: error: Invalid input: LLN=maybe\nscontrol: error: Acceptable LLN values are YES and NO\n"
        );
        // shown where slurmctld prints them
        let mut v = view();
        let p = &mut v.partitions[0];
        p.set_keys(
            &[
                s(AllocNodes, "node1"),
                s(Alternate, "debug"),
                s(CpuBind, "cores"),
                s(DenyAccounts, "a3"),
                s(GraceTime, "10"),
                s(MaxMemPerCpu, "800"),
                s(OverTimeLimit, "5"),
                s(TresBillingWeights, "CPU=1.0,Mem=0.25G"),
                s(Nodes, "ALL"),
            ],
            &["node1".to_string(), "node2".to_string(), "node3".to_string(), "node4".to_string()],
        )
        .unwrap();
        let o = render_show(&parse(&args(&["show", "partition"]), &e).unwrap(), &v, v.now, &ShowConf::default()).stdout;
        for line in [
            "   AllowGroups=ALL DenyAccounts=a3 AllowQos=ALL\n",
            "   AllocNodes=node1 Alternate=debug Default=YES CpuBind=cores  QoS=N/A\n",
            " GraceTime=10 Hidden=NO\n",
            "   NodeSets=ALL\n   Nodes=node[1-4]\n",
            "   OverTimeLimit=5 PreemptMode=OFF\n",
            "   DefMemPerNode=UNLIMITED MaxMemPerCPU=800\n",
            // the weights counted when the nodes changed: 8 + 8000 MB × 0.25/GB
            "billing=9\n   TRESBillingWeights=CPU=1.0,Mem=0.25G\n\n",
        ] {
            assert!(o.contains(line), "{}\n{}", line, o);
        }
    }
}

#[cfg(test)]
mod write_config_tests {
    use super::*;
    use spur_cli_base::fixtures::{basic_view, debug_part, node};

    /// `write config FILE`: FILE.<time> holds the configuration as slurm.conf
    /// lines, then the nodes and partitions; an unwritable path is Slurm's
    /// message, exit 0.
    #[test]
    fn write_config_writes_slurm_conf_lines() {
        let dir = std::env::temp_dir().join(format!("spur-write-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let conf = spur_core::config::parse_str("ClusterName=c1\nSlurmctldHost=h\n", &dir.join("slurm.conf")).unwrap();
        let mut v = basic_view();
        v.nodes = vec![node(1, 2)];
        v.partitions = vec![debug_part()];
        let base = dir.join("out.conf").display().to_string();
        let o = write_config(&conf, &v, Some(&base));
        assert_eq!(o.code, 0, "{:?}", o.stderr);
        let path = o.stdout.trim().strip_prefix("Slurm config saved to ").unwrap().to_string();
        assert!(path.starts_with(&format!("{}.", base)), "{}", path);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\nClusterName=c1\n"), "{}", text);
        assert!(text.contains("\nNodeName=node1 "), "{}", text);
        assert!(text.contains("\nPartitionName=debug "), "{}", text);
        assert!(!text.contains("=(null)"), "{}", text);
        assert!(text.contains("\n#SLURM_CONF="), "{}", text);
        let o = write_config(&conf, &v, Some("/nonexistent-dir/x"));
        assert_eq!(o.code, 0);
        assert!(o.stderr.starts_with("Could not create file /nonexistent-dir/x."), "{}", o.stderr);
        assert!(o.stderr.ends_with(": No such file or directory\n"), "{}", o.stderr);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
