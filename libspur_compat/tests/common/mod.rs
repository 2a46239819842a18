//! What the consumer tests share: the built library under the release's
//! library names, as a package swap installs it.
#![allow(dead_code)]

use std::path::PathBuf;

/// A directory holding `libslurm.so.NN` (the release's SONAME) and
/// `libslurm.so`, both links to the cdylib cargo built beside the test's
/// executable: `-L` it and link `-lslurm`, and put it on the program's
/// `LD_LIBRARY_PATH` or rpath, as a consumer of Slurm's library does.
pub fn slurm_lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let built = exe.parent().expect("the test's directory").join("libspur_compat.so");
    assert!(built.exists(), "{} is missing (cargo builds it before the tests)", built.display());
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("slurm-lib-{}", spur_compat::sys::RELEASE));
    std::fs::create_dir_all(&dir).unwrap();
    for name in [spur_compat::sys::SONAME, "libslurm.so"] {
        let link = dir.join(name);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&built, &link).unwrap();
    }
    dir
}
