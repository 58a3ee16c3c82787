#![no_main]
// Fuzzes pyproject::parse through discovery's routing, as the file `pyproject.toml`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("pyproject.toml", data, false);
    let _ = commandtree_core::discover::parse_bytes("pyproject.toml", data, true);
});
