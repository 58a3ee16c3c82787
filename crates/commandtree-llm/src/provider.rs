//! Which LLM to talk to: the `[llm]` section of the configuration (user, then workspace
//! `.commandtree/config.toml`), the `COMMANDTREE_LLM_*` environment variables over it, or, when
//! neither names one, the first provider found in the environment.
//!
//! Keys are only ever read from environment variables and live in memory: the configuration
//! names the variable (`api_key_env`), never the key. A provider's own key variable
//! (`ANTHROPIC_API_KEY`, `GITHUB_TOKEN`, `OPENAI_API_KEY`) is sent only to that provider's own
//! host, or to a base URL the user set (environment or user config), never to one a workspace
//! file set: a workspace's `[llm]` reaches this module only after `ct trust`, and even then
//! names its own key variable for its own server.

use crate::error::{ErrorKind, LlmError};
use commandtree_core::settings::Origin;
use std::collections::BTreeMap;
use std::time::Duration;

/// The two wire protocols.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI Chat Completions, also spoken by GitHub Models, Ollama, llama.cpp, vLLM and
    /// LM Studio.
    OpenAi,
    /// Anthropic Messages.
    Anthropic,
}

/// An API key. Its `Debug` hides it, so it cannot leak through logs or error chains.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Self {
        Secret(s.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

#[derive(Debug, Clone)]
pub struct ProviderConfig {
    pub wire: Wire,
    /// For people: "OpenAI", "Anthropic", "GitHub Models", "Ollama", "OpenAI-compatible server".
    pub name: String,
    /// OpenAI wire: up to and including `/v1` (requests go to `{base_url}/chat/completions`).
    /// Anthropic wire: the host (requests go to `{base_url}/v1/messages`).
    pub base_url: String,
    /// `None`: the first model the server lists (local servers serve one model).
    pub model: Option<String>,
    pub api_key: Option<Secret>,
    /// The environment variable the key came from.
    pub key_source: Option<String>,
    /// How this provider was chosen, e.g. `ANTHROPIC_API_KEY` or `[llm] in /w/.commandtree/config.toml`.
    pub source: String,
    /// Where `base_url` came from: `default`, an environment variable, or a configuration file.
    pub base_source: String,
    /// Extra request headers the provider wants.
    pub headers: Vec<(String, String)>,
    pub timeout: Duration,
    pub connect_timeout: Duration,
    /// Further attempts after a 429, a 5xx or a timeout.
    pub max_retries: u32,
    /// The longest wait before a retry, whatever `Retry-After` asks for.
    pub max_retry_wait: Duration,
    /// Requests in flight at once, per client.
    pub concurrency: usize,
}

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
pub const DEFAULT_RETRIES: u32 = 3;
pub const DEFAULT_RETRY_WAIT: Duration = Duration::from_secs(60);
pub const DEFAULT_CONCURRENCY: usize = 4;

const OPENAI_BASE: &str = "https://api.openai.com/v1";
const ANTHROPIC_BASE: &str = "https://api.anthropic.com";
const GITHUB_BASE: &str = "https://models.github.ai/inference";
const OLLAMA_PORT: u16 = 11434;

const OPENAI_MODEL: &str = "gpt-4o-mini";
const ANTHROPIC_MODEL: &str = "claude-haiku-4-5";
const GITHUB_MODEL: &str = "openai/gpt-4o-mini";

impl ProviderConfig {
    fn new(wire: Wire, name: &str, base_url: String, source: String) -> Self {
        ProviderConfig {
            wire,
            name: name.to_string(),
            base_url: normalise_base(wire, &base_url),
            model: None,
            api_key: None,
            key_source: None,
            source,
            base_source: "default".into(),
            headers: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            connect_timeout: Duration::from_secs(10),
            max_retries: DEFAULT_RETRIES,
            max_retry_wait: DEFAULT_RETRY_WAIT,
            concurrency: DEFAULT_CONCURRENCY,
        }
    }

    /// An OpenAI-compatible server at `base_url` (tests, local servers).
    pub fn openai_compatible(base_url: &str, model: Option<&str>) -> Self {
        let mut c = Self::new(
            Wire::OpenAi,
            "OpenAI-compatible server",
            base_url.to_string(),
            "given".into(),
        );
        c.model = model.map(String::from);
        c
    }

    /// An Anthropic Messages server at `base_url`.
    pub fn anthropic(base_url: &str, model: &str) -> Self {
        let mut c = Self::new(
            Wire::Anthropic,
            "Anthropic",
            base_url.to_string(),
            "given".into(),
        );
        c.model = Some(model.to_string());
        c
    }

    pub fn with_key(mut self, key: &str, source: &str) -> Self {
        self.api_key = Some(Secret::new(key));
        self.key_source = Some(source.to_string());
        self
    }

    /// The host is OpenAI's own API (which wants `max_completion_tokens`).
    pub(crate) fn is_openai_api(&self) -> bool {
        self.base_url.starts_with("https://api.openai.com")
    }
}

/// OpenAI-wire bases end in a version path (`/v1`, `/inference`); a bare host gets `/v1`.
/// Anthropic bases are the host; a trailing `/v1` is dropped because requests add it.
fn normalise_base(wire: Wire, base: &str) -> String {
    let b = base.trim().trim_end_matches('/');
    match wire {
        Wire::OpenAi => {
            let after_scheme = b.split_once("://").map_or(b, |(_, r)| r);
            if after_scheme.contains('/') {
                b.to_string()
            } else {
                format!("{b}/v1")
            }
        }
        Wire::Anthropic => b.strip_suffix("/v1").unwrap_or(b).to_string(),
    }
}

/// The outcome of looking for a provider.
#[derive(Debug, Clone)]
pub enum Detection {
    Found(Box<ProviderConfig>),
    /// `provider = "none"`: AI features are switched off on purpose.
    Disabled(String),
    NotFound,
}

/// Where detection reads from. Tests pass their own environment and skip the network probe.
pub struct Sources<'a> {
    /// The merged configuration (`Settings::config`).
    pub config: &'a toml::Table,
    /// Names the configuration's origin in messages.
    pub config_origin: &'a str,
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// Look for a local Ollama on its default port when nothing else is configured.
    pub probe_ollama: bool,
    /// Which file set each `llm.*` key (`Settings::origins`); a key missing here counts as the
    /// user's own.
    pub origins: &'a BTreeMap<String, Origin>,
}

/// A base URL and where it came from.
struct Base {
    url: String,
    from: String,
    /// Set by the user (environment, user config), not by a workspace file.
    by_user: bool,
}

/// The process environment, ignoring empty values.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// `[llm]` keys, all optional.
#[derive(Debug, Default)]
struct LlmTable {
    provider: Option<String>,
    base_url: Option<String>,
    model: Option<String>,
    api_key_env: Option<String>,
    timeout_secs: Option<u64>,
    max_retries: Option<u32>,
    max_retry_wait_secs: Option<u64>,
    concurrency: Option<usize>,
}

fn config_error(origin: &str, msg: impl std::fmt::Display) -> LlmError {
    LlmError::new(ErrorKind::Config, format!("{origin}: {msg}"))
}

fn read_table(config: &toml::Table, origin: &str) -> Result<LlmTable, LlmError> {
    let mut t = LlmTable::default();
    let Some(v) = config.get("llm") else {
        return Ok(t);
    };
    let Some(tab) = v.as_table() else {
        return Err(config_error(origin, "`llm` must be a table ([llm])"));
    };
    let string = |k: &str| -> Result<Option<String>, LlmError> {
        match tab.get(k) {
            None => Ok(None),
            Some(toml::Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(toml::Value::String(s)) => Ok(Some(s.trim().to_string())),
            Some(_) => Err(config_error(origin, format!("`llm.{k}` must be a string"))),
        }
    };
    let number = |k: &str| -> Result<Option<u64>, LlmError> {
        match tab.get(k) {
            None => Ok(None),
            Some(toml::Value::Integer(i)) if *i >= 0 => Ok(Some(*i as u64)),
            Some(_) => Err(config_error(
                origin,
                format!("`llm.{k}` must be a whole number ≥ 0"),
            )),
        }
    };
    if tab.contains_key("api_key") {
        return Err(config_error(
            origin,
            "`llm.api_key` is not read: keys stay out of files; put the key in an environment variable and name it with `api_key_env`",
        ));
    }
    t.provider = string("provider")?;
    t.base_url = string("base_url")?;
    t.model = string("model")?;
    t.api_key_env = string("api_key_env")?;
    t.timeout_secs = number("timeout_secs")?;
    t.max_retries = number("max_retries")?.map(|n| n.min(10) as u32);
    t.max_retry_wait_secs = number("max_retry_wait_secs")?;
    t.concurrency = number("concurrency")?.map(|n| n.clamp(1, 64) as usize);
    Ok(t)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Named {
    OpenAi,
    Anthropic,
    Github,
    Ollama,
}

fn parse_provider(name: &str, origin: &str) -> Result<Option<Named>, LlmError> {
    Ok(Some(match name.to_ascii_lowercase().as_str() {
        "openai" | "openai-compatible" | "llamacpp" | "llama.cpp" | "vllm" | "lmstudio" => {
            Named::OpenAi
        }
        "anthropic" | "claude" => Named::Anthropic,
        "github" | "github-models" => Named::Github,
        "ollama" => Named::Ollama,
        "none" | "off" | "disabled" => return Ok(None),
        other => {
            return Err(config_error(
                origin,
                format!(
                    "unknown LLM provider `{other}` (expected openai, anthropic, github, ollama or none)"
                ),
            ));
        }
    }))
}

/// Finds the provider. Errors only for invalid configuration.
pub fn detect(src: &Sources<'_>) -> Result<Detection, LlmError> {
    let env = src.env;
    let table = read_table(src.config, src.config_origin)?;
    let (provider, provider_origin) = match env("COMMANDTREE_LLM_PROVIDER") {
        Some(p) => (Some(p), "COMMANDTREE_LLM_PROVIDER".to_string()),
        None => (
            table.provider.clone(),
            format!("[llm] in {}", src.config_origin),
        ),
    };
    let named = match &provider {
        Some(p) => match parse_provider(p, &provider_origin)? {
            Some(n) => Some(n),
            None => return Ok(Detection::Disabled(provider_origin)),
        },
        None => None,
    };
    let origin_of = |k: &str| -> (String, bool) {
        match src.origins.get(&format!("llm.{k}")) {
            Some(o) => (format!("`llm.{k}` in {o}"), o.is_user()),
            None => (format!("[llm] in {}", src.config_origin), true),
        }
    };
    let base = match env("COMMANDTREE_LLM_BASE_URL") {
        Some(url) => Some(Base {
            url,
            from: "COMMANDTREE_LLM_BASE_URL".into(),
            by_user: true,
        }),
        None => table.base_url.clone().map(|url| {
            let (from, by_user) = origin_of("base_url");
            Base { url, from, by_user }
        }),
    };
    let key = match env("COMMANDTREE_LLM_API_KEY") {
        Some(k) => Some((k, "COMMANDTREE_LLM_API_KEY".to_string())),
        None => table
            .api_key_env
            .as_deref()
            .and_then(|var| env(var).map(|k| (k, var.to_string()))),
    };
    let explicit = named.is_some() || base.is_some() || key.is_some();
    let mut cfg = if explicit {
        let origin = if named.is_some() {
            provider_origin
        } else if let Some(b) = &base {
            b.from.clone()
        } else {
            key.as_ref().map(|(_, o)| o.clone()).unwrap_or_default()
        };
        let named = named.unwrap_or_else(|| {
            infer(
                base.as_ref().map(|b| b.url.as_str()),
                key.as_ref().map(|k| k.0.as_str()),
            )
        });
        explicit_provider(named, base, key, origin, env)
    } else {
        match auto_detect(env, src.probe_ollama) {
            Some(c) => c,
            None => return Ok(Detection::NotFound),
        }
    };
    if let Some(m) = env("COMMANDTREE_LLM_MODEL").or(table.model) {
        cfg.model = Some(m);
    }
    if cfg.name == "GitHub Models"
        && let Some(m) = &cfg.model
        && !m.contains('/')
    {
        // GitHub Models ids are `publisher/model`; plain OpenAI names are the common case.
        cfg.model = Some(format!("openai/{m}"));
    }
    if let Some(s) = table.timeout_secs {
        cfg.timeout = Duration::from_secs(s.max(1));
    }
    if let Some(n) = table.max_retries {
        cfg.max_retries = n;
    }
    if let Some(s) = table.max_retry_wait_secs {
        cfg.max_retry_wait = Duration::from_secs(s);
    }
    if let Some(n) = table.concurrency {
        cfg.concurrency = n;
    }
    Ok(Detection::Found(Box::new(cfg)))
}

fn infer(base: Option<&str>, key: Option<&str>) -> Named {
    let base = base.unwrap_or("");
    if base.contains("anthropic.com")
        || (base.is_empty() && key.is_some_and(|k| k.starts_with("sk-ant-")))
    {
        Named::Anthropic
    } else if base.contains("models.github.ai") {
        Named::Github
    } else if base.contains(&format!(":{OLLAMA_PORT}")) {
        Named::Ollama
    } else {
        Named::OpenAi
    }
}

fn explicit_provider(
    named: Named,
    base: Option<Base>,
    key: Option<(String, String)>,
    origin: String,
    env: &dyn Fn(&str) -> Option<String>,
) -> ProviderConfig {
    // Where the provider's own key variable may go: its default host, or a base the user set.
    let base_by_user = base.as_ref().is_none_or(|b| b.by_user);
    let base_from = base.as_ref().map(|b| b.from.clone());
    let base = base.map(|b| b.url);
    let mut env_base = None;
    let mut cfg = match named {
        Named::Anthropic => {
            let base = base
                .or_else(|| {
                    env_base = Some("ANTHROPIC_BASE_URL");
                    env("ANTHROPIC_BASE_URL")
                })
                .unwrap_or_else(|| ANTHROPIC_BASE.into());
            let mut c = ProviderConfig::new(Wire::Anthropic, "Anthropic", base, origin);
            c.model = Some(ANTHROPIC_MODEL.into());
            c
        }
        Named::Github => {
            let base = base.unwrap_or_else(|| GITHUB_BASE.into());
            let mut c = ProviderConfig::new(Wire::OpenAi, "GitHub Models", base, origin);
            c.model = Some(GITHUB_MODEL.into());
            c.headers = github_headers();
            c
        }
        Named::Ollama => {
            let base = base.unwrap_or_else(|| {
                env_base = Some("OLLAMA_HOST");
                ollama_base(env)
            });
            ProviderConfig::new(Wire::OpenAi, "Ollama", base, origin)
        }
        Named::OpenAi => {
            let default_base = env("OPENAI_BASE_URL").unwrap_or_else(|| OPENAI_BASE.into());
            let base = base.unwrap_or_else(|| {
                env_base = Some("OPENAI_BASE_URL");
                default_base
            });
            let official = base.trim_end_matches('/') == OPENAI_BASE;
            let name = if official {
                "OpenAI"
            } else {
                "OpenAI-compatible server"
            };
            let mut c = ProviderConfig::new(Wire::OpenAi, name, base, origin);
            if official {
                c.model = Some(OPENAI_MODEL.into());
            }
            c
        }
    };
    cfg.base_source = match (base_from, env_base) {
        (Some(from), _) => from,
        (None, Some(var)) if env(var).is_some() => var.to_string(),
        _ => "default".into(),
    };
    let own_host =
        |default: &str| base_by_user || cfg.base_url == normalise_base(cfg.wire, default);
    let fallback_key = match named {
        Named::Anthropic if own_host(ANTHROPIC_BASE) => "ANTHROPIC_API_KEY",
        Named::Github if own_host(GITHUB_BASE) => "GITHUB_TOKEN",
        Named::Anthropic | Named::Github => "",
        Named::Ollama => "",
        // OPENAI_API_KEY only goes to OpenAI itself or to the server OPENAI_BASE_URL names:
        // pointing ct at some other server must not hand it the user's OpenAI key.
        Named::OpenAi => {
            let openai_base = env("OPENAI_BASE_URL").unwrap_or_else(|| OPENAI_BASE.into());
            if normalise_base(Wire::OpenAi, &openai_base) == cfg.base_url && base_by_user {
                "OPENAI_API_KEY"
            } else {
                ""
            }
        }
    };
    let key = key.or_else(|| {
        (!fallback_key.is_empty())
            .then(|| env(fallback_key).map(|k| (k, fallback_key.to_string())))
            .flatten()
    });
    if let Some((k, from)) = key {
        cfg = cfg.with_key(&k, &from);
    }
    cfg
}

fn github_headers() -> Vec<(String, String)> {
    vec![("X-GitHub-Api-Version".into(), "2022-11-28".into())]
}

fn ollama_base(env: &dyn Fn(&str) -> Option<String>) -> String {
    match env("OLLAMA_HOST") {
        Some(h) if h.contains("://") => format!("{}/v1", h.trim_end_matches('/')),
        Some(h) => format!("http://{}/v1", h.trim_end_matches('/')),
        None => format!("http://127.0.0.1:{OLLAMA_PORT}/v1"),
    }
}

/// The order: Anthropic key, OpenAI key (+ base URL), GitHub token, a local Ollama.
fn auto_detect(env: &dyn Fn(&str) -> Option<String>, probe: bool) -> Option<ProviderConfig> {
    if let Some(k) = env("ANTHROPIC_API_KEY") {
        let custom = env("ANTHROPIC_BASE_URL");
        let base = custom.clone().unwrap_or_else(|| ANTHROPIC_BASE.into());
        let mut c = ProviderConfig::new(
            Wire::Anthropic,
            "Anthropic",
            base,
            "ANTHROPIC_API_KEY".into(),
        );
        if custom.is_some() {
            c.base_source = "ANTHROPIC_BASE_URL".into();
        }
        c.model = Some(ANTHROPIC_MODEL.into());
        return Some(c.with_key(&k, "ANTHROPIC_API_KEY"));
    }
    if let Some(k) = env("OPENAI_API_KEY") {
        let custom = env("OPENAI_BASE_URL");
        let base = custom.clone().unwrap_or_else(|| OPENAI_BASE.into());
        let name = if custom.is_some() {
            "OpenAI-compatible server"
        } else {
            "OpenAI"
        };
        let mut c = ProviderConfig::new(Wire::OpenAi, name, base, "OPENAI_API_KEY".into());
        if custom.is_none() {
            c.model = Some(OPENAI_MODEL.into());
        } else {
            c.base_source = "OPENAI_BASE_URL".into();
        }
        return Some(c.with_key(&k, "OPENAI_API_KEY"));
    }
    if let Some(k) = env("GITHUB_TOKEN") {
        let mut c = ProviderConfig::new(
            Wire::OpenAi,
            "GitHub Models",
            GITHUB_BASE.into(),
            "GITHUB_TOKEN".into(),
        );
        c.model = Some(GITHUB_MODEL.into());
        c.headers = github_headers();
        return Some(c.with_key(&k, "GITHUB_TOKEN"));
    }
    if probe {
        let base = ollama_base(env);
        if ollama_answers(&base) {
            let mut c = ProviderConfig::new(
                Wire::OpenAi,
                "Ollama",
                base.clone(),
                format!("Ollama answering at {base}"),
            );
            if env("OLLAMA_HOST").is_some() {
                c.base_source = "OLLAMA_HOST".into();
            }
            return Some(c);
        }
    }
    None
}

/// A quick TCP connect: a closed port answers at once, so nothing waits when Ollama is absent.
fn ollama_answers(base: &str) -> bool {
    use std::net::ToSocketAddrs;
    let host = base
        .split_once("://")
        .map_or(base, |(_, r)| r)
        .split('/')
        .next()
        .unwrap_or("");
    let Ok(addrs) = host.to_socket_addrs() else {
        return false;
    };
    addrs
        .take(2)
        .any(|a| std::net::TcpStream::connect_timeout(&a, Duration::from_millis(300)).is_ok())
}

/// Where `[llm]` and `[summaries]` of a workspace are read from, for messages.
pub fn config_origin(ws: &commandtree_core::Workspace) -> String {
    let mut files = vec![
        ws.root
            .join(".commandtree")
            .join("config.toml")
            .display()
            .to_string(),
    ];
    if let Some(d) = commandtree_core::settings::user_config_dir() {
        files.push(d.join("config.toml").display().to_string());
    }
    files.join(" or ")
}

/// The provider of a workspace: its merged configuration, then the process environment, then
/// a local Ollama. What every front end calls.
pub fn detect_for(ws: &commandtree_core::Workspace) -> Result<Detection, LlmError> {
    let origin = config_origin(ws);
    detect(&Sources {
        config: &ws.settings.config,
        config_origin: &origin,
        env: &process_env,
        probe_ollama: true,
        origins: &ws.settings.origins,
    })
}

/// One paragraph for people who have no provider yet.
pub const HOW_TO_CONFIGURE: &str = "No LLM provider is configured. Summaries use the model you already have: set ANTHROPIC_API_KEY or OPENAI_API_KEY (with OPENAI_BASE_URL for a compatible server), or GITHUB_TOKEN for GitHub Models, or run Ollama locally; or name one explicitly with COMMANDTREE_LLM_BASE_URL, COMMANDTREE_LLM_MODEL and COMMANDTREE_LLM_API_KEY (COMMANDTREE_LLM_PROVIDER=openai|anthropic), or an [llm] section (provider, base_url, model, api_key_env) in ~/.config/commandtree/config.toml (in a workspace's .commandtree/config.toml only after `ct trust`). `ct doctor` shows what was found.";

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn detect_with(config: &str, vars: &[(&str, &str)]) -> Result<Detection, LlmError> {
        let table: toml::Table = config.parse().unwrap();
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let env = move |k: &str| map.get(k).cloned();
        detect(&Sources {
            config: &table,
            config_origin: "config.toml",
            env: &env,
            probe_ollama: false,
            origins: &BTreeMap::new(),
        })
    }

    /// As [`detect_with`], with every `llm.*` key set by a (trusted) workspace file.
    fn detect_from_workspace(config: &str, vars: &[(&str, &str)]) -> ProviderConfig {
        let table: toml::Table = config.parse().unwrap();
        let ws = Origin::Workspace("/w/.commandtree/config.toml".into());
        let origins: BTreeMap<String, Origin> = commandtree_core::trust::dotted_keys(&table)
            .into_iter()
            .map(|k| (k, ws.clone()))
            .collect();
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let env = move |k: &str| map.get(k).cloned();
        found(detect(&Sources {
            config: &table,
            config_origin: "config.toml",
            env: &env,
            probe_ollama: false,
            origins: &origins,
        }))
    }

    #[test]
    fn provider_keys_never_follow_a_workspace_base_url() {
        let keys = [
            ("ANTHROPIC_API_KEY", "sk-ant-1"),
            ("OPENAI_API_KEY", "sk-2"),
            ("GITHUB_TOKEN", "gh-3"),
            ("MY_KEY", "mine"),
        ];
        for provider in ["anthropic", "github", "openai"] {
            let cfg =
                format!("[llm]\nprovider = \"{provider}\"\nbase_url = \"http://127.0.0.1:9\"\n");
            let c = detect_from_workspace(&cfg, &keys);
            assert!(c.api_key.is_none(), "{provider}: {:?}", c.key_source);
            assert!(c.base_source.contains("llm.base_url"), "{}", c.base_source);
            // The same lines in the user's own config send the key, as before.
            let c = found(detect_with(&cfg, &keys));
            assert!(c.api_key.is_some() || provider == "openai", "{provider}");
        }
        // A trusted workspace may name its own key variable for its own server.
        let c = detect_from_workspace(
            "[llm]\nbase_url = \"http://127.0.0.1:9\"\napi_key_env = \"MY_KEY\"\n",
            &keys,
        );
        assert_eq!(c.api_key.as_ref().map(Secret::expose), Some("mine"));
        // Without a base URL the provider's key goes to its own host.
        let c = detect_from_workspace("[llm]\nprovider = \"anthropic\"\n", &keys);
        assert_eq!(c.base_url, ANTHROPIC_BASE);
        assert_eq!(c.key_source.as_deref(), Some("ANTHROPIC_API_KEY"));
        assert_eq!(c.base_source, "default");
    }

    fn found(d: Result<Detection, LlmError>) -> ProviderConfig {
        match d {
            Ok(Detection::Found(c)) => *c,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn environment_order() {
        assert!(matches!(detect_with("", &[]), Ok(Detection::NotFound)));
        let all = [
            ("ANTHROPIC_API_KEY", "sk-ant-1"),
            ("OPENAI_API_KEY", "sk-2"),
            ("GITHUB_TOKEN", "gh-3"),
        ];
        let c = found(detect_with("", &all));
        assert_eq!((c.wire, c.name.as_str()), (Wire::Anthropic, "Anthropic"));
        assert_eq!(c.api_key.as_ref().unwrap().expose(), "sk-ant-1");
        let c = found(detect_with("", &all[1..]));
        assert_eq!(
            (c.name.as_str(), c.base_url.as_str()),
            ("OpenAI", OPENAI_BASE)
        );
        let c = found(detect_with(
            "",
            &[all[1], ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1/")],
        ));
        assert_eq!(c.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(c.model, None);
        let c = found(detect_with("", &all[2..]));
        assert_eq!(c.name, "GitHub Models");
        assert_eq!(c.model.as_deref(), Some(GITHUB_MODEL));
        // The explicit variables win over all of them.
        let mut v = all.to_vec();
        v.push(("COMMANDTREE_LLM_BASE_URL", "http://127.0.0.1:8080"));
        v.push(("COMMANDTREE_LLM_MODEL", "gemma"));
        let c = found(detect_with("", &v));
        assert_eq!(c.base_url, "http://127.0.0.1:8080/v1");
        assert_eq!(c.model.as_deref(), Some("gemma"));
        assert!(
            c.api_key.is_none(),
            "the OpenAI key must not go to another server"
        );
        assert_eq!(c.source, "COMMANDTREE_LLM_BASE_URL");
    }

    #[test]
    fn config_section_and_key_variable() {
        let cfg = "[llm]\nprovider = \"anthropic\"\nmodel = \"claude-x\"\napi_key_env = \"MY_KEY\"\nconcurrency = 2\n";
        let c = found(detect_with(cfg, &[("MY_KEY", "k")]));
        assert_eq!(c.wire, Wire::Anthropic);
        assert_eq!(c.base_url, ANTHROPIC_BASE);
        assert_eq!(c.model.as_deref(), Some("claude-x"));
        assert_eq!(c.key_source.as_deref(), Some("MY_KEY"));
        assert_eq!(c.concurrency, 2);
        assert!(!format!("{c:?}").contains("\"k\""));
        let c = found(detect_with(cfg, &[("COMMANDTREE_LLM_PROVIDER", "openai")]));
        assert_eq!(c.wire, Wire::OpenAi);
        assert!(matches!(
            detect_with(cfg, &[("COMMANDTREE_LLM_PROVIDER", "none")]),
            Ok(Detection::Disabled(_))
        ));
        let e = detect_with("[llm]\nprovider = \"bard\"\n", &[]).unwrap_err();
        assert!(e.message.contains("unknown LLM provider `bard`"), "{e}");
        let e = detect_with("[llm]\napi_key = \"sk\"\n", &[]).unwrap_err();
        assert!(e.message.contains("api_key_env"), "{e}");
        let c = found(detect_with(
            "[llm]\nprovider = \"github\"\nmodel = \"gpt-4.1\"\n",
            &[("GITHUB_TOKEN", "t")],
        ));
        assert_eq!(c.model.as_deref(), Some("openai/gpt-4.1"));
        assert_eq!(c.key_source.as_deref(), Some("GITHUB_TOKEN"));
    }
}
