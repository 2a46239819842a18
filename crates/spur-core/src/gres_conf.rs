//! gres.conf: the file slurmd reads beside slurm.conf (`Name=`, `Type=`,
//! `File=`, `Count=`, ...). The GRES grammars themselves (node `Gres=`, job
//! requests, counts) are in `spur_grammar::gres`.

use serde::{Deserialize, Serialize};
use spur_grammar::gres::parse_count;

/// One gres.conf line (after `NodeName=` expansion is left to the caller).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GresConfLine {
    /// 1-based line number.
    pub line: usize,
    pub node_name: Option<String>,
    pub name: Option<String>,
    pub type_: Option<String>,
    /// `File=` expanded (`/dev/nvidia[0-3]` gives four paths).
    pub files: Vec<String>,
    /// `Count=`; when absent, the number of files, else 1.
    pub count: u64,
    pub auto_detect: Option<String>,
    pub cores: Option<String>,
    pub links: Option<String>,
    pub flags: Option<String>,
    pub other: Vec<(String, String)>,
}

const GRES_KEYS: &[&str] = &[
    "AutoDetect",
    "Count",
    "CPUs",
    "Cores",
    "File",
    "Files",
    "Flags",
    "Links",
    "MultipleFiles",
    "Name",
    "NodeName",
    "Type",
];

/// Parse gres.conf text. Errors carry `line N: message`.
pub fn parse_gres_conf(text: &str) -> Result<Vec<GresConfLine>, String> {
    let mut out = Vec::new();
    for (lineno, line) in crate::config::logical_lines(text) {
        let (kvs, rest) = crate::config::split_kv(&line);
        if !rest.trim().is_empty() {
            return Err(format!("line {}: Parse error: \"{}\"", lineno, rest.trim_end_matches(['\r', '\n'])));
        }
        if kvs.is_empty() {
            continue;
        }
        let mut g = GresConfLine { line: lineno, ..Default::default() };
        let mut count: Option<u64> = None;
        for (k, v) in kvs {
            let canon = GRES_KEYS.iter().find(|c| c.eq_ignore_ascii_case(&k));
            let canon = match canon {
                Some(c) => *c,
                None => return Err(format!("line {}: Parsing error at unrecognized key: {}", lineno, k)),
            };
            match canon {
                "NodeName" => g.node_name = Some(v),
                "Name" => g.name = Some(v),
                "Type" => g.type_ = Some(v),
                "File" | "Files" | "MultipleFiles" => {
                    let files = spur_grammar::hostlist::expand(&v).map_err(|e| format!("line {}: {}", lineno, e))?;
                    g.files.extend(files);
                }
                "Count" => {
                    count = Some(parse_count(&v).ok_or_else(|| {
                        format!(
                            "line {}: Invalid GRES data for {}, Count={}",
                            lineno,
                            g.name.clone().unwrap_or_default(),
                            v
                        )
                    })?)
                }
                "AutoDetect" => g.auto_detect = Some(v),
                "Cores" | "CPUs" => g.cores = Some(v),
                "Links" => g.links = Some(v),
                "Flags" => g.flags = Some(v),
                _ => g.other.push((canon.to_string(), v)),
            }
        }
        g.count = count.unwrap_or(if g.files.is_empty() { 1 } else { g.files.len() as u64 });
        out.push(g);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gres_conf() {
        let text = "# comment\nAutoDetect=nvml\nNodeName=gpu[01-02] Name=gpu Type=a100 File=/dev/nvidia[0-3]\nName=mps Count=200\n";
        let v = parse_gres_conf(text).unwrap();
        assert_eq!(v.len(), 3);
        assert_eq!(v[0].auto_detect.as_deref(), Some("nvml"));
        assert_eq!(v[1].files.len(), 4);
        assert_eq!(v[1].count, 4);
        assert_eq!(v[1].node_name.as_deref(), Some("gpu[01-02]"));
        assert_eq!(v[1].line, 3);
        assert_eq!(v[2].count, 200);
        assert!(parse_gres_conf("Bogus=1\n").unwrap_err().contains("unrecognized key: Bogus"));
        assert!(parse_gres_conf("Name=gpu Count=x\n").is_err());
        assert!(parse_gres_conf("Name=gpu junk\n").is_err());
    }

    #[test]
    fn garbage_never_panics() {
        let alphabet: Vec<char> = "gpu:0123456789(),SKab= \n#\\\u{e9}".chars().collect();
        let mut seed: u64 = 0xabcdef;
        for _ in 0..20000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 20) as usize;
            let mut t = seed;
            let s: String = (0..len)
                .map(|_| {
                    t = t.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    alphabet[((t >> 33) as usize) % alphabet.len()]
                })
                .collect();
            let _ = parse_gres_conf(&s);
        }
    }
}
