//! The version line every command prints for `-V`/`--version`.

/// What every command prints for `-V`/`--version` (and `scontrol version`):
/// Debian's build of Slurm 24.11.5 names its package `slurm-wlm`.
pub const SLURM_VERSION_LINE: &str = "slurm-wlm 24.11.5\n";

/// The version line of the release Spur imitates (spur_core::compat).
pub fn version_line() -> String {
    match spur_core::compat::release() {
        spur_core::compat::Release::V24_11 => SLURM_VERSION_LINE.to_string(),
        r => format!("slurm-wlm {}\n", r.version()),
    }
}
