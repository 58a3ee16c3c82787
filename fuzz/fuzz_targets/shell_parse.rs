#![no_main]
// Fuzzes shell::parse through discovery's routing, as the file `x.sh`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("x.sh", data, false);
    let _ = commandtree_core::discover::parse_bytes("x.sh", data, true);
});
