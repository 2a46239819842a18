//! Nodes, partitions, reservations and the configuration through the
//! library's C entry points, against a real Spur cluster, compared with
//! what sinfo and scontrol print for the same cluster. Needs root (the
//! harness's agents run jobs as their owners).

use slurm_tests::Cluster;
use spur_compat::sys;
use std::ffi::{c_char, CStr, CString};
use std::time::Duration;

fn text(p: *const c_char) -> String {
    if p.is_null() {
        return "(null)".into();
    }
    // SAFETY: a NUL-terminated string of the library's.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// Every node's (name, state word, cpus, memory, reason) from slurm_load_node.
fn load_nodes() -> Vec<(String, u32, u16, u64, String)> {
    let mut msg: *mut sys::node_info_msg_t = std::ptr::null_mut();
    // SAFETY: msg is written by the call and freed once below.
    unsafe {
        assert_eq!(spur_compat::nodes::slurm_load_node(0, &mut msg, 1 << 3), 0, "errno {}", spur_compat::errno::get());
        let m = &*msg;
        let out = (0..m.record_count as usize)
            .map(|i| {
                let n = &*m.node_array.add(i);
                (text(n.name), n.node_state, n.cpus, n.real_memory, text(n.reason))
            })
            .collect();
        spur_compat::nodes::slurm_free_node_info_msg(msg);
        out
    }
}

fn update_node(node: &str, state: u32, reason: Option<&str>) -> i32 {
    let names = CString::new(node).unwrap();
    let reason = reason.map(|r| CString::new(r).unwrap());
    // SAFETY: zeroed is valid for the message; the strings outlive the call.
    unsafe {
        let mut m: sys::update_node_msg_t = std::mem::zeroed();
        spur_compat::nodes::slurm_init_update_node_msg(&mut m);
        m.node_names = names.as_ptr() as *mut c_char;
        m.node_state = state;
        if let Some(r) = &reason {
            m.reason = r.as_ptr() as *mut c_char;
        }
        spur_compat::nodes::slurm_update_node(&mut m)
    }
}

#[test]
fn nodes_partitions_and_reservations_against_the_commands() {
    let c = Cluster::up("compat-nodes", 2, &[]);
    std::env::set_var("SLURM_CONF", &c.conf);
    slurm_tests::wait_for("the nodes to be idle", Duration::from_secs(60), || {
        let o = c.run("sinfo", &["-h", "-N", "-o", "%T"]);
        o.code == 0 && !o.stdout.is_empty() && o.stdout.lines().all(|l| l.trim() == "idle")
    });

    // slurm_ping and the configuration
    assert_eq!(spur_compat::config::slurm_ping(0), 0);
    let mut conf: *mut sys::slurm_conf_t = std::ptr::null_mut();
    // SAFETY: conf is written by the call and freed once.
    unsafe {
        assert_eq!(spur_compat::config::slurm_load_ctl_conf(0, &mut conf), 0);
        let shown = c.run("scontrol", &["show", "config"]).stdout;
        let value = |k: &str| {
            shown
                .lines()
                .find(|l| l.split(" = ").next().map(str::trim) == Some(k))
                .and_then(|l| l.split_once(" = "))
                .map(|(_, v)| v.trim().to_string())
                .unwrap_or_default()
        };
        assert_eq!(text((*conf).cluster_name), value("ClusterName"));
        assert_eq!(text((*conf).select_type), value("SelectType"));
        assert_eq!(text((*conf).slurmd_spooldir), value("SlurmdSpoolDir"));
        assert_eq!(format!("{} sec", (*conf).msg_timeout), value("MessageTimeout"));
        spur_compat::config::slurm_free_ctl_conf(conf);
    }

    // the nodes, as sinfo lists them
    let nodes = load_nodes();
    let sinfo = c.run("sinfo", &["-h", "-N", "-o", "%N %c %m %T"]).ok().stdout.clone();
    let listed: Vec<String> = sinfo.lines().map(|l| l.trim().to_string()).collect();
    let ours: Vec<String> = nodes
        .iter()
        .map(|(n, s, cpus, mem, _)| {
            assert_eq!(s & 0xf, sys::NODE_STATE_IDLE, "{} {:#x}", n, s);
            format!("{} {} {} idle", n, cpus, mem)
        })
        .collect();
    let mut sorted = listed.clone();
    sorted.sort();
    let mut ours_sorted = ours.clone();
    ours_sorted.sort();
    assert_eq!(ours_sorted, sorted, "sinfo:\n{}", sinfo);

    // the partitions, as scontrol shows them
    let mut parts: *mut sys::partition_info_msg_t = std::ptr::null_mut();
    // SAFETY: parts is written by the call and freed once.
    unsafe {
        assert_eq!(spur_compat::parts::slurm_load_partitions(0, &mut parts, 0), 0);
        let shown = c.run("scontrol", &["-o", "show", "partition"]).ok().stdout.clone();
        assert_eq!((*parts).record_count as usize, shown.lines().count(), "{}", shown);
        for i in 0..(*parts).record_count as usize {
            let p = &*(*parts).partition_array.add(i);
            let line = shown.lines().find(|l| l.starts_with(&format!("PartitionName={} ", text(p.name)))).unwrap();
            assert!(line.contains(&format!(" Nodes={} ", text(p.nodes))), "{}", line);
            assert!(line.contains(&format!(" TotalCPUs={} TotalNodes={} ", p.total_cpus, p.total_nodes)), "{}", line);
            assert!(line.contains(&format!(" TRES={}", text(p.tres_fmt_str))), "{}", line);
            assert_eq!(*p.node_inx, 0);
            assert_eq!(*p.node_inx.add(2), -1);
        }
        spur_compat::parts::slurm_free_partition_info_msg(parts);
    }

    // drain a node with a reason: sinfo -R reports it, and so does the library
    let first = nodes[0].0.clone();
    assert_eq!(update_node(&first, 1 << 9, Some("compat drain test")), 0, "errno {}", spur_compat::errno::get());
    let reasons = c.run("sinfo", &["-R", "-h", "-o", "%E|%N"]).ok().stdout.clone();
    assert_eq!(reasons.trim(), format!("compat drain test|{}", first));
    let again = load_nodes();
    let n = again.iter().find(|n| n.0 == first).unwrap();
    assert_ne!(n.1 & (1 << 9), 0, "DRAIN in {:#x}", n.1);
    assert_eq!(n.4, "compat drain test");
    let shown = c.run("scontrol", &["show", "node", &first]).ok().stdout.clone();
    assert!(shown.contains("State=IDLE+DRAIN "), "{}", shown);
    // an unknown node is refused with Slurm's error
    assert_eq!(update_node("nosuchnode", 1 << 8, None), -1);
    assert_eq!(spur_compat::errno::get(), sys::ESLURM_INVALID_NODE_NAME as i32);
    // resume: no reason left
    assert_eq!(update_node(&first, 1 << 8, None), 0);
    assert_eq!(c.run("sinfo", &["-R", "-h"]).ok().stdout.trim(), "");

    // a reservation made through the library, as scontrol shows it
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    let nodes_c = CString::new(first.clone()).unwrap();
    let users = CString::new("root").unwrap();
    // SAFETY: zeroed is valid; the strings outlive the calls; the name and
    // the message are freed once.
    unsafe {
        let mut d: sys::resv_desc_msg_t = std::mem::zeroed();
        spur_compat::resv::slurm_init_resv_desc_msg(&mut d);
        d.node_list = nodes_c.as_ptr() as *mut c_char;
        d.users = users.as_ptr() as *mut c_char;
        d.start_time = (now + 3600) as _;
        d.duration = 60;
        let name = spur_compat::resv::slurm_create_reservation(&mut d);
        assert!(!name.is_null(), "errno {}", spur_compat::errno::get());
        let rname = text(name);
        let shown = c.run("scontrol", &["-o", "show", "reservation"]).ok().stdout.clone();
        assert!(shown.contains(&format!("ReservationName={} ", rname)), "{}", shown);
        assert!(shown.contains(&format!("Nodes={} ", first)), "{}", shown);
        let mut r: *mut sys::reserve_info_msg_t = std::ptr::null_mut();
        assert_eq!(spur_compat::resv::slurm_load_reservations(0, &mut r), 0);
        assert_eq!((*r).record_count, 1);
        let rec = &*(*r).reservation_array;
        assert_eq!(
            (text(rec.name), text(rec.node_list), text(rec.users)),
            (rname.clone(), first.clone(), "root".into())
        );
        assert_eq!(rec.end_time - rec.start_time, 3600);
        spur_compat::resv::slurm_free_reservation_info_msg(r);
        let mut del: sys::reservation_name_msg_t = std::mem::zeroed();
        del.name = name;
        assert_eq!(spur_compat::resv::slurm_delete_reservation(&mut del), 0);
        libc::free(name.cast());
        assert!(c.run("scontrol", &["show", "reservation"]).stdout.contains("No reservations in the system"));
    }
}
