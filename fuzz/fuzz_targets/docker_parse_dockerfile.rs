#![no_main]
// Fuzzes docker::parse_dockerfile through discovery's routing, as the file `Dockerfile`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("Dockerfile", data, false);
    let _ = commandtree_core::discover::parse_bytes("Dockerfile", data, true);
});
