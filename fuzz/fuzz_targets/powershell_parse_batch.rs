#![no_main]
// Fuzzes powershell::parse_batch through discovery's routing, as the file `x.bat`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("x.bat", data, false);
    let _ = commandtree_core::discover::parse_bytes("x.bat", data, true);
});
