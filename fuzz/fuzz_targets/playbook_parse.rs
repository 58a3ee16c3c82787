#![no_main]
// Fuzzes playbook::parse through discovery's routing, as a playbook file.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let rel = ".commandtree/playbooks/x.playbook.md";
    let _ = commandtree_core::discover::parse_bytes(rel, data, false);
});
