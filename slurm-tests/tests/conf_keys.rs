//! Issue 16, point 1: a site's slurm.conf with keys Spur does not act on
//! still starts the cluster, and the controller says once, at start, which
//! keys it keeps without acting on them (`spur_core::config::INERT_KEYS`).
//! The list is checked against the code: no inert key is read outside
//! slurm.conf's key table and `scontrol show config`, and every other key
//! of the table is.

use slurm_tests::*;
use std::path::Path;

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push((p.display().to_string(), std::fs::read_to_string(&p).unwrap()));
        }
    }
}

#[test]
fn the_inert_list_is_what_the_code_reads_not() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut files = vec![];
    for d in ["crates", "daemons", "libspur_compat"] {
        sources(&root.join(d), &mut files);
    }
    let config = root.join("crates/spur-core/src/config.rs").display().to_string();
    let scontrol = root.join("crates/spur-cli-control/src/scontrol.rs").display().to_string();
    let table = files.iter().find(|(p, _)| *p == config).map(|(_, t)| t.clone()).unwrap();
    // the key table itself, and the inert list, are not uses
    let start = table.find("pub static INERT_KEYS").unwrap();
    let end =
        table[table.find("static TOP_KEYS").unwrap()..].find("];").unwrap() + table.find("static TOP_KEYS").unwrap();
    // (nor are its unit tests)
    let tests = table.find("#[cfg(test)]").unwrap_or(table.len());
    let rest_of_config = format!("{}{}", &table[..start], &table[end..tests]);
    let keys: Vec<(&str, bool)> = table[table.find("static TOP_KEYS").unwrap()..end]
        .lines()
        .filter_map(|l| l.trim().strip_prefix("(\"")?.split_once("\", K::"))
        .map(|(k, kind)| (k, kind.starts_with("Defunct")))
        .collect();
    assert!(keys.len() > 200, "{}", keys.len());
    // (read: the key as the first argument of a call, `get("Key")` and the
    // like, or as `"Key=` text)
    let uses = |t: &str, k: &str| {
        let (quoted, assign) = (format!("(\"{}\"", k), format!("\"{}=", k));
        t.contains(&assign)
            || t.match_indices(&quoted)
                .any(|(i, _)| t[..i].chars().last().is_some_and(|c| c.is_alphanumeric() || c == '_'))
    };
    let read =
        |k: &str| uses(&rest_of_config, k) || files.iter().any(|(p, t)| *p != config && *p != scontrol && uses(t, k));
    let mut wrong = vec![];
    for (k, defunct) in keys {
        let inert = spur_core::config::INERT_KEYS.contains(&k);
        if (defunct && inert) || (!defunct && inert == read(k)) {
            wrong.push(format!("{k}: defunct {defunct}, listed inert {inert}, read by the code {}", read(k)));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_sites_keys_start_the_cluster_and_are_named_once() {
    let extra = std::env::temp_dir().join(format!("spur-conf-keys-{}.conf", std::process::id()));
    std::fs::write(
        &extra,
        "HealthCheckProgram=/usr/sbin/nhc\nHealthCheckInterval=300\nEpilog=/etc/slurm/epilog.sh\n\
         Epilog=/etc/slurm/epilog.d/*\nhealthcheckinterval=600\nPowerPlugin=power/none\n\
         PriorityFlags=INCR_ONLY,DEPTH_OBLIVIOUS,MAX_TRES\n",
    )
    .unwrap();
    let c = Cluster::up("confkeys", 1, &["--extra-conf", extra.to_str().unwrap()]);
    let _ = std::fs::remove_file(&extra);
    let j = c.sbatch(&["--wrap", "true"]).to_string();
    c.wait_state(&j, "COMPLETED", std::time::Duration::from_secs(30));
    let log = c.ctld_log();
    let said: Vec<&str> = log
        .lines()
        .filter_map(|l| l.split_once("slurm.conf: ").map(|x| x.1))
        .filter(|l| l.contains("Spur does not act on it") || l.contains("defunct"))
        .collect();
    assert_eq!(
        said,
        [
            "The option \"PowerPlugin\" is defunct, please remove it from slurm.conf.",
            // (spur cluster up writes TaskPlugin=task/none)
            "TaskPlugin is accepted, but Spur does not act on it",
            "HealthCheckProgram is accepted, but Spur does not act on it",
            "HealthCheckInterval is accepted, but Spur does not act on it",
            "Epilog is accepted, but Spur does not act on it",
        ],
        "{log}"
    );
    c.down();
}

/// docs/migration.md's table of slurm.conf keys, as the code's own key
/// table makes it (`SPUR_BLESS=1` writes it).
#[test]
fn the_migration_guide_has_every_key() {
    use spur_core::config::KeyStatus;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("docs/migration.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (begin, end) =
        ("<!-- key table: generated from spur_core::config::key_table -->\n", "<!-- end of key table -->");
    let (a, b) = (doc.find(begin).expect("the table's first marker") + begin.len(), doc.find(end).expect("its end"));
    let mut table = String::from("| slurm.conf key | In Spur |\n|---|---|\n");
    let keys = spur_core::config::key_table();
    for (k, s) in &keys {
        let what = match s {
            KeyStatus::Acted => "acted on",
            KeyStatus::Inert => "accepted, not acted on (logged once at start)",
            KeyStatus::Defunct => "defunct in Slurm too (logged as defunct)",
        };
        table.push_str(&format!("| `{}` | {} |\n", k, what));
    }
    let count = |s: KeyStatus| keys.iter().filter(|(_, x)| *x == s).count();
    table.push_str(&format!(
        "\n{} keys: {} acted on, {} accepted without effect, {} defunct.\n",
        keys.len(),
        count(KeyStatus::Acted),
        count(KeyStatus::Inert),
        count(KeyStatus::Defunct)
    ));
    let (doc, b) = match std::env::var_os("SPUR_BLESS") {
        Some(_) => {
            let blessed = format!("{}{}{}", &doc[..a], table, &doc[b..]);
            std::fs::write(&path, &blessed).unwrap();
            (blessed, a + table.len())
        }
        None => (doc, b),
    };
    assert!(
        doc[a..b] == table,
        "docs/migration.md's key table is not the code's: SPUR_BLESS=1 cargo test -p slurm-tests --test conf_keys"
    );
}
