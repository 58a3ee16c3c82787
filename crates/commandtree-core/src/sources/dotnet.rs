//! .NET projects (`*.csproj`, `*.fsproj`, `*.vbproj`): build and clean for every project, plus
//! test for test projects or run for executables. Commands name the project file, so several
//! projects in one folder each build their own. Solutions (`*.sln`, `*.slnx`) get build, test
//! and clean.
//!
//! A test project is one that says `<IsTestProject>` (last word wins: `Directory.Build.props`,
//! then the project, then `Directory.Build.targets`), else one that references a test SDK or
//! framework (`Microsoft.NET.Test.Sdk`, `xunit`, `xunit.v3`, `NUnit`, `MSTest`, `TUnit`;
//! not their assertion, analyzer or extensibility packages). The nearest `Directory.Build.props`
//! and `.targets` up to the workspace root are read through `file.fs` (and the next ones above
//! when they import them); their conditional elements are not evaluated and so not counted.

use super::{Parsed, SourceFile};
use crate::model::{CommandItem, ParamDef, ParamFormat};
use crate::text;

/// SDKs whose projects are executables unless they say otherwise.
const EXE_SDKS: &[&str] = &[
    "Microsoft.NET.Sdk.Web",
    "Microsoft.NET.Sdk.Worker",
    "Microsoft.NET.Sdk.BlazorWebAssembly",
];

#[derive(Debug, Default, PartialEq)]
struct Kind {
    test: bool,
    exe: bool,
}

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let (project, quoted) = names(file);
    let mut out = Parsed::default();
    let mut facts = Facts::default();
    let imports = |name: &str| directory_build_files(file, name);
    for props in imports("Directory.Build.props").iter().rev() {
        gather_text(props, &mut facts, true);
    }
    match roxmltree::Document::parse(file.content) {
        Ok(doc) => gather(&doc, &mut facts, false),
        Err(e) => {
            let line = usize::try_from(e.pos().row).ok();
            out.warn(file.path, line, format!("invalid XML: {e}"));
        }
    }
    for targets in imports("Directory.Build.targets").iter().rev() {
        gather_text(targets, &mut facts, true);
    }
    let mut kind = facts.kind();
    // The Arcade convention (dotnet/arcade, used across .NET repositories): a project named
    // `*.Tests`, `*.UnitTests`, `*.IntegrationTests`, `*.FunctionalTests` is a test project,
    // its test SDK coming from shared build files this parser does not evaluate.
    if facts.is_test_project.is_none() && is_test_name(&project) {
        kind.test = true;
    }
    let item = |id: &str, command: String, description: &str| {
        CommandItem::new("dotnet", file.path, id, command)
            .label(format!("{project}: {id}"))
            .description(description)
    };
    out.commands.push(item(
        "build",
        format!("dotnet build {quoted}"),
        "Build the project",
    ));
    if kind.test {
        let filter = ParamDef {
            format: Some(ParamFormat::Flag),
            flag: Some("--filter".to_string()),
            ..ParamDef::new("filter")
                .with_description(
                    "Test filter expression (optional, e.g., FullyQualifiedName~MyTest)",
                )
                .with_default("")
        };
        out.commands.push(
            item("test", format!("dotnet test {quoted}"), "Run all tests").params(vec![filter]),
        );
    } else if kind.exe {
        let args = ParamDef {
            format: Some(ParamFormat::DashdashArgs),
            ..ParamDef::new("args")
                .with_description("Runtime arguments (optional, space-separated)")
                .with_default("")
        };
        out.commands.push(
            item(
                "run",
                format!("dotnet run --project {quoted}"),
                "Run the application",
            )
            .params(vec![args]),
        );
    }
    out.commands.push(item(
        "clean",
        format!("dotnet clean {quoted}"),
        "Clean build outputs",
    ));
    out
}

/// The nearest `name` from the project's folder up to the workspace root, then the ones above it
/// that each imports (`GetPathOfFileAbove`), nearest first.
fn directory_build_files(file: &SourceFile<'_>, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for dir in super::common::folders_up(file) {
        let Some(text) = file.fs.read(&dir.join(name)) else {
            continue;
        };
        let chains =
            text.contains("GetPathOfFileAbove") || text.contains("GetDirectoryNameOfFileAbove");
        out.push(text);
        if !chains || out.len() >= 8 {
            break;
        }
    }
    out
}

#[derive(Default)]
struct Facts {
    test_package: bool,
    is_test_project: Option<bool>,
    output_exe: Option<bool>,
    sdk_exe: bool,
}

impl Facts {
    fn kind(&self) -> Kind {
        Kind {
            test: self.is_test_project.unwrap_or(self.test_package),
            exe: self.output_exe.unwrap_or(self.sdk_exe),
        }
    }
}

fn gather_text(text: &str, facts: &mut Facts, skip_conditional: bool) {
    if let Ok(doc) = roxmltree::Document::parse(text) {
        gather(&doc, facts, skip_conditional);
    }
}

/// MSBuild names and values are case-insensitive, so every comparison here is too.
fn gather(doc: &roxmltree::Document<'_>, facts: &mut Facts, skip_conditional: bool) {
    let root = doc.root_element();
    for name in sdk_names(root.attribute("Sdk").unwrap_or("")) {
        facts.test_package |= name.eq_ignore_ascii_case("MSTest.Sdk");
        facts.sdk_exe |= EXE_SDKS.iter().any(|s| s.eq_ignore_ascii_case(name));
    }
    for node in root.descendants().filter(roxmltree::Node::is_element) {
        if skip_conditional && node.ancestors().any(|a| a.attribute("Condition").is_some()) {
            continue;
        }
        let tag = node.tag_name().name();
        let text = node.text().unwrap_or("").trim();
        if tag.eq_ignore_ascii_case("PackageReference") {
            let include = node.attribute("Include").unwrap_or("");
            facts.test_package |= include.split(';').any(|id| is_test_package(id.trim()));
        } else if tag.eq_ignore_ascii_case("Sdk") {
            let name = node.attribute("Name").unwrap_or("");
            facts.test_package |= name.eq_ignore_ascii_case("MSTest.Sdk");
        } else if tag.eq_ignore_ascii_case("IsTestProject") {
            facts.is_test_project = Some(text.eq_ignore_ascii_case("true"));
        } else if tag.eq_ignore_ascii_case("OutputType") {
            let exe = text.eq_ignore_ascii_case("Exe") || text.eq_ignore_ascii_case("WinExe");
            // Any group (often conditional) that makes it an executable counts.
            facts.output_exe = Some(facts.output_exe.unwrap_or(false) || exe);
        }
    }
}

/// What a project's SDKs say it is, in words a search can match: `Microsoft.NET.Sdk.Web` is a
/// web app, `Aspire.AppHost.Sdk` an Aspire app host; the plain `Microsoft.NET.Sdk` says nothing.
pub fn sdk_words(project: &str) -> String {
    let Ok(doc) = roxmltree::Document::parse(project) else {
        return String::new();
    };
    let root = doc.root_element();
    let named = root
        .descendants()
        .filter(|n| n.is_element() && n.tag_name().name().eq_ignore_ascii_case("Sdk"))
        .filter_map(|n| n.attribute("Name"));
    let mut out: Vec<&str> = Vec::new();
    for name in sdk_names(root.attribute("Sdk").unwrap_or("")).chain(named.flat_map(sdk_names)) {
        let said = match name.get(.."Microsoft.NET.Sdk".len()) {
            Some(head) if head.eq_ignore_ascii_case("Microsoft.NET.Sdk") => {
                name["Microsoft.NET.Sdk".len()..].trim_start_matches('.')
            }
            _ => name.trim_end_matches(".Sdk"),
        };
        if !said.is_empty() && !out.contains(&said) {
            out.push(said);
        }
    }
    out.join(" ")
}

/// The SDKs an `Sdk` attribute names (`A.Sdk/1.0;B.Sdk`), without their versions.
fn sdk_names(attribute: &str) -> impl Iterator<Item = &str> {
    attribute
        .split(';')
        .map(|sdk| sdk.split('/').next().unwrap_or("").trim())
}

/// Whether a project's name says it holds tests, as Arcade decides it (`IsTestProject`).
fn is_test_name(project: &str) -> bool {
    let p = project.to_ascii_lowercase();
    [
        ".tests",
        ".unittests",
        ".integrationtests",
        ".functionaltests",
        ".performancetests",
    ]
    .iter()
    .any(|s| p.ends_with(s))
}

/// The packages that make a project a test project: the test SDK and the frameworks themselves,
/// not `xunit.assert`, `xunit.extensibility.*`, `NUnit.Analyzers` and the like, which libraries
/// of test helpers reference too.
fn is_test_package(id: &str) -> bool {
    const TEST_PACKAGES: &[&str] = &[
        "microsoft.net.test.sdk",
        "xunit",
        "xunit.v3",
        "xunit.core",
        "xunit.v3.core",
        "nunit",
        "mstest",
        "mstest.testframework",
        "tunit",
        // Adapters and runners: only test projects carry them.
        "nunit3testadapter",
        "xunit.runner.visualstudio",
        "mstest.testadapter",
    ];
    TEST_PACKAGES.iter().any(|p| id.eq_ignore_ascii_case(p))
}

/// The file's name without its extension (the project's or solution's name), and its path
/// quoted for a command line.
fn names(file: &SourceFile<'_>) -> (String, String) {
    let stem = file
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    (stem, text::quote_path(file.path))
}

/// A solution (`*.sln`, `*.slnx`): build, test and clean of every project in it.
pub fn parse_solution(file: &SourceFile<'_>) -> Parsed {
    let (name, quoted) = names(file);
    let mut out = Parsed::default();
    let is_sln = file.file_name().to_ascii_lowercase().ends_with(".sln");
    if is_sln
        && !file
            .content
            .contains("Microsoft Visual Studio Solution File")
    {
        out.warn(file.path, Some(1), "not a Visual Studio solution file");
        return out;
    }
    for (verb, description) in [
        ("build", "Build the solution"),
        ("test", "Run the tests of the solution"),
        ("clean", "Clean build outputs of the solution"),
    ] {
        out.commands.push(
            CommandItem::new("dotnet", file.path, verb, format!("dotnet {verb} {quoted}"))
                .label(format!("{name}: {verb}"))
                .description(description),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;
    use crate::sources::testing::{assert_one_warning, labels, parse_in, parse_with};

    #[test]
    fn a_project_named_as_tests_is_a_test_project() {
        let plain = "<Project Sdk=\"Microsoft.NET.Sdk\"><PropertyGroup><TargetFramework>net9.0</TargetFramework></PropertyGroup></Project>";
        for (path, test) in [
            (
                "/w/tests/Ordering.UnitTests/Ordering.UnitTests.csproj",
                true,
            ),
            (
                "/w/tests/Ordering.FunctionalTests/Ordering.FunctionalTests.csproj",
                true,
            ),
            ("/w/tests/Basket.Tests/Basket.Tests.csproj", true),
            ("/w/src/Ordering.API/Ordering.API.csproj", false),
            ("/w/src/Testing.Helpers/Testing.Helpers.csproj", false),
        ] {
            let parsed = parse_with(super::parse, path, plain);
            let got = labels(&parsed);
            assert_eq!(
                got.iter().any(|l| l.ends_with(": test")),
                test,
                "{path}: {got:?}"
            );
        }
        // An explicit `<IsTestProject>false` wins over the name.
        let off = "<Project Sdk=\"Microsoft.NET.Sdk\"><PropertyGroup><IsTestProject>false</IsTestProject></PropertyGroup></Project>";
        let parsed = parse_with(super::parse, "/w/x/A.Tests/A.Tests.csproj", off);
        let got = labels(&parsed);
        assert!(!got.iter().any(|l| l.ends_with(": test")), "{got:?}");
    }

    #[test]
    fn directory_build_files_and_is_test_project() {
        let fs = MemFs::new()
            .file(
                "/w/test/Directory.Build.props",
                "<Project><PropertyGroup><IsTestProject>true</IsTestProject></PropertyGroup>\
                 <ItemGroup Condition=\"'$(X)' == 'y'\"><PackageReference Include=\"xunit\" /></ItemGroup></Project>",
            )
            .file("/w/test/Unit/Unit.csproj", LIBRARY)
            .file(
                "/w/test/Helpers/Helpers.csproj",
                "<Project Sdk=\"Microsoft.NET.Sdk\"><PropertyGroup><IsTestProject>false</IsTestProject></PropertyGroup></Project>",
            )
            .file("/w/src/Lib/Lib.csproj", LIBRARY)
            .file(
                "/w/src/Directory.Build.targets",
                "<Project><ItemGroup><PackageReference Include=\"xunit.assert\" /><PackageReference Include=\"xunit.extensibility.core\" /></ItemGroup></Project>",
            );
        let has_test = |path: &str| {
            parse_in(parse, &fs, path)
                .commands
                .iter()
                .any(|c| c.id_name() == "test")
        };
        assert!(has_test("/w/test/Unit/Unit.csproj"));
        assert!(!has_test("/w/test/Helpers/Helpers.csproj"));
        assert!(!has_test("/w/src/Lib/Lib.csproj"));
    }

    #[test]
    fn test_packages_are_the_frameworks_not_their_helpers() {
        for (id, test) in [
            ("Microsoft.NET.Test.Sdk", true),
            ("xunit", true),
            ("xunit.v3", true),
            ("NUnit", true),
            ("MSTest", true),
            ("xunit.assert", false),
            ("xunit.extensibility.core", false),
            ("NUnit.Analyzers", false),
            ("xunit.runner.visualstudio", true),
        ] {
            assert_eq!(is_test_package(id), test, "{id}");
        }
    }

    #[test]
    fn solutions_get_build_test_clean() {
        let p = parse_with(
            parse_solution,
            "/w/App.sln",
            "\nMicrosoft Visual Studio Solution File, Format Version 12.00\n",
        );
        assert_eq!(labels(&p), ["App: build", "App: test", "App: clean"]);
        assert_eq!(p.commands[1].command, "dotnet test \"/w/App.sln\"");
        assert_eq!(p.commands[1].id, "dotnet:/w/App.sln:test");
        let p = parse_with(
            parse_solution,
            "/w/App.slnx",
            "<Solution><Project Path=\"a/a.csproj\" /></Solution>",
        );
        assert_eq!(p.commands.len(), 3);
        let p = parse_with(parse_solution, "/w/x.sln", "garbage");
        assert!(p.commands.is_empty());
        assert_eq!(p.warnings.len(), 1);
    }

    #[test]
    fn what_a_projects_sdks_say_it_is() {
        assert_eq!(
            sdk_words("<Project Sdk=\"Aspire.AppHost.Sdk/9.1.0\"><PropertyGroup/></Project>"),
            "Aspire.AppHost"
        );
        assert_eq!(
            sdk_words(
                "<Project Sdk=\"Microsoft.NET.Sdk.Web\">\n  <Sdk Name=\"Bitwarden.Server.Sdk\" />\n</Project>"
            ),
            "Web Bitwarden.Server"
        );
        assert_eq!(
            sdk_words("<Project Sdk=\"Microsoft.NET.Sdk\"></Project>"),
            ""
        );
        assert_eq!(sdk_words("not xml"), "");
    }

    const CONSOLE: &str = r#"<Project Sdk="Microsoft.NET.Sdk">

  <PropertyGroup>
    <OutputType>Exe</OutputType>
    <TargetFramework>net8.0</TargetFramework>
    <ImplicitUsings>enable</ImplicitUsings>
    <Nullable>enable</Nullable>
  </PropertyGroup>

</Project>
"#;

    const XUNIT: &str = r#"<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <TargetFramework>net8.0</TargetFramework>
    <IsPackable>false</IsPackable>
  </PropertyGroup>
  <ItemGroup>
    <PackageReference Include="Microsoft.NET.Test.Sdk" Version="17.8.0" />
    <PackageReference Include="xunit" Version="2.6.2" />
    <PackageReference Include="xunit.runner.visualstudio" Version="2.5.4" />
  </ItemGroup>
  <ItemGroup>
    <ProjectReference Include="..\App\App.csproj" />
  </ItemGroup>
</Project>
"#;

    const LIBRARY: &str = r#"<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <TargetFramework>netstandard2.0</TargetFramework>
  </PropertyGroup>
</Project>
"#;

    #[test]
    fn console_app_gets_build_run_clean() {
        let p = parse_with(parse, "/w/src/App/App.csproj", CONSOLE);
        assert!(p.warnings.is_empty());
        assert_eq!(labels(&p), ["App: build", "App: run", "App: clean"]);
        let ids: Vec<&str> = p.commands.iter().map(|c| c.id_name()).collect();
        assert_eq!(ids, ["build", "run", "clean"]);
        assert_eq!(p.commands[0].id, "dotnet:/w/src/App/App.csproj:build");
        let cmds: Vec<&str> = p.commands.iter().map(|c| c.command.as_str()).collect();
        assert_eq!(
            cmds,
            [
                "dotnet build \"/w/src/App/App.csproj\"",
                "dotnet run --project \"/w/src/App/App.csproj\"",
                "dotnet clean \"/w/src/App/App.csproj\"",
            ]
        );
        let descs: Vec<&str> = p
            .commands
            .iter()
            .map(|c| c.description.as_deref().unwrap())
            .collect();
        assert_eq!(
            descs,
            [
                "Build the project",
                "Run the application",
                "Clean build outputs"
            ]
        );
        assert_eq!(p.commands[1].cwd, "/w/src/App");
        assert_eq!(
            p.commands[1].params,
            [ParamDef {
                name: "args".into(),
                description: Some("Runtime arguments (optional, space-separated)".into()),
                default: Some(String::new()),
                format: Some(ParamFormat::DashdashArgs),
                ..Default::default()
            }]
        );
        assert!(p.commands[0].params.is_empty());
        assert!(p.commands[2].params.is_empty());
    }

    #[test]
    fn test_project_gets_test_with_filter_param() {
        let p = parse_with(parse, "/w/tests/App.Tests/App.Tests.csproj", XUNIT);
        assert_eq!(
            labels(&p),
            ["App.Tests: build", "App.Tests: test", "App.Tests: clean"]
        );
        let t = &p.commands[1];
        assert_eq!(t.id, "dotnet:/w/tests/App.Tests/App.Tests.csproj:test");
        assert_eq!(
            t.command,
            "dotnet test \"/w/tests/App.Tests/App.Tests.csproj\""
        );
        assert_eq!(t.description.as_deref(), Some("Run all tests"));
        assert_eq!(
            t.params,
            [ParamDef {
                name: "filter".into(),
                description: Some(
                    "Test filter expression (optional, e.g., FullyQualifiedName~MyTest)".into()
                ),
                default: Some(String::new()),
                format: Some(ParamFormat::Flag),
                flag: Some("--filter".into()),
                ..Default::default()
            }]
        );
    }

    #[test]
    fn library_gets_build_and_clean_only() {
        let p = parse_with(parse, "/w/Lib/Lib.fsproj", LIBRARY);
        assert_eq!(labels(&p), ["Lib: build", "Lib: clean"]);
    }

    #[test]
    fn test_detection_variants() {
        let proj = |body: &str| {
            format!("<Project Sdk=\"Microsoft.NET.Sdk\"><ItemGroup>{body}</ItemGroup></Project>")
        };
        for body in [
            r#"<PackageReference Include="NUnit" Version="4.0.1" />"#,
            r#"<PackageReference Include="nunit3testadapter" Version="4.5.0" />"#,
            r#"<PackageReference Include="MSTest.TestFramework" Version="3.1.1" />"#,
            r#"<PackageReference Include="xunit.v3" Version="1.0.0" />"#,
            r#"<packagereference Include="Microsoft.NET.Test.Sdk" />"#,
            r#"<PackageReference Include="Moq;xunit" />"#,
            "</ItemGroup><PropertyGroup><IsTestProject>true</IsTestProject></PropertyGroup><ItemGroup>",
        ] {
            let p = parse_with(parse, "/w/T/T.csproj", &proj(body));
            assert_eq!(labels(&p)[1], "T: test", "{body}");
        }
        // The MSTest SDK makes a test project without any package.
        let p = parse_with(
            parse,
            "/w/T/T.csproj",
            r#"<Project Sdk="MSTest.Sdk/3.6.1"></Project>"#,
        );
        assert_eq!(labels(&p)[1], "T: test");
        // Upstream matched `xunit` anywhere in the text; a comment or an unrelated package is not
        // a test framework.
        for body in [
            "<!-- we used xunit once -->",
            r#"<PackageReference Include="Serilog.Sinks.XUnit.Helper" />"#,
            r#"<Compile Include="NUnitHelpers.cs" />"#,
        ] {
            let p = parse_with(parse, "/w/T/T.csproj", &proj(body));
            assert_eq!(labels(&p), ["T: build", "T: clean"], "{body}");
        }
        // An explicit `IsTestProject` false wins over packages.
        let p = parse_with(
            parse,
            "/w/T/T.csproj",
            &proj(
                r#"<PackageReference Include="xunit" /></ItemGroup><PropertyGroup><IsTestProject>false</IsTestProject></PropertyGroup><ItemGroup>"#,
            ),
        );
        assert_eq!(labels(&p), ["T: build", "T: clean"]);
    }

    #[test]
    fn test_wins_over_run() {
        let p = parse_with(
            parse,
            "/w/T/T.csproj",
            r#"<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><OutputType>Exe</OutputType></PropertyGroup>
               <ItemGroup><PackageReference Include="xunit.v3" /></ItemGroup></Project>"#,
        );
        assert_eq!(labels(&p), ["T: build", "T: test", "T: clean"]);
    }

    #[test]
    fn executable_detection_variants() {
        let with = |sdk: &str, props: &str| {
            format!("<Project Sdk=\"{sdk}\"><PropertyGroup>{props}</PropertyGroup></Project>")
        };
        let run = |content: &str| {
            labels(&parse_with(parse, "/w/A/A.csproj", content)).contains(&"A: run")
        };
        assert!(run(&with(
            "Microsoft.NET.Sdk",
            "<OutputType>WinExe</OutputType>"
        )));
        assert!(run(&with(
            "Microsoft.NET.Sdk",
            "<outputtype> exe </outputtype>"
        )));
        assert!(run(&with("Microsoft.NET.Sdk.Web", "")));
        assert!(run(&with("Microsoft.NET.Sdk.Worker", "")));
        assert!(!run(&with(
            "Microsoft.NET.Sdk.Web",
            "<OutputType>Library</OutputType>"
        )));
        assert!(!run(&with(
            "Microsoft.NET.Sdk",
            "<OutputType>Library</OutputType>"
        )));
        assert!(!run(&with("Microsoft.NET.Sdk.Razor", "")));
        assert!(run(
            "<Project><PropertyGroup Condition=\"'$(Cfg)'=='A'\"><OutputType>Library</OutputType></PropertyGroup>\
             <PropertyGroup Condition=\"'$(Cfg)'=='B'\"><OutputType>Exe</OutputType></PropertyGroup></Project>"
        ));
    }

    #[test]
    fn old_style_project_with_namespace() {
        let p = parse_with(
            parse,
            "/w/Legacy/Legacy.vbproj",
            r#"<?xml version="1.0" encoding="utf-8"?>
<Project ToolsVersion="15.0" xmlns="http://schemas.microsoft.com/developer/msbuild/2003">
  <PropertyGroup>
    <OutputType>WinExe</OutputType>
  </PropertyGroup>
</Project>"#,
        );
        assert_eq!(
            labels(&p),
            ["Legacy: build", "Legacy: run", "Legacy: clean"]
        );
    }

    #[test]
    fn two_projects_in_one_folder_name_their_file() {
        let a = parse_with(parse, "/w/App.csproj", CONSOLE);
        let b = parse_with(parse, "/w/App.Tests.csproj", XUNIT);
        assert_eq!(a.commands[0].command, "dotnet build \"/w/App.csproj\"");
        assert_eq!(
            b.commands[0].command,
            "dotnet build \"/w/App.Tests.csproj\""
        );
        assert_ne!(a.commands[0].id, b.commands[0].id);
    }

    #[test]
    fn paths_are_quoted() {
        let p = parse_with(parse, "/w/My App/$x.csproj", CONSOLE);
        assert_eq!(
            p.commands[1].command,
            "dotnet run --project \"/w/My App/\\$x.csproj\""
        );
        assert_eq!(p.commands[1].label, "$x: run");
    }

    #[test]
    fn malformed_xml_warns_and_keeps_build_and_clean() {
        let cases: &[(&str, Option<u32>)] = &[
            (
                "<Project Sdk=\"Microsoft.NET.Sdk\">\n  <PropertyGroup>\n    <OutputType>Exe</OutputType>\n",
                Some(1),
            ),
            ("", Some(1)),
            ("\u{1}\u{2}binary\u{fffd}", Some(1)),
            ("<Project>\n<A></B>\n</Project>", Some(2)),
            (
                "<!DOCTYPE x [<!ENTITY a \"aaaaaaaa\">]><Project>&a;</Project>",
                Some(1),
            ),
        ];
        for (content, line) in cases {
            let p = parse_with(parse, "/w/Bad/Bad.csproj", content);
            assert_eq!(labels(&p), ["Bad: build", "Bad: clean"], "{content:?}");
            assert_one_warning(&p, *line, "invalid XML: ", content);
        }
    }
}
