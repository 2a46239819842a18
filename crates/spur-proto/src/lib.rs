//! Spur's gRPC protocol, generated from `proto/spur.proto`, and the
//! translation of spur-core's request types to and from it (`convert`).
#![allow(clippy::all)]
pub mod v1 {
    tonic::include_proto!("spur.v1");
}
pub use v1::*;

pub mod convert;
