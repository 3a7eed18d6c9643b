//! Play and analyse over a WebSocket (`/ws`): one session per connection
//! holds the game; the opponent's replies and the analyses run on blocking
//! workers through the server's search queue (`queue.rs`).

use super::messages::{
    analysis_msg, board, cell_numbers, move_msg, AnalysisMsg, ClientMsg, GameState, OverMsg, ServerMsg,
};
use super::{player_list, AppState, MAX_MESSAGE};
use crate::arena::{parse_color, Player, PlayerFactory, VersusGame};
use crate::game::{Color, DrawRules, Game, GamePosition};
use crate::mcts::Budget;
use crate::player;
use crate::run::RunGame;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::sync::mpsc;

pub(super) async fn ws_upgrade(ws: WebSocketUpgrade, State(st): State<Arc<AppState>>) -> Response {
    let open = st.sessions.fetch_add(1, Ordering::Relaxed);
    let seat = Seat(st.clone());
    if open >= st.cfg.max_sessions {
        return super::error(
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            &format!("the server is busy: {open} games are open, the most it takes; try again later"),
        );
    }
    ws.max_message_size(4 * MAX_MESSAGE)
        .on_upgrade(move |socket| async move {
            let _seat = seat;
            crate::with_game!(st.cfg.game, P => session::<P>(socket, st).await)
        })
}

/// A game's place among the open ones, given back when it ends.
struct Seat(Arc<AppState>);

impl Drop for Seat {
    fn drop(&mut self) {
        self.0.sessions.fetch_sub(1, Ordering::Relaxed);
    }
}

/// What a worker sends back to the session.
enum Update<P: GamePosition> {
    /// The engine's move, its value for the side that moved, and the player back.
    Reply(Box<dyn Player<P>>, P::Move, Option<[f32; 3]>),
    /// Analysis so far (none when no round finished); `done` with the analyst back.
    Analysis(Option<AnalysisMsg>, Option<Box<dyn Player<P>>>),
}

struct Session<P: GamePosition> {
    versus: VersusGame<P>,
    bot: Option<Box<dyn Player<P>>>,
    analyst: Option<Box<dyn Player<P>>>,
    /// The engine's value (White's view: win minus loss) after each of its moves, by ply.
    values: Vec<(usize, f32)>,
    cancel: Arc<AtomicBool>,
    busy: bool,
}

impl<P: GamePosition> Session<P> {
    /// A search of this game is waiting or running.
    fn searching(&self) -> bool {
        self.busy || self.analyst.is_none()
    }
}

fn err_msg(text: impl std::fmt::Display) -> Message {
    ServerMsg::error(text).frame()
}

async fn session<P: RunGame>(mut socket: WebSocket, st: Arc<AppState>) {
    let (tx, mut rx) = mpsc::channel::<Update<P>>(16);
    let mut s: Option<Session<P>> = None;
    loop {
        let replies = tokio::select! {
            incoming = tokio::time::timeout(st.cfg.idle_timeout, socket.recv()) => match incoming {
                Err(_) if s.as_ref().is_some_and(Session::searching) => continue,
                Err(_) => {
                    let idle = st.cfg.idle_timeout.as_secs();
                    let bye = err_msg(format!("closed after {idle} s without a message"));
                    let _ = send_all(&mut socket, vec![bye], &st).await;
                    break;
                }
                Ok(None | Some(Err(_)) | Some(Ok(Message::Close(_)))) => break,
                Ok(Some(Ok(Message::Text(t)))) => handle(t.as_str(), &mut s, &st, &tx).await,
                Ok(Some(Ok(Message::Binary(_)))) => {
                    vec![err_msg("binary messages are not understood; send JSON text")]
                }
                Ok(Some(Ok(_))) => continue,
            },
            Some(update) = rx.recv() => apply_update(update, &mut s, &st, &tx).await,
        };
        if !send_all(&mut socket, replies, &st).await {
            break;
        }
    }
    // The client is gone: stop its search.
    if let Some(s) = &s {
        s.cancel.store(true, Ordering::Relaxed);
    }
}

/// Send `replies`; false when the page is gone or takes none of them for
/// the server's `send_timeout` (a slow page holds up only itself).
async fn send_all(socket: &mut WebSocket, replies: Vec<Message>, st: &AppState) -> bool {
    for r in replies {
        match tokio::time::timeout(st.cfg.send_timeout, socket.send(r)).await {
            Ok(Ok(())) => {}
            _ => return false,
        }
    }
    true
}

fn state_msg<P: GamePosition>(s: &Session<P>) -> Message {
    let v = &s.versus;
    let pos = v.game().position();
    let outcome = v.outcome();
    let moves = if v.humans_turn() {
        pos.legal_moves().iter().map(|m| move_msg(pos, m)).collect()
    } else {
        Vec::new()
    };
    ServerMsg::State(Box::new(GameState {
        game: P::ID.name(),
        fen: pos.to_setup(),
        board: board(pos),
        numbers: cell_numbers::<P>(),
        side: pos.side_to_move().name(),
        you: v.human().name(),
        opponent: v.opponent().to_string(),
        moves,
        history: crate::arena::tournament::move_texts(v.game()),
        values: s.values.clone(),
        over: outcome.as_ref().map(OverMsg::of),
        pdn: v.pdn(&format!("{} serve", P::ID), "you"),
        thinking: s.busy,
    }))
    .frame()
}

/// Start the engine's reply if it is the engine's turn.
async fn maybe_reply<P: RunGame>(s: &mut Session<P>, st: &Arc<AppState>, tx: &mpsc::Sender<Update<P>>) {
    if s.busy || !s.versus.engines_turn() {
        return;
    }
    let Some(mut bot) = s.bot.take() else { return };
    s.busy = true;
    let game = s.versus.game().clone();
    let tx = tx.clone();
    // A reply is never turned away: each game has at most one in line.
    let Ok(ticket) = st.searches.join(false) else {
        return;
    };
    ticket.run(move |permit| {
        let (mv, value) = match bot.analyse(&game) {
            Some(a) => (a.best, a.wdl.map(|w| w.to_array())),
            None => (bot.choose(&game), None),
        };
        drop(permit);
        let _ = tx.blocking_send(Update::Reply(bot, mv, value));
    });
}

async fn handle<P: RunGame>(
    text: &str,
    s: &mut Option<Session<P>>,
    st: &Arc<AppState>,
    tx: &mpsc::Sender<Update<P>>,
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
    let answer = match m {
        ClientMsg::New { opponent, color, fen } => new_game(s, st, tx, opponent, &color, fen).await,
        ClientMsg::Move { mv } => human_move(s, st, tx, &mv).await,
        ClientMsg::Undo => undo(s),
        ClientMsg::Stop => {
            if let Some(sess) = s.as_ref() {
                sess.cancel.store(true, Ordering::Relaxed);
            }
            Ok(None)
        }
        ClientMsg::Analyse { sims } => start_analysis(s, st, tx, sims).await,
    };
    match answer {
        Ok(reply) => reply.into_iter().collect(),
        Err(e) => vec![err_msg(e)],
    }
}

/// `new`: a game against a listed opponent; the engine moves first when
/// the user plays Black.
async fn new_game<P: RunGame>(
    s: &mut Option<Session<P>>,
    st: &Arc<AppState>,
    tx: &mpsc::Sender<Update<P>>,
    opponent: String,
    color: &str,
    fen: Option<String>,
) -> Result<Option<Message>, String> {
    let human = parse_color(color)?;
    if let Some(old) = s.as_ref() {
        old.cancel.store(true, Ordering::Relaxed);
    }
    if !player_list(&st.cfg).iter().any(|p| p.spec == opponent) {
        return Err(format!(
            "unknown player '{}': choose one from /api/players",
            opponent.chars().take(80).collect::<String>()
        ));
    }
    let start = match fen.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
        None => P::start(Default::default()),
        Some(f) => P::from_setup(f, Default::default()).map_err(|e| format!("bad FEN: {e}"))?,
    };
    let (make, header) = open_player::<P>(&opponent, st).await?;
    let rules = header.as_ref().map(|h| h.rules).unwrap_or(DrawRules::default());
    // A network analyses with itself; the other players with rollout MCTS.
    let analyst: Box<dyn Player<P>> = if header.is_some() {
        make(2)
    } else {
        let (make, _) = player::open::<P>("mcts:sims=400", &crate::net::ComputeDevice::cpu())
            .map_err(|e| e.to_string())?;
        make(2)
    };
    let sess = s.insert(Session {
        versus: VersusGame::new(start, rules, human, opponent),
        bot: Some(make(1)),
        analyst: Some(analyst),
        values: Vec::new(),
        cancel: Arc::new(AtomicBool::new(false)),
        busy: false,
    });
    maybe_reply(sess, st, tx).await;
    Ok(Some(state_msg(sess)))
}

/// A loaded player: its factory and, for a network, its header.
type Loaded<P> = (PlayerFactory<P>, Option<player::PlayerHeader>);

/// The players kept loaded at most (a run's newest checkpoints, player
/// files, the baselines); beyond it the cache starts again.
const PLAYERS_KEPT: usize = 32;

/// A player, loaded once for every game that plays it (off the async
/// runtime: a network's weights are read from disk).
async fn open_player<P: RunGame>(spec: &str, st: &Arc<AppState>) -> Result<Loaded<P>, String> {
    let cached = st.players.lock().ok().and_then(|c| c.get(spec).cloned());
    if let Some(loaded) = cached.as_ref().and_then(|a| a.downcast_ref::<Loaded<P>>()) {
        return Ok(loaded.clone());
    }
    let (owned, device) = (spec.to_string(), st.cfg.device.clone());
    let loaded: Loaded<P> =
        tokio::task::spawn_blocking(move || player::open(&owned, &device).map_err(|e| e.to_string()))
            .await
            .map_err(|_| "the player could not be loaded".to_string())??;
    if let Ok(mut cache) = st.players.lock() {
        if cache.len() >= PLAYERS_KEPT {
            cache.clear();
        }
        cache.insert(spec.to_string(), Arc::new(loaded.clone()));
    }
    Ok(loaded)
}

/// `move`: the user's move, then the engine's reply is started.
async fn human_move<P: RunGame>(
    s: &mut Option<Session<P>>,
    st: &Arc<AppState>,
    tx: &mpsc::Sender<Update<P>>,
    text: &str,
) -> Result<Option<Message>, String> {
    let sess = s.as_mut().ok_or("no game: send {\"type\":\"new\",...} first")?;
    if sess.busy && sess.versus.outcome().is_none() {
        return Err("not your turn".into());
    }
    let m = sess.versus.play_human(text)?;
    if let Some(b) = sess.bot.as_mut() {
        b.observe(&m);
    }
    maybe_reply(sess, st, tx).await;
    Ok(Some(state_msg(sess)))
}

/// `undo`: take back the user's last move and the reply to it.
fn undo<P: GamePosition>(s: &mut Option<Session<P>>) -> Result<Option<Message>, String> {
    let sess = s.as_mut().ok_or("no game to undo")?;
    if sess.busy {
        return Err("wait for the engine's move".into());
    }
    sess.versus.undo()?;
    let ply = sess.versus.game().ply();
    sess.values.retain(|(p, _)| *p <= ply);
    Ok(Some(state_msg(sess)))
}

/// `analyse`: stream the analyst's search in 8 rounds of growing budget,
/// up to `sims` (capped by the server's `max_sims`).
async fn start_analysis<P: RunGame>(
    s: &mut Option<Session<P>>,
    st: &Arc<AppState>,
    tx: &mpsc::Sender<Update<P>>,
    sims: Option<u32>,
) -> Result<Option<Message>, String> {
    let sess = s.as_mut().ok_or("no game to analyse")?;
    if let Some(o) = sess.versus.outcome() {
        return Err(o.over_message());
    }
    if sess.analyst.is_none() {
        return Err("an analysis is already running".into());
    }
    let ticket = match st.searches.join(true) {
        Ok(t) => t,
        Err(waiting) => {
            let text = format!(
                "the server is busy ({waiting} searches waiting): try the analysis again in a moment"
            );
            return Ok(Some(ServerMsg::Busy { message: text }.frame()));
        }
    };
    let analyst = sess.analyst.take().expect("checked above");
    let total = sims.unwrap_or(800).clamp(8, st.cfg.max_sims);
    sess.cancel = Arc::new(AtomicBool::new(false));
    let cancel = sess.cancel.clone();
    let game = sess.versus.game().clone();
    let tx = tx.clone();
    ticket.run(move |permit| stream_analysis(analyst, &game, total, &cancel, &tx, permit));
    Ok(None)
}

/// The analysis rounds on a blocking worker; the analyst goes back with
/// the last update, after the worker is given back. A round's update that
/// finds the page's queue full is skipped: a slow page holds up no worker.
fn stream_analysis<P: GamePosition>(
    mut analyst: Box<dyn Player<P>>,
    game: &Game<P>,
    total: u32,
    cancel: &AtomicBool,
    tx: &mpsc::Sender<Update<P>>,
    permit: tokio::sync::OwnedSemaphorePermit,
) {
    const ROUNDS: u32 = 8;
    let step = total.div_ceil(ROUNDS);
    let mut done = 0;
    let mut last: Option<AnalysisMsg> = None;
    while done < total && !cancel.load(Ordering::Relaxed) {
        let n = step.min(total - done);
        analyst.set_budget(Some(Budget::Simulations(n)));
        let Some(a) = analyst.analyse(game) else { break };
        done += n;
        let round = analysis_msg(game.position(), &a, done, false);
        if let Err(mpsc::error::TrySendError::Closed(_)) =
            tx.try_send(Update::Analysis(Some(round.clone()), None))
        {
            return;
        }
        last = Some(round);
    }
    drop(permit);
    if let Some(l) = last.as_mut() {
        l.done = true;
    }
    let _ = tx.blocking_send(Update::Analysis(last, Some(analyst)));
}

async fn apply_update<P: RunGame>(
    update: Update<P>,
    s: &mut Option<Session<P>>,
    st: &Arc<AppState>,
    tx: &mpsc::Sender<Update<P>>,
) -> Vec<Message> {
    let Some(sess) = s.as_mut() else { return Vec::new() };
    match update {
        Update::Reply(mut bot, mv, value) => {
            sess.busy = false;
            // A reply for a game that was replaced or undone is dropped.
            let mover = sess.versus.game().position().side_to_move();
            if sess.versus.play_engine(&mv) {
                bot.observe(&mv);
                if let Some(v) = value {
                    let white = if mover == Color::White {
                        v[0] - v[2]
                    } else {
                        v[2] - v[0]
                    };
                    sess.values.push((sess.versus.game().ply(), white));
                }
            }
            sess.bot = Some(bot);
            maybe_reply(sess, st, tx).await;
            vec![state_msg(sess)]
        }
        Update::Analysis(a, analyst) => {
            if let Some(analyst) = analyst {
                sess.analyst = Some(analyst);
            }
            a.map(|a| ServerMsg::Analysis(a).frame()).into_iter().collect()
        }
    }
}
