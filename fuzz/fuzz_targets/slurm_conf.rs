//! slurm.conf (`spur_core::config::parse_str`), then what reads a parsed
//! file: its accessors and `scontrol show config`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

/// A directory with one file to include (`Include nodes.conf`).
fn conf_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("spur-fuzz-conf-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("nodes.conf"), "NodeName=n[1-4] CPUs=2 RealMemory=1000\n").unwrap();
        d
    })
}

fuzz_target!(|data: &[u8]| {
    let text = spur_fuzz::text(data);
    // (Include reads files: none of the machine's but the one above, and
    // never a device or a FIFO that would block)
    let lower = text.to_ascii_lowercase();
    if lower.contains("include") && ["/", "..", "~"].iter().any(|p| lower.contains(p)) {
        return;
    }
    let path = conf_dir().join("slurm.conf");
    match spur_core::config::parse_str(&text, &path) {
        Ok(conf) => {
            let _ = (conf.max_array_size(), conf.max_array_tasks(), conf.max_script_size());
            let _ = conf.default_partition();
            for n in conf.nodes.iter().take(64) {
                assert!(conf.node(&n.name).is_some(), "{:?}", n.name);
                let _ = conf.spool_dir_for(&n.name);
            }
            for p in conf.partitions.iter().take(64) {
                assert!(conf.partition(&p.name).is_some(), "{:?}", p.name);
            }
            let _ = spur_cli_control::scontrol::show_config(&conf, 1_700_000_000);
        }
        Err(e) => {
            let _ = (e.to_string(), e.report("spurctld"));
        }
    }
});
