#![no_main]
// Fuzzes just::parse through discovery's routing, as the file `justfile`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("justfile", data, false);
    let _ = commandtree_core::discover::parse_bytes("justfile", data, true);
});
