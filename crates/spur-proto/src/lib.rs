//! Spur's gRPC protocol, generated from `proto/spur.proto`.
#![allow(clippy::all)]
pub mod v1 {
    tonic::include_proto!("spur.v1");
}
pub use v1::*;
