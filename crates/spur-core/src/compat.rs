//! Which Slurm release Spur imitates where releases differ.
//!
//! Spur behaves like Slurm 24.11 unless the environment variable
//! `SPUR_SLURM_COMPAT` names an older release that Spur knows (`22.05`);
//! then the commands, the controller and the agents follow that release where
//! its behaviour is known to differ (version strings, the fields and lines of
//! `scontrol show`, squeue's `-O` field set, the batch environment, and the
//! defaults of slurm.conf keys that changed, applied only when the key is
//! absent). The variable is read once per process; `spur cluster up
//! --compat 22.05` sets it for the daemons it starts and prints it among the
//! `export` lines, so every process of a cluster agrees.

use std::sync::OnceLock;

/// The environment variable that selects the release.
pub const ENV: &str = "SPUR_SLURM_COMPAT";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Release {
    /// Slurm 22.05 (Debian 12's 22.05.8).
    V22_05,
    /// Slurm 24.11 (Debian 13's 24.11.5), the default.
    V24_11,
}

impl Release {
    /// `22.05`, `22.05.8`, `24.11`, `24.11.5` (surrounding blanks ignored);
    /// anything else is not a release Spur imitates.
    pub fn parse(s: &str) -> Option<Release> {
        match s.trim() {
            "22.05" | "22.05.8" => Some(Release::V22_05),
            "24.11" | "24.11.5" => Some(Release::V24_11),
            _ => None,
        }
    }

    /// The full version Slurm prints (`sbatch -V`, `Version=` of show node).
    pub fn version(self) -> &'static str {
        match self {
            Release::V22_05 => "22.05.8",
            Release::V24_11 => "24.11.5",
        }
    }

    /// The short name used by `--compat` and the variable.
    pub fn name(self) -> &'static str {
        match self {
            Release::V22_05 => "22.05",
            Release::V24_11 => "24.11",
        }
    }

    /// slurm.conf's `PriorityType` when the key is absent.
    pub fn default_priority_type(self) -> &'static str {
        match self {
            Release::V22_05 => "priority/basic",
            Release::V24_11 => "priority/multifactor",
        }
    }
}

static RELEASE: OnceLock<Release> = OnceLock::new();

/// The release this process imitates: `SPUR_SLURM_COMPAT` if it names a known
/// release, else 24.11 (an unknown value is ignored, not an error, so that a
/// stray setting can never stop a command from running).
pub fn release() -> Release {
    *RELEASE.get_or_init(|| std::env::var(ENV).ok().and_then(|v| Release::parse(&v)).unwrap_or(Release::V24_11))
}

/// Shorthand for `release() == Release::V22_05`.
pub fn v22_05() -> bool {
    release() == Release::V22_05
}

/// The signal names the imitated release knows (24.11 added CHLD and PIPE).
pub fn signal_names() -> spur_grammar::signal::Names {
    if v22_05() {
        spur_grammar::signal::Names::V22_05
    } else {
        spur_grammar::signal::Names::V24_11
    }
}

/// The PriorityType in force: the configured one, else the release's default.
pub fn priority_type(configured: Option<&str>) -> &str {
    match configured {
        Some(s) if !s.is_empty() => s,
        _ => release().default_priority_type(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_names() {
        assert_eq!(Release::parse("22.05"), Some(Release::V22_05));
        assert_eq!(Release::parse(" 22.05.8\n"), Some(Release::V22_05));
        assert_eq!(Release::parse("24.11"), Some(Release::V24_11));
        assert_eq!(Release::parse(""), None);
        assert_eq!(Release::parse("23.02"), None);
        assert_eq!(Release::parse("\u{0}garbage"), None);
        assert_eq!(Release::V22_05.version(), "22.05.8");
        assert_eq!(Release::V24_11.default_priority_type(), "priority/multifactor");
    }

    #[test]
    fn configured_priority_type_wins() {
        assert_eq!(priority_type(Some("priority/basic")), "priority/basic");
    }
}
