//! Feeds model-file bodies of every margin model kind to `from_bytes`: the first byte picks the
//! kind, the rest is the body, sealed with a valid header and checksum. A refusal must be
//! `Error::ModelFile`; a loaded model must answer every prediction-side method on dense and
//! sparse probes of its width with an answer of the right length or a typed error. A panic, an
//! abort or a runaway allocation is a bug (see `margin_fuzz::check_input`).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| margin_fuzz::check_input(data));
