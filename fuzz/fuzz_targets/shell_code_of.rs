#![no_main]
// Fuzzes the readers of what Rake, Gradle, MSBuild, Maven and Ant files hand to a shell.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for kind in ["rake", "gradle", "dotnet", "maven", "ant"] {
        let _ = commandtree_core::sources::shell_code::of(kind, text);
    }
});
