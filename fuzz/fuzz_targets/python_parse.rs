#![no_main]
// Fuzzes python::parse through discovery's routing, as the file `x.py`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("x.py", data, false);
    let _ = commandtree_core::discover::parse_bytes("x.py", data, true);
});
