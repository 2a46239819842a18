//! Each request of the `Agent` gRPC service (spurd): the first byte picks
//! the RPC, the rest is its message; a launch's spec is read as spurd reads
//! it (`spur_core::records::decode_launch`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use prost::Message;
use spur_proto::v1 as pb;

fuzz_target!(|data: &[u8]| {
    let Some((&rpc, body)) = data.split_first() else { return };
    match rpc % 3 {
        0 => {
            let Ok(r) = pb::LaunchRequest::decode(body) else { return };
            if let Ok(spec) = spur_core::records::decode_launch(&r.spec, &"fuzz") {
                // what the agent sends on reads back the same
                let again = spur_core::records::encode_launch(&spec, spur_format::FORMAT_VERSION).expect("encodes");
                assert_eq!(spur_core::records::decode_launch(&again, &"fuzz").expect("decodes"), spec);
            }
        }
        1 => {
            let Ok(r) = pb::SignalRequest::decode(body) else { return };
            let _ = pb::StopReason::try_from(r.reason);
        }
        _ => {
            let _ = pb::PingRequest::decode(body);
        }
    }
});
