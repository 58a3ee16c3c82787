#![no_main]
// Fuzzes workflow::parse through discovery's routing, as the file `.github/workflows/x.yml`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes(".github/workflows/x.yml", data, false);
    let _ = commandtree_core::discover::parse_bytes(".github/workflows/x.yml", data, true);
});
