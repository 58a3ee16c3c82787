#![no_main]
// Fuzzes the AI definition reader (commandtree-agents) through discovery's routing, as `.github/skills/x/SKILL.md`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes(".github/skills/x/SKILL.md", data, false);
});
