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
            let result = match method {
                Method::Get => {
                    let mut r = agent.get(&url);
                    for (k, v) in headers {
                        r = r.header(k, v);
                    }
                    r.call()
                }
                Method::Post(body) => {
                    let mut r = agent.post(&url);
                    for (k, v) in headers {
                        r = r.header(k, v);
                    }
                    r.content_type("application/json").send(body)
                }
            };
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

    /// Exponential backoff from 500 ms with jitter, or what the server asked for; capped.
    fn backoff(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let d = retry_after.unwrap_or_else(|| {
            let base = Duration::from_millis(500u64.saturating_mul(1 << attempt.min(10)));
            base + Duration::from_millis(jitter_ms(base.as_millis() as u64 / 2))
        });
        d.min(self.cfg.max_retry_wait)
    }
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

/// `Sun, 06 Nov 1994 08:49:37 GMT` as seconds since the epoch.
fn http_date(s: &str) -> Option<u64> {
    let parts: Vec<&str> = s.split_whitespace().collect();
    let [_, day, month, year, time, _] = parts.as_slice() else {
        return None;
    };
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| m.eq_ignore_ascii_case(month))? as i64
        + 1;
    let (day, year): (i64, i64) = (day.parse().ok()?, year.parse().ok()?);
    let t: Vec<i64> = time.split(':').filter_map(|p| p.parse().ok()).collect();
    let [h, m, sec] = t.as_slice() else {
        return None;
    };
    // Days from civil (Howard Hinnant).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + h * 3600 + m * 60 + sec).ok()
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
    }
}
