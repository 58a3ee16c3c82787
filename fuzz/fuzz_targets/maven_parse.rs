#![no_main]
// Fuzzes maven::parse through discovery's routing, as the file `pom.xml`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("pom.xml", data, false);
    let _ = commandtree_core::discover::parse_bytes("pom.xml", data, true);
});
