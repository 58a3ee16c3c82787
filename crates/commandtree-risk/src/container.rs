//! Containers: what a container is given of the host it runs on.
//!
//! Inside a container (a Dockerfile's `RUN` steps, a Compose service's `command`) deleting
//! files, `sudo` or writing under `/etc` change only the container, so that code is not judged
//! by the host's rules. What reaches the host is the container's configuration: the Docker
//! socket or the host's root mounted into it, `privileged`, the host's network or process
//! space, added capabilities. Each of those is a caution.

use crate::{Finding, Level};
use serde_json::Value;

/// What mounting the host path of `spec` (`SRC:DST[:opts]`, or a bare `SRC`) gives a
/// container, when that reaches beyond the project.
pub(crate) fn host_mount(spec: &str) -> Option<String> {
    let src = spec.split(':').next().unwrap_or(spec).trim();
    if src.ends_with("docker.sock")
        || src.ends_with("podman.sock")
        || src.ends_with("containerd.sock")
    {
        return Some(format!("control of the host's container engine ({src})"));
    }
    if src == "/" {
        return Some("the host's whole filesystem (/ mounted)".to_string());
    }
    let top = src.trim_end_matches('/');
    if matches!(
        top,
        "/etc"
            | "/root"
            | "/home"
            | "/usr"
            | "/var"
            | "/boot"
            | "/dev"
            | "/proc"
            | "/sys"
            | "/Users"
    ) || top == "~"
        || top == "$HOME"
        || top == "${HOME}"
    {
        return Some(format!("the host's {top} folder"));
    }
    // Files every user may read anyway, mounted read-only (`-v /etc/passwd:/etc/passwd:ro`, so
    // the container knows the user's name): nothing is given away or can be changed.
    let read_only = spec
        .split(':')
        .skip(2)
        .any(|o| o.split(',').any(|x| x == "ro"));
    if read_only
        && matches!(
            top,
            "/etc/passwd"
                | "/etc/group"
                | "/etc/localtime"
                | "/etc/timezone"
                | "/etc/hosts"
                | "/etc/resolv.conf"
                | "/etc/os-release"
        )
    {
        return None;
    }
    if let Some((Level::Danger, what)) =
        crate::rules::sensitive_path(&top.replace("${HOME}", "~").replace("$HOME", "~"))
    {
        return Some(format!("{what} of the host ({top})"));
    }
    None
}

/// The findings of Compose services in `text` (a whole Compose file, or one service's block as
/// the listing cuts it out).
pub(crate) fn compose(text: &str, out: &mut Vec<Finding>) {
    let Some(value) = crate::extract::yaml_value(text) else {
        return;
    };
    let Some(map) = value.as_object() else {
        return;
    };
    let services: Vec<(&String, &Value)> = match map.get("services").and_then(Value::as_object) {
        Some(s) => s.iter().collect(),
        // One service's block: `name: {image: …}`.
        None => map.iter().filter(|(_, v)| v.is_object()).collect(),
    };
    for (name, svc) in services {
        let Some(svc) = svc.as_object() else { continue };
        let mut add = |needle: &str, reason: String| {
            let line = crate::extract::line_of(text, needle);
            if out.iter().any(|f| f.reason == reason) {
                return;
            }
            out.push(Finding {
                level: Level::Caution,
                reason,
                line,
                snippet: format!("{name}: {needle}"),
            });
        };
        if svc.get("privileged").is_some_and(truthy) {
            add(
                "privileged",
                format!("service {name} runs with full access to the host (privileged)"),
            );
        }
        for key in ["network_mode", "pid", "ipc", "userns_mode"] {
            if svc.get(key).and_then(Value::as_str) == Some("host") {
                add(
                    key,
                    format!(
                        "service {name} shares the host's {} ({key}: host)",
                        match key {
                            "network_mode" => "network",
                            "pid" => "processes",
                            "ipc" => "memory",
                            _ => "user namespace",
                        }
                    ),
                );
            }
        }
        if let Some(caps) = svc.get("cap_add").and_then(Value::as_array) {
            for cap in caps.iter().filter_map(Value::as_str) {
                let c = cap.trim_start_matches("CAP_");
                if matches!(
                    c,
                    "ALL" | "SYS_ADMIN" | "SYS_PTRACE" | "SYS_MODULE" | "NET_ADMIN"
                ) {
                    add(cap, format!("service {name} gets the host capability {c}"));
                }
            }
        }
        for v in svc
            .get("volumes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let spec = match v {
                Value::String(s) => s.clone(),
                Value::Object(o) => o
                    .get("source")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                _ => continue,
            };
            if let Some(what) = host_mount(&spec) {
                add(&spec, format!("service {name} is given {what}"));
            }
        }
    }
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::String(s) => matches!(s.as_str(), "true" | "yes" | "on"),
        _ => false,
    }
}
