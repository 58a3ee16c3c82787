#![no_main]
// Fuzzes dotnet::parse_solution through discovery's routing, as `x.sln` and `x.slnx`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("x.sln", data, false);
    let _ = commandtree_core::discover::parse_bytes("x.slnx", data, false);
});
