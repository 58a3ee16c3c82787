#![no_main]
// Fuzzes ruby::parse through discovery's routing, as the file `script.rb`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("script.rb", data, false);
    let _ = commandtree_core::discover::parse_bytes("script.rb", data, true);
});
