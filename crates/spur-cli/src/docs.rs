//! Man pages and bash completion made from the commands' own option tables
//! (the `OptSpec` lists their parsers use), so that they list exactly what
//! the commands accept: `spur man CMD` prints CMD(1) in roff, `spur
//! completion bash` the completion script. `make package` installs both.

use spur_cli_base::opts::{ArgKind, OptSpec};

/// Every Slurm command `spur` answers to, with a line of what it does.
pub const COMMANDS: &[(&str, &str)] = &[
    ("sacct", "show accounting data of jobs and steps"),
    ("sacctmgr", "view and change accounts, users, associations and QOS"),
    ("salloc", "obtain an allocation and run a command in it"),
    ("sbatch", "submit a batch script"),
    ("scancel", "signal or cancel jobs, job steps and array tasks"),
    ("scontrol", "view and change the state of the cluster"),
    ("sinfo", "show the state of nodes and partitions"),
    ("sprio", "show the factors of pending jobs' priorities"),
    ("squeue", "show the jobs in the queue"),
    ("srun", "run parallel jobs and job steps"),
    ("sshare", "show fair-share information"),
    ("sstat", "show the resource use of running jobs and steps"),
];

/// The options `cmd` accepts (sacctmgr reads its words itself: none).
fn options(cmd: &str) -> Vec<OptSpec> {
    use spur_cli_control::{scancel, scontrol};
    use spur_cli_query::{sacct, sinfo, sprio, squeue, sshare, sstat};
    use spur_cli_submit::{salloc, sbatch, srun};
    match cmd {
        "sacct" => sacct::specs(),
        "salloc" => salloc::SPECS.to_vec(),
        "sbatch" => sbatch::release_specs().to_vec(),
        "scancel" => scancel::specs(),
        "scontrol" => scontrol::SPECS.to_vec(),
        "sinfo" => sinfo::specs(),
        "sprio" => sprio::SPECS.to_vec(),
        "squeue" => squeue::specs(),
        "srun" => srun::SPECS.to_vec(),
        "sshare" => sshare::SPECS.to_vec(),
        "sstat" => sstat::specs(),
        _ => vec![],
    }
}

/// Text for roff: backslashes and hyphens escaped, no line starting a request.
fn roff(s: &str) -> String {
    let t = s.replace('\\', "\\e").replace('-', "\\-");
    if t.starts_with('.') || t.starts_with('\'') {
        format!("\\&{}", t)
    } else {
        t
    }
}

/// CMD(1): name, synopsis, what Spur's command is, every option it takes.
pub fn man(cmd: &str) -> Option<String> {
    let (_, what) = COMMANDS.iter().find(|(c, _)| *c == cmd)?;
    let release = spur_core::compat::release().name();
    let mut m = format!(
        ".TH {} 1 \"\" \"Spur {}\" \"Spur: Slurm {} commands\"\n.SH NAME\n{} \\- {}\n.SH SYNOPSIS\n.B {}\n[\\fIOPTIONS\\fR...] [\\fIARGUMENTS\\fR...]\n",
        cmd.to_ascii_uppercase(),
        env!("CARGO_PKG_VERSION"),
        release,
        cmd,
        roff(what),
        cmd
    );
    m.push_str(&format!(
        ".SH DESCRIPTION\nSpur's \\fB{cmd}\\fR, in place of Slurm's. It reads \\fI/etc/slurm/slurm.conf\\fR \
         (or \\fBSLURM_CONF\\fR), takes Slurm {release}'s options and environment variables, and prints what \
         Slurm {release}'s {cmd} prints. Each option means what Slurm's documentation of {cmd} says.\n"
    ));
    let mut opts = options(cmd);
    opts.sort_by_key(|o| {
        if o.long.is_empty() {
            o.short.map(String::from).unwrap_or_default()
        } else {
            o.long.to_string()
        }
    });
    if !opts.is_empty() {
        m.push_str(".SH OPTIONS\n");
    }
    for o in &opts {
        let mut names = vec![];
        if let Some(c) = o.short {
            names.push(format!("\\fB\\-{}\\fR", roff(&c.to_string())));
        }
        if !o.long.is_empty() {
            names.push(format!("\\fB\\-\\-{}\\fR", roff(o.long)));
        }
        let arg = match o.arg {
            ArgKind::None_ => "",
            ArgKind::Required => " \\fIvalue\\fR",
            ArgKind::Optional => "[=\\fIvalue\\fR]",
        };
        m.push_str(&format!(".TP\n{}{}\n", names.join(", "), arg));
    }
    m.push_str(".SH SEE ALSO\n");
    let others: Vec<String> =
        COMMANDS.iter().filter(|(c, _)| *c != cmd).map(|(c, _)| format!("\\fB{}\\fR(1)", c)).collect();
    m.push_str(&format!("{}, \\fBslurm.conf\\fR(5)\n", others.join(", ")));
    Some(m)
}

/// The bash completion of every command's options, and of `spur`'s words.
pub fn bash_completion() -> String {
    let mut s = String::from(
        "# bash completion for Spur's Slurm commands, from their option tables (`spur completion bash`)\n\
         _spur_options() {\n    case \"$1\" in\n",
    );
    for (cmd, _) in COMMANDS {
        let mut words: Vec<String> = options(cmd)
            .iter()
            .flat_map(|o| {
                let long = (!o.long.is_empty()).then(|| match o.arg {
                    ArgKind::None_ => format!("--{}", o.long),
                    _ => format!("--{}=", o.long),
                });
                o.short.map(|c| format!("-{}", c)).into_iter().chain(long)
            })
            .collect();
        words.sort();
        words.dedup();
        s.push_str(&format!("        {}) echo '{}' ;;\n", cmd, words.join(" ")));
    }
    let names: Vec<&str> = COMMANDS.iter().map(|(c, _)| *c).collect();
    s.push_str("    esac\n}\n");
    s.push_str(&format!(
        "_spur_complete() {{\n    local cur=\"${{COMP_WORDS[COMP_CWORD]}}\" cmd=\"${{COMP_WORDS[0]##*/}}\"\n    \
         if [[ $cmd == spur ]]; then\n        if (( COMP_CWORD == 1 )); then\n            \
         COMPREPLY=($(compgen -W '{} cluster controller --version' -- \"$cur\"))\n            return\n        fi\n        \
         cmd=\"${{COMP_WORDS[1]}}\"\n    fi\n    if [[ $cur == -* ]]; then\n        \
         COMPREPLY=($(compgen -W \"$(_spur_options \"$cmd\")\" -- \"$cur\"))\n        \
         [[ ${{COMPREPLY[0]}} == *= ]] && compopt -o nospace\n    fi\n}}\n",
        names.join(" ")
    ));
    s.push_str(&format!("complete -o default -F _spur_complete spur {}\n", names.join(" ")));
    s
}

/// `spur man CMD` and `spur completion bash`.
pub fn main(what: &str, args: &[String]) -> i32 {
    match (what, args.first().map(String::as_str)) {
        ("man", Some(cmd)) => match man(cmd) {
            Some(m) => {
                print!("{}", m);
                0
            }
            None => {
                eprintln!("spur man: no command {}", cmd);
                1
            }
        },
        ("completion", Some("bash")) => {
            print!("{}", bash_completion());
            0
        }
        ("man", _) => {
            eprintln!("Usage: spur man COMMAND");
            1
        }
        _ => {
            eprintln!("Usage: spur completion bash");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_lists_its_commands_options() {
        for (cmd, _) in COMMANDS {
            let m = man(cmd).unwrap();
            assert!(m.starts_with(&format!(".TH {} 1 ", cmd.to_ascii_uppercase())), "{}", m);
            for o in options(cmd) {
                if !o.long.is_empty() {
                    assert!(
                        m.contains(&format!("\\fB\\-\\-{}\\fR", o.long.replace('-', "\\-"))),
                        "{} --{}",
                        cmd,
                        o.long
                    );
                }
            }
        }
        let m = man("sbatch").unwrap();
        assert!(m.contains(".TP\n\\fB\\-A\\fR, \\fB\\-\\-account\\fR \\fIvalue\\fR\n"), "{}", m);
        assert!(man("nosuch").is_none());
    }

    #[test]
    fn the_completion_offers_each_commands_options() {
        let c = bash_completion();
        assert!(c.contains("complete -o default -F _spur_complete spur sacct sacctmgr"), "{}", c);
        let sbatch = c.lines().find(|l| l.trim_start().starts_with("sbatch)")).unwrap();
        assert!(
            sbatch.contains("'--account= ") && sbatch.contains(" --wrap= ") && sbatch.contains(" --parsable "),
            "{}",
            sbatch
        );
    }
}
