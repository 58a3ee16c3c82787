#![no_main]
// Fuzzes mise::parse_config through discovery's routing, as the file `mise.toml`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("mise.toml", data, false);
    let _ = commandtree_core::discover::parse_bytes("mise.toml", data, true);
});
