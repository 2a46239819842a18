//! A query's answer, serialised straight from the state: [`ViewOut`] is
//! `ClusterView` as its `spur_format` envelope writes it (same fields, same
//! order, same encoding: `spur_core::records`), made of references into the state, so an answer costs no copy
//! of the jobs and changes nothing in them.
//!
//! A job goes out without its environment, and without its script unless
//! asked (`scontrol write batch_script`): most of a job's bytes, and no
//! command prints them. They are left out while serialising ([`Lean`]), so
//! the bytes are exactly those of a copy of the job with the two emptied.

use serde::ser::{SerializeStruct, Serializer};
use serde::Serialize;
use spur_core::model::{Job, Node, Partition, Reservation};
use std::borrow::Cow;

/// `ClusterView` made of references.
#[derive(Serialize)]
pub struct ViewOut<'a> {
    pub cluster_name: &'a str,
    pub now: i64,
    pub jobs: Vec<Lean<'a>>,
    pub nodes: Cow<'a, [Node]>,
    pub partitions: &'a [Partition],
    /// (those the caller may see: PrivateData=reservations)
    pub reservations: Vec<&'a Reservation>,
    /// The QOS records; format version 11.
    #[serde(skip_serializing_if = "spur_format::skip_before::<11, _>")]
    pub qos: Cow<'a, [spur_core::qos::Qos]>,
    /// The accounts, users and associations (with accounting); format
    /// version 12.
    #[serde(skip_serializing_if = "spur_format::skip_before::<12, _>")]
    pub assocs: Option<Cow<'a, spur_core::assoc::Assocs>>,
}

impl ViewOut<'_> {
    /// The view's envelope at format `version` (what the caller reads).
    pub fn encode(&self, version: spur_format::Version) -> Result<Vec<u8>, spur_format::FormatError> {
        spur_core::records::encode_view(self, version)
    }
}

/// A job serialised with an empty environment, and an empty script unless
/// `script`.
#[derive(Clone, Copy)]
pub struct Lean<'a> {
    pub job: &'a Job,
    pub script: bool,
}

impl Serialize for Lean<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.job.serialize(Skip { inner: s, script: self.script })
    }
}

/// A part of a job to serialise through [`Skip`].
struct Part<'a, T: ?Sized> {
    value: &'a T,
    script: bool,
}

impl<T: ?Sized + Serialize> Serialize for Part<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(Skip { inner: s, script: self.script })
    }
}

/// A serializer that passes everything through to `inner`, except the
/// fields `env` and `script` of a `JobDesc` inside a `Job`, written empty.
struct Skip<S> {
    inner: S,
    script: bool,
}

/// The fields of a `Job` (or of its `JobDesc`) on their way to `inner`.
struct SkipStruct<S> {
    inner: S,
    name: &'static str,
    script: bool,
}

impl<S: SerializeStruct> SerializeStruct for SkipStruct<S> {
    type Ok = S::Ok;
    type Error = S::Error;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<(), S::Error> {
        match (self.name, key) {
            ("Job", "desc") => self.inner.serialize_field(key, &Part { value, script: self.script }),
            ("JobDesc", "env") => self.inner.serialize_field(key, &[] as &[(String, String)]),
            ("JobDesc", "script") if !self.script => self.inner.serialize_field(key, ""),
            _ => self.inner.serialize_field(key, value),
        }
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), S::Error> {
        self.inner.skip_field(key)
    }

    fn end(self) -> Result<S::Ok, S::Error> {
        self.inner.end()
    }
}

impl<S: Serializer> Serializer for Skip<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = S::SerializeSeq;
    type SerializeTuple = S::SerializeTuple;
    type SerializeTupleStruct = S::SerializeTupleStruct;
    type SerializeTupleVariant = S::SerializeTupleVariant;
    type SerializeMap = S::SerializeMap;
    type SerializeStruct = SkipStruct<S::SerializeStruct>;
    type SerializeStructVariant = S::SerializeStructVariant;

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Self::SerializeStruct, S::Error> {
        Ok(SkipStruct { inner: self.inner.serialize_struct(name, len)?, name, script: self.script })
    }

    // everything else as it is
    fn serialize_bool(self, v: bool) -> Result<S::Ok, S::Error> {
        self.inner.serialize_bool(v)
    }
    fn serialize_i8(self, v: i8) -> Result<S::Ok, S::Error> {
        self.inner.serialize_i8(v)
    }
    fn serialize_i16(self, v: i16) -> Result<S::Ok, S::Error> {
        self.inner.serialize_i16(v)
    }
    fn serialize_i32(self, v: i32) -> Result<S::Ok, S::Error> {
        self.inner.serialize_i32(v)
    }
    fn serialize_i64(self, v: i64) -> Result<S::Ok, S::Error> {
        self.inner.serialize_i64(v)
    }
    fn serialize_i128(self, v: i128) -> Result<S::Ok, S::Error> {
        self.inner.serialize_i128(v)
    }
    fn serialize_u8(self, v: u8) -> Result<S::Ok, S::Error> {
        self.inner.serialize_u8(v)
    }
    fn serialize_u16(self, v: u16) -> Result<S::Ok, S::Error> {
        self.inner.serialize_u16(v)
    }
    fn serialize_u32(self, v: u32) -> Result<S::Ok, S::Error> {
        self.inner.serialize_u32(v)
    }
    fn serialize_u64(self, v: u64) -> Result<S::Ok, S::Error> {
        self.inner.serialize_u64(v)
    }
    fn serialize_u128(self, v: u128) -> Result<S::Ok, S::Error> {
        self.inner.serialize_u128(v)
    }
    fn serialize_f32(self, v: f32) -> Result<S::Ok, S::Error> {
        self.inner.serialize_f32(v)
    }
    fn serialize_f64(self, v: f64) -> Result<S::Ok, S::Error> {
        self.inner.serialize_f64(v)
    }
    fn serialize_char(self, v: char) -> Result<S::Ok, S::Error> {
        self.inner.serialize_char(v)
    }
    fn serialize_str(self, v: &str) -> Result<S::Ok, S::Error> {
        self.inner.serialize_str(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<S::Ok, S::Error> {
        self.inner.serialize_bytes(v)
    }
    fn serialize_none(self) -> Result<S::Ok, S::Error> {
        self.inner.serialize_none()
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<S::Ok, S::Error> {
        self.inner.serialize_some(v)
    }
    fn serialize_unit(self) -> Result<S::Ok, S::Error> {
        self.inner.serialize_unit()
    }
    fn serialize_unit_struct(self, name: &'static str) -> Result<S::Ok, S::Error> {
        self.inner.serialize_unit_struct(name)
    }
    fn serialize_unit_variant(self, name: &'static str, i: u32, variant: &'static str) -> Result<S::Ok, S::Error> {
        self.inner.serialize_unit_variant(name, i, variant)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, name: &'static str, v: &T) -> Result<S::Ok, S::Error> {
        self.inner.serialize_newtype_struct(name, v)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        i: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<S::Ok, S::Error> {
        self.inner.serialize_newtype_variant(name, i, variant, v)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<S::SerializeSeq, S::Error> {
        self.inner.serialize_seq(len)
    }
    fn serialize_tuple(self, len: usize) -> Result<S::SerializeTuple, S::Error> {
        self.inner.serialize_tuple(len)
    }
    fn serialize_tuple_struct(self, name: &'static str, len: usize) -> Result<S::SerializeTupleStruct, S::Error> {
        self.inner.serialize_tuple_struct(name, len)
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        i: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<S::SerializeTupleVariant, S::Error> {
        self.inner.serialize_tuple_variant(name, i, variant, len)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<S::SerializeMap, S::Error> {
        self.inner.serialize_map(len)
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        i: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<S::SerializeStructVariant, S::Error> {
        self.inner.serialize_struct_variant(name, i, variant, len)
    }
    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::model::{ClusterView, JobDesc};

    fn fixtures() -> (Job, Node, Partition, Reservation) {
        let mut job = Job { job_id: 7, user_name: "alice".into(), partition: "p".into(), ..Default::default() };
        job.desc = JobDesc {
            name: "wrap".into(),
            argv: vec!["a".into(), "b".into()],
            script: "#!/bin/sh\necho hi\n".into(),
            env: vec![("HOME".into(), "/home/alice".into()), ("PATH".into(), "/bin".into())].into(),
            comment: Some("c".into()),
            ..Default::default()
        };
        job.desc.reservation = Some("r".into());
        let node = Node { name: "n1".into(), cpus: 4, ..Default::default() };
        let part = Partition {
            name: "p".into(),
            nodes: vec!["n1".into()],
            max_time: Some(60),
            min_nodes: 1,
            allow_accounts: Some(vec!["x".into()]),
            other: vec![("K".into(), "V".into())],
            ..Default::default()
        };
        let resv = Reservation { name: "r".into(), start_time: 1, end_time: 2, ..Default::default() };
        (job, node, part, resv)
    }

    /// The borrowed view writes exactly the bytes of a `ClusterView` holding
    /// copies of the jobs with the environment (and the script) emptied.
    #[test]
    fn view_out_encodes_as_a_cluster_view_of_lean_jobs() {
        let (job, node, part, resv) = fixtures();
        let before = bincode::serialize(&job).unwrap();
        for script in [false, true] {
            let mut lean = job.clone();
            lean.desc.env.clear();
            if !script {
                lean.desc.script.clear();
            }
            let view = ClusterView {
                cluster_name: "c".into(),
                now: 42,
                jobs: vec![lean.clone(), lean],
                nodes: vec![node.clone()],
                partitions: vec![part.clone()],
                reservations: vec![resv.clone()],
                qos: vec![spur_core::qos::Qos::normal()],
                assocs: Some(Default::default()),
                plans: Default::default(),
                fair_share: Default::default(),
            };
            let out = ViewOut {
                cluster_name: "c",
                now: 42,
                jobs: vec![Lean { job: &job, script }, Lean { job: &job, script }],
                nodes: Cow::Borrowed(std::slice::from_ref(&node)),
                partitions: std::slice::from_ref(&part),
                reservations: vec![&resv],
                qos: Cow::Owned(vec![spur_core::qos::Qos::normal()]),
                assocs: Some(Cow::Owned(Default::default())),
            };
            let v = spur_format::FORMAT_VERSION;
            let bytes = out.encode(v).unwrap();
            assert_eq!(bytes, spur_core::records::encode_view(&view, v).unwrap());
            let back: ClusterView = spur_core::records::decode_view(&bytes, &"test").unwrap();
            assert!(back.jobs[0].desc.env.is_empty());
            assert_eq!(back.jobs[0].desc.script.is_empty(), !script);
            assert_eq!(back.jobs[0].desc.reservation.as_deref(), Some("r"));
        }
        // the job itself is as it was
        assert_eq!(bincode::serialize(&job).unwrap(), before);
    }
}
