#![no_main]
// Fuzzes cargo::parse through discovery's routing, as the file `Cargo.toml`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("Cargo.toml", data, false);
    let _ = commandtree_core::discover::parse_bytes("Cargo.toml", data, true);
});
