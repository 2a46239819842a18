//! The controller's pure decisions, a library so that the fuzz targets
//! (`fuzz/`) run the very code the `spurctld` binary runs: [`validate`] (who
//! may do what and which values of a typed request are acceptable) and
//! [`resv`] (a reservation request planned against the state). The rest of
//! the controller is the binary's (`main.rs`).
pub mod resv;
pub mod validate;
