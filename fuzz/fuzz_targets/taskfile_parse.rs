#![no_main]
// Fuzzes taskfile::parse through discovery's routing, as the file `Taskfile.yml`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("Taskfile.yml", data, false);
    let _ = commandtree_core::discover::parse_bytes("Taskfile.yml", data, true);
});
