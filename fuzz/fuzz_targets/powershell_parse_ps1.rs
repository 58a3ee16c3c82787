#![no_main]
// Fuzzes powershell::parse_ps1 through discovery's routing, as the file `x.ps1`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("x.ps1", data, false);
    let _ = commandtree_core::discover::parse_bytes("x.ps1", data, true);
});
