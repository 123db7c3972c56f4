//! Any batch against any text: the bytes decode into a text and a request
//! (valid or not); the engine never panics, fails exactly when and how the
//! reference model says, and otherwise gives the model's lines.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let case = hashline_fuzz::model::case(data);
    hashline_fuzz::model::check_pure(&case);
    hashline_fuzz::model::check_cleanup(&case);
});
