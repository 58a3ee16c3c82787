#![no_main]
// Fuzzes nx::parse through discovery's routing, as the file `project.json`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("project.json", data, false);
    let _ = commandtree_core::discover::parse_bytes("project.json", data, true);
});
