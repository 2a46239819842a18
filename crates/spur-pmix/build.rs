//! Bind the system's PMIx server API (`pmix_server.h` from libpmix-dev) with
//! bindgen, finding it through pkg-config's `pmix.pc` as Debian installs it.

use std::path::PathBuf;
use std::process::Command;

fn pkg_config(arg: &str) -> Vec<String> {
    let out = Command::new("pkg-config")
        .args([arg, "pmix"])
        .output()
        .unwrap_or_else(|e| panic!("pkg-config: {} (install pkg-config and libpmix-dev: scripts/setup.sh)", e));
    if !out.status.success() {
        panic!(
            "pkg-config {} pmix: {} (install libpmix-dev: scripts/setup.sh)",
            arg,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    String::from_utf8_lossy(&out.stdout).split_whitespace().map(str::to_string).collect()
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let cflags = pkg_config("--cflags");
    for f in pkg_config("--libs") {
        if let Some(dir) = f.strip_prefix("-L") {
            // (libpmix.so.2 is also on the loader's default path)
            println!("cargo:rustc-link-search=native={}", dir);
        } else if let Some(lib) = f.strip_prefix("-l") {
            println!("cargo:rustc-link-lib=dylib={}", lib);
        }
    }
    let bindings = bindgen::Builder::default()
        .header_contents("spur_pmix.h", "#include <pmix.h>\n#include <pmix_server.h>\n")
        .clang_args(cflags.iter().filter(|f| f.starts_with("-I")))
        .allowlist_function("PMIx_(server_init|server_finalize|server_register_nspace|server_register_client|server_setup_fork|server_dmodex_request|Info_list_start|Info_list_add|Info_list_convert|Info_list_release|Data_array_destruct|Error_string|Get_version|generate_regex|generate_ppn)")
        .allowlist_type("pmix_server_module_t")
        .allowlist_var("PMIX_.*")
        .derive_default(true)
        .layout_tests(true)
        .generate()
        .expect("bindgen could not bind pmix_server.h");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    bindings.write_to_file(out.join("pmix.rs")).expect("writing the PMIx bindings");
}
