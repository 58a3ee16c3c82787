#![no_main]
// Fuzzes gradle::parse through discovery's routing, as the file `build.gradle`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("build.gradle", data, false);
    let _ = commandtree_core::discover::parse_bytes("build.gradle", data, true);
});
