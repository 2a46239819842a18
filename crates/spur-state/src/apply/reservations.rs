//! Reservations: `ResvCreate`, `ResvUpdate`, `ResvDelete` (the leader has
//! resolved times, nodes and users into the whole record).

use crate::{Applied, ApplyResult, State};
use spur_core::errors::*;
use spur_core::model::Reservation;

impl State {
    pub(crate) fn resv_create(&mut self, resv: &Reservation) -> ApplyResult {
        // fields a snapshot at the cluster's format version would lose
        if resv.min_format_version() > self.write_format_version() {
            return Err(ESLURM_NOT_SUPPORTED);
        }
        if self.reservations.iter().any(|r| r.name == resv.name) {
            return Err(ESLURM_RESERVATION_NAME_DUP);
        }
        self.reservations.push(resv.clone());
        // (slurmctld's top_suffix is a uint32_t: it wraps)
        self.resv_top = self.resv_top.wrapping_add(1);
        Ok(Applied::Ok)
    }

    pub(crate) fn resv_update(&mut self, resv: &Reservation) -> ApplyResult {
        if resv.min_format_version() > self.write_format_version() {
            return Err(ESLURM_NOT_SUPPORTED);
        }
        let r = self.reservations.iter_mut().find(|r| r.name == resv.name).ok_or(ESLURM_RESERVATION_INVALID)?;
        *r = resv.clone();
        Ok(Applied::Ok)
    }

    pub(crate) fn resv_delete(&mut self, name: &str) -> ApplyResult {
        let before = self.reservations.len();
        self.reservations.retain(|r| r.name != name);
        if self.reservations.len() == before {
            return Err(ESLURM_RESERVATION_INVALID);
        }
        Ok(Applied::Ok)
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::*;
    use crate::{Applied, Command};
    use spur_core::errors::*;
    use spur_core::model::*;

    fn resv(name: &str) -> Reservation {
        Reservation { name: name.into(), start_time: 10, end_time: 20, nodes: vec!["n1".into()], ..Default::default() }
    }

    #[test]
    fn resv_create_adds_one_and_counts_it() {
        let mut s = cluster();
        assert_eq!(s.apply(&Command::ResvCreate { resv: resv("r") }), Ok(Applied::Ok));
        assert_eq!((s.reservations().len(), s.resv_top()), (1, 1));
        assert!(!s.view(5).nodes[0].flags.reserved);
        assert_eq!(s.view(15).nodes[0].state_short(), "resv");
        assert_eq!(s.view(15).nodes[1].state_short(), "idle");
        refused(&mut s, Command::ResvCreate { resv: resv("r") }, ESLURM_RESERVATION_NAME_DUP);
    }

    #[test]
    fn resv_update_replaces_the_record() {
        let mut s = cluster();
        s.apply(&Command::ResvCreate { resv: resv("r") }).unwrap();
        let m = Reservation { flags: vec!["MAINT".into()], ..resv("r") };
        assert_eq!(s.apply(&Command::ResvUpdate { resv: m }), Ok(Applied::Ok));
        assert_eq!(s.view(15).nodes[0].state_long(), "maint");
        refused(&mut s, Command::ResvUpdate { resv: resv("x") }, ESLURM_RESERVATION_INVALID);
    }

    #[test]
    fn resv_delete_removes_it() {
        let mut s = cluster();
        s.apply(&Command::ResvCreate { resv: resv("r") }).unwrap();
        assert_eq!(s.apply(&Command::ResvDelete { name: "r".into() }), Ok(Applied::Ok));
        assert_eq!(s.view(15).nodes[0].state_short(), "idle");
        refused(&mut s, Command::ResvDelete { name: "r".into() }, ESLURM_RESERVATION_INVALID);
        // the number goes on
        s.apply(&Command::ResvCreate { resv: resv("r") }).unwrap();
        assert_eq!(s.resv_top(), 2);
    }
}
