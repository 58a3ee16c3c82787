#![no_main]
// Fuzzes composer::parse through discovery's routing, as the file `composer.json`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("composer.json", data, false);
    let _ = commandtree_core::discover::parse_bytes("composer.json", data, true);
});
