//! The Streamable HTTP transport (`ct mcp --http`): the same server as on stdio, for agents that
//! cannot start a process (remote or browser-based agents, inspectors).
//!
//! Anything on the machine can open a loopback port, and a web page can make the browser send
//! requests to one, so three checks stand before the protocol: the address must be loopback
//! (refused otherwise, before binding), every request must carry the bearer token
//! (`Authorization: Bearer <token>`; 401 without it), and the SDK's own checks refuse a `Host`
//! that is not a loopback name (DNS rebinding) and an `Origin` that is not this server's or one
//! the user allowed (403). Requests without an `Origin` (every non-browser client) pass that
//! last check; they still need the token.

use crate::server::CommandTreeServer;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

/// The one path the server answers on.
pub const PATH: &str = "/mcp";

/// Shortest token accepted from a file: guessing it must be out of reach.
pub const MIN_TOKEN_LEN: usize = 16;

/// How the HTTP transport listens.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// A loopback address; port 0 picks a free port.
    pub addr: SocketAddr,
    /// The bearer token every request must carry.
    pub token: String,
    /// Browser origins allowed besides the server's own (`http://127.0.0.1:PORT`,
    /// `http://localhost:PORT`), e.g. an inspector's page.
    pub allowed_origins: Vec<String>,
}

/// `ADDR` as `ct mcp --http` takes it: `PORT`, `IP:PORT` or `localhost:PORT`, loopback only.
pub fn parse_addr(s: &str) -> Result<SocketAddr, String> {
    let s = s.trim();
    let addr = if let Ok(port) = s.parse::<u16>() {
        SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)
    } else if let Some(port) = s.strip_prefix("localhost:") {
        let port = port
            .parse::<u16>()
            .map_err(|_| format!("`{s}`: the port must be a number from 0 to 65535"))?;
        SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)
    } else {
        s.parse::<SocketAddr>().map_err(|_| {
            format!("`{s}` is not an address: give PORT, 127.0.0.1:PORT or [::1]:PORT")
        })?
    };
    if !addr.ip().is_loopback() {
        return Err(format!(
            "`{s}` is not a loopback address: the MCP server runs commands on this machine, so it \
             listens on 127.0.0.1 or ::1 only (use an SSH tunnel to reach it from elsewhere)"
        ));
    }
    Ok(addr)
}

/// A fresh token: 32 random bytes from the operating system, as hex.
pub fn new_token() -> Result<String, String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| format!("no randomness for a token: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Checks a token read from a file: printable, no spaces, long enough.
pub fn check_token(token: &str) -> Result<(), String> {
    if token.len() < MIN_TOKEN_LEN {
        return Err(format!(
            "the token must be at least {MIN_TOKEN_LEN} characters long"
        ));
    }
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err("the token must be printable ASCII without spaces".into());
    }
    Ok(())
}

/// The origins a browser page served by this address would send.
fn own_origins(addr: SocketAddr) -> Vec<String> {
    let port = addr.port();
    vec![
        format!("http://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
        format!("http://[::1]:{port}"),
    ]
}

/// Whether `request` carries `token` as its bearer token. Compared without an early exit, so the
/// time taken does not tell how much of a guess was right.
fn authorized<B>(request: &Request<B>, token: &str) -> bool {
    let Some(value) = request.headers().get(AUTHORIZATION) else {
        return false;
    };
    let Ok(value) = value.to_str() else {
        return false;
    };
    let Some((scheme, given)) = value.trim().split_once(' ') else {
        return false;
    };
    if !scheme.eq_ignore_ascii_case("bearer") {
        return false;
    }
    let (given, token) = (given.trim().as_bytes(), token.as_bytes());
    if given.len() != token.len() {
        return false;
    }
    given
        .iter()
        .zip(token)
        .fold(0u8, |acc, (a, b)| acc | (a ^ b))
        == 0
}

type Body = BoxBody<Bytes, Infallible>;

fn plain(status: StatusCode, message: &str) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from(format!("{message}\n"))).boxed());
    *r.status_mut() = status;
    r.headers_mut().insert(
        CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

/// The HTTP server: binds, reports the bound address through `ready`, then serves until the
/// process ends. Each MCP session gets a handle on the same server (one live index, one
/// database), and every session hears of changed commands.
pub async fn serve(
    server: CommandTreeServer,
    opts: HttpOptions,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind(opts.addr)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", opts.addr))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    let mut origins = own_origins(local);
    origins.extend(opts.allowed_origins.iter().cloned());
    let config = StreamableHttpServerConfig::default()
        .with_allowed_origins(origins)
        .enforce_origin_validation();
    server.forward_changes();
    let factory = server.clone();
    let service = StreamableHttpService::new(
        move || Ok(factory.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let token: Arc<str> = opts.token.into();
    ready(local);
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            // Out of file descriptors and the like: the connections already open go on.
            Err(_) => {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let service = service.clone();
        let token = token.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request: Request<Incoming>| {
                let service = service.clone();
                let token = token.clone();
                async move {
                    Ok::<_, Infallible>(if request.uri().path() != PATH {
                        plain(
                            StatusCode::NOT_FOUND,
                            &format!("not found: the MCP endpoint is {PATH}"),
                        )
                    } else if !authorized(&request, &token) {
                        let mut r = plain(
                            StatusCode::UNAUTHORIZED,
                            "unauthorized: send the token ct mcp --http printed (or read from \
                             its --token-file) as `Authorization: Bearer <token>`",
                        );
                        r.headers_mut().insert(
                            WWW_AUTHENTICATE,
                            hyper::header::HeaderValue::from_static("Bearer"),
                        );
                        r
                    } else {
                        let closing = request.method() == hyper::Method::DELETE;
                        let mut r = service.handle(request).await;
                        // A closed session is done, not accepted for later: 204, which every
                        // SDK's client takes as success (some log 202 as a failure).
                        if closing && r.status() == StatusCode::ACCEPTED {
                            *r.status_mut() = StatusCode::NO_CONTENT;
                        }
                        r
                    })
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handler)
                .await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_auth(value: &str) -> Request<()> {
        Request::builder()
            .header(AUTHORIZATION, value)
            .body(())
            .unwrap()
    }

    #[test]
    fn only_loopback_addresses_are_taken() {
        assert_eq!(parse_addr("8123").unwrap().to_string(), "127.0.0.1:8123");
        assert_eq!(
            parse_addr("localhost:0").unwrap().to_string(),
            "127.0.0.1:0"
        );
        assert_eq!(parse_addr("[::1]:9").unwrap().to_string(), "[::1]:9");
        assert_eq!(
            parse_addr("127.0.0.2:9").unwrap().to_string(),
            "127.0.0.2:9"
        );
        for bad in [
            "0.0.0.0:80",
            "[::]:80",
            "192.168.1.2:80",
            "example.com:80",
            "x",
        ] {
            assert!(parse_addr(bad).is_err(), "{bad}");
        }
        assert!(parse_addr("0.0.0.0:80").unwrap_err().contains("loopback"));
    }

    #[test]
    fn the_bearer_token_must_match_exactly() {
        let token = "0123456789abcdef0123";
        assert!(authorized(&with_auth(&format!("Bearer {token}")), token));
        assert!(authorized(&with_auth(&format!("bearer  {token} ")), token));
        assert!(!authorized(&with_auth(&format!("Bearer {token}x")), token));
        assert!(!authorized(
            &with_auth("Bearer 0123456789abcdef0124"),
            token
        ));
        assert!(!authorized(&with_auth(&format!("Basic {token}")), token));
        assert!(!authorized(&with_auth(token), token));
        assert!(!authorized(&Request::new(()), token));
    }

    #[test]
    fn tokens_are_long_and_printable() {
        let t = new_token().unwrap();
        assert_eq!(t.len(), 64);
        assert!(check_token(&t).is_ok());
        assert_ne!(t, new_token().unwrap());
        assert!(check_token("short").is_err());
        assert!(check_token("0123456789 abcdef").is_err());
    }
}
