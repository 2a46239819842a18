//! Bind the Slurm release's own headers and write what follows from them.
//!
//! One build per release (cargo feature `slurm-24-11`, the default, or
//! `slurm-22-05`): bindgen runs on that release's `slurm.h`, `slurmdb.h` and
//! `slurm_errno.h` (scripts/slurm-headers.sh puts them in place) and gives,
//! in OUT_DIR:
//! * `slurm.rs`: the types, constants and enumerators (`crate::sys`), with
//!   bindgen's compile-time layout assertions (rustc's layout = clang's);
//! * `layout.c` and `layout.rs`: the size and every field offset of each
//!   struct, printed by a C program compiled with the system's `cc` against
//!   the same headers, and by Rust from `crate::sys` (tests/layout.rs
//!   compares them);
//! * `unserved.rs`: for every function the headers declare that the library
//!   does not define by hand, a definition that fails as Slurm fails for a
//!   feature it does not have (errno `ESLURM_NOT_SUPPORTED`), so that every
//!   public symbol of the release is exported; and `UNSERVED`, their names;
//! * `signatures.rs`: for every function defined by hand, a constant of the
//!   header's function pointer type initialised with it, so that a
//!   definition whose signature differs from the release's prototype does
//!   not compile.
//!
//! Hand-written definitions are found by reading `src/`: a `#[no_mangle]`
//! line followed by `pub [unsafe] extern "C" fn NAME`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

struct Release {
    name: &'static str,
    soname: &'static str,
    /// `SLURM_VERSION_NUMBER` of the headers, as slurm_version.h writes it.
    version_prefix: &'static str,
    include: PathBuf,
}

fn release(manifest: &Path) -> Release {
    let r22 = std::env::var_os("CARGO_FEATURE_SLURM_22_05").is_some();
    let r24 = std::env::var_os("CARGO_FEATURE_SLURM_24_11").is_some();
    let workspace = manifest.parent().expect("libspur_compat sits in the workspace");
    println!("cargo:rerun-if-env-changed=SPUR_SLURM_INCLUDE");
    let over = std::env::var_os("SPUR_SLURM_INCLUDE").map(PathBuf::from);
    match (r22, r24) {
        (true, false) => Release {
            name: "22.05",
            soname: "libslurm.so.38",
            version_prefix: "0x1605",
            include: over.unwrap_or_else(|| PathBuf::from("/usr/include")),
        },
        (false, true) => Release {
            name: "24.11",
            soname: "libslurm.so.42",
            version_prefix: "0x180b",
            include: over.unwrap_or_else(|| workspace.join("target/slurm-headers/24.11/usr/include")),
        },
        _ => panic!("spur-compat: build with exactly one of the features slurm-24-11 (the default) and slurm-22-05"),
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let rel = release(&manifest);
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src");
    let version_h = rel.include.join("slurm/slurm_version.h");
    let version = std::fs::read_to_string(&version_h).unwrap_or_else(|e| {
        panic!(
            "spur-compat: Slurm {}'s headers are not at {} ({}): run scripts/setup.sh",
            rel.name,
            rel.include.display(),
            e
        )
    });
    if !version.contains(&format!("SLURM_VERSION_NUMBER {}", rel.version_prefix)) {
        panic!("spur-compat: {} holds another release's headers, not Slurm {}'s", version_h.display(), rel.name);
    }
    for h in ["slurm.h", "slurmdb.h", "slurm_errno.h", "slurm_version.h"] {
        println!("cargo:rerun-if-changed={}", rel.include.join("slurm").join(h).display());
    }
    // the cdylib answers to the release's SONAME
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{}", rel.soname);
    println!("cargo:rustc-env=SPUR_COMPAT_RELEASE={}", rel.name);
    println!("cargo:rustc-env=SPUR_COMPAT_SONAME={}", rel.soname);
    println!("cargo:rustc-env=SPUR_COMPAT_INCLUDE={}", rel.include.display());

    let bindings = bindgen::Builder::default()
        .header_contents(
            "spur_slurm.h",
            "#include <slurm/slurm.h>\n#include <slurm/slurmdb.h>\n#include <slurm/slurm_errno.h>\n\
             #include <slurm/slurm_version.h>\n",
        )
        .clang_arg(format!("-I{}", rel.include.display()))
        .allowlist_file(".*/slurm/(slurm|slurmdb|slurm_errno|slurm_version)\\.h")
        .default_enum_style(bindgen::EnumVariation::Consts)
        .prepend_enum_name(false)
        .derive_default(false)
        .derive_debug(false)
        .generate_comments(false)
        .layout_tests(true)
        .generate()
        .expect("bindgen could not bind slurm.h");
    let text = bindings.to_string();
    let file = syn::parse_file(&text).expect("bindgen's output parses");

    // the functions the headers declare, and the rest (types, constants)
    let mut decls: BTreeMap<String, syn::ForeignItemFn> = BTreeMap::new();
    let mut rest = syn::File { shebang: None, attrs: vec![], items: vec![] };
    for item in file.items {
        match item {
            syn::Item::ForeignMod(m) => {
                for fi in m.items {
                    if let syn::ForeignItem::Fn(f) = fi {
                        decls.insert(f.sig.ident.to_string(), f);
                    }
                }
            }
            other => rest.items.push(other),
        }
    }
    std::fs::write(out.join("slurm.rs"), quote::quote!(#rest).to_string()).expect("writing slurm.rs");
    // the error numbers of the release's slurm_errno.h (a newer release's
    // text is not this one's: slurm_strerror gives the C library's for it)
    let mut codes: Vec<String> = Vec::new();
    for item in &rest.items {
        if let syn::Item::Const(c) = item {
            let ty = &c.ty;
            if quote::quote!(#ty).to_string().ends_with("slurm_err_t") {
                let e = &c.expr;
                codes.push(quote::quote!(#e).to_string().replace(' ', ""));
            }
        }
    }
    std::fs::write(
        out.join("errno_codes.rs"),
        format!("/// The numbers of `slurm_err_t` in the release's slurm_errno.h.\npub const ERRNO_CODES: &[i64] = &[{}];\n", codes.join(", ")),
    )
    .expect("writing errno_codes.rs");

    let hand = hand_written(&manifest.join("src"));
    let mut unserved = String::new();
    let mut names = Vec::new();
    let mut checks = String::new();
    for (name, f) in &decls {
        if f.sig.variadic.is_some() {
            // (Rust cannot define a C-variadic function; slurm.h declares none)
            continue;
        }
        let args: Vec<String> = f
            .sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(t) => Some(ty(&t.ty)),
                _ => None,
            })
            .collect();
        let ret = match &f.sig.output {
            syn::ReturnType::Default => String::new(),
            syn::ReturnType::Type(_, t) => format!(" -> {}", ty(t)),
        };
        if let Some(module) = hand.get(name) {
            checks.push_str(&format!(
                "const _: unsafe extern \"C\" fn({}){} = crate::{}::{};\n",
                args.join(", "),
                ret,
                module,
                name
            ));
            continue;
        }
        let params: Vec<String> = args.iter().enumerate().map(|(i, t)| format!("_a{}: {}", i, t)).collect();
        let body = if ret.is_empty() {
            format!("crate::unserved::fail::<()>(\"{}\")", name)
        } else {
            format!("crate::unserved::fail(\"{}\")", name)
        };
        unserved.push_str(&format!(
            "/// Not served by Spur: fails as Slurm fails for a feature it lacks.\n\
             #[no_mangle]\npub unsafe extern \"C\" fn {}({}){} {{ {} }}\n",
            name,
            params.join(", "),
            ret,
            body
        ));
        names.push(format!("\"{}\"", name));
    }
    unserved.push_str(&format!(
        "/// The release's public functions that fail with ESLURM_NOT_SUPPORTED.\npub const UNSERVED: &[&str] = &[{}];\n",
        names.join(", ")
    ));
    let served: Vec<String> = hand.keys().map(|n| format!("\"{}\"", n)).collect();
    unserved.push_str(&format!(
        "/// Every function defined by hand (the release's and Slurm's internal ones that consumers import).\npub const SERVED: &[&str] = &[{}];\n",
        served.join(", ")
    ));
    let declared: Vec<String> = decls.keys().map(|n| format!("\"{}\"", n)).collect();
    unserved.push_str(&format!(
        "/// Every function the release's headers declare.\npub const DECLARED: &[&str] = &[{}];\n",
        declared.join(", ")
    ));
    std::fs::write(out.join("unserved.rs"), unserved).expect("writing unserved.rs");
    std::fs::write(out.join("signatures.rs"), checks).expect("writing signatures.rs");
    layout(&rest, &rel.include, &out);
    // include/spur_compat.h: Spur's own extensions, from src/ext.rs
    let header = cbindgen::Builder::new()
        .with_src(manifest.join("src/ext.rs"))
        .with_language(cbindgen::Language::C)
        .with_include_guard("SPUR_COMPAT_H")
        .with_header(
            "/* Spur's extensions to libslurm's API (libspur_compat). Written by cbindgen\n \
             * from libspur_compat/src/ext.rs at build time: do not edit. Slurm's own\n \
             * functions are declared by Slurm's headers (slurm/slurm.h). */",
        )
        .with_sys_include("stdint.h")
        .with_no_includes()
        .generate()
        .expect("cbindgen could not read src/ext.rs");
    header.write_to_file(out.join("spur_compat.h"));
}

/// A type as Rust source (the generated files sit where `crate::sys`'s names are in scope).
fn ty(t: &syn::Type) -> String {
    quote::quote!(#t).to_string()
}

/// `name -> module path` of each `#[no_mangle] pub [unsafe] extern "C" fn`.
fn hand_written(src: &Path) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().and_then(|x| x.to_str()) != Some("rs") {
                continue;
            }
            let rel = p.strip_prefix(src).expect("under src");
            let module: Vec<String> = rel
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .filter(|c| c != "mod")
                .collect();
            let module = module.join("::");
            if module == "lib" {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            // `#[cfg(feature = "slurm-..")]` on the function itself, or on
            // an inline module holding it: only in that release's build
            let mut armed = 0;
            let mut pending_cfg: Option<String> = None;
            let mut fn_cfg: Option<String> = None;
            let mut mod_cfg: Vec<(String, i64)> = Vec::new();
            let mut depth: i64 = 0;
            for line in text.lines() {
                let l = line.trim();
                if let Some(f) = l.strip_prefix("#[cfg(feature = \"").and_then(|r| r.strip_suffix("\")]")) {
                    pending_cfg = Some(f.to_string());
                } else if l == "#[no_mangle]" {
                    armed = 4;
                    fn_cfg = pending_cfg.take();
                } else if armed > 0 {
                    armed -= 1;
                    let f = l.strip_prefix("pub ").unwrap_or("");
                    let f = f.strip_prefix("unsafe ").unwrap_or(f);
                    if let Some(r) = f.strip_prefix("extern \"C\" fn ") {
                        let name: String = r.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                        let cfgs = fn_cfg.iter().chain(mod_cfg.iter().map(|(f, _)| f));
                        if cfgs.clone().all(|f| {
                            std::env::var_os(format!("CARGO_FEATURE_{}", f.to_uppercase().replace('-', "_"))).is_some()
                        }) {
                            found.insert(name, module.clone());
                        }
                        armed = 0;
                    }
                } else if (l.starts_with("mod ") || l.starts_with("pub mod ")) && l.ends_with('{') {
                    if let Some(f) = pending_cfg.take() {
                        mod_cfg.push((f, depth));
                    }
                } else if !l.starts_with("#[") {
                    pending_cfg = None;
                }
                depth += line.matches('{').count() as i64 - line.matches('}').count() as i64;
                mod_cfg.retain(|(_, d)| depth > *d);
            }
        }
    }
    found
}

/// The C program and the Rust table of every struct's size and field offsets.
fn layout(file: &syn::File, include: &Path, out: &Path) {
    let mut headers = String::new();
    for h in ["slurm.h", "slurmdb.h"] {
        headers.push_str(&std::fs::read_to_string(include.join("slurm").join(h)).unwrap_or_default());
    }
    let mut c = String::from(
        "#include <stddef.h>\n#include <stdio.h>\n#include <stdint.h>\n#include <slurm/slurm.h>\n\
         #include <slurm/slurmdb.h>\nint main(void) {\n",
    );
    let mut r =
        String::from("/// (\"type\" or \"type.field\", size or offset)\npub const LAYOUT: &[(&str, usize)] = &[\n");
    for item in &file.items {
        let syn::Item::Struct(s) = item else { continue };
        let name = s.ident.to_string();
        if name.contains("__bindgen") || name.starts_with('_') {
            continue;
        }
        let syn::Fields::Named(fields) = &s.fields else { continue };
        if fields.named.is_empty() {
            continue; // an opaque handle
        }
        // `struct name { ... }` in the header, or a typedef'd anonymous struct
        // (structs of the system's headers that slurm.h uses are not Slurm's)
        let cname =
            if headers.contains(&format!("struct {} {{", name)) || headers.contains(&format!("struct {}{{", name)) {
                format!("struct {}", name)
            } else if headers.contains(&format!("}} {};", name)) {
                name.clone()
            } else {
                continue;
            };
        c.push_str(&format!("printf(\"%s %zu\\n\", \"{}\", sizeof({}));\n", name, cname));
        r.push_str(&format!("(\"{}\", ::std::mem::size_of::<crate::sys::{}>()),\n", name, name));
        for f in &fields.named {
            let Some(id) = &f.ident else { continue };
            let rf = id.to_string();
            if rf.starts_with("_bitfield") || rf.starts_with("__bindgen") {
                continue;
            }
            // bindgen adds `_` to a C field named like a Rust keyword
            let cf = match rf.as_str() {
                "type_" | "match_" | "ref_" | "box_" | "loop_" | "move_" | "mod_" | "fn_" | "use_" | "where_"
                | "impl_" | "self_" | "super_" | "crate_" | "priv_" | "final_" | "override_" | "async_" | "await_"
                | "dyn_" | "in_" | "let_" | "mut_" => rf.trim_end_matches('_').to_string(),
                _ => rf.clone(),
            };
            c.push_str(&format!("printf(\"%s.%s %zu\\n\", \"{}\", \"{}\", offsetof({}, {}));\n", name, rf, cname, cf));
            r.push_str(&format!("(\"{}.{}\", ::std::mem::offset_of!(crate::sys::{}, {})),\n", name, rf, name, rf));
        }
    }
    c.push_str("return 0;\n}\n");
    r.push_str("];\n");
    std::fs::write(out.join("layout.c"), c).expect("writing layout.c");
    std::fs::write(out.join("layout.rs"), r).expect("writing layout.rs");
}
