//! The dependency rules of ARCHITECTURE.md's Layout section, checked on the
//! workspace's Cargo.toml files: the command families are independent of
//! each other and only the `spur` binary assembles them; nothing below the
//! CLI, and not the C ABI library, depends on a CLI crate; the CLI crates
//! and the C ABI library reach the controller only through spur-client
//! (no spur-proto, tonic or prost).

use std::collections::BTreeMap;
use std::path::Path;

/// Each workspace member's name and the packages of its `[dependencies]`
/// (normal dependencies; dev-dependencies and build-dependencies are not
/// part of the layout).
fn members() -> BTreeMap<String, Vec<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let workspace = read(&root.join("Cargo.toml"));
    let list =
        workspace.split("members = [").nth(1).and_then(|s| s.split(']').next()).expect("the workspace's members");
    let mut out = BTreeMap::new();
    for dir in list.split(',').map(|s| s.trim().trim_matches('"')).filter(|s| !s.is_empty()) {
        let manifest = read(&root.join(dir).join("Cargo.toml"));
        let mut name = None;
        let mut deps = Vec::new();
        let mut section = String::new();
        for line in manifest.lines().map(str::trim) {
            if line.starts_with('[') {
                section = line.to_string();
                continue;
            }
            let key = line.split(['=', '.', ' ']).next().unwrap_or("");
            if key.is_empty() || key.starts_with('#') {
                continue;
            }
            match section.as_str() {
                "[package]" if key == "name" => {
                    name = line.split('"').nth(1).map(String::from);
                }
                "[dependencies]" => deps.push(key.to_string()),
                _ => {}
            }
        }
        out.insert(name.unwrap_or_else(|| panic!("{dir}: no package name")), deps);
    }
    out
}

fn is_family(name: &str) -> bool {
    name.starts_with("spur-cli-") && name != "spur-cli-base"
}

fn is_cli(name: &str) -> bool {
    name == "spur-cli" || name.starts_with("spur-cli-")
}

#[test]
fn the_layout_rules_hold() {
    let m = members();
    for must in ["spur-cli", "spur-cli-base", "spur-cli-submit", "spur-cli-query", "spur-cli-control", "spur-compat"] {
        assert!(m.contains_key(must), "{must} is not a workspace member");
    }
    let mut broken = Vec::new();
    for (name, deps) in &m {
        for d in deps {
            let why = if is_family(d) && name != "spur-cli" {
                Some("a command family is used only by the spur binary (spur-cli)")
            } else if d == "spur-cli-base" && !is_cli(name) && name != "slurm-tests" && name != "spur-compat" {
                // (libslurm carries the same texts as the commands: its
                // slurm_make_time_str is squeue's time, its records scontrol's)
                Some("spur-cli-base is the foundation of the CLI crates and of the C ABI library, nothing else's")
            } else if (is_cli(name) || name == "spur-compat")
                && ["spur-proto", "tonic", "prost", "tonic-prost"].contains(&d.as_str())
            {
                Some("the CLI crates and the C ABI library reach the controller only through spur-client")
            } else if !is_cli(name) && name != "slurm-tests" && d == "spur-cli" {
                Some("nothing depends on the spur binary's crate")
            } else {
                None
            };
            if let Some(why) = why {
                broken.push(format!("{name} depends on {d}: {why}"));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}
