//! Each request of the `Controller` gRPC service: the first byte picks the
//! RPC, the rest is its message as it arrives (protobuf, decoded by prost),
//! then the controller's decoding into a typed request and its validation
//! (`spur_fuzz::controller`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use prost::Message;
use spur_fuzz::controller;
use spur_proto::v1 as pb;

fuzz_target!(|data: &[u8]| {
    let Some((&rpc, body)) = data.split_first() else { return };
    match rpc % 12 {
        0 => {
            if let Ok(r) = pb::SubmitRequest::decode(body) {
                controller::submit(r)
            }
        }
        1 => {
            if let Ok(r) = pb::QueryRequest::decode(body) {
                controller::query(r)
            }
        }
        2 => {
            if let Ok(r) = pb::CancelRequest::decode(body) {
                controller::cancel(r)
            }
        }
        3 => {
            if let Ok(r) = pb::JobControlRequest::decode(body) {
                controller::job_control(r)
            }
        }
        4 => {
            if let Ok(r) = pb::NodeControlRequest::decode(body) {
                controller::node_control(r)
            }
        }
        5 => {
            if let Ok(r) = pb::ReservationRequest::decode(body) {
                controller::reservation(r)
            }
        }
        6 => {
            if let Ok(r) = pb::RegisterRequest::decode(body) {
                controller::register(r)
            }
        }
        7 => {
            if let Ok(r) = pb::JobCompleteRequest::decode(body) {
                controller::job_complete(r)
            }
        }
        8 => {
            let _ = pb::PingRequest::decode(body);
        }
        10 => {
            // sacct's query as the controller reads it, then its filter and
            // window over a record
            if let Ok(r) = pb::AccountingRequest::decode(body) {
                let q =
                    spur_format::decode::<spur_core::acct::AcctQuery>(spur_format::Kind::ACCT_QUERY, &r.query, &"fuzz");
                if let Ok((q, _)) = q {
                    let j =
                        spur_core::acct::AcctJob { submit: 10, eligible: 10, start: 20, end: 30, ..Default::default() };
                    let _ = q.matches(&j);
                }
            }
        }
        11 => {
            let _ = pb::StepStatRequest::decode(body);
        }
        _ => {
            if let Ok(r) = pb::MembershipRequest::decode(body) {
                controller::membership(r)
            }
        }
    }
});
