#![no_main]
// Fuzzes make::parse through discovery's routing, as the file `Makefile`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("Makefile", data, false);
    let _ = commandtree_core::discover::parse_bytes("Makefile", data, true);
});
