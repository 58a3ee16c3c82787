#![no_main]
// Fuzzes markdown::parse through discovery's routing, as the file `x.md`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("x.md", data, false);
    let _ = commandtree_core::discover::parse_bytes("x.md", data, true);
});
