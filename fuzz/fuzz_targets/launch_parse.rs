#![no_main]
// Fuzzes launch::parse through discovery's routing, as the file `.vscode/launch.json`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes(".vscode/launch.json", data, false);
    let _ = commandtree_core::discover::parse_bytes(".vscode/launch.json", data, true);
});
