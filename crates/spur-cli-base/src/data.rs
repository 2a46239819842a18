//! Slurm's data documents (`--json`, `--yaml`) as a small value tree, and the
//! two serializers that print it: JSON as Slurm 24.11's serializer/json
//! prints it, YAML as its libyaml-based serializer/yaml does (and 22.05's
//! variants of both), with the data_parser's common pieces: which output a
//! command line asks for, the plugin-version errors, the `meta` object.
//! The documents themselves (which fields, in which order) belong to each
//! command (squeue's and sinfo's in `json.rs`).

use crate::output::Output;
use spur_core::model::ClusterView;

/// A value of the document.
#[derive(Clone, Debug, PartialEq)]
pub enum V {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Arr(Vec<V>),
    Obj(Vec<(String, V)>),
}

/// The builders the documents are written with: an object (keys in order),
/// an array, a string, an integer, a boolean, a float.
pub fn o(v: Vec<(&str, V)>) -> V {
    V::Obj(v.into_iter().map(|(k, x)| (k.to_string(), x)).collect())
}
pub fn a(v: Vec<V>) -> V {
    V::Arr(v)
}
pub fn s(x: &str) -> V {
    V::Str(x.to_string())
}
pub fn i(x: i64) -> V {
    V::Int(x)
}
pub fn b(x: bool) -> V {
    V::Bool(x)
}
pub fn f(x: f64) -> V {
    V::Float(x)
}
/// Slurm's `{"set","infinite","number"}` number object.
pub fn n(set: bool, infinite: bool, number: i64) -> V {
    o(vec![("set", b(set)), ("infinite", b(infinite)), ("number", i(number))])
}
/// A number object holding `x`.
pub fn num(x: i64) -> V {
    n(true, false, x)
}
/// A number object not set.
pub fn unset() -> V {
    n(false, false, 0)
}
/// A number object that is infinite.
pub fn inf() -> V {
    n(false, true, 0)
}
/// An array of strings (Slurm's flag lists).
pub fn strs(v: &[&str]) -> V {
    a(v.iter().map(|x| s(x)).collect())
}

/// Which output was asked (`--json`/`--yaml`, the last one wins) and the
/// data_parser version given with it (`--json=v0.0.42`).
#[derive(Clone, Debug, PartialEq)]
pub struct Mime {
    pub yaml: bool,
    pub version: Option<String>,
}

/// The `--json`/`--yaml` words of a command line (before `--`).
pub fn mime(args: &[String]) -> Option<Mime> {
    let mut m = None;
    for x in args {
        if x == "--" {
            break;
        }
        for (flag, yaml) in [("--json", false), ("--yaml", true)] {
            if x == flag {
                m = Some(Mime { yaml, version: None });
            } else if let Some(v) = x.strip_prefix(flag).and_then(|r| r.strip_prefix('=')) {
                m = Some(Mime { yaml, version: Some(v.to_string()) });
            }
        }
    }
    m
}

/// The data_parser plugin Spur's documents imitate.
pub const PARSER: &str = "data_parser/v0.0.42";

/// The errors Slurm prints for a data_parser plugin it does not have.
pub fn check_version(prog: &str, m: &Mime) -> Result<(), Output> {
    if spur_core::compat::profile().json_v0_0_38 {
        // 22.05's getopt: --json and --yaml take no argument
        return match &m.version {
            None => Ok(()),
            Some(_) => Err(Output::err(
                format!(
                    "{p}: option '--{f}' doesn't allow an argument\nTry \"{p} --help\" for more information\n",
                    p = prog,
                    f = if m.yaml { "yaml" } else { "json" }
                ),
                1,
            )),
        };
    }
    match m.version.as_deref() {
        None | Some("") | Some("v0.0.42") | Some("data_parser/v0.0.42") => Ok(()),
        Some(v) => {
            let name = if v.starts_with("data_parser/") { v.to_string() } else { format!("data_parser/{}", v) };
            let kind = if m.yaml { "application/x-yaml" } else { "application/json" };
            Err(Output::err(
                format!(
                    "{p}: error: load_plugins: unable to find plugin: {n}\n\
                     {p}: error: data_parser_g_new: failure loading plugins: Plugin has invalid format or unable to be loaded\n\
                     {p}: error: {k} output not supported by {d}\n",
                    p = prog,
                    n = name,
                    k = kind,
                    d = PARSER
                ),
                1,
            ))
        }
    }
}

/// The `meta` object of every 24.11 document: the plugin, who ran which
/// command (argv without its last word, as Slurm lists it), the release and
/// the cluster.
pub fn meta(prog: &str, args: &[String], view: &ClusterView) -> V {
    let uid = nix::unistd::getuid().as_raw();
    let gid = nix::unistd::getgid().as_raw();
    let user = spur_client::users::user_name(uid).unwrap_or_else(|| uid.to_string());
    let group = spur_client::users::group_name(gid).unwrap_or_else(|| gid.to_string());
    // Slurm lists argv without its last element
    let mut cmd = vec![s(prog)];
    if !args.is_empty() {
        cmd.extend(args[..args.len() - 1].iter().map(|x| s(x)));
    }
    o(vec![
        (
            "plugin",
            o(vec![("type", s("")), ("name", s("")), ("data_parser", s(PARSER)), ("accounting_storage", s(""))]),
        ),
        ("client", o(vec![("source", s("")), ("user", s(&user)), ("group", s(&group))])),
        ("command", a(cmd)),
        (
            "slurm",
            o(vec![
                ("version", o(vec![("major", s("24")), ("micro", s("5")), ("minor", s("11"))])),
                ("release", s("24.11.5")),
                ("cluster", s(&view.cluster_name)),
            ]),
        ),
    ])
}

/// The `meta` object of Slurm 22.05's documents (openapi/v0.0.38).
pub fn meta22() -> V {
    o(vec![
        ("plugin", o(vec![("type", s("openapi/v0.0.38")), ("name", s("Slurm OpenAPI v0.0.38"))])),
        (
            "Slurm",
            o(vec![
                ("version", o(vec![("major", i(22)), ("micro", i(8)), ("minor", i(5))])),
                ("release", s("22.05.8")),
            ]),
        ),
    ])
}

pub fn emit(v: &V, yaml: bool) -> String {
    emit_styled(v, yaml, false)
}

/// `old`: as 22.05's serializer writes (empty lists over two lines, no
/// newline after the JSON document, empty strings as YAML nulls).
pub fn emit_styled(v: &V, yaml: bool, old: bool) -> String {
    let mut out = String::new();
    if yaml {
        out.push_str("%YAML 1.1\n---");
        yaml_value(v, 0, old, &mut out);
        out.push_str(if old { "...\n" } else { "...\n\n" });
    } else {
        json_value(v, 0, old, &mut out);
        if !old {
            out.push('\n');
        }
    }
    out
}

fn json_str(x: &str, out: &mut String) {
    out.push('"');
    for c in x.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' => out.push_str("\\/"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn json_float(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{:.1}", x)
    } else {
        format!("{}", x)
    }
}

fn json_value(v: &V, ind: usize, old: bool, out: &mut String) {
    let pad = |k: usize| "  ".repeat(k);
    match v {
        V::Null => out.push_str("null"),
        V::Bool(x) => out.push_str(if *x { "true" } else { "false" }),
        V::Int(x) => out.push_str(&x.to_string()),
        V::Float(x) => out.push_str(&json_float(*x)),
        V::Str(x) => json_str(x, out),
        V::Arr(items) if items.is_empty() && old => {
            out.push_str("[\n");
            out.push_str(&pad(ind));
            out.push(']');
        }
        V::Arr(items) if items.is_empty() => out.push_str("[]"),
        V::Obj(items) if items.is_empty() => out.push_str("{}"),
        V::Arr(items) => {
            out.push_str("[\n");
            for (k, x) in items.iter().enumerate() {
                out.push_str(&pad(ind + 1));
                json_value(x, ind + 1, old, out);
                out.push_str(if k + 1 < items.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(ind));
            out.push(']');
        }
        V::Obj(items) => {
            out.push_str("{\n");
            for (k, (key, x)) in items.iter().enumerate() {
                out.push_str(&pad(ind + 1));
                json_str(key, out);
                out.push_str(": ");
                json_value(x, ind + 1, old, out);
                out.push_str(if k + 1 < items.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(ind));
            out.push('}');
        }
    }
}

fn yaml_plain_ok(x: &str) -> bool {
    !x.is_empty()
        && !x.starts_with(|c: char| ",[]{}#&*!|>'\"%@` ".contains(c))
        // `-`, `?`, `:` only start an indicator when a space (or nothing) follows
        && (!x.starts_with(|c: char| "-?:".contains(c)) || x.chars().nth(1).is_some_and(|c| c != ' '))
        && !x.starts_with("---")
        && !x.starts_with("...")
        && !x.ends_with(' ')
        && !x.contains(": ")
        && !x.contains(" #")
        && !x.chars().any(|c| c.is_control())
}

fn yaml_scalar(x: &str) -> String {
    if x.is_empty() {
        return "!!str".into();
    }
    if yaml_plain_ok(x) {
        return format!("!!str {}", x);
    }
    if !x.chars().any(|c| c.is_control()) {
        // libyaml's choice when plain is not possible: single quotes
        return format!("!!str '{}'", x.replace('\'', "''"));
    }
    let mut q = String::from("\"");
    for c in x.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            '\t' => q.push_str("\\t"),
            c if c.is_control() => q.push_str(&format!("\\x{:02X}", c as u32)),
            c => q.push(c),
        }
    }
    q.push('"');
    format!("!!str {}", q)
}

/// Writes ` TAG...` after a key or dash, then the block below it. `ind` is
/// the indentation of the children of a map.
fn yaml_value(v: &V, ind: usize, old: bool, out: &mut String) {
    let pad = "  ".repeat(ind);
    match v {
        V::Null => out.push_str(" !!null null\n"),
        V::Bool(x) => out.push_str(&format!(" !!bool {}\n", x)),
        V::Int(x) => out.push_str(&format!(" !!int {}\n", x)),
        V::Float(x) => out.push_str(&format!(" !!float {:.6}\n", x)),
        V::Str(x) if old && x.is_empty() => out.push_str(" !!null null\n"),
        V::Str(x) => {
            out.push(' ');
            out.push_str(&yaml_scalar(x));
            out.push('\n');
        }
        V::Arr(items) if items.is_empty() => out.push_str(" !!seq []\n"),
        V::Obj(items) if items.is_empty() => out.push_str(" !!map {}\n"),
        V::Arr(items) => {
            out.push_str(" !!seq\n");
            // items sit at the parent's key indentation
            let ipad = "  ".repeat(ind.saturating_sub(1));
            for x in items {
                out.push_str(&ipad);
                out.push('-');
                yaml_value(x, ind, old, out);
            }
        }
        V::Obj(items) => {
            out.push_str(" !!map\n");
            for (key, x) in items {
                out.push_str(&pad);
                out.push_str(&yaml_scalar(key));
                out.push(':');
                yaml_value(x, ind + 1, old, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_yaml_shapes() {
        let doc =
            o(vec![("jobs", a(vec![])), ("n", num(3)), ("p", s("a/b")), ("l", a(vec![s("x"), o(vec![("k", s(""))])]))]);
        assert_eq!(
            emit(&doc, false),
            "{\n  \"jobs\": [],\n  \"n\": {\n    \"set\": true,\n    \"infinite\": false,\n    \"number\": 3\n  },\n  \"p\": \"a\\/b\",\n  \"l\": [\n    \"x\",\n    {\n      \"k\": \"\"\n    }\n  ]\n}\n"
        );
        assert_eq!(
            emit(&doc, true),
            "%YAML 1.1\n--- !!map\n!!str jobs: !!seq []\n!!str n: !!map\n  !!str set: !!bool true\n  !!str infinite: !!bool false\n  !!str number: !!int 3\n!!str p: !!str a/b\n!!str l: !!seq\n- !!str x\n- !!map\n  !!str k: !!str\n...\n\n"
        );
    }

    #[test]
    fn mime_and_bad_version() {
        let args: Vec<String> = ["--json", "--yaml"].iter().map(|x| x.to_string()).collect();
        assert_eq!(mime(&args), Some(Mime { yaml: true, version: None }));
        let m = Mime { yaml: false, version: Some("v0.0.1".into()) };
        let e = check_version("squeue", &m).unwrap_err();
        assert_eq!(e.code, 1);
        assert!(e.stderr.starts_with("squeue: error: load_plugins: unable to find plugin: data_parser/v0.0.1\n"));
    }
}
