#![no_main]
// Fuzzes rake::parse through discovery's routing, as the file `Rakefile`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("Rakefile", data, false);
    let _ = commandtree_core::discover::parse_bytes("Rakefile", data, true);
});
