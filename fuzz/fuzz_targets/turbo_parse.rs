#![no_main]
// Fuzzes turbo::parse through discovery's routing, as the file `turbo.json`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("turbo.json", data, false);
    let _ = commandtree_core::discover::parse_bytes("turbo.json", data, true);
});
