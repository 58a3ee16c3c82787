#![no_main]
// Fuzzes ant::parse through discovery's routing, as the file `build.xml`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("build.xml", data, false);
    let _ = commandtree_core::discover::parse_bytes("build.xml", data, true);
});
