#![no_main]
// Fuzzes the AI definition reader (commandtree-agents) through discovery's routing, as `.github/instructions/x.instructions.md`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes(".github/instructions/x.instructions.md", data, false);
});
