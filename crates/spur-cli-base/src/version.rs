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

/// What 22.05's commands log at `-v` when they load jobs or nodes: the four
/// select plugins (recorded/22.05/query_surface/040 squeue, 146 scancel).
pub fn select_plugin_lines_22_05(prog: &str) -> String {
    [
        "select/cons_tres: common_init: select/cons_tres loaded",
        "select/cray_aries: init: Cray/Aries node selection plugin loaded",
        "select/linear: init: Linear node selection plugin loaded with argument 20",
        "select/cons_res: common_init: select/cons_res loaded",
    ]
    .iter()
    .map(|l| format!("{}: {}\n", prog, l))
    .collect()
}
