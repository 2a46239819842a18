//! Every Slurm grammar once, for the commands, the controller, the agent and
//! (later) the C ABI library:
//!
//! | module | grammar | Slurm's reader |
//! |---|---|---|
//! | [`num`] | C numbers | glibc `strtol`, `strtoul`, `atoi` |
//! | [`hostlist`] | `n[1-3,7],m5` | `hostlist.c` |
//! | [`time`] | time limits, dates, their printing | `parse_time.c` |
//! | [`size`] | memory sizes, their printing | `str_to_mbytes`, `convert_num_unit` |
//! | [`gres`] | node `Gres=`, job GRES requests | `slurm_get_next_tres` |
//! | [`array`] | `--array` specifications | `slurm_parse_array_tok` |
//! | [`jobref`] | job references (`5_3.batch`) | `unfmt_job_id_string` and each command's own |
//! | [`dependency`] | `--dependency`, `--kill-on-invalid-dep` | `update_job_dependency` |
//! | [`signal`] | signal names, `--signal` | `sig_name2num`, `get_signal_opts` |
//! | [`feature`] | `--constraint` expressions | `build_feature_list` |
//! | [`keyword`] | keyword abbreviations | sacctmgr's `xstrncasecmp(.., MAX(len, min))` |
//!
//! This is the lowest crate of Spur: it depends on nothing of Spur, does no
//! I/O (the one exception: `time` asks the C library for the local time
//! zone), starts no process and has no async. Each parser returns a typed
//! value or a typed error and never panics, whatever its input. Each grammar
//! has a table of inputs run through real Slurm under `tests/data/` (each
//! file says which Slurm and how; `tests/record/` re-records them) and a
//! garbage-input test.
pub mod array;
pub mod dependency;
pub mod feature;
pub mod gres;
pub mod hostlist;
pub mod jobref;
pub mod keyword;
pub mod num;
pub mod signal;
pub mod size;
pub mod time;
