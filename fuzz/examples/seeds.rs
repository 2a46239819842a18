//! Writes the seed corpus of every fuzz target under `fuzz/corpus/<target>/`
//! from the repository's own inputs: the grammar tables recorded from Slurm
//! (`crates/spur-grammar/tests/data/*.txt`), the conformance scenarios'
//! command lines and batch scripts (`conformance/scenarios/*.scn`), the
//! slurm.conf files recorded with them, and for the gRPC targets the
//! messages Spur itself sends for those command lines. Each file is named
//! by a hash of its bytes, so running it again adds nothing new:
//! `cargo run --example seeds` in `fuzz/` (see scripts/fuzz.sh).
use prost::Message;
use spur_core::request as rq;
use spur_proto::{convert, v1 as pb};
use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// Most seeds taken from one source for one target.
const MAX_PER_SOURCE: usize = 60;

struct Corpus {
    root: PathBuf,
    seeds: BTreeMap<&'static str, BTreeSet<Vec<u8>>>,
}

impl Corpus {
    fn add(&mut self, target: &'static str, bytes: impl Into<Vec<u8>>) {
        self.seeds.entry(target).or_default().insert(bytes.into());
    }

    /// `items` thinned to at most [`MAX_PER_SOURCE`], evenly.
    fn add_some(&mut self, target: &'static str, items: Vec<Vec<u8>>) {
        let items: Vec<Vec<u8>> = items.into_iter().collect::<BTreeSet<_>>().into_iter().collect();
        let step = items.len().div_ceil(MAX_PER_SOURCE).max(1);
        for b in items.into_iter().step_by(step) {
            self.add(target, b);
        }
    }

    fn write(&self) {
        for (target, seeds) in &self.seeds {
            let dir = self.root.join(target);
            std::fs::create_dir_all(&dir).unwrap();
            // (the seeds are rewritten; the inputs that once failed, `regress-*`, stay)
            for e in std::fs::read_dir(&dir).unwrap().flatten() {
                if e.file_name().to_string_lossy().starts_with("seed-") {
                    std::fs::remove_file(e.path()).unwrap();
                }
            }
            for s in seeds {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                s.hash(&mut h);
                std::fs::write(dir.join(format!("seed-{:016x}", h.finish())), s).unwrap();
            }
            println!("{target}: {} seeds", seeds.len());
        }
    }
}

/// The inputs of a grammar table (`OP "INPUT" => EXPECTED` lines).
fn table_inputs(path: &Path) -> Vec<Vec<u8>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some(q) = line.find('"') else { continue };
        let Some(end) = line.rfind("\" =>") else { continue };
        if end > q {
            out.push(unescape(&line[q + 1..end]).into_bytes());
        }
    }
    out
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('x') => {
                let h: String = it.by_ref().take(2).collect();
                out.push(u8::from_str_radix(&h, 16).unwrap_or(b'?') as char);
            }
            Some('u') => {
                let h: String = it.by_ref().skip(1).take_while(|c| *c != '}').collect();
                out.push(u32::from_str_radix(&h, 16).ok().and_then(char::from_u32).unwrap_or('?'));
            }
            Some(o) => out.push(o),
            None => {}
        }
    }
    out
}

/// A shell command line split into words (quotes and backslashes; `$VAR`
/// becomes a job id), cut at the first `|`, `>` or `;`.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut has = false;
    let mut it = line.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\'' => {
                has = true;
                for d in it.by_ref() {
                    if d == '\'' {
                        break;
                    }
                    cur.push(d);
                }
            }
            '"' => {
                has = true;
                while let Some(d) = it.next() {
                    match d {
                        '"' => break,
                        '\\' => cur.extend(it.next()),
                        _ => cur.push(d),
                    }
                }
            }
            '\\' => {
                has = true;
                cur.extend(it.next());
            }
            '$' => {
                has = true;
                while it.peek().is_some_and(|d| d.is_ascii_alphanumeric() || "_{}".contains(*d)) {
                    it.next();
                }
                cur.push_str("12");
            }
            '|' | '>' | ';' | '<' if cur.is_empty() => break,
            ' ' | '\t' => {
                if has || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                    has = false;
                }
            }
            _ => cur.push(c),
        }
    }
    if has || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Every `run` line of the scenarios (continuations joined), as words
/// after `capture=...`, and every here-document that is a batch script.
fn scenarios(root: &Path) -> (Vec<Vec<String>>, Vec<String>) {
    let mut lines = Vec::new();
    let mut scripts = Vec::new();
    let mut dir: Vec<PathBuf> =
        std::fs::read_dir(root.join("conformance/scenarios")).unwrap().map(|e| e.unwrap().path()).collect();
    dir.sort();
    for p in dir {
        let text = std::fs::read_to_string(&p).unwrap();
        let mut it = text.lines();
        let mut joined = String::new();
        while let Some(l) = it.next() {
            if let Some(body) = l.strip_suffix('\\') {
                joined.push_str(body);
                continue;
            }
            joined.push_str(l);
            let line = std::mem::take(&mut joined);
            if let Some(i) = line.find("<<'") {
                let tag: String = line[i + 3..].chars().take_while(|c| *c != '\'').collect();
                let body: Vec<&str> = it.by_ref().take_while(|b| *b != tag).collect();
                let script = body.join("\n") + "\n";
                if script.starts_with("#!") {
                    scripts.push(script);
                }
            }
            if let Some(cmd) = line.strip_prefix("run ") {
                let w: Vec<String> = words(cmd).into_iter().skip_while(|w| w.starts_with("capture=")).collect();
                if !w.is_empty() {
                    lines.push(w);
                }
            }
        }
    }
    (lines, scripts)
}

/// A command line as the CLI targets read one: words joined by NUL.
fn command_line(args: &[String]) -> Vec<u8> {
    args.join("\0").into_bytes()
}

fn with_rpc(rpc: u8, m: &impl Message) -> Vec<u8> {
    let mut b = vec![rpc];
    b.extend(m.encode_to_vec());
    b
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut c = Corpus { root: root.join("fuzz/corpus"), seeds: BTreeMap::new() };

    // ---- the grammars: the inputs recorded from Slurm
    let data = root.join("crates/spur-grammar/tests/data");
    for t in ["num", "hostlist", "time", "size", "gres", "array", "jobref", "dependency", "signal"] {
        c.add_some(t, table_inputs(&data.join(format!("{t}.txt"))));
    }

    // ---- slurm.conf: every file recorded with the scenarios
    let mut confs = Vec::new();
    for rel in ["conformance/recorded/24.11", "conformance/recorded/22.05"] {
        for e in walk(&root.join(rel)) {
            if e.extension().is_some_and(|x| x == "conf") {
                confs.push(std::fs::read(&e).unwrap());
            }
        }
    }
    c.add_some("slurm_conf", confs);
    for g in [
        "Name=gpu File=/dev/nvidia[0-3]\n",
        "NodeName=n[1-4] Name=gpu Type=a100 File=/dev/nvidia[0-1] Cores=0-7\nName=mps Count=200\n",
        "AutoDetect=off\nName=gpu Type=mi300x Count=8 Flags=amd_gpu_env\n",
        "# comment\nName=gpu Count=2K Links=-1,0\n",
        "Name=shard Count=16 NodeName=node[1-2]\n",
    ] {
        c.add("gres_conf", g);
    }

    // ---- the commands: the scenarios' command lines and scripts
    let (lines, scripts) = scenarios(&root);
    let mut by_cmd: BTreeMap<&str, Vec<Vec<String>>> = BTreeMap::new();
    for l in &lines {
        let cmd = l[0].as_str();
        for (name, target) in [
            ("sbatch", "sbatch_args"),
            ("squeue", "squeue_args"),
            ("sinfo", "sinfo_args"),
            ("scontrol", "scontrol_args"),
            ("scancel", "scancel_args"),
        ] {
            if cmd == name {
                by_cmd.entry(target).or_default().push(l[1..].to_vec());
            }
        }
    }
    for (target, ls) in &by_cmd {
        let target: &'static str = match *target {
            "sbatch_args" => "sbatch_args",
            "squeue_args" => "squeue_args",
            "sinfo_args" => "sinfo_args",
            "scontrol_args" => "scontrol_args",
            _ => "scancel_args",
        };
        c.add_some(target, ls.iter().map(|l| command_line(l)).collect());
    }
    c.add("sbatch_args", command_line(&["\x01SBATCH_TIMELIMIT=5".into(), "--wrap=true".into()]));
    c.add("squeue_args", command_line(&["\x01SQUEUE_FORMAT=%i %T".into(), "-a".into()]));
    let mut scripts = scripts;
    scripts.push("#!/bin/sh\n#SBATCH --array=1-3%2 -J a\n#SBATCH --gres=gpu:2 --mem=1G\n#SLURM -N1\ntrue\n".into());
    scripts.push("#!/bin/bash\n#SBATCH -t 1-00:00:00 --begin=now+1hour --dependency=afterok:1\necho\n".into());
    c.add_some("sbatch_script", scripts.into_iter().map(String::into_bytes).collect());

    // ---- the gRPC services: what Spur sends for those command lines
    let env = std::collections::HashMap::new();
    let script = "#!/bin/sh\ntrue\n";
    let read = |_: &str| Ok(script.to_string());
    let mut submits = Vec::new();
    for l in by_cmd.get("sbatch_args").into_iter().flatten() {
        if let Ok(mut r) = spur_cli_submit::sbatch::parse_at(l, &env, "/tmp", Some(script.into()), &read, 1_700_000_000)
        {
            // (what comes from this machine and process, made the same everywhere)
            let d = &mut r.desc;
            (d.submit_host, d.alloc_node, d.alloc_sid, d.umask) = ("login".into(), "login".into(), 4057, 0o022);
            d.env = vec![("PATH".into(), "/usr/bin:/bin".into()), ("SLURM_SUBMIT_DIR".into(), "/tmp".into())];
            let job_desc = spur_core::records::encode_job_desc(&r.desc, spur_format::FORMAT_VERSION).unwrap();
            submits.push(with_rpc(0, &pb::SubmitRequest { job_desc, test_only: r.test_only }));
        }
    }
    // (a --begin and a --deadline at the end of time: once an overflow)
    let end = spur_core::model::JobDesc {
        begin_time: i64::MAX - 10,
        deadline: i64::MAX,
        time_min: Some(1),
        script: script.into(),
        ..Default::default()
    };
    let job_desc = spur_core::records::encode_job_desc(&end, spur_format::FORMAT_VERSION).unwrap();
    submits.push(with_rpc(0, &pb::SubmitRequest { job_desc, test_only: false }));
    c.add_some("grpc_controller", submits);
    let queries = [
        rq::Query { jobs: true, partitions: true, ..Default::default() },
        rq::Query {
            jobs: true,
            job_ids: vec!["12_[1-3]".into(), "13".into()],
            all_finished: true,
            ..Default::default()
        },
        rq::Query { nodes: true, partitions: true, with_script: true, job_ids: vec!["5".into()], ..Default::default() },
    ];
    for q in &queries {
        c.add("grpc_controller", with_rpc(1, &pb::QueryRequest::from(q)));
    }
    let mut controls = Vec::new();
    for l in by_cmd.get("scancel_args").into_iter().flatten() {
        if let Ok(o) = spur_cli_control::scancel::parse(l, &env) {
            controls.push(with_rpc(2, &pb::CancelRequest::from(&spur_cli_control::scancel::cancel_request(&o))));
        }
    }
    for l in by_cmd.get("scontrol_args").into_iter().flatten() {
        use spur_cli_control::scontrol::ScontrolCmd as S;
        let Ok(cmd) = spur_cli_control::scontrol::parse(l, &env) else { continue };
        let jc = |ids: &[String], op: rq::JobControl| with_rpc(3, &convert::job_control_request(ids, &op));
        controls.push(match cmd {
            S::Hold { job_ids, user, .. } => jc(&job_ids, rq::JobControl::Hold { user }),
            S::Release { job_ids, .. } => jc(&job_ids, rq::JobControl::Release),
            S::Requeue { job_ids, hold, special_exit, .. } => {
                jc(&job_ids, rq::JobControl::Requeue { hold, special_exit })
            }
            S::Suspend { job_ids, .. } => jc(&job_ids, rq::JobControl::Suspend),
            S::Resume { job_ids, .. } => jc(&job_ids, rq::JobControl::Resume),
            S::Top { job_ids, .. } => jc(&job_ids, rq::JobControl::Top),
            S::UpdateJob { job_ids, update, .. } => jc(&job_ids, rq::JobControl::Update(Box::new(update))),
            S::UpdateNode { update, .. } => with_rpc(4, &pb::NodeControlRequest::from(&update)),
            S::UpdatePartition { update, .. } => with_rpc(4, &pb::NodeControlRequest::from(&update)),
            S::Reservation { req, .. } => with_rpc(5, &pb::ReservationRequest::from(&req)),
            _ => continue,
        });
    }
    c.add_some("grpc_controller", controls);
    let reg = rq::NodeRegistration {
        node: "node1".into(),
        cpus: 2,
        real_memory: 2000,
        boot_time: 1_699_990_000,
        start_time: 1_699_999_000,
        os: "Linux".into(),
        arch: "x86_64".into(),
        version: "24.11.5".into(),
        running_jobs: vec![6],
        cpu_load: 10,
        free_mem: 1500,
        heartbeat: false,
        ..Default::default()
    };
    c.add("grpc_controller", with_rpc(6, &pb::RegisterRequest::from(&reg)));
    c.add("grpc_controller", with_rpc(6, &pb::RegisterRequest::from(&rq::NodeRegistration { heartbeat: true, ..reg })));
    for (job_id, exit_status, launch_failed) in [(6, 0, false), (6, 256, false), (5, 0, true)] {
        let done = rq::JobCompletion { job_id, node: "node1".into(), exit_status, launch_failed, ..Default::default() };
        c.add("grpc_controller", with_rpc(7, &pb::JobCompleteRequest::from(&done)));
    }
    c.add("grpc_controller", with_rpc(8, &pb::PingRequest {}));
    for m in [
        rq::MembershipChange::List,
        rq::MembershipChange::Add { id: 4, addr: "127.0.0.4:6817".into() },
        rq::MembershipChange::Remove { id: 2 },
    ] {
        c.add("grpc_controller", with_rpc(9, &pb::MembershipRequest::from(&m)));
    }

    // the agent: a launch of each of the small cluster's jobs, signals
    let view = spur_fuzz::view();
    for job in view.jobs.iter().take(4) {
        let spec = spur_core::launch::LaunchSpec {
            job: job.clone(),
            node_name: "node1".into(),
            cluster_name: "cluster".into(),
            ctld_host: "ctld".into(),
            ctld_port: 6817,
            kill_wait: 30,
            submit_host: "login".into(),
            working_cluster: String::new(),
            mem_check_secs: 0,
        };
        let spec = spur_core::records::encode_launch(&spec, spur_format::FORMAT_VERSION).unwrap();
        c.add("grpc_agent", with_rpc(0, &pb::LaunchRequest { spec }));
    }
    for (signal, terminate, reason) in [(10, false, 0), (9, true, 1), (15, true, 2)] {
        let s = pb::SignalRequest { job_id: 6, signal, terminate, reason, kill_wait: 30, ..Default::default() };
        c.add("grpc_agent", with_rpc(1, &s));
    }
    c.add("grpc_agent", with_rpc(2, &pb::PingRequest {}));

    // Raft between controllers: a vote, entries of commands, a snapshot
    consensus(&mut c);
    c.write();
}

fn consensus(c: &mut Corpus) {
    use openraft::raft::{AppendEntriesRequest, VoteRequest};
    use openraft::{CommittedLeaderId, Entry, EntryPayload, LogId, SnapshotMeta, StoredMembership, Vote};
    use spur_format::Kind;
    use spur_state::raft::{Batch, TypeConfig};
    use spur_state::Command;
    let v = spur_format::FORMAT_VERSION;
    let msg = |rpc: u8, data: Vec<u8>| with_rpc(rpc, &pb::RaftMessage { data });
    let log_id = |term, index| LogId::new(CommittedLeaderId::new(term, 1), index);
    let vote = VoteRequest::new(Vote::new(3, 2), Some(log_id(2, 9)));
    c.add("grpc_consensus", msg(1, spur_format::encode(Kind::RAFT_MESSAGE, v, &vote).unwrap()));
    let (st, jobs) = spur_fuzz::state_with_jobs();
    let cmds = vec![
        Command::Submit { job: Box::new(jobs[0].clone()) },
        Command::Hold { job_id: 5, reason: spur_core::model::Reason::JobHeldUser },
        Command::Complete { job_id: 6, exit_status: 0, launch_failed: false, now: 1_700_000_000 },
    ];
    let entries: Vec<Entry<TypeConfig>> = vec![
        Entry { log_id: log_id(3, 10), payload: EntryPayload::Blank },
        Entry { log_id: log_id(3, 11), payload: EntryPayload::Normal(Batch { cmds }) },
    ];
    let append = AppendEntriesRequest::<TypeConfig> {
        vote: Vote::new_committed(3, 1),
        prev_log_id: Some(log_id(2, 9)),
        entries,
        leader_commit: Some(log_id(2, 9)),
    };
    c.add("grpc_consensus", msg(0, spur_format::encode(Kind::RAFT_MESSAGE, v, &append).unwrap()));
    let meta = SnapshotMeta::<u64, openraft::BasicNode> {
        last_log_id: Some(log_id(3, 11)),
        last_membership: StoredMembership::default(),
        snapshot_id: "3-11-1".into(),
    };
    let mut chunk =
        spur_format::encode(Kind::RAFT_MESSAGE, v, &(&Vote::new_committed(3, 1), &meta, 0u64, true)).unwrap();
    chunk.extend(st.encode().unwrap());
    c.add("grpc_consensus", msg(2, chunk));
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else { return out };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}
