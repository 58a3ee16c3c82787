#![no_main]
// Fuzzes deno::parse through discovery's routing, as the file `deno.json`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes("deno.json", data, false);
    let _ = commandtree_core::discover::parse_bytes("deno.json", data, true);
});
