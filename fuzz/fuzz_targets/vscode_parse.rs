#![no_main]
// Fuzzes vscode::parse through discovery's routing, as the file `.vscode/tasks.json`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes(".vscode/tasks.json", data, false);
    let _ = commandtree_core::discover::parse_bytes(".vscode/tasks.json", data, true);
});
