//! The web page: `damone serve`. An axum server whose assets (HTML, JS,
//! CSS) are compiled into the binary, with
//!
//! - **play and analyse** over a WebSocket (`/ws`): the server holds the
//!   game and the rules, sends the position with its legal moves, plays the
//!   opponent's replies, and streams analysis while the search runs;
//!   searches run on `search_workers` blocking workers, the others wait in
//!   a fair queue whose bound turns further analyses away as busy; a
//!   client that disconnects (or sends `stop`) stops its search; a page
//!   that reads nothing for `send_timeout` is dropped, a game idle for
//!   `idle_timeout` closed, and at most `max_sessions` are open;
//! - **watch a run** (`/api/run`, `/api/run/events`): a run folder's
//!   metrics, evaluations and ratings, then new rows as server-sent events
//!   while `damone train` writes them (the event id is the iteration, so a
//!   reconnect resumes where it left off), and the self-play game in
//!   progress (`live.json`, written by `damone train`).
//!
//! - **access** ([`Access`]): open on loopback; beyond it a token that
//!   every request and WebSocket must carry, or watch-only.
//!
//! Bad input (malformed or oversized messages, illegal moves, unknown
//! players, paths outside the run folder) gets an error message and the
//! server runs on.

mod access;
mod messages;
mod play;
mod queue;
mod watch;

pub use access::{new_token, Access};

use crate::game::GameKind;
use crate::net::ComputeDevice;
use crate::run::RunDir;
use crate::util::stop::Stop;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use serde_json::json;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// Longest WebSocket message the server reads.
pub const MAX_MESSAGE: usize = 16 * 1024;

/// What the server serves.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// The game the page plays (a run's game; Damone by default): only
    /// player files of this game are offered.
    pub game: GameKind,
    /// A run folder to watch and take checkpoints from.
    pub run: Option<PathBuf>,
    /// A folder of exported player files (`*.dmp`) to offer as opponents.
    pub players_dir: Option<PathBuf>,
    /// The most simulations one analysis may run.
    pub max_sims: u32,
    /// Threads of each network or alpha-beta search (a spec's `threads`
    /// option on the players listed).
    pub search_threads: usize,
    /// How often the run's files are read for new rows.
    pub poll: Duration,
    /// Where network players run.
    pub device: ComputeDevice,
    /// Who may use the server ([`Access::for_bind`]).
    pub access: Access,
    /// Searches (engine replies, analyses) run at once.
    pub search_workers: usize,
    /// Analyses that may wait for a worker; one more is refused as busy.
    pub max_waiting: usize,
    /// Games (WebSocket connections) open at once; more are refused.
    pub max_sessions: usize,
    /// A game with no message from its page for this long, and no search
    /// under way, is closed.
    pub idle_timeout: Duration,
    /// A page that takes no message for this long is disconnected.
    pub send_timeout: Duration,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            game: GameKind::default(),
            run: None,
            players_dir: None,
            max_sims: 4000,
            search_threads: 1,
            poll: Duration::from_millis(500),
            device: ComputeDevice::cpu(),
            access: Access::Open,
            search_workers: std::thread::available_parallelism().map_or(1, |n| n.get()),
            max_waiting: 64,
            max_sessions: 512,
            idle_timeout: Duration::from_secs(600),
            send_timeout: Duration::from_secs(10),
        }
    }
}

struct AppState {
    cfg: ServeConfig,
    /// The searches, server-wide.
    searches: queue::SearchQueue,
    /// Games open now.
    sessions: std::sync::atomic::AtomicUsize,
    /// Players loaded so far, by spec (one network in memory however many
    /// games play it): each a `(PlayerFactory<P>, Option<PlayerHeader>)`.
    players: std::sync::Mutex<std::collections::HashMap<String, Arc<dyn std::any::Any + Send + Sync>>>,
}

/// The router of the page and its API (no port: tests call it directly).
pub fn router(cfg: ServeConfig) -> Router {
    let state = Arc::new(AppState {
        searches: queue::SearchQueue::new(cfg.search_workers, cfg.max_waiting),
        cfg,
        sessions: Default::default(),
        players: Default::default(),
    });
    Router::new()
        .route(
            "/",
            get(|| async { asset(INDEX_HTML, "text/html; charset=utf-8") }),
        )
        .route(
            "/app.js",
            get(|| async { asset(APP_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/style.css",
            get(|| async { asset(STYLE_CSS, "text/css; charset=utf-8") }),
        )
        .route("/api/players", get(players))
        .route("/api/run", get(watch::run_snapshot))
        .route("/api/run/events", get(watch::run_events))
        .route("/ws", get(play::ws_upgrade))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such page") })
        .layer(axum::middleware::from_fn_with_state(state.clone(), access::check))
        .with_state(state)
}

/// How long a stopping server waits for open connections (games over a
/// WebSocket, a run's event stream) to close before it returns anyway.
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// Serve on `bind` until `stop` is raised; `ready` gets the bound address.
/// A stop refuses new connections at once and gives open ones
/// [`SHUTDOWN_GRACE`] to end.
pub async fn serve(
    cfg: ServeConfig,
    bind: SocketAddr,
    ready: impl FnOnce(SocketAddr),
    stop: Stop,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(bind).await?;
    ready(listener.local_addr()?);
    // Small messages (a move, an analysis line) go out at once, not held
    // back for the last one's acknowledgement (Nagle).
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let raised = |stop: Stop| async move {
        while !stop.requested() {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    };
    let server = axum::serve(listener, router(cfg)).with_graceful_shutdown(raised(stop.clone()));
    tokio::select! {
        r = server => r,
        _ = async {
            raised(stop).await;
            tokio::time::sleep(SHUTDOWN_GRACE).await;
        } => Ok(()),
    }
}

fn asset(body: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

fn error(code: StatusCode, message: &str) -> Response {
    (code, Json(json!({ "error": message }))).into_response()
}

/// One opponent the page may choose.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerEntry {
    /// The player spec sent back by the page.
    pub spec: String,
    /// What the page shows.
    pub label: String,
}

const BASELINES: [(&str, &str); 5] = [
    ("random", "random moves"),
    ("alphabeta:depth=2", "alpha-beta, depth 2"),
    ("alphabeta:depth=4", "alpha-beta, depth 4"),
    ("alphabeta:depth=6", "alpha-beta, depth 6"),
    ("mcts:sims=400", "rollout MCTS, 400 simulations"),
];

/// Alpha-beta with the learned evaluation at `path` (a checkpoint folder
/// or a player file), a second a move, where `path` has one.
fn learned_entry(path: &std::path::Path, what: &str, game: crate::game::GameKind) -> Option<PlayerEntry> {
    crate::player::learned_eval_at(path, Some(game.id())).ok()?;
    Some(PlayerEntry {
        spec: format!("alphabeta:eval={},movetime=1000", path.display()),
        label: format!("alpha-beta with the learned evaluation of {what}, 1 s a move"),
    })
}

/// The game's shipped players, where it has them: the page's first
/// choices, the stronger per second first.
fn shipped_entries(game: crate::game::GameKind) -> Vec<PlayerEntry> {
    crate::player::shipped_players()
        .iter()
        .filter(|p| p.game == game.name())
        .map(|p| PlayerEntry {
            spec: p.spec(),
            label: format!(
                "the shipped player ({}, {} ms a move)",
                p.kind.describe(),
                p.movetime_ms
            ),
        })
        .collect()
}

/// The opponents on offer: the game's shipped players, the run's
/// checkpoints (newest first), the player files of the players folder,
/// alpha-beta with the learned evaluation of each that has one, and the
/// baseline bots. Only these may be played, so
/// no request can name a path outside them.
pub fn player_list(cfg: &ServeConfig) -> Vec<PlayerEntry> {
    let mut out: Vec<PlayerEntry> = shipped_entries(cfg.game);
    if let Some(run) = &cfg.run {
        let dir = RunDir::new(run);
        for k in dir.checkpoints().into_iter().rev() {
            out.push(PlayerEntry {
                spec: format!("net:{}", dir.iter_dir(k).display()),
                label: format!("checkpoint iter_{k:04}"),
            });
            out.extend(learned_entry(&dir.iter_dir(k), &format!("iter_{k:04}"), cfg.game));
        }
    }
    if let Some(pd) = &cfg.players_dir {
        if let Ok(rd) = std::fs::read_dir(pd) {
            let mut files: Vec<PathBuf> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "dmp"))
                .filter(|p| {
                    let spec = format!("net:{}", p.display());
                    matches!(crate::player::game_of_spec(&spec), Ok(Some(g)) if g == cfg.game)
                })
                .collect();
            files.sort();
            for f in files {
                let name = f.file_name().unwrap_or_default().to_string_lossy().into_owned();
                out.push(PlayerEntry {
                    spec: format!("net:{}", f.display()),
                    label: format!("player file {name}"),
                });
                out.extend(learned_entry(&f, &name, cfg.game));
            }
        }
    }
    for (spec, label) in BASELINES {
        out.push(PlayerEntry {
            spec: spec.into(),
            label: label.into(),
        });
    }
    if cfg.search_threads > 1 {
        for p in out.iter_mut().filter(|p| {
            ["net:", "alphabeta:", "shipped:"]
                .iter()
                .any(|k| p.spec.starts_with(k))
        }) {
            p.spec = format!("{},threads={}", p.spec, cfg.search_threads);
        }
    }
    out
}

async fn players(State(st): State<Arc<AppState>>) -> Json<Vec<PlayerEntry>> {
    Json(player_list(&st.cfg))
}
