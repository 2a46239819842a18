//! Every struct of the release's slurm.h and slurmdb.h has, in the library,
//! the size and field offsets that gcc gives it for the real headers: a C
//! program (written by build.rs from the same bindings) is compiled with the
//! system's `cc` against the release's headers and run, and each line it
//! prints is compared with Rust's `size_of`/`offset_of` of `spur_compat::sys`.

use std::collections::BTreeMap;
use std::process::Command;

#[test]
fn every_struct_has_the_headers_layout() {
    let dir = std::env::temp_dir().join(format!("spur-compat-layout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("layout.c");
    let exe = dir.join("layout");
    std::fs::write(&src, spur_compat::sys::LAYOUT_C).unwrap();
    let cc = Command::new("cc")
        .arg(format!("-I{}", spur_compat::sys::INCLUDE))
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .output()
        .expect("cc runs");
    assert!(cc.status.success(), "cc: {}", String::from_utf8_lossy(&cc.stderr));
    let out = Command::new(&exe).output().expect("the layout program runs");
    assert!(out.status.success());
    let gcc: BTreeMap<String, usize> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (k, v) = l.rsplit_once(' ').unwrap();
            (k.to_string(), v.parse().unwrap())
        })
        .collect();
    let rust: BTreeMap<String, usize> =
        spur_compat::sys::layout::LAYOUT.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    assert_eq!(gcc.len(), rust.len());
    let differ: Vec<String> = rust
        .iter()
        .filter(|(k, v)| gcc.get(*k) != Some(v))
        .map(|(k, v)| format!("{}: rust {} gcc {:?}", k, v, gcc.get(k)))
        .collect();
    assert!(differ.is_empty(), "layouts differ from gcc's:\n{}", differ.join("\n"));
    // the structs the ABI study names as layout-critical are among them, at
    // the sizes measured on real Slurm
    let (job, desc, node) = if spur_compat::sys::RELEASE == "22.05" { (904, 880, 336) } else { (960, 912, 368) };
    assert_eq!(gcc["job_info"], job);
    assert_eq!(gcc["job_descriptor"], desc);
    assert_eq!(gcc["node_info"], node);
    assert_eq!(gcc["slurm_conf_t"], 1544);
    let structs = gcc.keys().filter(|k| !k.contains('.')).count();
    let fields = gcc.len() - structs;
    eprintln!("{} structs, {} fields: the same layout in Rust and gcc", structs, fields);
    let _ = std::fs::remove_dir_all(&dir);
}
