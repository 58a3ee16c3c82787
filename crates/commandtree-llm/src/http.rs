//! One POST or GET with what every provider needs: timeouts, retries with backoff on 429 and
//! 5xx honouring `Retry-After` (capped), a limit on requests in flight, and cancellation that
//! interrupts a request blocked on its socket.

use crate::error::{ErrCtx, ErrorKind, LlmError, Result};
use crate::provider::ProviderConfig;
use commandtree_core::cancel::{CancelToken, HookGuard};
use std::io::{BufReader, Read};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use ureq::Agent;

/// The largest non-streaming reply read; LLM replies are a few kilobytes.
const MAX_BODY: u64 = 16 * 1024 * 1024;

/// Counts requests in flight; `acquire` waits for a free slot.
pub(crate) struct Limiter {
    max: usize,
    used: Mutex<usize>,
    freed: Condvar,
}

pub(crate) struct Permit {
    limiter: Arc<Limiter>,
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut used = self.limiter.used.lock().unwrap_or_else(|e| e.into_inner());
        *used = used.saturating_sub(1);
        self.limiter.freed.notify_one();
    }
}

impl Limiter {
    pub fn new(max: usize) -> Arc<Limiter> {
        Arc::new(Limiter {
            max: max.max(1),
            used: Mutex::new(0),
            freed: Condvar::new(),
        })
    }

    fn acquire(self: &Arc<Self>, cancel: &CancelToken) -> Result<Permit> {
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        while *used >= self.max {
            if cancel.is_cancelled() {
                return Err(LlmError::cancelled());
            }
            // Short waits so a cancel is noticed without wiring the token to this condvar.
            used = self
                .freed
                .wait_timeout(used, Duration::from_millis(50))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        *used += 1;
        Ok(Permit {
            limiter: self.clone(),
        })
    }
}

/// A successful reply. Holding it keeps the request's slot and its cancel hook.
pub(crate) struct Reply<'a> {
    pub content_type: String,
    pub body: BufReader<ureq::BodyReader<'static>>,
    _permit: Permit,
    _hook: HookGuard<'a>,
}

impl Reply<'_> {
    pub fn is_event_stream(&self) -> bool {
        self.content_type.starts_with("text/event-stream")
    }
}

pub(crate) struct Http {
    pub cfg: ProviderConfig,
    limiter: Arc<Limiter>,
}

#[derive(Clone, Copy)]
pub(crate) enum Method<'b> {
    Get,
    Post(&'b [u8]),
}

impl Http {
    pub fn new(cfg: ProviderConfig) -> Http {
        let limiter = Limiter::new(cfg.concurrency);
        Http { cfg, limiter }
    }

    fn agent(&self, streaming: bool) -> Agent {
        let mut b = Agent::config_builder()
            .http_status_as_error(false)
            // Redirects are followed in `call`, which knows which headers carry the key.
            .max_redirects(0)
            .timeout_connect(Some(self.cfg.connect_timeout))
            .user_agent(concat!("commandtree/", env!("CARGO_PKG_VERSION")));
        // A stream may run long, so only the silence between reads is bounded; a plain reply
        // must arrive whole within the timeout.
        b = if streaming {
            b.timeout_per_read(Some(self.cfg.timeout))
        } else {
            b.timeout_global(Some(self.cfg.timeout))
        };
        b.build().into()
    }

    /// Sends the request, retrying 429, 5xx, 529 and timeouts. Returns the 2xx reply, or the
    /// error the last attempt ended in.
    pub fn send<'a>(
        &self,
        path: &str,
        method: Method<'_>,
        streaming: bool,
        headers: &[(String, String)],
        cancel: &'a CancelToken,
        ctx: &ErrCtx,
    ) -> Result<Reply<'a>> {
        let url = format!("{}{path}", self.cfg.base_url);
        let mut attempt: u32 = 0;
        loop {
            if cancel.is_cancelled() {
                return Err(LlmError::cancelled());
            }
            let permit = self.limiter.acquire(cancel)?;
            let agent = self.agent(streaming);
            let hook = {
                let a = agent.clone();
                cancel.on_cancel(move || a.shutdown())
            };
            let result = self.call(&agent, &url, method, headers);
            let retries_left = attempt < self.cfg.max_retries;
            let wait = match result {
                Err(_) if cancel.is_cancelled() => return Err(LlmError::cancelled()),
                Err(ureq::Error::Timeout(_)) if retries_left => self.backoff(attempt, None),
                Err(ureq::Error::Timeout(_)) => return Err(ctx.timeout(self.cfg.timeout)),
                Err(e) if is_reset(&e) && retries_left => self.backoff(attempt, None),
                Err(e) => return Err(transport_error(ctx, &e, self.cfg.timeout)),
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    let header = |name: &str| {
                        resp.headers()
                            .get(name)
                            .and_then(|v| v.to_str().ok())
                            .map(str::to_string)
                    };
                    let content_type = header("content-type")
                        .unwrap_or_default()
                        .to_ascii_lowercase();
                    let retry_after = retry_after(header("retry-after-ms"), header("retry-after"));
                    if (200..300).contains(&status) {
                        let body = resp.into_body().into_with_config().limit(MAX_BODY).reader();
                        return Ok(Reply {
                            content_type,
                            body: BufReader::new(body),
                            _permit: permit,
                            _hook: hook,
                        });
                    }
                    let retryable = matches!(status, 429 | 500 | 502 | 503 | 504 | 529);
                    if retryable && retries_left {
                        // The body is dropped unread: the connection is not reused anyway.
                        self.backoff(attempt, retry_after)
                    } else {
                        let mut text = String::new();
                        let _ = resp
                            .into_body()
                            .into_with_config()
                            .limit(64 * 1024)
                            .reader()
                            .take(64 * 1024)
                            .read_to_string(&mut text);
                        if cancel.is_cancelled() {
                            return Err(LlmError::cancelled());
                        }
                        let text = redact(&text, &self.cfg);
                        return Err(ctx.http(status, &text, attempt));
                    }
                }
            };
            drop(hook);
            drop(permit);
            attempt += 1;
            if !cancel.sleep(wait) {
                return Err(LlmError::cancelled());
            }
        }
    }

    /// One request, following redirects (at most `MAX_REDIRECTS`). ureq, left to follow them,
    /// drops only `Authorization`, so Anthropic's `x-api-key` would reach whatever host a
    /// server redirects to; here, once a redirect leaves the origin (scheme, host and port) of
    /// the configured URL, every header that carries the key stays behind.
    fn call(
        &self,
        agent: &Agent,
        url: &str,
        method: Method<'_>,
        headers: &[(String, String)],
    ) -> std::result::Result<ureq::http::Response<ureq::Body>, ureq::Error> {
        let first = origin(url);
        let mut url = url.to_string();
        let mut method = method;
        let mut headers: Vec<&(String, String)> = headers.iter().collect();
        for hop in 0.. {
            let resp = match method {
                Method::Get => {
                    let mut r = agent.get(&url);
                    for (k, v) in &headers {
                        r = r.header(k, v);
                    }
                    r.call()
                }
                Method::Post(body) => {
                    let mut r = agent.post(&url);
                    for (k, v) in &headers {
                        r = r.header(k, v);
                    }
                    r.content_type("application/json").send(body)
                }
            }?;
            let status = resp.status().as_u16();
            let location = resp.headers().get("location").and_then(|v| v.to_str().ok());
            let (true, Some(location)) = (matches!(status, 301 | 302 | 303 | 307 | 308), location)
            else {
                return Ok(resp);
            };
            if hop == MAX_REDIRECTS {
                return Err(ureq::Error::TooManyRedirects);
            }
            url = resolve(&url, location);
            if first.is_none() || origin(&url) != first {
                headers.retain(|(k, v)| !self.carries_key(k, v));
            }
            // 307/308 repeat the request; the others turn it into a GET (as browsers do).
            if !matches!(status, 307 | 308) {
                method = Method::Get;
            }
        }
        unreachable!("the loop returns")
    }

    fn carries_key(&self, name: &str, value: &str) -> bool {
        ["authorization", "x-api-key", "api-key"]
            .iter()
            .any(|h| name.eq_ignore_ascii_case(h))
            || self
                .cfg
                .api_key
                .as_ref()
                .is_some_and(|k| !k.expose().is_empty() && value.contains(k.expose()))
    }

    /// Exponential backoff from 500 ms with jitter, or what the server asked for; capped.
    fn backoff(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let d = retry_after.unwrap_or_else(|| {
            let base = Duration::from_millis(500u64.saturating_mul(1 << attempt.min(10)));
            base + Duration::from_millis(jitter_ms(base.as_millis() as u64 / 2))
        });
        d.min(self.cfg.max_retry_wait)
    }
}

/// Redirects followed for one request.
const MAX_REDIRECTS: u32 = 5;

/// Scheme, host and port of an absolute URL (the port made explicit), lowercased.
fn origin(url: &str) -> Option<(String, String, u16)> {
    let uri: ureq::http::Uri = url.parse().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let host = uri.host()?.to_ascii_lowercase();
    let port = uri.port_u16().or(match scheme.as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    })?;
    Some((scheme, host, port))
}

/// `location` (absolute, or relative to `base`) as an absolute URL.
fn resolve(base: &str, location: &str) -> String {
    if origin(location).is_some() {
        return location.to_string();
    }
    let Ok(uri) = base.parse::<ureq::http::Uri>() else {
        return location.to_string();
    };
    let root = format!(
        "{}://{}",
        uri.scheme_str().unwrap_or("https"),
        uri.authority().map_or("", |a| a.as_str())
    );
    if let Some(rest) = location.strip_prefix("//") {
        return format!("{}://{rest}", uri.scheme_str().unwrap_or("https"));
    }
    if location.starts_with('/') {
        return format!("{root}{location}");
    }
    let dir = uri.path().rsplit_once('/').map_or("", |(d, _)| d);
    format!("{root}{dir}/{location}")
}

/// `Retry-After` as seconds or an HTTP date; OpenAI's `retry-after-ms` first.
fn retry_after(ms: Option<String>, after: Option<String>) -> Option<Duration> {
    if let Some(ms) = ms.and_then(|v| v.trim().parse::<f64>().ok())
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let v = after?;
    let v = v.trim();
    if let Ok(secs) = v.parse::<f64>() {
        return (secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(86_400.0)));
    }
    let at = http_date(v)?;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(at.saturating_sub(now)))
}

/// `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110's IMF-fixdate, a form of RFC 2822) as seconds
/// since the epoch.
fn http_date(s: &str) -> Option<u64> {
    let t = jiff::fmt::rfc2822::DateTimeParser::new()
        .parse_timestamp(s)
        .ok()?;
    u64::try_from(t.as_second()).ok()
}

fn jitter_ms(max: u64) -> u64 {
    if max == 0 {
        return 0;
    }
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos() as u64)
        .unwrap_or(0);
    // A cheap mix of the clock: enough to keep concurrent retries from marching in step.
    (nanos.wrapping_mul(6_364_136_223_846_793_005) >> 33) % max
}

/// A connection that broke after it was made: worth another attempt.
fn is_reset(e: &ureq::Error) -> bool {
    match e {
        ureq::Error::Io(io) => matches!(
            io.kind(),
            std::io::ErrorKind::ConnectionReset
                | std::io::ErrorKind::ConnectionAborted
                | std::io::ErrorKind::BrokenPipe
                | std::io::ErrorKind::UnexpectedEof
        ),
        ureq::Error::Protocol(_) => true,
        _ => false,
    }
}

pub(crate) fn transport_error(ctx: &ErrCtx, e: &ureq::Error, timeout: Duration) -> LlmError {
    match e {
        ureq::Error::Timeout(_) => ctx.timeout(timeout),
        ureq::Error::HostNotFound => ctx.unreachable("host not found"),
        ureq::Error::ConnectionFailed => ctx.unreachable("connection failed"),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            ctx.unreachable("connection refused")
        }
        ureq::Error::BadUri(u) => LlmError::new(
            ErrorKind::Config,
            format!("`{u}` is not a valid base URL; fix COMMANDTREE_LLM_BASE_URL / [llm] base_url"),
        ),
        other => ctx.unreachable(&crate::error::one_line(&other.to_string(), 200)),
    }
}

/// Removes the key from text quoted in an error (some servers echo what they were sent).
pub(crate) fn redact(text: &str, cfg: &ProviderConfig) -> String {
    match &cfg.api_key {
        Some(k) if k.expose().len() >= 4 => text.replace(k.expose(), "***"),
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_targets_and_origins() {
        assert_eq!(resolve("http://a:1/v1/messages", "/x"), "http://a:1/x");
        assert_eq!(resolve("http://a:1/v1/messages", "y"), "http://a:1/v1/y");
        assert_eq!(resolve("https://a/v1", "//b/z"), "https://b/z");
        assert_eq!(resolve("http://a:1/v1", "http://b:2/z"), "http://b:2/z");
        assert_eq!(
            origin("https://A.example/x"),
            origin("https://a.example:443/y")
        );
        assert_ne!(origin("http://127.0.0.1:1/"), origin("http://127.0.0.1:2/"));
        assert_ne!(origin("http://a/"), origin("https://a/"));
    }

    #[test]
    fn retry_after_forms() {
        assert_eq!(
            retry_after(None, Some("2".into())),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            retry_after(Some("1500".into()), Some("9".into())),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(retry_after(None, Some("soon".into())), None);
        assert_eq!(
            http_date("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777)
        );
        assert_eq!(
            retry_after(None, Some("Sun, 06 Nov 1994 08:49:37 GMT".into())),
            Some(Duration::ZERO)
        );
        assert_eq!(
            http_date("Sun, 31 Feb 1994 08:49:37 GMT"),
            None,
            "no such day"
        );
        let soon = jiff::Timestamp::now() + jiff::SignedDuration::from_secs(120);
        let header = jiff::fmt::rfc2822::DateTimePrinter::new()
            .timestamp_to_rfc9110_string(&soon)
            .unwrap();
        let wait = retry_after(None, Some(header)).unwrap();
        assert!(
            wait <= Duration::from_secs(120) && wait >= Duration::from_secs(100),
            "{wait:?}"
        );
    }
}
