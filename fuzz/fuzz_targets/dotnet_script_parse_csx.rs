#![no_main]
// Fuzzes dotnet_script::parse_csx through discovery's routing, as the file `x.csx`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("x.csx", data, false);
    let _ = commandtree_core::discover::parse_bytes("x.csx", data, true);
});
