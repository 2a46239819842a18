//! Bind the system's MUNGE client API (`munge.h` from libmunge-dev) with
//! bindgen and link libmunge.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if !std::path::Path::new("/usr/include/munge.h").exists() {
        panic!("munge.h not found (install libmunge-dev: scripts/setup.sh)");
    }
    println!("cargo:rustc-link-lib=dylib=munge");
    let bindings = bindgen::Builder::default()
        .header_contents("spur_munge.h", "#include <munge.h>\n")
        .allowlist_function("munge_(encode|decode|strerror|ctx_create|ctx_destroy|ctx_set|ctx_strerror)")
        .allowlist_type("munge_(err|opt)")
        // (values from C as plain integers: no enum can hold one it does not know)
        .constified_enum_module("munge_(err|opt)")
        .generate()
        .expect("bindgen could not bind munge.h");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    bindings.write_to_file(out.join("munge.rs")).expect("writing the MUNGE bindings");
}
