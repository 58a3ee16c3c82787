#![no_main]
// Fuzzes npm::parse through discovery's routing, as the file `package.json`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("package.json", data, false);
    let _ = commandtree_core::discover::parse_bytes("package.json", data, true);
});
