#![no_main]
// Fuzzes dotnet::parse through discovery's routing, as the file `x.csproj`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("x.csproj", data, false);
    let _ = commandtree_core::discover::parse_bytes("x.csproj", data, true);
});
