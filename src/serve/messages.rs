//! The WebSocket's messages as types, both ways: what the page sends
//! ([`ClientMsg`]) and what the server answers ([`ServerMsg`]), each a
//! JSON object whose `type` names it. docs/web-page.md documents them.

use crate::arena::Analysis;
use crate::game::{GamePosition, Outcome};
use axum::extract::ws::Message;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A message from the page.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub(super) enum ClientMsg {
    /// A new game against `opponent` (a spec from the player list).
    New {
        opponent: String,
        /// "white" or "black": the user's colour.
        color: String,
        #[serde(default)]
        fen: Option<String>,
    },
    /// The user's move, in the game's notation.
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

/// A message to the page.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub(super) enum ServerMsg {
    /// The game after every change: sent after `new`, `move`, `undo` and
    /// each engine reply.
    State(Box<GameState>),
    /// An analysis so far, then its last round with `done`.
    Analysis(AnalysisMsg),
    /// A request refused, or the session closed; the session goes on
    /// (unless it closed).
    Error { message: String },
    /// The search queue is full: the analysis was not started.
    Busy { message: String },
}

impl ServerMsg {
    /// The WebSocket frame.
    pub(super) fn frame(&self) -> Message {
        let text = serde_json::to_string(self).expect("server messages serialise");
        Message::Text(text.into())
    }

    /// An error, its text cut to 300 characters.
    pub(super) fn error(text: impl std::fmt::Display) -> ServerMsg {
        ServerMsg::Error {
            message: text.to_string().chars().take(300).collect(),
        }
    }
}

/// A piece as the page draws it.
#[derive(Clone, Debug, Serialize)]
pub(super) struct PieceMsg {
    /// Its cell, `a1` to `h8`.
    pub sq: String,
    /// `white` or `black`.
    pub color: &'static str,
    /// Its kind in the game's words (Damone's pedina, dama, damone;
    /// Italian draughts' and Dameo's man, king).
    pub rank: &'static str,
}

/// A move as the page clicks it.
#[derive(Clone, Debug, Serialize)]
pub(super) struct MoveMsg {
    /// The move in the game's notation.
    pub text: String,
    /// Its start cell.
    pub from: String,
    /// The cells it passes and ends on, in order.
    pub path: Vec<String>,
}

/// A finished game's result.
#[derive(Clone, Debug, Serialize)]
pub(super) struct OverMsg {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'static str,
    /// Why it ended.
    pub reason: &'static str,
}

impl OverMsg {
    pub(super) fn of(o: &Outcome) -> OverMsg {
        OverMsg {
            result: o.pdn_result(),
            reason: o.reason.name(),
        }
    }
}

/// The game as it stands.
#[derive(Clone, Debug, Serialize)]
pub(super) struct GameState {
    /// The game's name.
    pub game: &'static str,
    /// The position's setup string.
    pub fen: String,
    /// The pieces on the board.
    pub board: Vec<PieceMsg>,
    /// The numbers the game's notation gives cells (Italian draughts'
    /// 1-32), by cell; empty where it names them by file and rank.
    pub numbers: BTreeMap<String, u32>,
    /// The side to move.
    pub side: &'static str,
    /// The user's colour.
    pub you: &'static str,
    /// The opponent's spec.
    pub opponent: String,
    /// The user's legal moves (none while the engine is to move).
    pub moves: Vec<MoveMsg>,
    /// The moves played, in the game's notation.
    pub history: Vec<String>,
    /// The engine's value after each of its moves: `[ply, White's win
    /// minus loss]`.
    pub values: Vec<(usize, f32)>,
    /// The result, once the game is over.
    pub over: Option<OverMsg>,
    /// The game so far as PDN.
    pub pdn: String,
    /// The engine is searching its reply.
    pub thinking: bool,
}

/// One candidate move of an analysis.
#[derive(Clone, Debug, Serialize)]
pub(super) struct LineMsg {
    #[serde(flatten)]
    pub mv: MoveMsg,
    pub visits: u32,
    pub prior: f32,
    /// Its mean value for the side to move, if visited.
    pub q: Option<f32>,
}

/// An analysis so far.
#[derive(Clone, Debug, Serialize)]
pub(super) struct AnalysisMsg {
    /// The candidate moves, most visited first (at most 8).
    pub lines: Vec<LineMsg>,
    /// Win, draw and loss for the side to move, where the search estimates them.
    pub wdl: Option<[f32; 3]>,
    /// The move the analyst would play.
    pub best: String,
    /// Simulations so far.
    pub sims: u32,
    /// The last round.
    pub done: bool,
}

/// `m` played from `pos`, as the page clicks it.
pub(super) fn move_msg<P: GamePosition>(pos: &P, m: &P::Move) -> MoveMsg {
    let cells: Vec<String> = P::move_path(m)
        .into_iter()
        .map(|(f, r)| cell_name(f, r))
        .collect();
    MoveMsg {
        text: pos.move_text(m),
        from: cells[0].clone(),
        path: cells[1..].to_vec(),
    }
}

/// `a1`..`h8`.
pub(super) fn cell_name(file: i32, rank: i32) -> String {
    format!("{}{}", (b'a' + file as u8) as char, rank + 1)
}

/// The position's pieces as the page draws them.
pub(super) fn board<P: GamePosition>(pos: &P) -> Vec<PieceMsg> {
    (0..8)
        .flat_map(|rank| (0..8).map(move |file| (file, rank)))
        .filter_map(|(file, rank)| {
            pos.piece_on(file, rank).map(|(color, kind)| PieceMsg {
                sq: cell_name(file, rank),
                color: color.name(),
                rank: P::PIECE_KINDS[kind],
            })
        })
        .collect()
}

/// The numbers `P`'s notation gives cells, by cell
/// ([`GamePosition::cell_number`]).
pub(super) fn cell_numbers<P: GamePosition>() -> BTreeMap<String, u32> {
    (0..8)
        .flat_map(|rank| (0..8).map(move |file| (file, rank)))
        .filter_map(|(file, rank)| Some((cell_name(file, rank), P::cell_number(file, rank)?)))
        .collect()
}

/// An analysis after `sims` simulations.
pub(super) fn analysis_msg<P: GamePosition>(
    pos: &P,
    a: &Analysis<P::Move>,
    sims: u32,
    done: bool,
) -> AnalysisMsg {
    AnalysisMsg {
        lines: a
            .lines
            .iter()
            .take(8)
            .map(|l| LineMsg {
                mv: move_msg(pos, &l.mv),
                visits: l.visits,
                prior: l.prior,
                q: l.q,
            })
            .collect(),
        wdl: a.wdl.map(|w| w.to_array()),
        best: pos.move_text(&a.best),
        sims,
        done,
    }
}
