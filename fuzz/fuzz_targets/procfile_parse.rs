#![no_main]
// Fuzzes procfile::parse through discovery's routing, as the file `Procfile`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("Procfile", data, false);
    let _ = commandtree_core::discover::parse_bytes("Procfile", data, true);
});
