//! .NET projects (`*.csproj`, `*.fsproj`, `*.vbproj`): build and clean for every project, plus
//! test for test projects or run for executables. Commands name the project file, so several
//! projects in one folder each build their own.

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
    let project = file
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let quoted = text::quote_path(file.path);
    let mut out = Parsed::default();
    let kind = match roxmltree::Document::parse(file.content) {
        Ok(doc) => classify(&doc),
        Err(e) => {
            let line = usize::try_from(e.pos().row).ok();
            out.warn(file.path, line, format!("invalid XML: {e}"));
            Kind::default()
        }
    };
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

/// MSBuild names and values are case-insensitive, so every comparison here is too.
fn classify(doc: &roxmltree::Document<'_>) -> Kind {
    let mut test_package = false;
    let mut is_test_project: Option<bool> = None;
    let mut output_exe: Option<bool> = None;
    let mut sdk_exe = false;

    let root = doc.root_element();
    for sdk in root.attribute("Sdk").unwrap_or("").split(';') {
        let name = sdk.split('/').next().unwrap_or("").trim();
        test_package |= name.eq_ignore_ascii_case("MSTest.Sdk");
        sdk_exe |= EXE_SDKS.iter().any(|s| s.eq_ignore_ascii_case(name));
    }
    for node in root.descendants().filter(roxmltree::Node::is_element) {
        let tag = node.tag_name().name();
        let text = node.text().unwrap_or("").trim();
        if tag.eq_ignore_ascii_case("PackageReference") {
            let include = node.attribute("Include").unwrap_or("");
            test_package |= include.split(';').any(|id| is_test_package(id.trim()));
        } else if tag.eq_ignore_ascii_case("Sdk") {
            let name = node.attribute("Name").unwrap_or("");
            test_package |= name.eq_ignore_ascii_case("MSTest.Sdk");
        } else if tag.eq_ignore_ascii_case("IsTestProject") {
            is_test_project = Some(text.eq_ignore_ascii_case("true"));
        } else if tag.eq_ignore_ascii_case("OutputType") {
            let exe = text.eq_ignore_ascii_case("Exe") || text.eq_ignore_ascii_case("WinExe");
            // Any group (often conditional) that makes it an executable counts.
            output_exe = Some(output_exe.unwrap_or(false) || exe);
        }
    }
    Kind {
        test: is_test_project.unwrap_or(test_package),
        exe: output_exe.unwrap_or(sdk_exe),
    }
}

fn is_test_package(id: &str) -> bool {
    let lower = id.to_ascii_lowercase();
    lower == "microsoft.net.test.sdk"
        || lower.starts_with("xunit")
        || lower.starts_with("nunit")
        || lower.starts_with("mstest")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::testing::{labels, parse_with};

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
            assert_eq!(p.warnings.len(), 1, "{content:?}");
            assert!(
                p.warnings[0].message.starts_with("invalid XML: "),
                "{}",
                p.warnings[0].message
            );
            assert_eq!(
                p.warnings[0].line, *line,
                "{content:?}: {}",
                p.warnings[0].message
            );
        }
    }
}
