//! `sinfo`: options, grouping of nodes into lines, sorting and printing as
//! Slurm 24.11 does (src/sinfo/opts.c, sinfo.c, print.c, sort.c).
//!
//! Grouping: every (partition, node) pair is rendered field by field; pairs
//! whose non-aggregate fields (everything but node counts, node lists and
//! CPU/node state tallies) render the same share a line, as Slurm's
//! match flags do. `-N` gives every (node, partition) its own line.

use crate::json;
use spur_cli_base::data;
use spur_cli_base::format::{self, Cell, FieldDef, Item, ItemKind};
use spur_cli_base::opts::{self, ArgKind::*, Mode, OptSpec};
use spur_cli_base::process::{client, emit, load_error, runtime};
use spur_cli_base::records::{or_null, resv_nodes, resv_state};
use spur_cli_base::version::version_line;
use spur_cli_base::Output;
use spur_core::model::{ClusterView, Node, NodeBase, PartState, Partition};
use spur_core::request::Query as QueryRequest;
use spur_grammar::time::{fmt_secs_scontrol, fmt_timestamp};
use std::collections::HashMap;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SinfoOpts {
    pub all: bool,
    pub dead: bool,
    pub exact: bool,
    pub future: bool,
    pub no_header: bool,
    pub long: bool,
    pub nodes: Option<Vec<String>>,
    pub node_flag: bool,
    pub format: Option<String>,
    /// `-O` given (or a default long-form layout).
    pub long_form: bool,
    pub partitions: Option<Vec<String>>,
    pub responding: bool,
    pub list_reasons: bool,
    pub summarize: bool,
    pub sort: Option<String>,
    /// `-t` states, lower case as given (None = all).
    pub states: Option<Vec<String>>,
    pub reservation: bool,
    pub verbose: usize,
    /// `-i N`: print the report every N seconds, each after a date line
    /// (0: once).
    pub iterate: u32,
    /// `-n`, `-p` and `-t` as given (what `-v` prints).
    pub nodes_text: Option<String>,
    pub partition_text: Option<String>,
    pub states_text: Option<String>,
    /// Default layout chosen (partition/node column widths computed).
    pub part_field_flag: bool,
    pub node_field_flag: bool,
}

/// The options of the imitated release (those added after 22.05 only
/// when it has them: `Profile::query_options_after_22_05`).
pub fn specs() -> Vec<OptSpec> {
    if spur_core::compat::profile().query_options_after_22_05 {
        SPECS.to_vec()
    } else {
        opts::without(SPECS, &["F"])
    }
}

pub const SPECS: &[OptSpec] = &[
    OptSpec::new(None, "autocomplete", Required, "autocomplete"),
    OptSpec::new(Some('a'), "all", None_, "a"),
    OptSpec::new(Some('d'), "dead", None_, "d"),
    OptSpec::new(Some('e'), "exact", None_, "e"),
    OptSpec::new(None, "federation", None_, "federation"),
    OptSpec::new(Some('F'), "future", None_, "F"),
    OptSpec::new(None, "help", None_, "help"),
    OptSpec::new(None, "helpformat", None_, "helpformat"),
    OptSpec::new(None, "helpFormat", None_, "helpFormat"),
    OptSpec::new(None, "helpstate", None_, "helpstate"),
    OptSpec::new(None, "hide", None_, "hide"),
    OptSpec::new(Some('i'), "iterate", Required, "i"),
    OptSpec::new(None, "local", None_, "local"),
    OptSpec::new(Some('l'), "long", None_, "l"),
    OptSpec::new(Some('M'), "cluster", Required, "M"),
    OptSpec::new(Some('M'), "clusters", Required, "M"),
    OptSpec::new(Some('n'), "nodes", Required, "n"),
    OptSpec::new(None, "noconvert", None_, "noconvert"),
    OptSpec::new(Some('h'), "noheader", None_, "h"),
    OptSpec::new(Some('N'), "Node", None_, "N"),
    OptSpec::new(Some('o'), "format", Required, "o"),
    OptSpec::new(Some('O'), "Format", Required, "O"),
    OptSpec::new(Some('p'), "partition", Required, "p"),
    OptSpec::new(Some('r'), "responding", None_, "r"),
    OptSpec::new(Some('R'), "list-reasons", None_, "R"),
    OptSpec::new(Some('s'), "summarize", None_, "s"),
    OptSpec::new(Some('S'), "sort", Required, "S"),
    OptSpec::new(Some('t'), "states", Required, "t"),
    OptSpec::new(Some('T'), "reservation", None_, "T"),
    OptSpec::new(None, "usage", None_, "usage"),
    OptSpec::new(Some('v'), "verbose", None_, "v"),
    OptSpec::new(Some('V'), "version", None_, "V"),
    OptSpec::new(None, "json", Optional, "json"),
    OptSpec::new(None, "yaml", Optional, "yaml"),
];

/// sinfo's list: every base state's name (the unused ERROR prints as `?`),
/// then the flag words, the two reboot flags by their short names.
/// 22.05's list (it still had PERFCTRS, not PLANNED/BLOCKED, and ends with
/// a second `unknown`).
const NODE_STATE_LIST_22_05: &str = "unknown,down,idle,allocated,?,mixed,future,drain,drained,draining,no_respond,reserved,perfctrs,cloud,completing,powering_down,powered_down,power_down,powering_up,fail,maint,reboot,reboot^,unknown";
const NODE_STATE_LIST: &str = "unknown,down,idle,allocated,?,mixed,future,drain,drained,draining,no_respond,reserved,planned,blocked,cloud,completing,powering_down,powered_down,power_down,powering_up,fail,maint,reboot,reboot^";

/// State words `-t` accepts (prefixes of these, case-insensitive).
const STATE_WORDS: &[&str] = &[
    "unknown",
    "unk",
    "down",
    "idle",
    "allocated",
    "alloc",
    "error",
    "err",
    "mixed",
    "mix",
    "future",
    "futr",
    "blocked",
    "block",
    "planned",
    "plnd",
    "drain",
    "drained",
    "resv",
    "reserved",
    "draining",
    "drng",
    "completing",
    "comp",
    "no_respond",
    "powering_down",
    "powered_down",
    "power_down",
    "powering_up",
    "fail",
    "maint",
    "reboot_requested",
    "reboot_issued",
    "cloud",
];

/// Parse sinfo's command line and environment.
pub fn parse(args: &[String], env: &HashMap<String, String>) -> Result<SinfoOpts, Output> {
    let mut o = SinfoOpts::default();
    let (mut opt_a, mut opt_p) = (false, false);
    let env_a = env.contains_key("SINFO_ALL");
    if env_a {
        o.all = true;
    }
    if env.contains_key("SINFO_FUTURE") {
        o.future = true;
    }
    if let Some(p) = env.get("SINFO_PARTITION") {
        if env_a {
            return Err(Output::err(
                "sinfo: error: Conflicting options, SINFO_ALL and SINFO_PARTITION, specified. Please choose one or the other.\n",
                1,
            ));
        }
        o.partitions = Some(p.split(',').filter(|s| !s.is_empty()).map(String::from).collect());
        o.partition_text = Some(p.clone());
        o.all = true;
    }
    if let Some(s) = env.get("SINFO_SORT") {
        o.sort = Some(s.clone());
    }
    if let Some(v) = env.get("SLURM_CLUSTERS") {
        return Err(spur_cli_base::clusters::unreachable("sinfo", v, true));
    }
    let p = opts::parse("sinfo", &specs(), args, Mode::Permute);
    for (id, val) in &p.opts {
        let v = val.clone().unwrap_or_default();
        match *id {
            "a" => {
                opt_a = true;
                o.partitions = None;
                o.all = true;
            }
            "d" => o.dead = true,
            "e" => o.exact = true,
            "F" => o.future = true,
            "h" => o.no_header = true,
            "i" if v.trim().parse::<i64>().map(|x| x <= 0).unwrap_or(true) => {
                return Err(Output::err(format!("sinfo: error: Error: invalid entry for --iterate={}\n", v), 1));
            }
            "i" => o.iterate = v.trim().parse::<u32>().unwrap_or(u32::MAX),
            "M" => return Err(spur_cli_base::clusters::unreachable("sinfo", &v, false)),
            "l" => o.long = true,
            "n" => match spur_grammar::hostlist::expand(&v) {
                Ok(h) => {
                    o.nodes = Some(h);
                    o.nodes_text = Some(v.clone());
                }
                Err(_) => return Err(Output::err(format!("sinfo: error: '{}' invalid entry for --nodes\n", v), 1)),
            },
            "N" => o.node_flag = true,
            "o" => {
                o.format = Some(v);
                o.long_form = false;
            }
            "O" => {
                o.format = Some(v);
                o.long_form = true;
            }
            "p" => {
                o.partition_text = Some(v.clone());
                opt_p = true;
                o.partitions = Some(v.split(',').filter(|s| !s.is_empty()).map(String::from).collect());
                o.all = true;
            }
            "r" => o.responding = true,
            "R" => o.list_reasons = true,
            "s" => o.summarize = true,
            "S" => o.sort = Some(v),
            "t" => {
                o.states_text = Some(v.clone());
                let mut list = Vec::new();
                if !v.eq_ignore_ascii_case("all") {
                    for s in v.split([',', '&']).filter(|s| !s.is_empty()) {
                        let l = s.to_ascii_lowercase();
                        if !STATE_WORDS.iter().any(|w| w.starts_with(&l)) {
                            return Err(Output::err(
                                format!(
                                    "sinfo: error: Bad state string: \"{}\"\nsinfo: error: valid states: {}\n",
                                    s,
                                    if spur_core::compat::profile().node_state_list_22_05 {
                                        NODE_STATE_LIST_22_05
                                    } else {
                                        NODE_STATE_LIST
                                    }
                                ),
                                1,
                            ));
                        }
                        list.push(l);
                    }
                    o.states = Some(list);
                }
            }
            "T" => o.reservation = true,
            "v" => o.verbose += 1,
            "V" => return Err(Output::ok(version_line())),
            "help" => {
                // 22.05's text: recorded/22.05/query_surface (squeue 037, sinfo 107)
                return Err(Output::ok(if spur_core::compat::profile().usage_texts_22_05 {
                    include_str!("text/sinfo_help_22_05.txt")
                } else {
                    include_str!("text/sinfo_help.txt")
                }));
            }
            "usage" => return Err(Output::ok(include_str!("text/sinfo_usage.txt"))),
            "hide" => o.all = false,
            "helpstate" => return Err(Output::ok(format!("{}\n", NODE_STATE_LIST.replace(',', "\n")))),
            "helpformat" => return Err(Output::ok(help_format())),
            "helpFormat" => return Err(Output::ok(help_format2())),
            "autocomplete" => return Err(Output::ok("")),
            _ => {}
        }
    }
    if let Some(e) = p.error {
        return Err(e.into_output("sinfo", 1));
    }
    if o.long && o.format.is_some() {
        return Err(Output::err(
            "sinfo: fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please remove one and retry.\n",
            1,
        ));
    }
    if opt_a && opt_p {
        return Err(Output::err(
            "sinfo: error: Conflicting options, -a and -p, specified. Please choose one or the other.\n",
            1,
        ));
    }
    if o.format.is_none() {
        let f = if o.summarize {
            o.part_field_flag = true;
            "partition:9 ,available:.5 ,time:.10 ,nodeaiot:.16 ,nodelist:0".to_string()
        } else if o.node_flag {
            o.node_field_flag = true;
            o.part_field_flag = true;
            if o.long {
                "nodelist:0 ,nodes:.6 ,partition:.9 ,statelong:.11 ,cpus:4 ,socketcorethread:.8 ,memory:.6 ,disk:.8 ,weight:.6 ,features:.8 ,reason:20".into()
            } else {
                "nodelist:0 ,nodes:.6 ,partition:.9 ,statecompact:6".into()
            }
        } else if o.list_reasons {
            if o.long {
                "reason:20 ,userlong:12 ,timestamp:19 ,statecompact:6 ,nodelist:0".into()
            } else {
                "reason:20 ,user:9 ,timestamp:19 ,nodelist:0".into()
            }
        } else if let Some(f) = env.get("SINFO_FORMAT") {
            o.format = Some(f.clone());
            o.long_form = false;
            String::new()
        } else {
            o.part_field_flag = true;
            if o.long && !spur_core::compat::profile().sinfo_reservation_field {
                // 22.05's long listing has no RESERVATION column
                "partition:9 ,available:.5 ,time:.10 ,size:.10 ,root:.4 ,oversubscribe:.8 ,groups:.10 ,nodes:.6 ,statelong:.11 ,nodelist:0".into()
            } else if o.long {
                "partition:9 ,available:.5 ,time:.10 ,size:.10 ,root:.4 ,oversubscribe:.8 ,groups:.10 ,nodes:.6 ,statelong:.11 ,reservation:.11 ,nodelist:0".into()
            } else {
                "partition:9 ,available:.5 ,time:.10 ,nodes:.6 ,statecompact:.6 ,nodelist:0".into()
            }
        };
        if o.format.is_none() {
            o.format = Some(f);
            o.long_form = true;
        }
    }
    if o.list_reasons && o.states.is_none() {
        o.states = Some(vec!["down".into(), "fail".into(), "drain".into()]);
        o.states_text = Some("down,fail,drain".into());
    }
    Ok(o)
}

/// What `sinfo -v` prints before its report (opts.c `_print_options`:
/// the settings, then which fields the format holds, by the match flag
/// each field sets; recorded/24.11/query_surface/108). `resv_name_flag` is
/// a line of 24.11's only.
pub fn settings_text(o: &SinfoOpts) -> String {
    let b = |x: bool| if x { "true" } else { "false" };
    let n = |x: &Option<String>| x.clone().unwrap_or_else(|| "(null)".into());
    let na = |x: &Option<String>| x.clone().unwrap_or_else(|| "n/a".into());
    let filtering = o.dead || o.nodes.is_some() || o.partitions.is_some() || o.responding || o.states.is_some();
    let mut t = String::from("-----------------------------\n");
    t.push_str(&format!("dead        = {}\n", b(o.dead)));
    t.push_str(&format!("exact       = {}\n", o.exact as u8));
    t.push_str(&format!("filtering   = {}\n", b(filtering)));
    t.push_str(&format!("format      = {}\n", n(&o.format)));
    t.push_str(&format!("iterate     = {}\n", o.iterate));
    t.push_str(&format!("long        = {}\n", b(o.long)));
    t.push_str(&format!("no_header   = {}\n", b(o.no_header)));
    t.push_str(&format!("node_field  = {}\n", b(o.node_field_flag)));
    t.push_str(&format!("node_format = {}\n", b(o.node_flag)));
    t.push_str(&format!("nodes       = {}\n", na(&o.nodes_text)));
    t.push_str(&format!("part_field  = {}\n", b(o.part_field_flag)));
    t.push_str(&format!("partition   = {}\n", na(&o.partition_text)));
    t.push_str(&format!("responding  = {}\n", b(o.responding)));
    t.push_str(&format!("states      = {}\n", n(&o.states_text)));
    t.push_str(&format!("sort        = {}\n", n(&o.sort)));
    t.push_str(&format!("summarize   = {}\n", b(o.summarize)));
    t.push_str(&format!("verbose     = {}\n", o.verbose));
    t.push_str("-----------------------------\n");
    let fmt = o.format.clone().unwrap_or_default();
    let parsed = if o.long_form { format::parse_long(&fmt, FIELDS) } else { format::parse_short(&fmt, FIELDS) };
    let has = |keys: &[SF]| parsed.items.iter().any(|i| matches!(i.kind, ItemKind::Field(k) if keys.contains(&k)));
    use SF::*;
    let flags: Vec<(&str, bool)> = vec![
        ("all_flag        = ", o.all),
        ("alloc_mem_flag  = ", has(&[AllocMem])),
        ("avail_flag      = ", has(&[Available])),
        ("comment_flag    = ", has(&[Comment])),
        ("cpus_flag       = ", has(&[Cpus, CpusState])),
        ("default_time_flag =", has(&[DefaultTime])),
        ("disk_flag       = ", has(&[Disk])),
        ("extra_flag      = ", has(&[Extra])),
        ("features_flag   = ", has(&[Features])),
        ("features_flag_act = ", has(&[FeaturesAct])),
        ("groups_flag     = ", has(&[Groups])),
        ("gres_flag       = ", has(&[Gres])),
        ("gres_used_flag  = ", has(&[GresUsed])),
        ("job_size_flag   = ", has(&[Size])),
        ("max_time_flag   = ", has(&[Time])),
        ("memory_flag     = ", has(&[Memory])),
        ("partition_flag  = ", has(&[Partition, PartitionName])),
        ("port_flag       = ", has(&[Port])),
        ("priority_job_factor_flag   = ", has(&[PriorityJobFactor])),
        ("priority_tier_flag   = ", has(&[PriorityTier])),
        ("reason_flag     = ", has(&[Reason])),
        ("reason_timestamp_flag = ", has(&[TimeStamp])),
        ("reason_user_flag = ", has(&[User, UserLong])),
        ("reservation_flag = ", o.reservation),
        ("resv_name_flag   = ", has(&[Reservation])),
        ("root_flag       = ", has(&[Root])),
        ("oversubscribe_flag      = ", has(&[OverSubscribe])),
        ("state_flag      = ", has(&[StateCompact, StateLong])),
        ("statecomplete_flag = ", has(&[StateComplete])),
        ("weight_flag     = ", has(&[Weight])),
    ];
    for (name, v) in flags {
        if name.starts_with("resv_name_flag") && !spur_core::compat::profile().sinfo_reservation_field {
            continue;
        }
        t.push_str(&format!("{}{}\n", name, b(v)));
    }
    t.push_str("-----------------------------\n\n");
    t
}

/// What sinfo logs at `-v` about the select plugins it loads (24.11: two
/// lines, recorded/24.11/query_surface/108; 22.05: its four).
fn select_plugin_lines() -> String {
    if spur_core::compat::profile().verbose_logs_select_plugins {
        spur_cli_base::version::select_plugin_lines_22_05("sinfo")
    } else {
        "sinfo: select/cons_tres: init: select/cons_tres loaded\nsinfo: select/linear: init: Linear node selection plugin loaded with argument 20\n".into()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SF {
    AllocMem,
    AllocNodes,
    Available,
    Cluster,
    Comment,
    Cores,
    Cpus,
    CpusLoad,
    CpusState,
    DefaultTime,
    Disk,
    Extra,
    Features,
    FeaturesAct,
    FreeMem,
    Gres,
    GresUsed,
    Groups,
    MaxCpusPerNode,
    Memory,
    NodeAddr,
    NodeAi,
    NodeAiot,
    NodeHost,
    NodeList,
    Nodes,
    OverSubscribe,
    Partition,
    PartitionName,
    Port,
    PreemptMode,
    PriorityJobFactor,
    PriorityTier,
    Reason,
    Reservation,
    Root,
    Size,
    Sockets,
    Sct,
    StateCompact,
    StateComplete,
    StateLong,
    Threads,
    Time,
    TimeStamp,
    User,
    UserLong,
    Version,
    Weight,
}

macro_rules! f {
    ($n:expr, $c:expr, $k:ident) => {
        FieldDef { name: Some($n), letter: $c, key: SF::$k }
    };
}

pub static FIELDS: &[FieldDef<SF>] = &[
    f!("AllocMem", None, AllocMem),
    f!("AllocNodes", Some('S'), AllocNodes),
    f!("Available", Some('a'), Available),
    f!("Cluster", Some('V'), Cluster),
    f!("Comment", None, Comment),
    f!("Cores", Some('Y'), Cores),
    f!("CPUs", Some('c'), Cpus),
    f!("CPUsLoad", Some('O'), CpusLoad),
    f!("CPUsState", Some('C'), CpusState),
    f!("DefaultTime", Some('L'), DefaultTime),
    f!("Disk", Some('d'), Disk),
    f!("Extra", None, Extra),
    f!("Features", Some('f'), Features),
    f!("features_act", Some('b'), FeaturesAct),
    f!("FreeMem", Some('e'), FreeMem),
    f!("Gres", Some('G'), Gres),
    f!("GresUsed", Some('G'), GresUsed),
    f!("Groups", Some('g'), Groups),
    f!("MaxCPUsPerNode", Some('B'), MaxCpusPerNode),
    f!("Memory", Some('m'), Memory),
    f!("NodeAddr", Some('o'), NodeAddr),
    f!("NodeAI", Some('A'), NodeAi),
    f!("NodeAIOT", Some('F'), NodeAiot),
    f!("NodeHost", Some('n'), NodeHost),
    f!("NodeList", Some('N'), NodeList),
    f!("Nodes", Some('D'), Nodes),
    f!("OverSubscribe", Some('h'), OverSubscribe),
    f!("Partition", Some('P'), Partition),
    f!("PartitionName", Some('R'), PartitionName),
    f!("Port", None, Port),
    f!("PreemptMode", Some('M'), PreemptMode),
    f!("PriorityJobFactor", Some('I'), PriorityJobFactor),
    f!("PriorityTier", Some('p'), PriorityTier),
    f!("Reason", Some('E'), Reason),
    f!("Reservation", Some('i'), Reservation),
    f!("Root", Some('r'), Root),
    f!("Share", Some('h'), OverSubscribe),
    f!("Size", Some('s'), Size),
    f!("Sockets", Some('X'), Sockets),
    f!("SocketCoreThread", Some('z'), Sct),
    f!("StateCompact", Some('t'), StateCompact),
    f!("StateComplete", None, StateComplete),
    f!("StateLong", Some('T'), StateLong),
    f!("Threads", Some('Z'), Threads),
    f!("Time", Some('l'), Time),
    f!("TimeStamp", Some('H'), TimeStamp),
    f!("User", Some('u'), User),
    f!("UserLong", Some('U'), UserLong),
    f!("Version", Some('v'), Version),
    f!("Weight", Some('w'), Weight),
];

fn help_format() -> String {
    let mut out = String::new();
    let mut cnt = 0;
    for d in FIELDS {
        let Some(c) = d.letter else { continue };
        if d.name == Some("Share") {
            continue;
        }
        if cnt & 8 != 0 {
            cnt = 0;
            out.push('\n');
        }
        cnt += 1;
        out.push_str(&format!("%{:<5}", c));
    }
    out.push('\n');
    out
}

fn help_format2() -> String {
    let mut out = String::new();
    let mut cnt = 0;
    for d in FIELDS {
        let Some(n) = d.name else { continue };
        if n == "Share" {
            continue;
        }
        if cnt & 4 != 0 {
            cnt = 0;
            out.push('\n');
        }
        cnt += 1;
        out.push_str(&format!("{:<20}", n));
    }
    out.push('\n');
    out
}

fn header(f: SF) -> &'static str {
    use SF::*;
    match f {
        AllocMem => "ALLOCMEM",
        AllocNodes => "ALLOCNODES",
        Available => "AVAIL",
        Cluster => "CLUSTER",
        Comment => "COMMENT",
        Cores => "CORES",
        Cpus => "CPUS",
        CpusLoad => "CPU_LOAD",
        CpusState => "CPUS(A/I/O/T)",
        DefaultTime => "DEFAULTTIME",
        Disk => "TMP_DISK",
        Extra => "EXTRA",
        Features => "AVAIL_FEATURES",
        FeaturesAct => "ACTIVE_FEATURES",
        FreeMem => "FREE_MEM",
        Gres => "GRES",
        GresUsed => "GRES_USED",
        Groups => "GROUPS",
        MaxCpusPerNode => "MAX_CPUS_PER_NODE",
        Memory => "MEMORY",
        NodeAddr => "NODE_ADDR",
        NodeAi => "NODES(A/I)",
        NodeAiot => "NODES(A/I/O/T)",
        NodeHost => "HOSTNAMES",
        NodeList => "NODELIST",
        Nodes => "NODES",
        OverSubscribe => "OVERSUBSCRIBE",
        Partition | PartitionName => "PARTITION",
        Port => "PORT",
        PreemptMode => "PREEMPT_MODE",
        PriorityJobFactor => "PRIO_JOB_FACTOR",
        PriorityTier => "PRIO_TIER",
        Reason => "REASON",
        Reservation => "RESERVATION",
        Root => "ROOT",
        Size => "JOB_SIZE",
        Sockets => "SOCKETS",
        Sct => "S:C:T",
        StateCompact | StateLong => "STATE",
        StateComplete => "STATECOMPLETE",
        Threads => "THREADS",
        Time => "TIMELIMIT",
        TimeStamp => "TIMESTAMP",
        User | UserLong => "USER",
        Version => "VERSION",
        Weight => "WEIGHT",
    }
}

/// Fields whose value sums or lists over a line's nodes.
fn aggregate(f: SF) -> bool {
    matches!(f, SF::NodeList | SF::Nodes | SF::NodeAi | SF::NodeAiot | SF::CpusState)
}

fn mins_str(m: Option<u32>) -> String {
    match m {
        None => "infinite".into(),
        Some(m) => spur_grammar::time::fmt_secs_squeue(m as i64 * 60),
    }
}

/// A line of output: a partition (None for `-R`-style lines that span
/// partitions) and its nodes.
struct Line<'a> {
    part: Option<&'a Partition>,
    nodes: Vec<&'a Node>,
    key: Vec<String>,
    /// Set for an empty partition line (`n/a` state).
    empty: bool,
}

fn node_value(f: SF, n: &Node, p: Option<&Partition>) -> String {
    use SF::*;
    match f {
        AllocMem => n.alloc_mem.to_string(),
        AllocNodes => "all".into(),
        Available => match p.map(|p| p.state) {
            Some(PartState::Up) => "up".into(),
            Some(PartState::Down) => "down".into(),
            Some(PartState::Drain) => "drain".into(),
            Some(PartState::Inactive) => "inactive".into(),
            None => "n/a".into(),
        },
        Cluster => "N/A".into(),
        Comment | Extra => "(null)".into(),
        Reservation => String::new(),
        Cores => n.cores_per_socket.to_string(),
        Cpus => n.cpus.to_string(),
        CpusLoad => format!("{:.2}", n.cpu_load as f64 / 100.0),
        DefaultTime => match p {
            Some(p) => match p.default_time {
                None => "n/a".into(),
                Some(m) => spur_grammar::time::fmt_secs_squeue(m as i64 * 60),
            },
            None => "n/a".into(),
        },
        Disk => n.tmp_disk.to_string(),
        Features | FeaturesAct => {
            if n.features.is_empty() {
                "(null)".into()
            } else {
                n.features.join(",")
            }
        }
        FreeMem => n.free_mem.to_string(),
        Gres => {
            if n.gres.is_empty() {
                "(null)".into()
            } else {
                n.gres
                    .iter()
                    .map(|(name, t, c)| match t {
                        Some(t) => format!("{}:{}:{}", name, t, c),
                        None => format!("{}:{}", name, c),
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            }
        }
        GresUsed => "(null)".into(),
        Groups => p.and_then(|p| p.allow_groups.as_ref()).map(|g| g.join(",")).unwrap_or_else(|| "all".into()),
        MaxCpusPerNode => {
            p.and_then(|p| p.more.max_cpus_per_node).map(|m| m.to_string()).unwrap_or_else(|| "UNLIMITED".into())
        }
        Memory => n.real_memory.to_string(),
        NodeAddr => n.addr.clone(),
        NodeHost => n.hostname.clone(),
        OverSubscribe => p.map(|p| p.oversubscribe.to_ascii_uppercase()).unwrap_or_else(|| "NO".into()),
        Partition => match p {
            Some(p) => format!("{}{}", p.name, if p.default { "*" } else { "" }),
            None => "n/a".into(),
        },
        PartitionName => p.map(|p| p.name.clone()).unwrap_or_else(|| "n/a".into()),
        Port => n.port.to_string(),
        // the partition's mode, else the cluster's PreemptMode (OFF)
        PreemptMode => p.and_then(|p| p.more.preempt_mode.clone()).unwrap_or_else(|| "OFF".into()),
        PriorityJobFactor => p.map(|p| p.priority_job_factor.to_string()).unwrap_or_default(),
        PriorityTier => p.map(|p| p.priority_tier.to_string()).unwrap_or_default(),
        Reason => n.reason.clone().unwrap_or_else(|| "none".into()),
        Root => if p.is_some_and(|p| p.more.root_only) { "yes" } else { "no" }.into(),
        Size => match p {
            Some(p) => {
                let max = p.max_nodes;
                let min = if p.min_nodes < 1 && max.map(|m| m > 0).unwrap_or(true) { 1 } else { p.min_nodes };
                match max {
                    Some(m) if m == min => m.to_string(),
                    Some(m) => format!("{}-{}", min, m),
                    None => format!("{}-infinite", min),
                }
            }
            None => "n/a".into(),
        },
        Sockets => n.sockets.to_string(),
        Sct => format!("{}:{}:{}", n.sockets, n.cores_per_socket, n.threads_per_core),
        StateCompact => n.state_short(),
        StateComplete => state_complete(n),
        StateLong => n.state_long(),
        Threads => n.threads_per_core.to_string(),
        Time => p.map(|p| mins_str(p.max_time)).unwrap_or_else(|| "n/a".into()),
        TimeStamp => {
            if n.reason_time != 0 {
                format::time_str(n.reason_time)
            } else {
                "Unknown".into()
            }
        }
        // the uid of the last reason's author; root for a node never
        // allocated nor given a reason (slurmctld's zeroed record), unset
        // (NO_VAL: Unknown) once a job was allocated it
        User | UserLong => {
            if n.reason_uid != NO_VAL {
                let name = nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(n.reason_uid))
                    .ok()
                    .flatten()
                    .map(|u| u.name);
                match (f, name) {
                    (User, Some(u)) => u,
                    (User, None) => format!("Unk({})", n.reason_uid),
                    (_, u) => format!("{}({})", u.unwrap_or_else(|| "Unk".into()), n.reason_uid),
                }
            } else {
                "Unknown".into()
            }
        }
        Version => {
            if n.version.is_empty() {
                "N/A".into()
            } else {
                n.version.clone()
            }
        }
        Weight => n.weight.to_string(),
        NodeList | Nodes | NodeAi | NodeAiot | CpusState => String::new(),
    }
}

/// A node's state as slurmctld packs it for sinfo (which asks for MIXED):
/// the base state number (unknown 0, down 1, idle 2, allocated 3, mixed 5,
/// future 6) ORed with Slurm's flag bits (reserved 0x20, drain 0x200,
/// completing 0x400, not responding 0x800, powered down 0x1000, fail
/// 0x2000, maint 0x8000, reboot requested 0x10000, planned 0x200000).
fn node_state_word(n: &Node) -> u32 {
    let mut w = match n.base {
        NodeBase::Unknown => 0,
        NodeBase::Down => 1,
        NodeBase::Idle => 2,
        NodeBase::Allocated if n.alloc_cpus > 0 && n.is_mixed() => 5,
        NodeBase::Allocated => 3,
        NodeBase::Future => 6,
    };
    let f = &n.flags;
    for (on, bit) in [
        (f.reserved, 0x20),
        (f.drain, 0x200),
        (f.completing, 0x400),
        (f.not_responding, 0x800),
        (f.power_down, 0x1000),
        (f.fail, 0x2000),
        (f.maint, 0x8000),
        (f.reboot_requested, 0x10000),
        (f.planned, 0x200000),
    ] {
        if on {
            w |= bit;
        }
    }
    w
}

const NO_VAL: u32 = 0xfffffffe;

/// `node_state_string_complete`, lower case: the base state's name, then
/// `+FLAG` for each flag in Slurm's table order.
fn state_complete(n: &Node) -> String {
    let w = node_state_word(n);
    let mut s = match w & 0xf {
        0 => "unknown",
        1 => "down",
        2 => "idle",
        3 => "allocated",
        5 => "mixed",
        6 => "future",
        _ => "invalid",
    }
    .to_string();
    for (bit, name) in [
        (0x400, "completing"),
        (0x200, "drain"),
        (0x2000, "fail"),
        (0x8000, "maintenance"),
        (0x1000, "powered_down"),
        (0x10000, "reboot_requested"),
        (0x20, "reserved"),
        (0x800, "not_responding"),
        (0x200000, "planned"),
    ] {
        if w & bit != 0 {
            s.push('+');
            s.push_str(name);
        }
    }
    s
}

fn is_alloc(n: &Node) -> bool {
    n.base == NodeBase::Allocated || n.alloc_cpus > 0
}

fn is_other(n: &Node) -> bool {
    matches!(n.base, NodeBase::Down | NodeBase::Future | NodeBase::Unknown)
        || n.flags.drain
        || n.flags.fail
        || n.flags.not_responding
}

fn line_value(f: SF, l: &Line) -> Cell {
    use SF::*;
    let names: Vec<&str> = l.nodes.iter().map(|n| n.name.as_str()).collect();
    match f {
        NodeList => Cell::s(spur_grammar::hostlist::compress_unique(&names)),
        Nodes => Cell::s(l.nodes.len().to_string()),
        NodeAi | NodeAiot => {
            let (mut a, mut i, mut o) = (0, 0, 0);
            for n in &l.nodes {
                if is_other(n) {
                    o += 1;
                } else if is_alloc(n) {
                    a += 1;
                } else {
                    i += 1;
                }
            }
            if f == NodeAi {
                Cell::s(format!("{}/{}", a, i))
            } else {
                Cell::s(format!("{}/{}/{}/{}", a, i, o, a + i + o))
            }
        }
        CpusState => {
            let (mut a, mut i, mut o, mut t) = (0u64, 0u64, 0u64, 0u64);
            for n in &l.nodes {
                t += n.cpus as u64;
                if is_other(n) {
                    o += n.cpus as u64;
                } else {
                    a += n.alloc_cpus as u64;
                    i += n.cpus.saturating_sub(n.alloc_cpus) as u64;
                }
            }
            Cell::s(format!("{}/{}/{}/{}", a, i, o, t))
        }
        StateCompact | StateLong if l.empty => Cell::s("n/a"),
        _ => match l.nodes.first() {
            Some(n) => Cell::s(node_value(f, n, l.part)),
            None => Cell::s(node_value_empty(f, l.part)),
        },
    }
}

fn node_value_empty(f: SF, p: Option<&Partition>) -> String {
    use SF::*;
    match f {
        Available | DefaultTime | Groups | OverSubscribe | Partition | PartitionName | Size | Time
        | PriorityJobFactor | PriorityTier | AllocNodes | Root | PreemptMode => {
            // partition attributes only
            let dummy = Node::default();
            node_value(f, &dummy, p)
        }
        Reason => "none".into(),
        _ => "0".into(),
    }
}

fn state_matches(n: &Node, states: &[String]) -> bool {
    let short = n.state_short().trim_end_matches('*').to_string();
    let long = n.state_long().trim_end_matches('*').to_string();
    states.iter().any(|s| {
        let s = s.as_str();
        // ALLOC(ATED) selects every node with allocated CPUs, mixed ones too
        if !s.is_empty() && ("alloc".starts_with(s) || "allocated".starts_with(s)) {
            return n.alloc_cpus > 0;
        }
        let base_long = match n.base {
            NodeBase::Unknown => "unknown",
            NodeBase::Idle => "idle",
            NodeBase::Allocated if n.is_mixed() => "mixed",
            NodeBase::Allocated => "allocated",
            NodeBase::Down => "down",
            NodeBase::Future => "future",
        };
        if "drain".starts_with(s) && s.len() >= 3 && n.flags.drain {
            return true;
        }
        if s.starts_with("drained") || s == "drained" {
            return n.flags.drain && !is_alloc(n);
        }
        if s.starts_with("draining") || "drng".starts_with(s) && s.len() == 4 {
            return n.flags.drain && is_alloc(n);
        }
        if "no_respond".starts_with(s) && s.len() > 1 && n.flags.not_responding {
            return true;
        }
        if "completing".starts_with(s) && s.len() > 1 && n.flags.completing {
            return true;
        }
        if n.flags.drain && (s.starts_with("dr")) {
            return false;
        }
        base_long.starts_with(s) || short.starts_with(s) || long.starts_with(s)
    })
}

/// One key of `sinfo --sort`: how two output lines compare.
type LineOrder<'a> = Box<dyn Fn(&Line, &Line) -> std::cmp::Ordering + 'a>;

/// Render sinfo's output for the view.
pub fn render(o: &SinfoOpts, view: &ClusterView) -> Output {
    // 22.05's sinfo shows a node whose only jobs are suspended as idle
    // (24.11: mixed; recorded/22.05/scontrol/122)
    let idle_view;
    let view = if spur_core::compat::profile().suspended_only_node_idle
        && view.nodes.iter().any(|n| n.base == NodeBase::Allocated && n.alloc_cpus == 0)
    {
        let mut v = view.clone();
        for n in v.nodes.iter_mut().filter(|n| n.base == NodeBase::Allocated && n.alloc_cpus == 0) {
            n.base = NodeBase::Idle;
        }
        idle_view = v;
        &idle_view
    } else {
        view
    };
    let mut out = Output::default();
    if o.reservation {
        // -T reports reservations only
        out.stdout.push_str(&reservations(view, o.no_header));
        return out;
    }
    let fmt = o.format.clone().unwrap_or_default();
    let table_22_05: Vec<format::FieldDef<SF>>;
    let table: &[format::FieldDef<SF>] = if !spur_core::compat::profile().sinfo_reservation_field {
        // 22.05's sinfo has no reservation field (`%i`, `-O Reservation`)
        table_22_05 = FIELDS
            .iter()
            .filter(|d| !matches!(d.key, SF::Reservation))
            .map(|d| format::FieldDef { name: d.name, letter: d.letter, key: d.key })
            .collect();
        &table_22_05
    } else {
        FIELDS
    };
    let parsed = if o.long_form { format::parse_long(&fmt, table) } else { format::parse_short(&fmt, table) };
    for bad in &parsed.invalid {
        if o.long_form {
            out.stderr.push_str(&format!("sinfo: error: Invalid job format specification: {}\n", bad));
        } else {
            out.stderr.push_str(&format!("Invalid node format specification: {}\n", bad));
        }
    }
    let mut items: Vec<Item<SF>> = parsed.items;
    let keyed: Vec<SF> = items
        .iter()
        .filter_map(|i| match i.kind {
            ItemKind::Field(k) if !aggregate(k) => Some(k),
            _ => None,
        })
        .collect();
    let has_part = keyed.iter().any(|k| matches!(k, SF::Partition | SF::PartitionName));

    // partitions to show
    let parts: Vec<&Partition> = view
        .partitions
        .iter()
        .filter(|p| match &o.partitions {
            Some(list) => list.iter().any(|x| x == &p.name),
            None => o.all || !p.hidden,
        })
        .collect();
    let filtering = o.dead || o.nodes.is_some() || o.partitions.is_some() || o.responding || o.states.is_some();

    let mut lines: Vec<Line> = Vec::new();
    for p in &parts {
        let mut found = false;
        for name in &p.nodes {
            let Some(n) = view.nodes.iter().find(|n| &n.name == name) else { continue };
            if let Some(ns) = &o.nodes {
                if !ns.contains(&n.name) {
                    continue;
                }
            }
            if o.dead && !n.flags.not_responding {
                continue;
            }
            if o.responding && n.flags.not_responding {
                continue;
            }
            if let Some(st) = &o.states {
                if !state_matches(n, st) {
                    continue;
                }
            }
            if n.base == NodeBase::Future && !o.future && !o.node_flag && o.nodes.is_none() {
                continue;
            }
            found = true;
            let key: Vec<String> = keyed.iter().map(|k| node_value(*k, n, Some(p))).collect();
            let existing = if o.node_flag {
                None
            } else {
                lines.iter_mut().find(|l| l.key == key && (!has_part || l.part.is_some_and(|x| x.name == p.name)))
            };
            match existing {
                Some(l) => {
                    if !l.nodes.iter().any(|x| x.name == n.name) {
                        l.nodes.push(n);
                    }
                }
                None => lines.push(Line { part: Some(p), nodes: vec![n], key, empty: false }),
            }
        }
        if !found && !o.node_flag && !o.list_reasons && (filtering || p.nodes.is_empty()) {
            lines.push(Line { part: Some(p), nodes: vec![], key: vec![], empty: true });
        }
    }

    // sort
    let sort = o.sort.clone().unwrap_or_else(|| if o.node_flag { "N".into() } else { "#P,-t".into() });
    let part_index = |l: &Line| -> usize {
        l.part.and_then(|p| view.partitions.iter().position(|x| x.name == p.name)).unwrap_or(usize::MAX)
    };
    let s: Vec<char> = sort.chars().collect();
    let mut i = s.len() as isize - 1;
    while i >= 0 {
        let c = s[i as usize];
        if c == ',' || c == '+' || c == '-' || c == '#' {
            i -= 1;
            continue;
        }
        let rev = i > 0 && s[(i - 1) as usize] == '-';
        let by_index = i > 0 && s[(i - 1) as usize] == '#';
        let cmpf: Option<LineOrder<'_>> = match c {
            'N' | 'n' => Some(Box::new(|a: &Line, b: &Line| {
                let fa = a.nodes.first().map(|n| n.name.as_str()).unwrap_or("");
                let fb = b.nodes.first().map(|n| n.name.as_str()).unwrap_or("");
                spur_grammar::hostlist::strnatcmp(fa, fb)
            })),
            'P' | 'R' if by_index => Some(Box::new(move |a: &Line, b: &Line| part_index(a).cmp(&part_index(b)))),
            'P' | 'R' => Some(Box::new(|a: &Line, b: &Line| {
                let na = a.part.map(|p| p.name.as_str()).unwrap_or("");
                let nb = b.part.map(|p| p.name.as_str()).unwrap_or("");
                na.cmp(nb)
            })),
            // both compare the line's first node's state word as slurmctld
            // packs it (base state number plus flag bits), not its text
            't' | 'T' => Some(Box::new(|a: &Line, b: &Line| {
                let sa = a.nodes.first().map(|n| node_state_word(n)).unwrap_or(0);
                let sb = b.nodes.first().map(|n| node_state_word(n)).unwrap_or(0);
                sa.cmp(&sb)
            })),
            'c' => Some(Box::new(|a: &Line, b: &Line| {
                a.nodes.first().map(|n| n.cpus).cmp(&b.nodes.first().map(|n| n.cpus))
            })),
            'm' => Some(Box::new(|a: &Line, b: &Line| {
                a.nodes.first().map(|n| n.real_memory).cmp(&b.nodes.first().map(|n| n.real_memory))
            })),
            'D' => Some(Box::new(|a: &Line, b: &Line| a.nodes.len().cmp(&b.nodes.len()))),
            'w' => Some(Box::new(|a: &Line, b: &Line| {
                a.nodes.first().map(|n| n.weight).cmp(&b.nodes.first().map(|n| n.weight))
            })),
            _ => None,
        };
        if let Some(cmpf) = cmpf {
            lines.sort_by(|a, b| if rev { cmpf(b, a) } else { cmpf(a, b) });
        }
        i -= 1;
    }

    // computed column widths of the default layouts
    if o.part_field_flag || o.node_field_flag {
        let pw = lines
            .iter()
            .filter_map(|l| l.part)
            .map(|p| p.name.len() + if p.default { 1 } else { 0 })
            .max()
            .unwrap_or(0)
            .max(9) as i32;
        let nw = lines
            .iter()
            .map(|l| {
                let names: Vec<&str> = l.nodes.iter().map(|n| n.name.as_str()).collect();
                spur_grammar::hostlist::compress_unique(&names).len()
            })
            .max()
            .unwrap_or(0)
            .max(9) as i32;
        for it in items.iter_mut() {
            match it.kind {
                ItemKind::Field(SF::Partition) if o.part_field_flag => it.width = pw,
                ItemKind::Field(SF::NodeList) if o.node_field_flag => it.width = nw,
                _ => {}
            }
        }
    }

    // print_date: sinfo -l, -i and -v reports start with the date
    if !o.no_header && (o.long || o.iterate > 0 || o.verbose > 0) {
        out.stdout.push_str(&crate::squeue::ctime_line(view.now));
        out.stdout.push('\n');
    }
    if !o.no_header {
        out.stdout.push_str(&format::render_line(&items, |k| Cell::s(header(*k))));
    }
    for l in &lines {
        out.stdout.push_str(&format::render_line(&items, |k| {
            let mut c = line_value(*k, l);
            if *k == SF::Partition {
                // a default partition's `*` replaces the last character when cut
                if let (Some(p), Some(t)) = (l.part, c.text.as_mut()) {
                    let w =
                        items.iter().find(|i| i.kind == ItemKind::Field(SF::Partition)).map(|i| i.width).unwrap_or(0);
                    if p.default && w > 0 && p.name.len() >= w as usize {
                        let mut s: String = p.name.chars().take(w as usize - 1).collect();
                        s.push('*');
                        *t = s;
                    }
                }
            }
            c
        }));
    }
    out
}

/// `sinfo -T`: the reservations, one a line.
fn reservations(view: &ClusterView, no_header: bool) -> String {
    if view.reservations.is_empty() {
        return "No reservations in the system\n".into();
    }
    // the name column is as wide as the longest name (at least 9)
    let w = view.reservations.iter().map(|r| r.name.len()).max().unwrap_or(0).max(9);
    let mut s = String::new();
    if !no_header {
        s = format!(
            "{:<w$}  {:>8}  {:>19}  {:>19}  {:>11}  {}\n",
            "RESV_NAME", "STATE", "START_TIME", "END_TIME", "DURATION", "NODELIST"
        );
    }
    for r in &view.reservations {
        s.push_str(&format!(
            "{:<w$}  {:>8}  {:>19}  {:>19}  {:>11}  {}\n",
            r.name,
            resv_state(r, view.now),
            fmt_timestamp(r.start_time),
            fmt_timestamp(r.end_time),
            fmt_secs_scontrol(r.end_time - r.start_time),
            or_null(&resv_nodes(r))
        ));
    }
    s
}

/// sinfo as a process: parse, load partitions and nodes through
/// spur-client, print the table (or the `--json`/`--yaml` document);
/// returns the exit status.
pub fn run(args: &[String], env: &HashMap<String, String>) -> i32 {
    let opts = match parse(args, env) {
        Ok(o) => o,
        Err(o) => return emit(&o),
    };
    let c = match client("sinfo") {
        Ok(c) => c,
        Err(o) => return emit(&o),
    };
    let rt = runtime();
    let mime = data::mime(args);
    if let Some(m) = &mime {
        if let Err(o) = data::check_version("sinfo", m) {
            return emit(&o);
        }
    }
    if opts.verbose > 0 && mime.is_none() {
        emit(&Output { stdout: settings_text(&opts), stderr: select_plugin_lines(), code: 0 });
    }
    let q = QueryRequest { jobs: false, partitions: true, nodes: true, ..Default::default() };
    // -i N: the report, an empty line, N seconds' sleep, until killed
    loop {
        let out = match rt.block_on(c.query(&q)) {
            Ok(view) => match &mime {
                Some(m) => json::sinfo(m, args, &view),
                None => render(&opts, &view),
            },
            Err(e) => load_error("slurm_load_partitions", &e),
        };
        let rc = emit(&out);
        if opts.iterate == 0 {
            return rc;
        }
        emit(&Output::ok("\n"));
        std::thread::sleep(std::time::Duration::from_secs(opts.iterate.into()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_cli_base::fixtures::{debug_part, node};

    fn view() -> ClusterView {
        ClusterView {
            now: 0,
            nodes: vec![node(1, 2), node(2, 2), node(3, 2), node(4, 1)],
            partitions: vec![debug_part()],
            ..Default::default()
        }
    }

    fn run(args: &[&str]) -> Output {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        match parse(&args, &HashMap::new()) {
            Ok(o) => render(&o, &view()),
            Err(e) => e,
        }
    }

    #[test]
    fn default_layout() {
        assert_eq!(
            run(&[]).stdout,
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\ndebug*       up   infinite      1    mix node4\ndebug*       up   infinite      3  alloc node[1-3]\n"
        );
    }

    #[test]
    fn node_layout() {
        assert_eq!(
            run(&["-N"]).stdout,
            "NODELIST   NODES PARTITION STATE \nnode1          1    debug* alloc \nnode2          1    debug* alloc \nnode3          1    debug* alloc \nnode4          1    debug* mix   \n"
        );
        let l = run(&["-N", "-l"]).stdout;
        let mut it = l.lines().skip(1);
        assert_eq!(
            it.next().unwrap(),
            "NODELIST   NODES PARTITION       STATE CPUS    S:C:T MEMORY TMP_DISK WEIGHT AVAIL_FE REASON              "
        );
        assert_eq!(
            it.next().unwrap(),
            "node1          1    debug*   allocated 2       1:2:1   2000        0      1   (null) none                "
        );
    }

    #[test]
    fn long_and_summary() {
        let l = run(&["-l"]).stdout;
        let mut it = l.lines().skip(1);
        assert_eq!(
            it.next().unwrap(),
            "PARTITION AVAIL  TIMELIMIT   JOB_SIZE ROOT OVERSUBS     GROUPS  NODES       STATE RESERVATION NODELIST"
        );
        assert_eq!(
            it.next().unwrap(),
            "debug*       up   infinite 1-infinite   no       NO        all      1       mixed             node4"
        );
        assert_eq!(
            run(&["-s"]).stdout,
            "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST\ndebug*       up   infinite          4/0/0/4 node[1-4]\n"
        );
        assert_eq!(run(&["-R"]).stdout, "REASON               USER      TIMESTAMP           NODELIST\n");
    }

    #[test]
    fn formats_and_filters() {
        assert_eq!(
            run(&["-o", "%P %a %D %t %N"]).stdout,
            "PARTITION AVAIL NODES STATE NODELIST\ndebug* up 1 mix node4\ndebug* up 3 alloc node[1-3]\n"
        );
        assert_eq!(
            run(&["-h", "-o", "%n %c %m %T %C %O"]).stdout,
            "node4 2 2000 mixed 1/1/0/2 0.44\nnode1 2 2000 allocated 2/0/0/2 0.44\nnode2 2 2000 allocated 2/0/0/2 0.44\nnode3 2 2000 allocated 2/0/0/2 0.44\n"
        );
        assert_eq!(
            run(&["-t", "idle"]).stdout,
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\ndebug*       up   infinite      0    n/a \n"
        );
        assert_eq!(
            run(&["-O", "NodeList,CPUsState,Memory,AllocMem,StateLong"]).stdout,
            "NODELIST            CPUS(A/I/O/T)       MEMORY              ALLOCMEM            STATE               \nnode4               1/1/0/2             2000                500                 mixed               \nnode[1-3]           6/0/0/6             2000                1000                allocated           \n"
        );
        let e = run(&["-t", "bogus"]);
        assert_eq!(e.code, 1);
        assert!(e.stderr.starts_with("sinfo: error: Bad state string: \"bogus\"\n"));
    }

    fn five_node_view() -> ClusterView {
        let mut n4 = node(4, 0);
        n4.flags.drain = true;
        n4.reason = Some("maint window".into());
        let mut n5 = node(5, 0);
        n5.base = NodeBase::Down;
        n5.reason = Some("broken disk".into());
        let mut n1 = node(1, 1);
        n1.reason_uid = 0xfffffffe;
        let mut n2 = node(2, 2);
        n2.reason_uid = 0xfffffffe;
        let mut p = debug_part();
        p.nodes = (1..=5).map(|i| format!("node{}", i)).collect();
        ClusterView { now: 0, nodes: vec![n1, n2, node(3, 0), n4, n5], partitions: vec![p], ..Default::default() }
    }

    fn run_view(args: &[&str], view: &ClusterView) -> Output {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        match parse(&args, &HashMap::new()) {
            Ok(o) => render(&o, view),
            Err(e) => e,
        }
    }

    #[test]
    fn state_rows_follow_the_packed_state_word() {
        let v = five_node_view();
        let o = run_view(&["-h", "-o", "%t %N"], &v);
        assert_eq!(o.stdout, "drain node4\nmix node1\nalloc node2\nidle node3\ndown node5\n");
        let o = run_view(&["-N", "-h", "-o", "%N", "-S", "t"], &v);
        assert_eq!(o.stdout, "node5\nnode3\nnode2\nnode1\nnode4\n");
    }

    #[test]
    fn reason_user_state_complete_and_alloc_filter() {
        let v = five_node_view();
        let o = run_view(&["-N", "-h", "-o", "%N %u %U %M"], &v);
        assert!(o.stdout.starts_with("node1 Unknown Unknown OFF\nnode2 Unknown Unknown OFF\nnode3 root root(0) OFF\n"));
        let o = run_view(&["-N", "-h", "-O", "StateComplete"], &v);
        assert_eq!(o.stdout.lines().nth(3).unwrap().trim_end(), "idle+drain");
        let o = run_view(&["-N", "-h", "-t", "alloc", "-o", "%N"], &v);
        assert_eq!(o.stdout, "node1\nnode2\n");
        assert_eq!(run_view(&["-T"], &v).stdout, "No reservations in the system\n");
    }

    #[test]
    fn reservation_list() {
        let r = spur_core::model::Reservation {
            name: "r1".into(),
            start_time: 0,
            end_time: 3600,
            nodes: vec!["node1".into(), "node2".into()],
            ..Default::default()
        };
        let v = ClusterView { now: 10, reservations: vec![r], ..Default::default() };
        let l = run_view(&["-T"], &v).stdout;
        assert!(l.starts_with("RESV_NAME     STATE"), "{}", l);
        assert!(l.contains("\nr1           ACTIVE"), "{}", l);
        assert!(l.ends_with("01:00:00  node[1-2]\n"), "{}", l);
        assert_eq!(run_view(&["-T"], &ClusterView::default()).stdout, "No reservations in the system\n");
    }

    /// `sinfo -v`'s settings block is the recorded one (24.11, no other
    /// option: recorded/24.11/query_surface/108).
    #[test]
    fn verbose_settings_are_the_recorded_ones() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../conformance/recorded/24.11/query_surface/108.out");
        let recorded = std::fs::read_to_string(path).expect("recording of sinfo -v");
        let o = parse(&["-v".to_string()], &HashMap::new()).unwrap();
        let text = settings_text(&o);
        assert!(recorded.starts_with(&text), "{}", text);
        let o = parse(&["-v", "-N", "-o", "%N %c %E", "-p", "debug"].map(String::from), &HashMap::new()).unwrap();
        let text = settings_text(&o);
        assert!(text.contains("format      = %N %c %E\n"));
        assert!(text.contains("partition   = debug\n"));
        assert!(text.contains("filtering   = true\n"));
        assert!(text.contains("cpus_flag       = true\n"));
        assert!(text.contains("reason_flag     = true\n"));
        assert!(text.contains("state_flag      = false\n"));
    }
}
