//! `#PBS` and `#BSUB` lines of a batch script, translated to sbatch options
//! as Slurm's sbatch does (src/sbatch/xlate.c, the same in 22.05 and 24.11).
//!
//! The specification, as the recordings show it
//! (`conformance/recorded/*/sbatch_surface`, steps 014-046):
//! - Read after the `#SBATCH` lines and before the `SBATCH_*` variables, so
//!   a `#PBS` option overrides an `#SBATCH` one, and the environment and the
//!   command line override both (steps 018-023). `--ignore-pbs` (command
//!   line or `#SBATCH`) and `SBATCH_IGNORE_PBS` switch the translation off
//!   (steps 024-030).
//! - `#BSUB` is tried first: a script with any `#BSUB` line has its `#PBS`
//!   lines ignored (one kind of wrapper at most).
//! - Every line that starts with the magic word at column 0 counts, also
//!   after the first command (step 033: a `#PBS -N` after `echo` names the
//!   job), until more than 100 lines not starting with `#` have been seen.
//!   Its words are split as `#SBATCH` lines are.
//! - The words are read by getopt in `+` mode with PBS's (or LSF's) letters:
//!   an unknown letter prints glibc's line and `sbatch: error: Unrecognized
//!   command line parameter ?`; a word after the options is `sbatch: error:
//!   Invalid argument: WORD`; both exit 1 (steps 037, 039).
//! - PBS: `-N` name, `-A` account, `-o`/`-e` files, `-q` partition, `-h`
//!   hold, `-p` nice, `-m` mail types (`a`=FAIL, `b`=BEGIN, `e`=END, `n`=NONE),
//!   `-M` mail user, `-a` begin (Slurm's time grammar, not PBS's: step 035),
//!   `-d`/`-w` chdir, `-t`/`-J` array, `-v` appended to `--export`, `-W
//!   depend=` dependency, `-W umask=` the umask (other `-W` attributes are
//!   reported at verbose level and ignored), `-l` resources (below); `-c -C
//!   -I -j -k -r -S -u -V -z` are accepted and ignored.
//! - `-l` resources: `walltime=`, `cput=`, `pcput=` time limit; `mem=` and
//!   `file=` (`--mem`, `--tmp`; a trailing `b`/`B` of `mb`/`gb` dropped);
//!   `nice=`; `nodes=N:ppn=P+...` (node counts and `ppn` add up, tasks =
//!   ppn x nodes, names become `--nodelist`, `gpus=` `--gpus-per-node`);
//!   PBS Pro's `select=` nodes, `ncpus=` `--mincpus`, `mpiprocs=`
//!   `--ntasks-per-node` (all three: cpus per task = ncpus / mpiprocs);
//!   `proc=` constraint; `accelerator=true`/`naccelerators=N` GPUs as
//!   `--gres=gpu:N`; `arch= host= opsys= other= pmem= pvmem= software=
//!   vmem=` ignored.

use spur_cli_base::opts::{self, ArgKind::*, Mode, OptSpec};
use spur_cli_base::Output;
use spur_grammar::num::strtol;

/// What a translation reads and sets: sbatch's option state.
pub trait Target {
    /// Set an sbatch option (by its option id), as an `#SBATCH` line would.
    fn set(&mut self, id: &'static str, value: Option<&str>) -> Result<(), Output>;
    /// The current value of an option the translation extends
    /// (`export`, `constraint`, `gres`, `mincpus`, `ntasks-per-node`).
    fn get(&self, id: &str) -> Option<String>;
    /// The `-W umask=` value (octal text).
    fn set_umask(&mut self, value: &str) -> Result<(), Output>;
    /// A log line at `level` (1 = verbose, 3 = debug2), printed when sbatch's
    /// log level reaches it.
    fn log(&mut self, level: u32, line: String);
}

/// Splits one directive line into words: (file, line number, text after the
/// magic word).
pub type WordsOf = dyn Fn(&str, usize, &str) -> Result<Vec<String>, Output>;

fn err1(msg: impl AsRef<str>) -> Output {
    Output::err(format!("sbatch: error: {}\n", msg.as_ref()), 1)
}

/// The words of the lines starting with `magic`; None when there is none.
fn wrapper_words(
    magic: &str,
    file: &str,
    body: &str,
    words_of: &WordsOf,
    t: &mut dyn Target,
) -> Result<Option<Vec<String>>, Output> {
    let mut found = false;
    let mut words = Vec::new();
    let mut non_comments = 0;
    for (n, line) in body.split('\n').enumerate() {
        let Some(rest) = line.strip_prefix(magic) else {
            if !line.starts_with('#') {
                non_comments += 1;
            }
            if non_comments > 100 {
                break;
            }
            continue;
        };
        found = true;
        for w in words_of(file, n + 1, rest)? {
            t.log(3, format!("debug2: Found in script, argument \"{}\"", w));
            words.push(w);
        }
    }
    Ok(if found { Some(words) } else { None })
}

/// Translate the script's `#BSUB` or else `#PBS` lines into options.
/// `words_of` splits a directive line as `#SBATCH` lines are split.
pub fn translate(file: &str, body: &str, words_of: &WordsOf, t: &mut dyn Target) -> Result<(), Output> {
    if let Some(mut words) = wrapper_words("#BSUB", file, body, words_of, t)? {
        // LSF's `-cwd` is a long name with one dash: the words in option
        // positions (every other word, from the first) are translated first
        for (k, w) in words.iter_mut().enumerate() {
            if k % 2 == 0 && w == "-cwd" {
                *w = "-c".into();
            }
        }
        return bsub(&words, t);
    }
    if let Some(words) = wrapper_words("#PBS", file, body, words_of, t)? {
        return pbs(&words, t);
    }
    Ok(())
}

fn getopt_failure(e: opts::GetoptError) -> Output {
    Output::err(format!("{}sbatch: error: Unrecognized command line parameter ?\n", e.message), 1)
}

const PBS: &[OptSpec] = &[
    OptSpec::new(Some('a'), "start_time", Required, "a"),
    OptSpec::new(Some('A'), "account", Required, "A"),
    OptSpec::new(Some('c'), "checkpoint", Required, "c"),
    OptSpec::new(Some('C'), "working_dir", Required, "C"),
    OptSpec::new(Some('d'), "", Required, "d"),
    OptSpec::new(Some('e'), "error", Required, "e"),
    OptSpec::new(Some('h'), "hold", None_, "h"),
    OptSpec::new(Some('I'), "interactive", None_, "I"),
    OptSpec::new(Some('j'), "", Required, "j"),
    OptSpec::new(None, "join", Optional, "j"),
    OptSpec::new(Some('J'), "job_array", Required, "J"),
    OptSpec::new(Some('k'), "keep", Required, "k"),
    OptSpec::new(Some('l'), "resource_list", Required, "l"),
    OptSpec::new(Some('m'), "mail_options", Required, "m"),
    OptSpec::new(Some('M'), "mail_user_list", Required, "M"),
    OptSpec::new(Some('N'), "job_name", Required, "N"),
    OptSpec::new(Some('o'), "out", Required, "o"),
    OptSpec::new(Some('p'), "priority", Required, "p"),
    OptSpec::new(Some('q'), "destination", Required, "q"),
    OptSpec::new(Some('r'), "rerunable", Required, "r"),
    OptSpec::new(Some('S'), "script_path", Required, "S"),
    OptSpec::new(Some('t'), "array", Required, "t"),
    OptSpec::new(Some('u'), "running_user", Required, "u"),
    OptSpec::new(Some('v'), "variable_list", Required, "v"),
    OptSpec::new(Some('V'), "all_env", None_, "V"),
    OptSpec::new(Some('W'), "attributes", Required, "W"),
    OptSpec::new(Some('w'), "", Required, "w"),
    OptSpec::new(Some('z'), "no_std", None_, "z"),
];

fn pbs(words: &[String], t: &mut dyn Target) -> Result<(), Output> {
    let p = opts::parse("sbatch", PBS, words, Mode::StopAtFirstOperand);
    for (id, v) in &p.opts {
        let v = v.as_deref();
        let a = v.unwrap_or("");
        match *id {
            "a" => t.set("begin", Some(a))?,
            "A" => t.set("account", Some(a))?,
            "e" => t.set("error", Some(a))?,
            "o" => t.set("output", Some(a))?,
            "d" | "w" => t.set("chdir", Some(a))?,
            "h" => t.set("hold", None)?,
            "J" | "t" => t.set("array", Some(a))?,
            "l" => resource_list(a, t)?,
            "m" => match mail_types(a) {
                Some(m) => t.set("mail-type", Some(&m))?,
                None => t.set("mail-type", Some(""))?,
            },
            "M" => t.set("mail-user", Some(a))?,
            "N" => t.set("job-name", Some(a))?,
            "p" => t.set("nice", Some(a))?,
            "q" => t.set("partition", Some(a))?,
            "v" => {
                let x = match t.get("export") {
                    Some(e) => format!("{},{}", e, a),
                    None => a.to_string(),
                };
                t.set("export", Some(&x))?
            }
            "W" => {
                let lower = a.to_ascii_lowercase();
                if lower.starts_with("umask=") {
                    t.set_umask(&a[6..])?
                } else if lower.starts_with("depend=") {
                    t.set("dependency", Some(&a[7..]))?
                } else {
                    t.log(1, format!("Ignored PBS attributes: {}", a));
                }
            }
            _ => {} // -c -C -I -j -k -r -S -u -V -z: nothing in Slurm
        }
    }
    if let Some(e) = p.error {
        return Err(getopt_failure(e));
    }
    if let Some(w) = p.operands.first() {
        return Err(err1(format!("Invalid argument: {}", w)));
    }
    Ok(())
}

/// PBS mail letters: `b` BEGIN, `e` END, `a` FAIL (in that order); `n` NONE.
fn mail_types(a: &str) -> Option<String> {
    let has = |c: char| a.contains(c) || a.contains(c.to_ascii_uppercase());
    if has('n') {
        return Some("NONE".into());
    }
    let l: Vec<&str> =
        [('b', "BEGIN"), ('e', "END"), ('a', "FAIL")].iter().filter(|(c, _)| has(*c)).map(|(_, n)| *n).collect();
    if l.is_empty() {
        None
    } else {
        Some(l.join(","))
    }
}

fn starts(b: &[u8], i: usize, w: &str) -> bool {
    b.len() >= i + w.len() && &b[i..i + w.len()] == w.as_bytes()
}
fn starts_ci(b: &[u8], i: usize, w: &str) -> bool {
    b.len() >= i + w.len() && b[i..i + w.len()].eq_ignore_ascii_case(w.as_bytes())
}
/// The text from `i` to the next `sep` (or the end); `i` moves past the sep.
fn value(b: &[u8], i: &mut usize, sep: u8) -> String {
    let start = *i;
    while *i < b.len() && b[*i] != sep {
        *i += 1;
    }
    let v = String::from_utf8_lossy(&b[start..*i]).into_owned();
    if *i < b.len() {
        *i += 1;
    }
    v
}
fn skip(b: &[u8], i: &mut usize) {
    value(b, i, b',');
}
/// `mem=1024mb` is `--mem=1024m`: one trailing b/B dropped.
fn drop_b(mut v: String) -> String {
    if v.ends_with(['b', 'B']) {
        v.pop();
    }
    v
}

fn resource_list(rl: &str, t: &mut dyn Target) -> Result<(), Output> {
    let b = rl.as_bytes();
    let mut i = 0;
    let mut gpus: i64 = 0;
    let mut pro = 0; // select 1, ncpus 2, mpiprocs 4
    while i < b.len() {
        if starts_ci(b, i, "accelerator=") {
            i += 12;
            if starts_ci(b, i, "true") && gpus < 1 {
                gpus = 1;
            }
        } else if starts(b, i, "cput=") || starts(b, i, "pcput=") || starts(b, i, "walltime=") {
            i += if b[i] == b'c' {
                5
            } else if b[i] == b'p' {
                6
            } else {
                9
            };
            let v = value(b, &mut i, b',');
            t.set("time", Some(&v))?;
        } else if starts(b, i, "file=") {
            i += 5;
            let v = drop_b(value(b, &mut i, b','));
            t.set("tmp", Some(&v))?;
        } else if starts(b, i, "mem=") {
            i += 4;
            let v = drop_b(value(b, &mut i, b','));
            t.set("mem", Some(&v))?;
        } else if starts_ci(b, i, "mpiprocs=") {
            i += 9;
            let v = value(b, &mut i, b':');
            pro |= 4;
            t.set("ntasks-per-node", Some(&v))?;
        } else if starts_ci(b, i, "naccelerators=") {
            i += 14;
            let v = value(b, &mut i, b',');
            let n = strtol(&v, 10);
            if !n.rest(&v).is_empty() || n.value <= 0 {
                return Err(err1(format!("Invalid numeric value \"{}\" for naccelerators.", v)));
            }
            gpus = n.value;
        } else if starts_ci(b, i, "ncpus=") {
            i += 6;
            let v = value(b, &mut i, b':');
            pro |= 2;
            t.set("mincpus", Some(&v))?;
        } else if starts(b, i, "nice=") {
            i += 5;
            let v = value(b, &mut i, b',');
            t.set("nice", Some(&v))?;
        } else if starts(b, i, "nodes=") {
            i += 6;
            let v = value(b, &mut i, b',');
            nodes(&v, t)?;
        } else if starts(b, i, "proc=") {
            i += 5;
            let mut v = value(b, &mut i, b',');
            if let Some(c) = t.get("constraint") {
                v = format!("{},{}", v, c);
            }
            t.set("constraint", Some(&v))?;
            skip(b, &mut i);
        } else if starts_ci(b, i, "select=") {
            i += 7;
            let v = value(b, &mut i, b':');
            pro |= 1;
            t.set("nodes", Some(&v))?;
        } else if let Some(w) = ["arch=", "host=", "opsys=", "other=", "pmem=", "pvmem=", "software=", "vmem="]
            .iter()
            .find(|w| starts(b, i, w))
        {
            i += w.len();
            skip(b, &mut i);
        } else {
            i += 1;
        }
    }
    if pro == 7 {
        let num = |id| t.get(id).and_then(|s| s.parse::<i64>().ok()).unwrap_or(0);
        let (cpus, per_node) = (num("mincpus"), num("ntasks-per-node"));
        if per_node > 0 && cpus > per_node {
            t.set("cpus-per-task", Some(&(cpus / per_node).to_string()))?;
        }
    }
    if gpus > 0 {
        let g = match t.get("gres") {
            Some(g) => format!("{},gpu:{}", g, gpus),
            None => format!("gpu:{}", gpus),
        };
        t.set("gres", Some(&g))?;
    }
    Ok(())
}

/// `nodes=3:ppn=2`, `nodes=node1+node2`, `nodes=2:gpus=1`.
fn nodes(v: &str, t: &mut dyn Target) -> Result<(), Output> {
    let b = v.as_bytes();
    let mut i = 0;
    let (mut ppn, mut count): (i64, i64) = (0, 0);
    let mut hosts = spur_grammar::hostlist::Hostlist::new();
    let part = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i] != b'+' && b[*i] != b':' {
            *i += 1;
        }
        let s = String::from_utf8_lossy(&b[start..*i]).into_owned();
        if *i < b.len() {
            *i += 1;
        }
        s
    };
    while i < b.len() {
        if starts(b, i, "gpus=") {
            i += 5;
            let g = part(&mut i);
            t.set("gpus-per-node", Some(&g))?;
        } else if starts(b, i, "ppn=") {
            i += 4;
            let s = part(&mut i);
            ppn += strtol(&s, 10).value;
        } else if b[i].is_ascii_digit() {
            let s = part(&mut i);
            count += strtol(&s, 10).value;
        } else if b[i].is_ascii_alphabetic() {
            let s = part(&mut i);
            hosts.push_host(&s);
        } else {
            i += 1;
        }
    }
    if count == 0 {
        count = 1;
    } else {
        t.set("nodes", Some(&(count as i32).to_string()))?;
    }
    if ppn != 0 {
        t.set("ntasks", Some(&((ppn * count) as i32).to_string()))?;
    }
    if hosts.count() > 0 {
        t.set("nodelist", Some(&hosts.ranged_string()))?;
    }
    Ok(())
}

const BSUB: &[OptSpec] = &[
    OptSpec::new(Some('c'), "cwd", Required, "c"),
    OptSpec::new(Some('e'), "error_file", Required, "e"),
    OptSpec::new(Some('J'), "job_name", Required, "J"),
    OptSpec::new(Some('m'), "hostname", Required, "m"),
    OptSpec::new(Some('M'), "memory_limit", Required, "M"),
    OptSpec::new(Some('n'), "", Required, "n"),
    OptSpec::new(Some('o'), "output_file", Required, "o"),
    OptSpec::new(Some('q'), "queue_name", Required, "q"),
    OptSpec::new(Some('W'), "time", Required, "W"),
    OptSpec::new(Some('x'), "exclusive", None_, "x"),
];

fn bsub(words: &[String], t: &mut dyn Target) -> Result<(), Output> {
    let p = opts::parse("sbatch", BSUB, words, Mode::StopAtFirstOperand);
    for (id, v) in &p.opts {
        let a = v.as_deref().unwrap_or("");
        match *id {
            "c" => t.set("chdir", Some(a))?,
            "e" => t.set("error", Some(a))?,
            "J" => t.set("job-name", Some(a))?,
            "o" => t.set("output", Some(a))?,
            "m" => t.set("nodelist", Some(&a.replace(' ', ",")))?,
            // LSF's memory unit is KB
            "M" => {
                let m = if a.ends_with(|c: char| c.is_ascii_digit()) { format!("{}K", a) } else { a.to_string() };
                t.set("mem-per-cpu", Some(&m))?
            }
            "n" => {
                let n = match a.split_once(',') {
                    Some((_, "")) => return Err(err1(format!("#BSUB -n format not correct given: '{}'", a))),
                    Some((_, max)) => max,
                    None => a,
                };
                t.set("ntasks", Some(n))?
            }
            "q" => t.set("partition", Some(a))?,
            "W" => t.set("time", Some(a))?,
            "x" => t.set("exclusive", None)?,
            _ => {}
        }
    }
    if let Some(e) = p.error {
        return Err(getopt_failure(e));
    }
    if let Some(w) = p.operands.first() {
        return Err(err1(format!("Invalid argument: {}", w)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[derive(Default)]
    struct T {
        set: Vec<(String, Option<String>)>,
        now: BTreeMap<String, String>,
        logs: Vec<String>,
        umask: Option<String>,
    }
    impl Target for T {
        fn set(&mut self, id: &'static str, v: Option<&str>) -> Result<(), Output> {
            self.set.push((id.into(), v.map(String::from)));
            self.now.insert(id.into(), v.unwrap_or("").into());
            Ok(())
        }
        fn get(&self, id: &str) -> Option<String> {
            self.now.get(id).cloned()
        }
        fn set_umask(&mut self, v: &str) -> Result<(), Output> {
            self.umask = Some(v.into());
            Ok(())
        }
        fn log(&mut self, _l: u32, line: String) {
            self.logs.push(line);
        }
    }
    fn words(_f: &str, _n: usize, l: &str) -> Result<Vec<String>, Output> {
        Ok(l.split_whitespace().map(String::from).collect())
    }
    fn run(body: &str) -> (T, Result<(), Output>) {
        let mut t = T::default();
        let r = translate("s", body, &words, &mut t);
        (t, r)
    }
    fn got(t: &T, id: &str) -> Option<String> {
        t.now.get(id).cloned()
    }

    #[test]
    fn pbs_resources() {
        // recorded/24.11/sbatch_surface/015-016
        let (t, r) = run("#!/bin/sh\n#PBS -N n -l nodes=3:ppn=2,mem=1024mb,walltime=1:00:00\n#PBS -m abe -p 10\n");
        assert!(r.is_ok());
        assert_eq!(got(&t, "job-name").as_deref(), Some("n"));
        assert_eq!(got(&t, "nodes").as_deref(), Some("3"));
        assert_eq!(got(&t, "ntasks").as_deref(), Some("6"));
        assert_eq!(got(&t, "mem").as_deref(), Some("1024m"));
        assert_eq!(got(&t, "time").as_deref(), Some("1:00:00"));
        assert_eq!(got(&t, "mail-type").as_deref(), Some("BEGIN,END,FAIL"));
        assert_eq!(got(&t, "nice").as_deref(), Some("10"));
        // PBS Pro: cpus per task = ncpus / mpiprocs (step 044-046)
        let (t, _) = run("#!/bin/sh\n#PBS -l select=2:ncpus=2:mpiprocs=1\n#PBS -v FOO=bar,BAZ\n");
        assert_eq!(got(&t, "cpus-per-task").as_deref(), Some("2"));
        assert_eq!(got(&t, "nodes").as_deref(), Some("2"));
        assert_eq!(got(&t, "export").as_deref(), Some("FOO=bar,BAZ"));
        let (t, _) = run("#!/bin/sh\n#PBS -l nodes=node2+node3,file=10mb,nice=3\n#PBS -m n\n");
        assert_eq!(got(&t, "nodelist").as_deref(), Some("node[2-3]"));
        assert_eq!(got(&t, "tmp").as_deref(), Some("10m"));
        assert_eq!(got(&t, "mail-type").as_deref(), Some("NONE"));
        let (t, _) = run("#!/bin/sh\n#PBS -l naccelerators=2\n#PBS -W umask=077 -W depend=afterok:1 -W x=y\n");
        assert_eq!(got(&t, "gres").as_deref(), Some("gpu:2"));
        assert_eq!(got(&t, "dependency").as_deref(), Some("afterok:1"));
        assert_eq!(t.umask.as_deref(), Some("077"));
        assert!(t.logs.iter().any(|l| l == "Ignored PBS attributes: x=y"));
    }

    #[test]
    fn pbs_errors_and_bsub() {
        let (_, r) = run("#!/bin/sh\n#PBS -N a extra\n");
        assert_eq!(r.unwrap_err().stderr, "sbatch: error: Invalid argument: extra\n");
        let (_, r) = run("#!/bin/sh\n#PBS -Z\n");
        let e = r.unwrap_err();
        assert_eq!(e.stderr, "sbatch: invalid option -- 'Z'\nsbatch: error: Unrecognized command line parameter ?\n");
        assert_eq!(e.code, 1);
        // #BSUB first: the #PBS lines are then ignored
        let (t, _) = run("#!/bin/sh\n#BSUB -J lsf -n 2,4 -M 100 -cwd /tmp\n#PBS -N pbs\n");
        assert_eq!(got(&t, "job-name").as_deref(), Some("lsf"));
        assert_eq!(got(&t, "ntasks").as_deref(), Some("4"));
        assert_eq!(got(&t, "mem-per-cpu").as_deref(), Some("100K"));
        assert_eq!(got(&t, "chdir").as_deref(), Some("/tmp"));
        // no wrapper lines: nothing set; garbage never panics
        let (t, r) = run("#!/bin/sh\necho\n");
        assert!(r.is_ok() && t.set.is_empty());
        for s in ["#PBS -l nodes=", "#PBS -l \u{e9}=\u{e9}", "#PBS -l mem=", "#PBS -l nodes=+:+gpus=", "#BSUB -n ,"] {
            let _ = run(&format!("#!/bin/sh\n{}\n", s));
        }
    }
}
