//! Play and analyse over a WebSocket (`/ws`): one session per connection
//! holds the game; the opponent's replies and the analyses run on blocking
//! workers, one search at a time server-wide.

use super::{board, player_list, AppState, MAX_MESSAGE};
use crate::arena::{Player, PlayerFactory};
use crate::game::{to_pdn, Color, DrawRules, Game, Move, Outcome, PdnHeaders, Position, Variant};
use crate::mcts::Budget;
use crate::player;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::sync::mpsc;

pub(super) async fn ws_upgrade(ws: WebSocketUpgrade, State(st): State<Arc<AppState>>) -> Response {
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
                let device = st.cfg.device.clone();
                move || -> Result<(PlayerFactory, Option<player::PlayerHeader>), String> {
                    player::open_on(&opponent, &device).map_err(|e| e.to_string())
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
                return vec![err_msg(o.over_message())];
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
                return vec![err_msg(o.over_message())];
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
