//! `include/spur_compat.h` is what cbindgen writes from src/ext.rs (the
//! build regenerates it; a changed extension must be committed with its
//! header), and a C program including it beside Slurm's own header, linked
//! with `-lslurm` against the library, calls the extensions.

mod common;

use std::path::Path;
use std::process::Command;

#[test]
fn the_committed_header_is_cbindgens() {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../include/spur_compat.h");
    let committed = std::fs::read_to_string(&committed).expect("include/spur_compat.h");
    assert_eq!(
        committed,
        spur_compat::ext::HEADER,
        "include/spur_compat.h differs from what cbindgen writes from src/ext.rs: copy the generated one"
    );
}

#[test]
fn a_c_program_uses_the_extensions_beside_slurm_h() {
    let lib = common::slurm_lib_dir();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let src = dir.join("spur_ext.c");
    std::fs::write(
        &src,
        r#"#include <stdio.h>
#include <slurm/slurm.h>
#include <spur_compat.h>
int main(void) {
    printf("%s\n", spur_compat_version());
    printf("%d %d %d\n", spur_compat_served("slurm_hostlist_create"), spur_compat_served("nope"),
           slurm_api_version() > 0);
    return 0;
}
"#,
    )
    .unwrap();
    let exe = dir.join("spur_ext");
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../include");
    let cc = Command::new("cc")
        .arg(format!("-I{}", spur_compat::sys::INCLUDE))
        .arg(format!("-I{}", include.display()))
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .arg(format!("-L{}", lib.display()))
        .arg("-lslurm")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .output()
        .expect("cc runs");
    assert!(cc.status.success(), "cc: {}", String::from_utf8_lossy(&cc.stderr));
    let out = Command::new(&exe).output().expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    assert!(lines.next().unwrap().contains(spur_compat::sys::SONAME), "{}", text);
    assert_eq!(lines.next(), Some("1 -1 1"));
}
