//! The web page: `damone serve`. An axum server whose assets (HTML, JS,
//! CSS) are compiled into the binary, with
//!
//! - **play and analyse** over a WebSocket (`/ws`): the server holds the
//!   game and the rules, sends the position with its legal moves, plays the
//!   opponent's replies, and streams analysis while the search runs; one
//!   search at a time on a blocking worker, with a capped budget; a client
//!   that disconnects (or sends `stop`) stops its search;
//! - **watch a run** (`/api/run`, `/api/run/events`): a run folder's
//!   metrics, evaluations and ratings, then new rows as server-sent events
//!   while `damone train` writes them (the event id is the iteration, so a
//!   reconnect resumes where it left off), and the self-play game in
//!   progress (`live.json`, written by `damone train`).
//!
//! Bad input (malformed or oversized messages, illegal moves, unknown
//! players, paths outside the run folder) gets an error message and the
//! server runs on.

use crate::arena::{Player, PlayerFactory};
use crate::game::{
    to_pdn, Color, DrawRules, Game, Move, Outcome, PdnHeaders, Position, Rank, Square, Variant,
};
use crate::mcts::Budget;
use crate::player;
use crate::run::{read_rows, EvalRow, Metrics, RunDir};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, Semaphore};

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// Longest WebSocket message the server reads.
pub const MAX_MESSAGE: usize = 16 * 1024;

/// What the server serves.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// A run folder to watch and take checkpoints from.
    pub run: Option<PathBuf>,
    /// A folder of exported player files (`*.dmp`) to offer as opponents.
    pub players_dir: Option<PathBuf>,
    /// The most simulations one analysis may run.
    pub max_sims: u32,
    /// How often the run's files are read for new rows.
    pub poll: Duration,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            run: None,
            players_dir: None,
            max_sims: 4000,
            poll: Duration::from_millis(500),
        }
    }
}

struct AppState {
    cfg: ServeConfig,
    /// One search at a time, server-wide.
    search: Arc<Semaphore>,
}

/// The router of the page and its API (no port: tests call it directly).
pub fn router(cfg: ServeConfig) -> Router {
    let state = Arc::new(AppState {
        cfg,
        search: Arc::new(Semaphore::new(1)),
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
        .route("/api/run", get(run_snapshot))
        .route("/api/run/events", get(run_events))
        .route("/ws", get(ws_upgrade))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such page") })
        .with_state(state)
}

/// Serve on `bind` until the process ends; `ready` gets the bound address.
pub async fn serve(
    cfg: ServeConfig,
    bind: SocketAddr,
    ready: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(bind).await?;
    ready(listener.local_addr()?);
    axum::serve(listener, router(cfg)).await
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

/// The opponents on offer: the run's checkpoints (newest first), the player
/// files of the players folder, and the baseline bots. Only these may be
/// played, so no request can name a path outside them.
pub fn player_list(cfg: &ServeConfig) -> Vec<PlayerEntry> {
    let mut out = Vec::new();
    if let Some(run) = &cfg.run {
        let dir = RunDir::new(run);
        for k in dir.checkpoints().into_iter().rev() {
            out.push(PlayerEntry {
                spec: format!("net:{}", dir.iter_dir(k).display()),
                label: format!("checkpoint iter_{k:04}"),
            });
        }
    }
    if let Some(pd) = &cfg.players_dir {
        if let Ok(rd) = std::fs::read_dir(pd) {
            let mut files: Vec<PathBuf> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "dmp"))
                .collect();
            files.sort();
            for f in files {
                out.push(PlayerEntry {
                    spec: format!("net:{}", f.display()),
                    label: format!(
                        "player file {}",
                        f.file_name().unwrap_or_default().to_string_lossy()
                    ),
                });
            }
        }
    }
    for (spec, label) in BASELINES {
        out.push(PlayerEntry {
            spec: spec.into(),
            label: label.into(),
        });
    }
    out
}

async fn players(State(st): State<Arc<AppState>>) -> Json<Vec<PlayerEntry>> {
    Json(player_list(&st.cfg))
}

/// The run's rows so far: metrics, evaluations, ratings (if a checkpoint
/// tournament wrote them into the run folder) and the live game.
async fn run_snapshot(State(st): State<Arc<AppState>>) -> Response {
    let Some(run) = st.cfg.run.clone() else {
        return Json(json!({ "run": null })).into_response();
    };
    let dir = RunDir::new(&run);
    let metrics: Vec<Metrics> = read_rows(&dir.metrics_path()).unwrap_or_default();
    let evals: Vec<EvalRow> = read_rows(&dir.evals_path()).unwrap_or_default();
    let ratings = std::fs::read_to_string(run.join("ratings_by_iteration.csv")).ok();
    Json(json!({
        "run": run.file_name().map(|n| n.to_string_lossy().into_owned()),
        "metrics": metrics,
        "evals": evals,
        "ratings_csv": ratings,
        "live": read_live(&run),
    }))
    .into_response()
}

fn read_live(run: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(run.join("live.json")).ok()?;
    let live: Value = serde_json::from_str(&text).ok()?;
    let fen = live.get("fen")?.as_str()?;
    let variant: Variant = live.get("variant")?.as_str()?.parse().ok()?;
    let pos = Position::from_fen(fen, variant).ok()?;
    Some(
        json!({ "fen": fen, "board": board(&pos), "ply": live.get("ply"), "iteration": live.get("iteration") }),
    )
}

/// New metrics and evaluation rows as server-sent events (id = the
/// iteration; `Last-Event-ID` resumes after it), and the live game when it
/// changes.
async fn run_events(State(st): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let Some(run) = st.cfg.run.clone() else {
        return error(
            StatusCode::NOT_FOUND,
            "no run folder: start the server with --run DIR",
        );
    };
    let mut after: u32 = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    let poll = st.cfg.poll;
    let (tx, rx) = mpsc::channel::<Result<SseEvent, Infallible>>(64);
    tokio::spawn(async move {
        let dir = RunDir::new(&run);
        let mut live_seen = String::new();
        loop {
            let metrics: Vec<Metrics> = read_rows(&dir.metrics_path()).unwrap_or_default();
            let evals: Vec<EvalRow> = read_rows(&dir.evals_path()).unwrap_or_default();
            let mut newest = after;
            for m in metrics.iter().filter(|m| m.iteration > after) {
                let evs: Vec<&EvalRow> = evals.iter().filter(|e| e.iteration == m.iteration).collect();
                let data = json!({ "metrics": m, "evals": evs }).to_string();
                let ev = SseEvent::default()
                    .event("iteration")
                    .id(m.iteration.to_string())
                    .data(data);
                if tx.send(Ok(ev)).await.is_err() {
                    return;
                }
                newest = newest.max(m.iteration);
            }
            after = newest;
            if let Some(live) = read_live(&run) {
                let text = live.to_string();
                if text != live_seen {
                    if tx
                        .send(Ok(SseEvent::default().event("live").data(text.clone())))
                        .await
                        .is_err()
                    {
                        return;
                    }
                    live_seen = text;
                }
            }
            tokio::select! {
                _ = tokio::time::sleep(poll) => {}
                _ = tx.closed() => return,
            }
        }
    });
    Sse::new(tokio_stream::wrappers::ReceiverStream::new(rx))
        .keep_alive(KeepAlive::default())
        .into_response()
}

async fn ws_upgrade(ws: WebSocketUpgrade, State(st): State<Arc<AppState>>) -> Response {
    ws.max_message_size(4 * MAX_MESSAGE)
        .on_upgrade(move |socket| session(socket, st))
}

/// A message from the page.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
enum ClientMsg {
    /// A new game against `opponent` (a spec from the player list).
    New {
        opponent: String,
        /// "white" or "black": the user's colour.
        color: String,
        #[serde(default)]
        fen: Option<String>,
    },
    /// The user's move, in the project's notation.
    Move {
        #[serde(rename = "move")]
        mv: String,
    },
    /// Take back the user's last move (and the reply to it).
    Undo,
    /// Analyse the current position with up to `sims` simulations.
    Analyse {
        #[serde(default)]
        sims: Option<u32>,
    },
    /// Stop the analysis under way.
    Stop,
}

/// What a worker sends back to the session.
enum Update {
    /// The engine's move, its value for the side that moved, and the player back.
    Reply(Box<dyn Player>, Move, Option<[f32; 3]>),
    /// Analysis so far; `done` with the analyst back.
    Analysis(Value, Option<Box<dyn Player>>),
}

struct Session {
    game: Game,
    human: Color,
    opponent: String,
    bot: Option<Box<dyn Player>>,
    analyst: Option<Box<dyn Player>>,
    /// The engine's value (White's view: win minus loss) after each of its moves, by ply.
    values: Vec<(usize, f32)>,
    cancel: Arc<AtomicBool>,
    busy: bool,
}

fn msg(v: Value) -> Message {
    Message::Text(v.to_string().into())
}

fn err_msg(text: impl std::fmt::Display) -> Message {
    let t: String = text.to_string().chars().take(300).collect();
    msg(json!({ "type": "error", "message": t }))
}

async fn session(mut socket: WebSocket, st: Arc<AppState>) {
    let (tx, mut rx) = mpsc::channel::<Update>(16);
    let mut s: Option<Session> = None;
    loop {
        tokio::select! {
            incoming = socket.recv() => {
                let text = match incoming {
                    None | Some(Err(_)) => break,
                    Some(Ok(Message::Text(t))) => t.as_str().to_string(),
                    Some(Ok(Message::Close(_))) => break,
                    Some(Ok(Message::Binary(_))) => {
                        let _ = socket.send(err_msg("binary messages are not understood; send JSON text")).await;
                        continue;
                    }
                    Some(Ok(_)) => continue,
                };
                let replies = handle(&text, &mut s, &st, &tx).await;
                for r in replies {
                    if socket.send(r).await.is_err() {
                        break;
                    }
                }
            }
            Some(update) = rx.recv() => {
                let replies = apply_update(update, &mut s, &st, &tx).await;
                for r in replies {
                    if socket.send(r).await.is_err() {
                        break;
                    }
                }
            }
        }
    }
    // The client is gone: stop its search.
    if let Some(s) = &s {
        s.cancel.store(true, Ordering::Relaxed);
    }
}

/// The position as the page draws it.
fn board(pos: &Position) -> Vec<Value> {
    Square::all()
        .filter_map(|sq| {
            pos.piece_at(sq).map(|p| {
                json!({
                    "sq": sq.to_string(),
                    "color": p.color.name(),
                    "rank": match p.rank { Rank::Pedina => "pedina", Rank::Dama => "dama", Rank::Damone => "damone" },
                })
            })
        })
        .collect()
}

fn move_json(m: &Move) -> Value {
    let path: Vec<String> = if m.is_capture() {
        m.landings().map(|s| s.to_string()).collect()
    } else {
        vec![m.to().to_string()]
    };
    json!({ "text": m.to_string(), "from": m.from().to_string(), "path": path })
}

fn over_json(o: &Outcome) -> Value {
    json!({ "result": o.pdn_result(), "reason": o.reason.name() })
}

fn state_msg(s: &Session) -> Message {
    let pos = s.game.position();
    let outcome = s.game.outcome();
    let moves: Vec<Value> = if outcome.is_none() && pos.side_to_move() == s.human {
        pos.legal_moves().iter().map(move_json).collect()
    } else {
        Vec::new()
    };
    let (white, black) = if s.human == Color::White {
        ("you".to_string(), s.opponent.clone())
    } else {
        (s.opponent.clone(), "you".to_string())
    };
    let pdn = to_pdn(
        &s.game,
        outcome.as_ref(),
        &PdnHeaders {
            event: "damone serve".into(),
            white,
            black,
            ..Default::default()
        },
    );
    msg(json!({
        "type": "state",
        "fen": pos.to_fen(),
        "board": board(pos),
        "side": pos.side_to_move().name(),
        "you": s.human.name(),
        "opponent": s.opponent,
        "moves": moves,
        "history": s.game.moves().iter().map(|m| m.to_string()).collect::<Vec<_>>(),
        "values": s.values.iter().map(|(ply, v)| json!([ply, v])).collect::<Vec<_>>(),
        "over": outcome.as_ref().map(over_json),
        "pdn": pdn,
        "thinking": s.busy,
    }))
}

/// Start the engine's reply if it is the engine's turn.
async fn maybe_reply(s: &mut Session, st: &Arc<AppState>, tx: &mpsc::Sender<Update>) {
    if s.busy || s.game.outcome().is_some() || s.game.position().side_to_move() == s.human {
        return;
    }
    let Some(mut bot) = s.bot.take() else { return };
    s.busy = true;
    let game = s.game.clone();
    let tx = tx.clone();
    let permit = st.search.clone().acquire_owned().await;
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let (mv, value) = match bot.analyse(&game) {
            Some(a) => (a.best, Some(a.wdl.to_array())),
            None => (bot.choose(&game), None),
        };
        let _ = tx.blocking_send(Update::Reply(bot, mv, value));
    });
}

async fn handle(
    text: &str,
    s: &mut Option<Session>,
    st: &Arc<AppState>,
    tx: &mpsc::Sender<Update>,
) -> Vec<Message> {
    if text.len() > MAX_MESSAGE {
        return vec![err_msg(format!(
            "message too long ({} bytes, at most {MAX_MESSAGE})",
            text.len()
        ))];
    }
    let m: ClientMsg = match serde_json::from_str(text) {
        Ok(m) => m,
        Err(e) => return vec![err_msg(format!("malformed message: {e}"))],
    };
    match m {
        ClientMsg::New { opponent, color, fen } => {
            let color = match color.as_str() {
                "white" => Color::White,
                "black" => Color::Black,
                other => {
                    return vec![err_msg(format!(
                        "bad colour '{}' (expected white or black)",
                        other.chars().take(20).collect::<String>()
                    ))]
                }
            };
            if let Some(old) = s.as_ref() {
                old.cancel.store(true, Ordering::Relaxed);
            }
            if !player_list(&st.cfg).iter().any(|p| p.spec == opponent) {
                return vec![err_msg(format!(
                    "unknown player '{}': choose one from /api/players",
                    opponent.chars().take(80).collect::<String>()
                ))];
            }
            let start = match fen.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
                None => Position::start(Variant::Standard),
                Some(f) => match Position::from_fen(f, Variant::Standard) {
                    Ok(p) => p,
                    Err(e) => return vec![err_msg(format!("bad FEN: {e}"))],
                },
            };
            let opened = tokio::task::spawn_blocking({
                let opponent = opponent.clone();
                move || -> Result<(PlayerFactory, Option<player::PlayerHeader>), String> {
                    player::open(&opponent).map_err(|e| e.to_string())
                }
            })
            .await;
            let (make, header) = match opened {
                Ok(Ok(x)) => x,
                Ok(Err(e)) => return vec![err_msg(e)],
                Err(_) => return vec![err_msg("the player could not be loaded")],
            };
            let rules = header.as_ref().map(|h| h.rules).unwrap_or(DrawRules::default());
            let bot = make(1);
            // A network analyses with itself; the other players with rollout MCTS.
            let analyst: Box<dyn Player> = if header.is_some() {
                make(2)
            } else {
                match player::factory("mcts:sims=400") {
                    Ok(f) => f(2),
                    Err(e) => return vec![err_msg(e)],
                }
            };
            *s = Some(Session {
                game: Game::new(start, rules),
                human: color,
                opponent,
                bot: Some(bot),
                analyst: Some(analyst),
                values: Vec::new(),
                cancel: Arc::new(AtomicBool::new(false)),
                busy: false,
            });
            let sess = s.as_mut().expect("session");
            maybe_reply(sess, st, tx).await;
            vec![state_msg(sess)]
        }
        ClientMsg::Move { mv } => {
            let Some(sess) = s.as_mut() else {
                return vec![err_msg("no game: send {\"type\":\"new\",...} first")];
            };
            if let Some(o) = sess.game.outcome() {
                return vec![err_msg(format!(
                    "the game is over: {} {}",
                    o.pdn_result(),
                    o.reason.name()
                ))];
            }
            if sess.busy || sess.game.position().side_to_move() != sess.human {
                return vec![err_msg("not your turn")];
            }
            match crate::game::parse_move(sess.game.position(), &mv) {
                Err(e) => vec![err_msg(e)],
                Ok(m) => {
                    sess.game.play_unchecked(&m);
                    if let Some(b) = sess.bot.as_mut() {
                        b.observe(&m);
                    }
                    maybe_reply(sess, st, tx).await;
                    vec![state_msg(sess)]
                }
            }
        }
        ClientMsg::Undo => {
            let Some(sess) = s.as_mut() else {
                return vec![err_msg("no game to undo")];
            };
            if sess.busy {
                return vec![err_msg("wait for the engine's move")];
            }
            let mut n = 0;
            while sess.game.undo() {
                n += 1;
                if sess.game.position().side_to_move() == sess.human {
                    break;
                }
            }
            if n == 0 {
                return vec![err_msg("nothing to undo")];
            }
            let ply = sess.game.ply();
            sess.values.retain(|(p, _)| *p <= ply);
            vec![state_msg(sess)]
        }
        ClientMsg::Stop => {
            if let Some(sess) = s.as_ref() {
                sess.cancel.store(true, Ordering::Relaxed);
            }
            Vec::new()
        }
        ClientMsg::Analyse { sims } => {
            let Some(sess) = s.as_mut() else {
                return vec![err_msg("no game to analyse")];
            };
            if let Some(o) = sess.game.outcome() {
                return vec![err_msg(format!(
                    "the game is over: {} {}",
                    o.pdn_result(),
                    o.reason.name()
                ))];
            }
            let Some(mut analyst) = sess.analyst.take() else {
                return vec![err_msg("an analysis is already running")];
            };
            let total = sims.unwrap_or(800).clamp(8, st.cfg.max_sims);
            sess.cancel = Arc::new(AtomicBool::new(false));
            let cancel = sess.cancel.clone();
            let game = sess.game.clone();
            let tx = tx.clone();
            let permit = st.search.clone().acquire_owned().await;
            tokio::task::spawn_blocking(move || {
                let _permit = permit;
                let rounds = 8;
                let step = total.div_ceil(rounds);
                let mut done = 0;
                let mut last = Value::Null;
                while done < total && !cancel.load(Ordering::Relaxed) {
                    let n = step.min(total - done);
                    analyst.set_budget(Some(Budget::Simulations(n)));
                    let Some(a) = analyst.analyse(&game) else { break };
                    done += n;
                    last = analysis_json(&a, done, false);
                    if tx.blocking_send(Update::Analysis(last.clone(), None)).is_err() {
                        return;
                    }
                }
                if let Value::Object(mut o) = last {
                    o.insert("done".into(), Value::Bool(true));
                    last = Value::Object(o);
                }
                let _ = tx.blocking_send(Update::Analysis(last, Some(analyst)));
            });
            Vec::new()
        }
    }
}

fn analysis_json(a: &crate::arena::Analysis, sims: u32, done: bool) -> Value {
    let lines: Vec<Value> = a
        .lines
        .iter()
        .take(8)
        .map(|l| {
            let mut m = move_json(&l.mv);
            if let Value::Object(o) = &mut m {
                o.insert("visits".into(), json!(l.visits));
                o.insert("prior".into(), json!(l.prior));
                o.insert("q".into(), json!(l.q));
            }
            m
        })
        .collect();
    json!({
        "type": "analysis",
        "lines": lines,
        "wdl": [a.wdl.win, a.wdl.draw, a.wdl.loss],
        "best": a.best.to_string(),
        "sims": sims,
        "done": done,
    })
}

async fn apply_update(
    update: Update,
    s: &mut Option<Session>,
    st: &Arc<AppState>,
    tx: &mpsc::Sender<Update>,
) -> Vec<Message> {
    let Some(sess) = s.as_mut() else { return Vec::new() };
    match update {
        Update::Reply(mut bot, mv, value) => {
            sess.busy = false;
            // A reply for a game that was replaced or undone is dropped.
            let legal = sess.game.outcome().is_none()
                && sess.game.position().side_to_move() != sess.human
                && sess.game.position().legal_moves().contains(&mv);
            if legal {
                let mover = sess.game.position().side_to_move();
                sess.game.play_unchecked(&mv);
                bot.observe(&mv);
                if let Some(v) = value {
                    let white = if mover == Color::White {
                        v[0] - v[2]
                    } else {
                        v[2] - v[0]
                    };
                    sess.values.push((sess.game.ply(), white));
                }
            }
            sess.bot = Some(bot);
            maybe_reply(sess, st, tx).await;
            vec![state_msg(sess)]
        }
        Update::Analysis(v, analyst) => {
            if let Some(a) = analyst {
                sess.analyst = Some(a);
            }
            if v.is_null() {
                Vec::new()
            } else {
                vec![msg(v)]
            }
        }
    }
}
