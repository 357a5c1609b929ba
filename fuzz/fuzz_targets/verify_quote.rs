//! `verify_quote`: the input is a fragment and a claim, split at the first 0xFF byte (which is
//! never UTF-8). A match must be whole words of the fragment, with enough of them.
#![no_main]

use libfuzzer_sys::fuzz_target;
use onrecord_fuzz::invariants::check_verified;

fuzz_target!(|data: &[u8]| {
    let at = data.iter().position(|&b| b == 0xFF).unwrap_or(data.len());
    let fragment = String::from_utf8_lossy(&data[..at]);
    let claimed = String::from_utf8_lossy(data.get(at + 1..).unwrap_or_default());
    check_verified(&fragment, &claimed);
});
