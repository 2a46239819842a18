//! The model records that travel inside wire payloads and spool files, in
//! their `spur_format` envelopes: a job description (`SubmitRequest.job_desc`),
//! a cluster view (`QueryReply.view`) and a launch spec (`LaunchRequest.spec`,
//! written unchanged to the job's spool as `spec.bin`).
//!
//! A sender writes at the newest version both ends read: a request carries
//! the version its sender reads up to, a reply is written at it
//! ([`spur_format::version_for`]); the controller writes a launch at what the
//! agent's ping reply says it reads. A record of a newer version than this
//! build reads is refused with both versions in the error; one with no
//! envelope is version 0 (bincode of the builds before versioned formats),
//! read through [`crate::legacy_v0`] where it existed then (a job
//! description, a launch spec).

use crate::launch::{LaunchSpec, StepCreate, StepLaunch};
use crate::model::Step;
use crate::model::{ClusterView, JobDesc};
use spur_format::{FormatError, Kind, Version};
use std::fmt::Display;

pub fn encode_job_desc(d: &JobDesc, version: Version) -> Result<Vec<u8>, FormatError> {
    spur_format::encode(Kind::JOB_DESC, version, d)
}

pub fn decode_job_desc(b: &[u8], source: &dyn Display) -> Result<JobDesc, String> {
    if spur_format::is_enveloped(b) {
        return spur_format::decode(Kind::JOB_DESC, b, source).map(|(d, _)| d).map_err(|e| e.to_string());
    }
    crate::legacy_v0::decode_job_desc(b)
        .map_err(|e| format!("{}: corrupt job description (format version 0): {}", source, e))
}

pub fn encode_view<T: serde::Serialize + ?Sized>(v: &T, version: Version) -> Result<Vec<u8>, FormatError> {
    spur_format::encode(Kind::VIEW, version, v)
}

pub fn decode_view(b: &[u8], source: &dyn Display) -> Result<ClusterView, FormatError> {
    spur_format::decode(Kind::VIEW, b, source).map(|(v, _)| v)
}

pub fn encode_launch(s: &LaunchSpec, version: Version) -> Result<Vec<u8>, FormatError> {
    spur_format::encode(Kind::LAUNCH, version, s)
}

pub fn decode_launch(b: &[u8], source: &dyn Display) -> Result<LaunchSpec, String> {
    if spur_format::is_enveloped(b) {
        return spur_format::decode(Kind::LAUNCH, b, source).map(|(s, _)| s).map_err(|e| e.to_string());
    }
    crate::legacy_v0::decode_launch_spec(b)
        .map_err(|e| format!("{}: corrupt launch spec (format version 0): {}", source, e))
}

pub fn encode_step_create(s: &StepCreate, version: Version) -> Result<Vec<u8>, FormatError> {
    spur_format::encode(Kind::STEP, version, s)
}

pub fn decode_step_create(b: &[u8], source: &dyn Display) -> Result<StepCreate, FormatError> {
    spur_format::decode(Kind::STEP, b, source).map(|(s, _)| s)
}

pub fn encode_step(s: &Step, version: Version) -> Result<Vec<u8>, FormatError> {
    spur_format::encode(Kind::STEP, version, s)
}

pub fn decode_step(b: &[u8], source: &dyn Display) -> Result<Step, FormatError> {
    spur_format::decode(Kind::STEP, b, source).map(|(s, _)| s)
}

pub fn encode_step_launch(s: &StepLaunch, version: Version) -> Result<Vec<u8>, FormatError> {
    spur_format::encode(Kind::STEP_LAUNCH, version, s)
}

pub fn decode_step_launch(b: &[u8], source: &dyn Display) -> Result<StepLaunch, FormatError> {
    spur_format::decode(Kind::STEP_LAUNCH, b, source).map(|(s, _)| s)
}

/// Whether a decoding error is a newer version than this build reads (the
/// caller answers Slurm's protocol version error rather than a bad message).
pub fn is_too_new(e: &str) -> bool {
    e.contains("newer than this build of spur reads")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::AcceptedOptions;

    /// `JobDesc.accepted` at each version: version 1 writes the whole
    /// options (what a version-1 build reads), version 2 nil when there are
    /// none; both read back as the same description.
    #[test]
    fn accepted_options_by_version() {
        let plain = JobDesc { name: "j".into(), ..Default::default() };
        let v1 = encode_job_desc(&plain, 1).unwrap();
        let v2 = encode_job_desc(&plain, 2).unwrap();
        assert!(v1.len() > v2.len() + 40, "v1 {} bytes, v2 {}", v1.len(), v2.len());
        for b in [&v1, &v2] {
            assert_eq!(decode_job_desc(b, &"t").unwrap(), plain);
        }
        let mut some = plain.clone();
        some.accepted = Some(Box::new(AcceptedOptions { wckey: Some("w".into()), ..Default::default() }));
        for v in [1, 2] {
            assert_eq!(decode_job_desc(&encode_job_desc(&some, v).unwrap(), &"t").unwrap(), some);
        }
    }
}
