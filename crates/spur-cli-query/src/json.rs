//! `squeue --json/--yaml` and `sinfo --json/--yaml`: the document Slurm 24.11's
//! data_parser/v0.0.42 plugin writes (field names, order and value shapes as
//! the recordings in conformance/recorded/24.11/json show them), and 22.05's
//! openapi/v0.0.38 one, built as a value tree of `data.rs` and printed by its
//! serializers.

use crate::squeue::{self, SqueueOpts};
use spur_cli_base::data::{a, b, emit, emit_styled, f, i, inf, meta, meta22, num, o, s, strs, unset, Mime, V};
use spur_cli_base::records;
use spur_cli_base::Output;
use spur_core::model::{ClusterView, Job, JobState, Node, NodeBase, Partition};
use spur_grammar::signal::sig_num2name;

fn state_name(st: JobState) -> String {
    format!("{:?}", st).to_uppercase()
}

fn exit_code(status: i32) -> V {
    let (rc, sig) = if status & 0x7f != 0 { (0, status & 0x7f) } else { ((status >> 8) & 0xff, 0) };
    let st = if sig != 0 {
        "SIGNALED"
    } else if rc != 0 {
        "ERROR"
    } else {
        "SUCCESS"
    };
    o(vec![
        ("status", strs(&[st])),
        ("return_code", if sig != 0 { unset() } else { num(rc as i64) }),
        (
            "signal",
            o(vec![
                ("id", if sig != 0 { num(sig as i64) } else { unset() }),
                // the data parser's SIGNAL: sig_num2name, "" when unset
                (
                    "name",
                    s(&if sig != 0 {
                        sig_num2name(sig, spur_core::compat::profile().signal_names)
                    } else {
                        String::new()
                    }),
                ),
            ]),
        ),
    ])
}

fn job_resources(j: &Job, view: &ClusterView) -> V {
    if j.allocs.is_empty() {
        return V::Null;
    }
    let mut allocation = Vec::new();
    for (idx, al) in j.allocs.iter().enumerate() {
        let node = view.nodes.iter().find(|x| x.name == al.node);
        let (sockets, cores) =
            node.map(|x| (x.sockets.max(1), x.cores_per_socket.max(1))).unwrap_or((1, al.cpus.max(1)));
        let mut skip = core_offset(view, j, &al.node);
        let mut left = al.cpus;
        let mut sv = Vec::new();
        for si in 0..sockets {
            let mut cv = Vec::new();
            for ci in 0..cores {
                let st = if skip > 0 {
                    skip -= 1;
                    "UNALLOCATED"
                } else if left > 0 {
                    left -= 1;
                    "ALLOCATED"
                } else {
                    "UNALLOCATED"
                };
                cv.push(o(vec![("index", i(ci as i64)), ("status", strs(&[st]))]));
            }
            sv.push(o(vec![("index", i(si as i64)), ("cores", a(cv))]));
        }
        allocation.push(o(vec![
            ("index", i(idx as i64)),
            ("name", s(&al.node)),
            ("cpus", o(vec![("count", i(al.cpus as i64)), ("used", i(0))])),
            ("memory", o(vec![("used", i(0)), ("allocated", i(al.mem_mb as i64))])),
            ("sockets", a(sv)),
        ]));
    }
    o(vec![
        ("select_type", strs(&["CORE"])),
        (
            "nodes",
            o(vec![
                ("count", i(j.allocs.len() as i64)),
                ("select_type", strs(&["ONE_ROW"])),
                ("list", s(&records::job_nodes(j))),
                ("whole", b(false)),
                ("allocation", a(allocation)),
            ]),
        ),
        ("cpus", i(j.num_cpus as i64)),
        ("threads_per_core", unset()),
    ])
}

/// The wait status Slurm keeps for a job: a running job cancelled by
/// scancel ended by SIGTERM.
fn exit_status(j: &Job) -> i32 {
    if j.state == JobState::Cancelled && !j.allocs.is_empty() && j.exit_status == 0 {
        15
    } else {
        j.exit_status
    }
}

/// Slurm's end time: the expected one for a running job, a year after its
/// start when it has no time limit.
fn end_time(j: &Job) -> i64 {
    if j.state == JobState::Pending {
        0
    } else if j.end_time == 0 && j.start_time > 0 && j.state.is_active() {
        j.start_time + 365 * 86400
    } else {
        j.end_time
    }
}

/// The first core a job holds on `node`: cons_tres gives the lowest free
/// cores, so the CPUs of the jobs that started there before it, and still
/// ran when it started, come first.
fn core_offset(view: &ClusterView, j: &Job, node: &str) -> u32 {
    let key =
        |o: &Job| (o.start_time, o.start_pass_ms, o.array.as_ref().and_then(|a| a.task_id).unwrap_or(0), o.job_id);
    view.jobs
        .iter()
        .filter(|o| o.job_id != j.job_id && !o.allocs.is_empty())
        .filter(|o| o.state.is_active() || o.end_time > j.start_time)
        .filter(|o| key(o) < key(j))
        .flat_map(|o| o.allocs.iter().filter(|x| x.node == node).map(|x| x.cpus))
        .sum()
}

fn job(j: &Job, view: &ClusterView) -> V {
    let started = !j.allocs.is_empty();
    let pending = j.state == JobState::Pending;
    let finished = !pending && !j.state.is_active();
    let mut flags: Vec<&str> = Vec::new();
    if started && finished {
        flags.push("SKIP_TRES_STRING_ACCOUNTING");
    } else if started {
        flags.push("JOB_WAS_RUNNING");
    }
    if j.desc.mem_per_node.is_some() {
        flags.push("EXACT_MEMORY_REQUESTED");
    }
    if j.desc.account.is_none() {
        flags.push("USING_DEFAULT_ACCOUNT");
    }
    if j.desc.partition.is_none() {
        flags.push("USING_DEFAULT_PARTITION");
    }
    if j.desc.qos.is_none() {
        flags.push("USING_DEFAULT_QOS");
    }
    flags.push("USING_DEFAULT_WCKEY");
    if !started {
        flags.push("DEPENDENT");
    }
    flags.push("PARTITION_ASSIGNED");
    // slurmctld's BACKFILL_SCHED (started by backfill, or a pending job its
    // last cycle considered) and the library's BACKFILL_LAST
    if let Some(p) = view.plans.get(&j.job_id) {
        let considered = pending && p.considered_at != 0;
        if p.backfill || considered {
            flags.push("BACKFILL_ATTEMPTED");
        }
        if considered {
            flags.push("SCHEDULING_ATTEMPTED");
        }
    }
    let held = j.held.is_some();
    let eligible = if !started && (held || j.desc.dependency.is_some()) { 0 } else { j.eligible_time };
    let tres = records::tres_str(j, &view.partitions);
    let out = |p: &Option<String>| match p {
        Some(x) if x.starts_with('/') => records::fname_format(x, j, None),
        Some(x) => records::fname_format(&format!("{}/{}", j.desc.work_dir, x), j, None),
        None => records::default_out(j, None),
    };
    let stdout = out(&j.desc.std_out);
    let stderr = if j.desc.std_err.is_some() { out(&j.desc.std_err) } else { stdout.clone() };
    let (array_job, array_task) = match &j.array {
        Some(ar) => (ar.array_job_id as i64, ar.task_id.map(|t| num(t as i64)).unwrap_or_else(unset)),
        None => (0, unset()),
    };
    o(vec![
        ("account", s(j.desc.account.as_deref().unwrap_or(""))),
        ("accrue_time", num(eligible)),
        ("admin_comment", s("")),
        ("allocating_node", s(&j.desc.alloc_node)),
        ("array_job_id", num(array_job)),
        ("array_task_id", array_task),
        ("array_max_tasks", num(j.array.as_ref().map(|x| x.max_running as i64).unwrap_or(0))),
        ("array_task_string", s("")),
        ("association_id", i(0)),
        ("batch_features", s("")),
        ("batch_flag", b(j.batch_flag != 0)),
        ("batch_host", s(&j.allocs.first().map(|x| x.node.clone()).unwrap_or_default())),
        ("flags", strs(&flags)),
        ("burst_buffer", s("")),
        ("burst_buffer_state", s("")),
        ("cluster", s(&view.cluster_name)),
        ("cluster_features", s("")),
        ("command", s(if j.desc.wrapped { "" } else { j.desc.command.as_deref().unwrap_or("") })),
        ("comment", s(j.desc.comment.as_deref().unwrap_or(""))),
        ("container", s("")),
        ("container_id", s("")),
        ("contiguous", b(false)),
        ("core_spec", i(0)),
        ("thread_spec", i(32766)),
        ("cores_per_socket", unset()),
        (
            "billable_tres",
            if started {
                o(vec![("set", b(true)), ("infinite", b(false)), ("number", f(j.num_cpus as f64))])
            } else {
                o(vec![("set", b(false)), ("infinite", b(false)), ("number", f(0.0))])
            },
        ),
        ("cpus_per_task", num(j.desc.cpus_per_task.unwrap_or(1) as i64)),
        ("cpu_frequency_minimum", unset()),
        ("cpu_frequency_maximum", unset()),
        ("cpu_frequency_governor", unset()),
        ("cpus_per_tres", s("")),
        ("cron", s("")),
        ("deadline", num(j.desc.deadline)),
        ("delay_boot", num(0)),
        ("dependency", s(&records::dependency_text(j).unwrap_or_default())),
        ("derived_exit_code", exit_code(j.derived_exit_code)),
        ("eligible_time", num(eligible)),
        ("end_time", num(end_time(j))),
        ("excluded_nodes", s(j.desc.exc_nodes.as_deref().unwrap_or(""))),
        ("exit_code", exit_code(exit_status(j))),
        ("extra", s("")),
        ("failed_node", s("")),
        ("features", s(j.desc.constraint.as_deref().unwrap_or(""))),
        ("federation_origin", s("")),
        ("federation_siblings_active", s("")),
        ("federation_siblings_viable", s("")),
        ("gres_detail", a(vec![])),
        ("group_id", i(j.group_id as i64)),
        ("group_name", s(&j.group_name)),
        ("het_job_id", num(0)),
        ("het_job_id_set", s("")),
        ("het_job_offset", num(0)),
        ("job_id", i(j.job_id as i64)),
        ("job_resources", job_resources(j, view)),
        ("job_size_str", a(vec![])),
        ("job_state", a(vec![s(&state_name(j.state))])),
        ("last_sched_evaluation", num(if j.last_sched_eval > 0 { j.last_sched_eval } else { j.submit_time })),
        ("licenses", s("")),
        ("mail_type", a(vec![])),
        ("mail_user", s(j.desc.mail_user.as_deref().unwrap_or(&j.user_name))),
        ("max_cpus", num(0)),
        ("max_nodes", num(if !started { j.desc.max_nodes.unwrap_or(j.num_nodes) as i64 } else { 0 })),
        ("mcs_label", s("")),
        ("memory_per_tres", s("")),
        ("name", s(&j.desc.name)),
        ("network", s("")),
        ("nodes", s(&records::job_nodes(j))),
        ("nice", i(j.desc.nice.unwrap_or(0) as i64)),
        ("tasks_per_core", inf()),
        ("tasks_per_tres", num(0)),
        ("tasks_per_node", num(j.desc.ntasks_per_node.unwrap_or(0) as i64)),
        ("tasks_per_socket", inf()),
        ("tasks_per_board", num(0)),
        ("cpus", num(j.num_cpus as i64)),
        ("node_count", num(j.num_nodes as i64)),
        ("tasks", if finished && !started { unset() } else { num(j.num_tasks as i64) }),
        ("partition", s(&j.partition)),
        ("prefer", s("")),
        ("memory_per_cpu", if j.mem_per_cpu > 0 { num(j.mem_per_cpu as i64) } else { unset() }),
        (
            "memory_per_node",
            if j.mem_per_cpu == 0 && j.mem_per_node > 0 { num(j.mem_per_node as i64) } else { unset() },
        ),
        ("minimum_cpus_per_node", num(j.desc.cpus_per_task.unwrap_or(1) as i64)),
        ("minimum_tmp_disk_per_node", num(0)),
        ("power", o(vec![("flags", a(vec![]))])),
        ("preempt_time", num(0)),
        ("preemptable_time", num(0)),
        ("pre_sus_time", num(j.pre_sus_time)),
        ("hold", b(held)),
        ("priority", num(j.priority as i64)),
        ("priority_by_partition", a(vec![])),
        ("profile", strs(&["NOT_SET"])),
        ("qos", s(j.desc.qos.as_deref().unwrap_or(""))),
        ("reboot", b(false)),
        ("required_nodes", s(j.desc.req_nodes.as_deref().unwrap_or(""))),
        ("required_switches", i(0)),
        ("requeue", b(j.desc.requeue.unwrap_or(true))),
        ("resize_time", num(0)),
        ("restart_cnt", i(j.restart_count as i64)),
        ("resv_name", s("")),
        ("scheduled_nodes", s("")),
        ("selinux_context", s("")),
        ("shared", a(vec![])),
        ("sockets_per_board", i(0)),
        ("sockets_per_node", unset()),
        (
            "start_time",
            num(if pending {
                0
            } else if j.start_time > 0 {
                j.start_time
            } else {
                j.end_time
            }),
        ),
        ("state_description", s("")),
        ("state_reason", s(&records::reason_text(j))),
        ("standard_error", s(&stderr)),
        ("standard_input", s(j.desc.std_in.as_deref().unwrap_or("/dev/null"))),
        ("standard_output", s(&stdout)),
        ("submit_time", num(j.submit_time)),
        ("suspend_time", num(j.suspend_time)),
        ("system_comment", s("")),
        (
            "time_limit",
            match j.time_limit {
                Some(m) if m != u32::MAX => num(m as i64),
                _ => inf(),
            },
        ),
        ("time_minimum", num(j.desc.time_min.unwrap_or(0) as i64)),
        ("threads_per_core", unset()),
        ("tres_bind", s("")),
        ("tres_freq", s("")),
        ("tres_per_job", s("")),
        ("tres_per_node", s("")),
        ("tres_per_socket", s("")),
        ("tres_per_task", s("")),
        ("tres_req_str", s(&tres)),
        ("tres_alloc_str", s(if started { &tres } else { "" })),
        ("user_id", i(j.user_id as i64)),
        ("user_name", s(&j.user_name)),
        ("maximum_switch_wait_time", i(0)),
        ("wckey", s("")),
        ("current_working_directory", s(&j.desc.work_dir)),
    ])
}

/// `squeue --json/--yaml`: the jobs squeue would list, as one document.
pub fn squeue(o_: &SqueueOpts, m: &Mime, args: &[String], view: &ClusterView, caller_uid: u32) -> Output {
    // 22.05 dumps every job it loaded, without squeue's filters
    let jobs: Vec<&Job> = if old() { view.jobs.iter().collect() } else { squeue::selected_jobs(o_, view, caller_uid) };
    let mut warnings = Vec::new();
    if jobs.is_empty() {
        warnings.push(o(vec![("description", s("Zero jobs to dump")), ("source", s(""))]));
    }
    if old() {
        let doc = o(vec![
            ("meta", meta22()),
            ("errors", a(vec![])),
            ("jobs", a(jobs.iter().map(|j| job22(j, view)).collect())),
        ]);
        return Output { stdout: emit_styled(&doc, m.yaml, true), stderr: o_.warnings.clone(), code: 0 };
    }
    let doc = o(vec![
        ("jobs", a(jobs.iter().map(|j| job(j, view)).collect())),
        ("last_backfill", num(view.plans.values().map(|p| p.considered_at).max().unwrap_or(0))),
        ("last_update", num(view.now)),
        ("meta", meta("squeue", args, view)),
        ("errors", a(vec![])),
        ("warnings", a(warnings)),
    ]);
    Output { stdout: emit(&doc, m.yaml), stderr: o_.warnings.clone(), code: 0 }
}

fn node_state(nd: &Node) -> V {
    let base = match nd.base {
        NodeBase::Allocated if nd.is_mixed() => "MIXED".to_string(),
        _ => format!("{:?}", nd.base).to_uppercase(),
    };
    let mut v = vec![base];
    if nd.flags.drain {
        v.push("DRAIN".into());
    }
    if nd.flags.fail {
        v.push("FAIL".into());
    }
    if nd.flags.completing {
        v.push("COMPLETING".into());
    }
    if nd.flags.not_responding {
        v.push("NOT_RESPONDING".into());
    }
    a(v.iter().map(|x| s(x)).collect())
}

fn minmax(v: &[i64]) -> (i64, i64) {
    (v.iter().copied().min().unwrap_or(0), v.iter().copied().max().unwrap_or(0))
}

fn mm(v: &[i64]) -> V {
    let (lo, hi) = minmax(v);
    o(vec![("minimum", i(lo)), ("maximum", i(hi))])
}

fn partition_obj(p: &Partition, view: &ClusterView) -> V {
    let nodes: Vec<&Node> = view.nodes.iter().filter(|x| p.nodes.contains(&x.name)).collect();
    let cpus: i64 = nodes.iter().map(|x| x.cpus as i64).sum();
    let mem: u64 = nodes.iter().map(|x| x.real_memory).sum();
    let tres = format!(
        "cpu={},mem={},node={},billing={}",
        cpus,
        spur_cli_base::format::convert_num_unit(mem as f64, 2),
        nodes.len(),
        cpus
    );
    let mins = |m: Option<u32>| match m {
        Some(x) if x != u32::MAX => num(x as i64),
        _ => inf(),
    };
    o(vec![
        (
            "nodes",
            o(vec![
                ("allowed_allocation", s("")),
                ("configured", s(&p.nodes_expr)),
                ("total", i(p.nodes.len() as i64)),
            ]),
        ),
        ("accounts", o(vec![("allowed", s("")), ("deny", s(""))])),
        ("groups", o(vec![("allowed", s(""))])),
        ("qos", o(vec![("allowed", s("")), ("deny", s("")), ("assigned", s(""))])),
        ("alternate", s("")),
        ("tres", o(vec![("billing_weights", s("")), ("configured", s(&tres))])),
        ("cluster", s("")),
        ("select_type", a(vec![])),
        ("cpus", o(vec![("task_binding", i(0)), ("total", i(cpus))])),
        (
            "defaults",
            o(vec![
                ("memory_per_cpu", i(0)),
                ("partition_memory_per_cpu", unset()),
                ("partition_memory_per_node", num(0)),
                (
                    "time",
                    match p.default_time {
                        Some(x) if x != u32::MAX => num(x as i64),
                        Some(_) => inf(),
                        None => unset(),
                    },
                ),
                ("job", s("")),
            ]),
        ),
        ("grace_time", i(0)),
        (
            "maximums",
            o(vec![
                ("cpus_per_node", inf()),
                ("cpus_per_socket", inf()),
                ("memory_per_cpu", i(0)),
                ("partition_memory_per_cpu", unset()),
                ("partition_memory_per_node", num(0)),
                ("nodes", mins(p.max_nodes)),
                ("shares", i(1)),
                ("oversubscribe", o(vec![("jobs", i(1)), ("flags", a(vec![]))])),
                ("time", mins(p.max_time)),
                ("over_time_limit", unset()),
            ]),
        ),
        ("minimums", o(vec![("nodes", i(p.min_nodes as i64))])),
        ("name", s(&p.name)),
        ("node_sets", s("")),
        ("priority", o(vec![("job_factor", i(p.priority_job_factor as i64)), ("tier", i(p.priority_tier as i64))])),
        ("timeouts", o(vec![("resume", unset()), ("suspend", unset())])),
        ("partition", o(vec![("state", a(vec![s(p.state.name())]))])),
        ("suspend_time", unset()),
    ])
}

fn sinfo_entry(p: &Partition, group: &[&Node], view: &ClusterView) -> V {
    let first = group[0];
    let alloc_nodes = group.iter().filter(|x| x.base == NodeBase::Allocated).count() as i64;
    let idle_nodes = group.iter().filter(|x| x.base == NodeBase::Idle && x.is_usable()).count() as i64;
    let total = group.len() as i64;
    let cpus: i64 = group.iter().map(|x| x.cpus as i64).sum();
    let acpus: i64 = group.iter().map(|x| x.alloc_cpus as i64).sum();
    let other_cpus: i64 =
        group.iter().filter(|x| !x.is_usable()).map(|x| (x.cpus - x.alloc_cpus.min(x.cpus)) as i64).sum();
    let col = |fnc: &dyn Fn(&Node) -> i64| group.iter().map(|x| fnc(x)).collect::<Vec<i64>>();
    let (fmin, fmax) = minmax(&col(&|x| x.free_mem as i64));
    o(vec![
        ("port", i(first.port as i64)),
        ("node", o(vec![("state", node_state(first))])),
        (
            "nodes",
            o(vec![
                ("allocated", i(alloc_nodes)),
                ("idle", i(idle_nodes)),
                ("other", i(total - alloc_nodes - idle_nodes)),
                ("total", i(total)),
                ("hostnames", a(vec![])),
                ("addresses", a(vec![])),
                ("nodes", a(group.iter().map(|x| s(&x.name)).collect())),
            ]),
        ),
        (
            "cpus",
            o(vec![
                ("allocated", i(acpus)),
                ("idle", i(cpus - acpus - other_cpus)),
                ("other", i(other_cpus)),
                ("total", i(cpus)),
                ("minimum", i(minmax(&col(&|x| x.cpus as i64)).0)),
                ("maximum", i(minmax(&col(&|x| x.cpus as i64)).1)),
                ("load", mm(&col(&|x| x.cpu_load as i64))),
                ("per_node", o(vec![("max", inf())])),
            ]),
        ),
        ("sockets", mm(&col(&|x| x.sockets as i64))),
        ("cores", mm(&col(&|x| x.cores_per_socket as i64))),
        ("threads", mm(&col(&|x| x.threads_per_core as i64))),
        ("disk", mm(&col(&|x| x.tmp_disk as i64))),
        (
            "memory",
            o(vec![
                ("minimum", i(minmax(&col(&|x| x.real_memory as i64)).0)),
                ("maximum", i(minmax(&col(&|x| x.real_memory as i64)).1)),
                ("free", o(vec![("minimum", num(fmin)), ("maximum", num(fmax))])),
                ("allocated", i(group.last().map(|x| x.alloc_mem as i64).unwrap_or(0))),
            ]),
        ),
        ("weight", mm(&col(&|x| x.weight as i64))),
        ("features", o(vec![("total", s(&first.features.join(","))), ("active", s(&first.features.join(",")))])),
        ("gres", o(vec![("total", s("")), ("used", s(""))])),
        ("cluster", s("")),
        ("comment", s("")),
        ("extra", s("")),
        (
            "reason",
            o(vec![
                ("description", s(first.reason.as_deref().unwrap_or(""))),
                ("time", i(if first.reason.is_some() { first.reason_time } else { 0 })),
                ("user", s(&spur_client::users::user_name(first.reason_uid).unwrap_or_default())),
            ]),
        ),
        ("reservation", s("")),
        ("resource_spec", o(vec![("cpus", s("")), ("memory", i(0))])),
        ("partition", partition_obj(p, view)),
    ])
}

/// `sinfo --json/--yaml`: one entry per partition and group of alike nodes.
pub fn sinfo(m: &Mime, args: &[String], view: &ClusterView) -> Output {
    if old() {
        let doc = o(vec![
            ("meta", meta22()),
            ("errors", a(vec![])),
            ("nodes", a(view.nodes.iter().map(|x| node22(x, view)).collect())),
        ]);
        return Output { stdout: emit_styled(&doc, m.yaml, true), stderr: String::new(), code: 0 };
    }
    let mut entries = Vec::new();
    for p in &view.partitions {
        let nodes: Vec<&Node> = view.nodes.iter().filter(|x| p.nodes.contains(&x.name)).collect();
        let key = |x: &Node| {
            (
                node_state(x),
                x.cpus,
                x.sockets,
                x.cores_per_socket,
                x.threads_per_core,
                x.real_memory,
                x.tmp_disk,
                x.weight,
                x.features.clone(),
                x.reason.clone(),
            )
        };
        let mut groups: Vec<Vec<&Node>> = Vec::new();
        for nd in nodes {
            match groups.iter_mut().find(|g| key(g[0]) == key(nd)) {
                Some(g) => g.push(nd),
                None => groups.push(vec![nd]),
            }
        }
        // sinfo's default order within a partition: by node state, descending
        let rank = |x: &Node| match x.base {
            NodeBase::Allocated if x.is_mixed() => 5,
            NodeBase::Allocated => 3,
            NodeBase::Idle => 2,
            NodeBase::Down => 1,
            _ => 0,
        };
        groups.sort_by_key(|g| std::cmp::Reverse(rank(g[0])));
        for g in groups {
            entries.push(sinfo_entry(p, &g, view));
        }
    }
    let doc = o(vec![
        ("sinfo", a(entries)),
        ("meta", meta("sinfo", args, view)),
        ("errors", a(vec![])),
        ("warnings", a(vec![])),
    ]);
    Output { stdout: emit(&doc, m.yaml), stderr: String::new(), code: 0 }
}

// ---- Slurm 22.05 (openapi/v0.0.38 through its own serializer) -------------------

fn old() -> bool {
    spur_core::compat::profile().json_v0_0_38
}

fn opt_i(x: Option<i64>) -> V {
    x.map(i).unwrap_or(V::Null)
}

fn job22(j: &Job, view: &ClusterView) -> V {
    let started = !j.allocs.is_empty();
    let pending = j.state == JobState::Pending;
    let finished = !pending && !j.state.is_active();
    let mut flags: Vec<&str> = Vec::new();
    if started && finished {
        flags.push("TRES_STR_CALC");
    } else if started {
        flags.push("JOB_WAS_RUNNING");
        if j.desc.mem_per_node.is_some() {
            flags.push("JOB_MEM_SET");
        }
    }
    let held = j.held.is_some();
    let eligible = if !started && (held || j.desc.dependency.is_some()) { 0 } else { j.eligible_time };
    let tres = records::tres_str(j, &view.partitions);
    let path = |p: &Option<String>| match p {
        Some(x) if x.starts_with('/') => x.clone(),
        Some(x) => format!("{}/{}", j.desc.work_dir, x),
        None => String::new(),
    };
    let mut v: Vec<(&str, V)> = vec![
        ("account", s(j.desc.account.as_deref().unwrap_or(""))),
        ("accrue_time", i(eligible)),
        ("admin_comment", s("")),
        ("array_job_id", i(j.array.as_ref().map(|x| x.array_job_id as i64).unwrap_or(0))),
        ("array_task_id", opt_i(j.array.as_ref().and_then(|x| x.task_id).map(|t| t as i64))),
        ("array_max_tasks", i(j.array.as_ref().map(|x| x.max_running as i64).unwrap_or(0))),
        ("array_task_string", s("")),
        ("association_id", i(0)),
        ("batch_features", s("")),
        ("batch_flag", b(j.batch_flag != 0)),
        ("batch_host", s(&j.allocs.first().map(|x| x.node.clone()).unwrap_or_default())),
        ("flags", strs(&flags)),
        ("burst_buffer", s("")),
        ("burst_buffer_state", s("")),
        ("cluster", s("spur")),
        ("cluster_features", s("")),
        ("command", s(if j.desc.wrapped { "" } else { j.desc.command.as_deref().unwrap_or("") })),
        ("comment", s(j.desc.comment.as_deref().unwrap_or(""))),
        ("container", s("")),
        ("contiguous", b(false)),
        ("core_spec", V::Null),
        ("thread_spec", V::Null),
        ("cores_per_socket", V::Null),
        ("billable_tres", if started { f(j.num_cpus as f64) } else { V::Null }),
        ("cpus_per_task", opt_i(j.desc.cpus_per_task.map(|x| x as i64))),
        ("cpu_frequency_minimum", V::Null),
        ("cpu_frequency_maximum", V::Null),
        ("cpu_frequency_governor", V::Null),
        ("cpus_per_tres", s("")),
        ("deadline", i(j.desc.deadline)),
        ("delay_boot", i(0)),
        ("dependency", s(&records::dependency_text(j).unwrap_or_default())),
        ("derived_exit_code", i(j.derived_exit_code as i64)),
        ("eligible_time", i(eligible)),
        ("end_time", i(end_time(j))),
        ("excluded_nodes", s(j.desc.exc_nodes.as_deref().unwrap_or(""))),
        ("exit_code", i(exit_status(j) as i64)),
        ("features", s(j.desc.constraint.as_deref().unwrap_or(""))),
        ("federation_origin", s("")),
        ("federation_siblings_active", s("")),
        ("federation_siblings_viable", s("")),
        ("gres_detail", a(vec![])),
        ("group_id", i(j.group_id as i64)),
        ("group_name", s(&j.group_name)),
        ("job_id", i(j.job_id as i64)),
    ];
    if !j.allocs.is_empty() {
        let nodes: Vec<V> = j
            .allocs
            .iter()
            .map(|al| {
                let first = core_offset(view, j, &al.node);
                let cores: Vec<(String, V)> =
                    (first..first + al.cpus).map(|c| (c.to_string(), s("allocated"))).collect();
                o(vec![
                    ("sockets", o(vec![("0", o(vec![("cores", V::Obj(cores))]))])),
                    ("nodename", s(&al.node)),
                    ("cpus_used", i(0)),
                    ("memory_used", i(0)),
                    ("memory_allocated", i(al.mem_mb as i64)),
                ])
            })
            .collect();
        v.push((
            "job_resources",
            o(vec![
                ("nodes", s(&records::job_nodes(j))),
                ("allocated_cores", i(j.num_cpus as i64)),
                ("allocated_hosts", i(j.allocs.len() as i64)),
                ("allocated_nodes", a(nodes)),
            ]),
        ));
    }
    v.extend(vec![
        ("job_state", s(&state_name(j.state))),
        ("last_sched_evaluation", i(if j.last_sched_eval > 0 { j.last_sched_eval } else { j.submit_time })),
        ("licenses", s("")),
        ("max_cpus", i(0)),
        ("max_nodes", i(0)),
        ("mcs_label", s("")),
        ("memory_per_tres", s("")),
        ("name", s(&j.desc.name)),
        ("nodes", s(&records::job_nodes(j))),
        ("nice", opt_i(j.desc.nice.filter(|x| *x != 0).map(|x| x as i64))),
        ("tasks_per_core", V::Null),
        ("tasks_per_node", i(j.desc.ntasks_per_node.unwrap_or(0) as i64)),
        ("tasks_per_socket", V::Null),
        ("tasks_per_board", i(0)),
        ("cpus", if finished && !started { V::Null } else { i(j.num_cpus as i64) }),
        ("node_count", i(j.num_nodes as i64)),
        ("tasks", if finished && !started { V::Null } else { i(j.num_tasks as i64) }),
        ("het_job_id", i(0)),
        ("het_job_id_set", s("")),
        ("het_job_offset", i(0)),
        ("partition", s(&j.partition)),
        ("prefer", s("")),
        ("memory_per_node", if j.mem_per_cpu == 0 && j.mem_per_node > 0 { i(j.mem_per_node as i64) } else { V::Null }),
        ("memory_per_cpu", if j.mem_per_cpu > 0 { i(j.mem_per_cpu as i64) } else { V::Null }),
        ("minimum_cpus_per_node", i(j.desc.cpus_per_task.unwrap_or(1) as i64)),
        ("minimum_tmp_disk_per_node", i(0)),
        ("preempt_time", i(0)),
        ("pre_sus_time", i(j.pre_sus_time)),
        ("priority", i(j.priority as i64)),
        ("profile", V::Null),
        ("qos", s(j.desc.qos.as_deref().unwrap_or(""))),
        ("reboot", b(false)),
        ("required_nodes", s(j.desc.req_nodes.as_deref().unwrap_or(""))),
        ("requeue", b(j.desc.requeue.unwrap_or(true))),
        ("resize_time", i(0)),
        ("restart_cnt", i(j.restart_count as i64)),
        ("resv_name", s("")),
        ("shared", V::Null),
        ("show_flags", strs(&["SHOW_ALL", "SHOW_DETAIL", "SHOW_LOCAL"])),
        ("sockets_per_board", i(0)),
        ("sockets_per_node", V::Null),
        ("start_time", i(if pending { 0 } else { j.start_time })),
        ("state_description", s("")),
        ("state_reason", s(&records::reason_text(j))),
        ("standard_error", s(&path(&j.desc.std_err))),
        ("standard_input", s(j.desc.std_in.as_deref().unwrap_or("/dev/null"))),
        ("standard_output", s(&path(&j.desc.std_out))),
        ("submit_time", i(j.submit_time)),
        ("suspend_time", i(j.suspend_time)),
        ("system_comment", s("")),
        (
            "time_limit",
            match j.time_limit {
                Some(m) if m != u32::MAX => i(m as i64),
                _ => V::Null,
            },
        ),
        ("time_minimum", i(j.desc.time_min.unwrap_or(0) as i64)),
        ("threads_per_core", V::Null),
        ("tres_bind", s("")),
        ("tres_freq", s("")),
        ("tres_per_job", s("")),
        ("tres_per_node", s("")),
        ("tres_per_socket", s("")),
        ("tres_per_task", s("")),
        ("tres_req_str", s(&tres)),
        ("tres_alloc_str", s(if started { &tres } else { "" })),
        ("user_id", i(j.user_id as i64)),
        ("user_name", s(&j.user_name)),
        ("wckey", s("")),
        ("current_working_directory", s(&j.desc.work_dir)),
    ]);
    o(v)
}

fn node22(nd: &Node, view: &ClusterView) -> V {
    let mut flags: Vec<&str> = Vec::new();
    if nd.flags.drain {
        flags.push("DRAIN");
    }
    if nd.flags.fail {
        flags.push("FAIL");
    }
    if nd.flags.not_responding {
        flags.push("NOT_RESPONDING");
    }
    if nd.flags.completing {
        flags.push("COMPLETING");
    }
    let parts: Vec<V> = view.partitions.iter().filter(|p| p.nodes.contains(&nd.name)).map(|p| s(&p.name)).collect();
    let conv = |m: u64| spur_cli_base::format::convert_num_unit(m as f64, 2);
    o(vec![
        ("architecture", s(&nd.arch)),
        ("burstbuffer_network_address", s("")),
        ("boards", i(nd.boards.max(1) as i64)),
        ("boot_time", i(nd.boot_time)),
        ("comment", s("")),
        ("cores", i(nd.cores_per_socket as i64)),
        ("cpu_binding", i(0)),
        ("cpu_load", i(nd.cpu_load as i64)),
        ("extra", s("")),
        ("free_memory", i(nd.free_mem as i64)),
        ("cpus", i(nd.cpus as i64)),
        ("last_busy", i(nd.last_busy)),
        ("features", s(&nd.features.join(","))),
        ("active_features", s(&nd.features.join(","))),
        ("gres", s("")),
        ("gres_drained", s("N/A")),
        ("gres_used", s("")),
        ("mcs_label", s("")),
        ("name", s(&nd.name)),
        ("next_state_after_reboot", s("invalid")),
        ("address", s(&nd.addr)),
        ("hostname", s(&nd.hostname)),
        ("state", s(node_base22(nd))),
        ("state_flags", strs(&flags)),
        ("next_state_after_reboot_flags", a(vec![])),
        ("operating_system", s(&nd.os)),
        ("owner", V::Null),
        ("partitions", a(parts)),
        ("port", i(nd.port as i64)),
        ("real_memory", i(nd.real_memory as i64)),
        ("reason", s(nd.reason.as_deref().unwrap_or(""))),
        ("reason_changed_at", i(if nd.reason.is_some() { nd.reason_time } else { 0 })),
        (
            "reason_set_by_user",
            if nd.reason.is_some() {
                spur_client::users::user_name(nd.reason_uid).map(|x| s(&x)).unwrap_or(V::Null)
            } else {
                V::Null
            },
        ),
        ("slurmd_start_time", i(nd.slurmd_start_time)),
        ("sockets", i(nd.sockets as i64)),
        ("threads", i(nd.threads_per_core as i64)),
        ("temporary_disk", i(nd.tmp_disk as i64)),
        ("weight", i(nd.weight as i64)),
        ("tres", s(&format!("cpu={},mem={},billing={}", nd.cpus, conv(nd.real_memory), nd.cpus))),
        ("slurmd_version", s("22.05.8")),
        ("alloc_memory", i(nd.alloc_mem as i64)),
        ("alloc_cpus", i(nd.alloc_cpus as i64)),
        ("idle_cpus", i(nd.cpus.saturating_sub(nd.alloc_cpus) as i64)),
        (
            "tres_used",
            if nd.alloc_cpus > 0 { s(&format!("cpu={},mem={}", nd.alloc_cpus, conv(nd.alloc_mem))) } else { V::Null },
        ),
        ("tres_weighted", f(nd.alloc_cpus as f64)),
    ])
}

fn node_base22(nd: &Node) -> &'static str {
    match nd.base {
        NodeBase::Allocated if nd.is_mixed() => "mixed",
        NodeBase::Allocated => "allocated",
        NodeBase::Idle => "idle",
        NodeBase::Down => "down",
        _ => "unknown",
    }
}

// ---------------------------------------------------------------- sacct

/// A TRES list of data_parser v0.0.42 (`[{type, name, id, count}]`).
fn tres_v(items: &[(&str, i64, i64)]) -> V {
    a(items
        .iter()
        .map(|(t, id, c)| {
            let (ty, name) = t.split_once('/').unwrap_or((t, ""));
            o(vec![("type", s(ty)), ("name", s(name)), ("id", i(*id)), ("count", i(*c))])
        })
        .collect())
}

/// A job's TRES as slurmdbd keeps them (ids: cpu 1, mem 2, node 4,
/// billing 5), in id order.
fn acct_tres(j: &spur_core::acct::AcctJob, alloc: bool) -> V {
    if alloc && (j.start == 0 || j.nodes.is_empty()) {
        return a(vec![]);
    }
    let (cpus, mem, nodes) = if alloc {
        (j.alloc_cpus as i64, j.alloc_mem_mb as i64, j.nodes.len() as i64)
    } else {
        (j.req_cpus as i64, j.req_mem_mb as i64, j.req_nodes.max(1) as i64)
    };
    tres_v(&[("cpu", 1, cpus), ("mem", 2, mem), ("node", 4, nodes), ("billing", 5, cpus)])
}

fn cpu_times(user_us: u64, sys_us: u64) -> Vec<(&'static str, V)> {
    let tot = user_us.saturating_add(sys_us);
    let split =
        |us: u64| o(vec![("seconds", i((us / 1_000_000) as i64)), ("microseconds", i((us % 1_000_000) as i64))]);
    vec![("system", split(sys_us)), ("total", split(tot)), ("user", split(user_us))]
}

fn acct_step(j: &spur_core::acct::AcctJob, st: &spur_core::acct::AcctStep, now: i64) -> V {
    let end = if st.end != 0 { st.end } else { j.end };
    let elapsed = if st.start == 0 { 0 } else { ((if end != 0 { end } else { now }) - st.start).max(0) };
    let (user, sys) =
        st.usage.iter().fold((0u64, 0u64), |(u, y), x| (u.saturating_add(x.user_us), y.saturating_add(x.sys_us)));
    let special = st.step_id > 0xFFFF_FFF0;
    let freq = if special { num(0) } else { unset() };
    let mut time = vec![
        ("elapsed", i(elapsed)),
        ("end", if end != 0 { num(end) } else { unset() }),
        ("start", num(st.start)),
        ("suspended", i(0)),
    ];
    time.extend(cpu_times(user, sys));
    let mut tres_alloc = vec![("cpu", 1, st.cpus as i64)];
    if st.mem_mb > 0 {
        tres_alloc.push(("mem", 2, st.mem_mb as i64));
    }
    tres_alloc.push(("node", 4, st.nodes.len() as i64));
    o(vec![
        ("time", o(time)),
        ("exit_code", exit_code(st.exit_status.unwrap_or(0))),
        (
            "nodes",
            o(vec![
                ("count", i(st.nodes.len() as i64)),
                ("range", s(&spur_grammar::hostlist::compress_unique(&st.nodes))),
                ("list", a(st.nodes.iter().map(|x| s(x)).collect())),
            ]),
        ),
        ("tasks", o(vec![("count", i(st.ntasks as i64))])),
        ("pid", s("")),
        (
            "CPU",
            o(vec![("requested_frequency", o(vec![("min", freq.clone()), ("max", freq)])), ("governor", a(vec![]))]),
        ),
        (
            "kill_request_user",
            s(&st
                .cancelled_by
                .map(|u| spur_client::users::user_name(u).unwrap_or_else(|| u.to_string()))
                .unwrap_or_default()),
        ),
        ("state", strs(&[st.state.name()])),
        (
            "statistics",
            o(vec![("CPU", o(vec![("actual_frequency", i(0))])), ("energy", o(vec![("consumed", num(0))]))]),
        ),
        (
            "step",
            o(vec![
                ("id", s(&format!("{}.{}", j.job_id, crate::acctprint::step_name(st.step_id)))),
                ("name", s(&st.name)),
            ]),
        ),
        ("task", o(vec![("distribution", s(&crate::acctprint::layout_name(&st.distribution)))])),
        (
            "tres",
            o(vec![
                (
                    "requested",
                    o(vec![("max", a(vec![])), ("min", a(vec![])), ("average", a(vec![])), ("total", a(vec![]))]),
                ),
                (
                    "consumed",
                    o(vec![("max", a(vec![])), ("min", a(vec![])), ("average", a(vec![])), ("total", a(vec![]))]),
                ),
                ("allocated", tres_v(&tres_alloc)),
            ]),
        ),
    ])
}

/// One job of `sacct --json`, its keys in data_parser v0.0.42's order.
fn acct_job(j: &spur_core::acct::AcctJob, now: i64) -> V {
    let started = j.start != 0;
    let mut flags: Vec<&str> = Vec::new();
    if !started {
        flags.push("NOT_SET");
    } else if j.sched_backfill {
        flags.push("STARTED_ON_BACKFILL");
    } else {
        flags.push("STARTED_ON_SCHEDULE");
    }
    if started || j.end != 0 {
        flags.push("START_RECEIVED");
    }
    let user = if j.user_name.is_empty() { j.user_id.to_string() } else { j.user_name.clone() };
    let group = if j.group_name.is_empty() { j.group_id.to_string() } else { j.group_name.clone() };
    let planned = if j.eligible == 0 {
        0
    } else if started {
        j.start - j.eligible
    } else if j.end != 0 {
        j.end - j.eligible
    } else {
        now - j.eligible
    };
    let (user_us, sys_us) = j
        .steps
        .iter()
        .filter(|st| !st.state.is_live())
        .flat_map(|st| st.usage.iter())
        .fold((0u64, 0u64), |(u, y), x| (u.saturating_add(x.user_us), y.saturating_add(x.sys_us)));
    let mut time = vec![
        ("elapsed", i(j.elapsed(now))),
        ("eligible", i(j.eligible)),
        ("end", i(j.end)),
        ("planned", num(planned.max(0))),
        ("start", i(j.start)),
        ("submission", i(j.submit)),
        ("suspended", i(j.suspended)),
    ];
    let mut cpu = cpu_times(user_us, sys_us);
    time.push(cpu.remove(0));
    time.push((
        "limit",
        match j.time_limit {
            Some(l) if l != u32::MAX => num(l as i64),
            _ if started => inf(),
            _ => unset(),
        },
    ));
    time.extend(cpu);
    let (mem_cpu, mem_node) = if j.mem_per_cpu > 0 {
        (num(j.mem_per_cpu as i64), unset())
    } else {
        (unset(), num(j.req_mem_mb as i64 / j.req_nodes.max(1) as i64))
    };
    let qos = if j.qos.is_empty() { "normal" } else { &j.qos };
    o(vec![
        ("account", s(&j.account)),
        ("comment", o(vec![("administrator", s(&j.admin_comment)), ("job", s(&j.comment)), ("system", s(""))])),
        ("allocation_nodes", i(if started { j.nodes.len() as i64 } else { 0 })),
        (
            "array",
            o(vec![
                ("job_id", i(j.array_job_id as i64)),
                ("limits", o(vec![("max", o(vec![("running", o(vec![("tasks", i(j.array_max_running as i64))]))]))])),
                (
                    "task_id",
                    match j.array_task_id {
                        Some(t) if j.array_job_id != 0 => num(t as i64),
                        _ => unset(),
                    },
                ),
                ("task", s(&j.array_tasks)),
            ]),
        ),
        (
            "association",
            o(vec![
                ("account", s(&j.account)),
                ("cluster", s(&j.cluster)),
                ("partition", s("")),
                ("user", s(&user)),
                ("id", i(0)),
            ]),
        ),
        ("block", s("")),
        ("cluster", s(&j.cluster)),
        ("constraints", s(&j.constraints)),
        ("container", s("")),
        ("derived_exit_code", exit_code(j.derived_exit_code)),
        ("time", o(time)),
        ("exit_code", exit_code(j.exit_status)),
        ("extra", s("")),
        ("failed_node", s("")),
        ("flags", strs(&flags)),
        ("group", s(&group)),
        ("het", o(vec![("job_id", i(0)), ("job_offset", unset())])),
        ("job_id", i(j.job_id as i64)),
        ("name", s(&j.name)),
        ("licenses", s("")),
        ("mcs", o(vec![("label", s(""))])),
        (
            "nodes",
            s(&if j.nodes.is_empty() {
                "None assigned".to_string()
            } else {
                spur_grammar::hostlist::compress_unique(&j.nodes)
            }),
        ),
        ("partition", s(&j.partition)),
        ("hold", b(j.priority == 0)),
        ("priority", num(j.priority as i64)),
        ("qos", s(qos)),
        ("qosreq", s(qos)),
        (
            "required",
            o(vec![("CPUs", i(j.req_cpus as i64)), ("memory_per_cpu", mem_cpu), ("memory_per_node", mem_node)]),
        ),
        (
            "kill_request_user",
            s(&j.cancelled_by
                .map(|u| spur_client::users::user_name(u).unwrap_or_else(|| u.to_string()))
                .unwrap_or_default()),
        ),
        ("restart_cnt", i(j.restarts as i64)),
        ("reservation", o(vec![("id", i(0)), ("name", s(&j.reservation))])),
        ("script", s("")),
        ("stdin_expanded", s(&j.std_in)),
        ("stdout_expanded", s(&j.std_out)),
        ("stderr_expanded", s(&j.std_err)),
        ("stdout", s(&j.std_out)),
        ("stderr", s(&j.std_err)),
        ("stdin", s(&j.std_in)),
        (
            "state",
            o(vec![
                ("current", strs(&[j.state.name()])),
                ("reason", s(if j.reason.is_empty() { "None" } else { &j.reason })),
            ]),
        ),
        ("steps", a(j.steps.iter().map(|st| acct_step(j, st, now)).collect())),
        ("submit_line", s(&j.submit_line)),
        ("tres", o(vec![("allocated", acct_tres(j, true)), ("requested", acct_tres(j, false))])),
        ("used_gres", s("")),
        ("user", s(&user)),
        ("wckey", o(vec![("wckey", s("")), ("flags", a(vec![]))])),
        ("working_directory", s(&j.work_dir)),
    ])
}

/// openapi/v0.0.38's job (22.05): the keys it has of v0.0.42's, a state
/// and an exit status as plain strings (recorded/22.05/sacct/162-163).
fn job38(j: V) -> V {
    const KEYS: [&str; 30] = [
        "account",
        "allocation_nodes",
        "array",
        "association",
        "cluster",
        "comment",
        "constraints",
        "container",
        "derived_exit_code",
        "exit_code",
        "flags",
        "group",
        "het",
        "job_id",
        "kill_request_user",
        "mcs",
        "name",
        "nodes",
        "partition",
        "priority",
        "qos",
        "required",
        "reservation",
        "state",
        "steps",
        "time",
        "tres",
        "user",
        "wckey",
        "working_directory",
    ];
    fn first(v: &V) -> V {
        match v {
            V::Arr(x) => x.first().cloned().unwrap_or(V::Null),
            o => o.clone(),
        }
    }
    fn exit38(v: &V) -> V {
        let V::Obj(kv) = v else { return v.clone() };
        let get = |k: &str| kv.iter().find(|(n, _)| n == k).map(|(_, x)| x.clone()).unwrap_or(V::Null);
        let rc = match get("return_code") {
            V::Obj(n) => n.iter().find(|(k, _)| k == "number").map(|(_, x)| x.clone()).unwrap_or(V::Null),
            x => x,
        };
        o(vec![("status", first(&get("status"))), ("return_code", rc)])
    }
    let V::Obj(kv) = j else { return j };
    V::Obj(
        kv.into_iter()
            .filter(|(k, _)| KEYS.contains(&k.as_str()))
            .map(|(k, v)| {
                let v = match (k.as_str(), v) {
                    ("state", V::Obj(st)) => V::Obj(
                        st.into_iter().map(|(n, x)| if n == "current" { (n, first(&x)) } else { (n, x) }).collect(),
                    ),
                    // 22.05's parser reads every exit status as a success
                    // (recorded/22.05/sacct/163: fail_job `SUCCESS`, 0)
                    ("exit_code", _) => o(vec![("status", s("SUCCESS")), ("return_code", i(0))]),
                    ("derived_exit_code", x) => exit38(&x),
                    (_, x) => x,
                };
                (k, v)
            })
            .collect(),
    )
}

/// `sacct --json/--yaml`: data_parser/v0.0.42's `jobs` document of the
/// records as sacct selected them (22.05: openapi/v0.0.38's outline, the
/// same jobs).
pub fn sacct(m: &Mime, args: &[String], jobs: &[&spur_core::acct::AcctJob], cluster: &str, now: i64) -> Output {
    if old() {
        // 22.05 dumps every run, the requeued ones first, then by job id
        // (recorded/22.05/sacct/163)
        let mut all: Vec<&&spur_core::acct::AcctJob> = jobs.iter().collect();
        all.sort_by_key(|j| (j.state != spur_core::acct::AcctState::Requeued, j.job_id));
        let list = all.into_iter().map(|j| job38(acct_job(j, now))).collect();
        let doc = o(vec![("meta", meta22()), ("errors", a(vec![])), ("jobs", a(list))]);
        return Output { stdout: emit_styled(&doc, m.yaml, true), stderr: String::new(), code: 0 };
    }
    let list: Vec<V> = jobs.iter().map(|j| acct_job(j, now)).collect();
    let view = ClusterView { cluster_name: cluster.to_string(), ..Default::default() };
    let doc = o(vec![
        ("jobs", a(list)),
        ("meta", meta("sacct", args, &view)),
        ("errors", a(vec![])),
        ("warnings", a(vec![])),
    ]);
    Output { stdout: emit(&doc, m.yaml), stderr: String::new(), code: 0 }
}
