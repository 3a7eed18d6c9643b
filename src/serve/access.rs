//! Who may use the server: anyone who reaches the port (the default on
//! loopback), the holders of a token (checked on every request and
//! WebSocket: `?token=` in the URL, an `Authorization: Bearer` header, or
//! the cookie the server sets when a URL with the right token is opened,
//! so that the page's own requests carry it), or, watch-only, everyone but
//! for watching a run: nothing can start a game or a search.

use super::{error, AppState};
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use sha2::{Digest, Sha256};
use std::net::SocketAddr;
use std::sync::Arc;

/// Who may use the server.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Access {
    /// Anyone who can reach the port.
    #[default]
    Open,
    /// Only requests that carry this token.
    Token(String),
    /// Watching a run only: the page's play and analysis are refused.
    WatchOnly,
}

impl Access {
    /// The access for a server on `bind`: `token` or `watch_only` when
    /// given; otherwise open on loopback, and a new random token beyond it
    /// (serving to a network is never open by default).
    pub fn for_bind(bind: SocketAddr, token: Option<String>, watch_only: bool) -> Result<Access, String> {
        match (token, watch_only) {
            (Some(_), true) => Err("--token and --watch-only exclude each other".into()),
            (Some(t), false) if t.len() < 16 || !t.chars().all(|c| c.is_ascii_alphanumeric()) => {
                Err("--token must be at least 16 letters and digits".into())
            }
            (Some(t), false) => Ok(Access::Token(t)),
            (None, true) => Ok(Access::WatchOnly),
            (None, false) if bind.ip().is_loopback() => Ok(Access::Open),
            (None, false) => Ok(Access::Token(new_token())),
        }
    }

    /// The URL query to open the page with (`?token=...`), empty if none.
    pub fn query(&self) -> String {
        match self {
            Access::Token(t) => format!("?token={t}"),
            _ => String::new(),
        }
    }
}

/// A new random token: 128 bits as 32 hex digits.
pub fn new_token() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// The cookie that carries the token for the page's own requests.
const COOKIE: &str = "damone_token";

/// The token in the URL's query, if any.
fn in_query(req: &Request) -> Option<String> {
    req.uri()
        .query()?
        .split('&')
        .find_map(|kv| kv.strip_prefix("token="))
        .map(str::to_string)
}

/// The token a request carries (query, bearer header or cookie), if any.
fn carried(req: &Request) -> Option<String> {
    let header_value = |name| req.headers().get(name).and_then(|v| v.to_str().ok());
    let bearer = header_value(header::AUTHORIZATION)
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_string);
    let cookie = || {
        header_value(header::COOKIE)?
            .split(';')
            .find_map(|c| c.trim().strip_prefix(COOKIE)?.strip_prefix('='))
            .map(str::to_string)
    };
    in_query(req).or(bearer).or_else(cookie)
}

/// Equal tokens, compared through their digests so that the time taken
/// says nothing about how much of a guess was right.
fn same(a: &str, b: &str) -> bool {
    Sha256::digest(a.as_bytes()) == Sha256::digest(b.as_bytes())
}

/// The middleware: refuse a request the access does not allow; a page
/// opened with the token in its URL gets the cookie for its own requests.
pub(super) async fn check(State(st): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    match &st.cfg.access {
        Access::Token(token) if !carried(&req).is_some_and(|c| same(&c, token)) => error(
            StatusCode::UNAUTHORIZED,
            "this server needs its token: open the URL it printed at start (with ?token=...)",
        ),
        Access::Token(token) if in_query(&req).is_some() => {
            let mut resp = next.run(req).await;
            let cookie = format!("{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict");
            if let Ok(v) = header::HeaderValue::from_str(&cookie) {
                resp.headers_mut().insert(header::SET_COOKIE, v);
            }
            resp
        }
        Access::WatchOnly if req.uri().path() == "/ws" => error(
            StatusCode::FORBIDDEN,
            "this server is watch-only: play and analysis are off",
        ),
        _ => next.run(req).await,
    }
}
