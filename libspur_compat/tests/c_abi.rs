//! The library as a C program sees it: `c/abi.c` declares the functions as
//! Slurm 24.11's headers do, is compiled with the system's `cc`, linked
//! against the built library under Slurm's name (`-lslurm`) and run; what it prints
//! must be `c/abi.expected`. This reaches the functions through the dynamic
//! symbol table and the C calling convention, as a consumer of libslurm does.

use std::path::Path;
use std::process::Command;

mod common;

#[test]
fn a_c_program_calls_the_library() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("spur_compat_abi");
    let lib = common::slurm_lib_dir();
    let cc = Command::new("cc")
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-o"])
        .arg(&out)
        .arg(src.join("abi.c"))
        .arg(format!("-L{}", lib.display()))
        .arg("-lslurm")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .output()
        .unwrap_or_else(|e| panic!("cannot run cc (install a C compiler: scripts/setup.sh does): {e}"));
    assert!(cc.status.success(), "cc failed:\n{}", String::from_utf8_lossy(&cc.stderr));
    let run = Command::new(&out).output().expect("run the C program");
    assert!(run.status.success(), "the C program failed: {:?}\n{}", run.status, String::from_utf8_lossy(&run.stderr));
    let expected = std::fs::read_to_string(src.join("abi.expected")).expect("c/abi.expected");
    let got = String::from_utf8_lossy(&run.stdout);
    if got != expected {
        let diff: Vec<String> = expected
            .lines()
            .zip(got.lines().chain(std::iter::repeat("<missing>")))
            .filter(|(e, g)| e != g)
            .map(|(e, g)| format!("expected: {e}\n     got: {g}"))
            .collect();
        panic!("the C program's output differs from c/abi.expected:\n{}\n(whole output:\n{got})", diff.join("\n"));
    }
}
