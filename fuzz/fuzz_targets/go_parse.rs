#![no_main]
// Fuzzes go::parse through discovery's routing, as the file `go.mod`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("go.mod", data, false);
    let _ = commandtree_core::discover::parse_bytes("go.mod", data, true);
});
