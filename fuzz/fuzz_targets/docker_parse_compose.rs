#![no_main]
// Fuzzes docker::parse_compose through discovery's routing, as the file `docker-compose.yml`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("docker-compose.yml", data, false);
    let _ = commandtree_core::discover::parse_bytes("docker-compose.yml", data, true);
});
