//! The flooding user of `bench/flood.sh`: as many submissions and queries
//! as it can make through the client library, from CONCURRENCY tasks at
//! once, for SECS seconds; then one line of counts.
//!
//! ```text
//! flood SLURM_CONF SECS CONCURRENCY     (as the flooding user)
//! flood SLURM_CONF --term               (as root: the leader's id and Raft term)
//! ```

use spur_core::model::JobDesc;
use spur_core::request::{MembershipChange, Query};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 3 {
        eprintln!("usage: flood SLURM_CONF SECS CONCURRENCY | flood SLURM_CONF --term");
        std::process::exit(2);
    }
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let client = match spur_client::Client::from_conf_path(std::path::Path::new(&a[1])) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("flood: {}", e);
            std::process::exit(1);
        }
    };
    if a[2] == "--term" {
        match rt.block_on(client.membership(&MembershipChange::List)) {
            Ok(m) => {
                let leader = m.members.iter().find(|x| x.leader).map(|x| x.id).unwrap_or(0);
                println!("leader={} term={}", leader, m.term);
            }
            Err(e) => {
                eprintln!("flood: {}", e);
                std::process::exit(1);
            }
        }
        return;
    }
    let secs: u64 = a[2].parse().unwrap_or(60);
    let conc: usize = a.get(3).and_then(|x| x.parse().ok()).unwrap_or(32);
    let (submits, queries, errors) =
        (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let end = Instant::now() + Duration::from_secs(secs);
    let work_dir = std::env::temp_dir().to_string_lossy().to_string();
    rt.block_on(async {
        let mut tasks = vec![];
        for i in 0..conc {
            let (c, s, q, e, wd) = (client.clone(), submits.clone(), queries.clone(), errors.clone(), work_dir.clone());
            tasks.push(tokio::spawn(async move {
                let mut n = 0u64;
                while Instant::now() < end {
                    n += 1;
                    if (n + i as u64).is_multiple_of(2) {
                        let d = JobDesc {
                            name: "flood".into(),
                            script: "#!/bin/sh\ntrue\n".into(),
                            work_dir: wd.clone(),
                            hold: true,
                            ..Default::default()
                        };
                        match c.submit(&d, false).await {
                            Ok(_) => s.fetch_add(1, Ordering::Relaxed),
                            Err(_) => e.fetch_add(1, Ordering::Relaxed),
                        };
                    } else {
                        match c.query(&Query { jobs: true, nodes: true, partitions: true, ..Default::default() }).await
                        {
                            Ok(_) => q.fetch_add(1, Ordering::Relaxed),
                            Err(_) => e.fetch_add(1, Ordering::Relaxed),
                        };
                    }
                }
            }));
        }
        for t in tasks {
            let _ = t.await;
        }
    });
    let (s, q, e) = (submits.load(Ordering::Relaxed), queries.load(Ordering::Relaxed), errors.load(Ordering::Relaxed));
    println!(
        "flood_submits={} flood_queries={} flood_errors={} flood_rate_per_s={:.0}",
        s,
        q,
        e,
        (s + q) as f64 / secs.max(1) as f64
    );
}
