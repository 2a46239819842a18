//! gres.conf (`spur_core::gres_conf::parse_gres_conf`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = spur_fuzz::text(data);
    if let Ok(lines) = spur_core::gres_conf::parse_gres_conf(&text) {
        for l in lines {
            assert!(l.line >= 1, "{l:?}");
        }
    }
});
