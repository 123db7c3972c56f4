//! Any string, as a model might send it for a ref: parsing never panics, a
//! parsed ref round-trips through its canonical form and every tolerated
//! decoration, and a rejection names the expected form.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    hashline_fuzz::model::check_parse(&String::from_utf8_lossy(data));
});
