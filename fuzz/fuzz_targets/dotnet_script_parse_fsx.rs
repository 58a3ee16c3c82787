#![no_main]
// Fuzzes dotnet_script::parse_fsx through discovery's routing, as the file `x.fsx`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("x.fsx", data, false);
    let _ = commandtree_core::discover::parse_bytes("x.fsx", data, true);
});
