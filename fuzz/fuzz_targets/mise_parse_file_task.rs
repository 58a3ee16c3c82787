#![no_main]
// Fuzzes mise::parse_file_task through discovery's routing, as the file `.mise/tasks/x`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes(".mise/tasks/x", data, false);
    let _ = commandtree_core::discover::parse_bytes(".mise/tasks/x", data, true);
});
