//! A game in progress, of any game: the current position, the repetition
//! history and the end-of-game rules (no legal move, a result the rules
//! give first, a win or a draw the game names, such as lost Damones in
//! Damone's `damone-hunt`; repetition, the no-progress limit, the length
//! cap).

use super::interface::GamePosition;
use super::types::Color;
use crate::util::range::{check, Bounds};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Draw limits; both are reported with every result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DrawRules {
    /// Draw after this many plies with no capture and no promotion.
    pub no_progress_plies: u32,
    /// Draw when the game reaches this many plies.
    pub max_plies: u32,
}

impl DrawRules {
    /// Check both limits; the error names the key.
    pub fn validate(&self) -> Result<(), String> {
        check(
            "rules.no_progress_plies",
            self.no_progress_plies,
            Bounds::AtLeast(1),
        )?;
        check("rules.max_plies", self.max_plies, Bounds::AtLeast(1))
    }
}

impl Default for DrawRules {
    fn default() -> Self {
        DrawRules {
            no_progress_plies: 80,
            max_plies: 400,
        }
    }
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum EndReason {
    /// The loser had no legal move (no pieces or all blocked).
    NoMoves,
    /// A result the rules give ([`GamePosition::decided`]), a win or a
    /// draw, by the name the game gives it (Damone's `damone-hunt`: a side
    /// with no Damone left has lost, `damone_lost`).
    Rules(&'static str),
    /// The same position for the third time (the game's `REPETITION_DRAW`).
    Repetition,
    /// The no-capture/no-promotion limit was reached.
    NoProgress,
    /// The game-length cap was reached.
    MaxPlies,
    /// A player resigned (self-play and interactive play).
    Resignation,
    /// Self-play stopped at a position an endgame table covers and took
    /// its exact result.
    Tablebase,
}

impl EndReason {
    /// Short snake-case name used in CSV files.
    pub fn name(self) -> &'static str {
        match self {
            EndReason::NoMoves => "no_moves",
            EndReason::Rules(name) => name,
            EndReason::Repetition => "repetition",
            EndReason::NoProgress => "no_progress",
            EndReason::MaxPlies => "max_plies",
            EndReason::Resignation => "resignation",
            EndReason::Tablebase => "tablebase",
        }
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Outcome {
    /// The winner, or `None` for a draw.
    pub winner: Option<Color>,
    /// Why the game ended.
    pub reason: EndReason,
}

impl Outcome {
    /// How every command says that a game is over:
    /// `the game is over: <result> <reason>`.
    pub fn over_message(&self) -> String {
        format!("the game is over: {} {}", self.pdn_result(), self.reason.name())
    }

    /// PDN result string: `1-0`, `0-1` or `1/2-1/2`.
    pub fn pdn_result(&self) -> &'static str {
        match self.winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
    /// Score for a colour: 1, 0.5 or 0.
    pub fn score_for(&self, c: Color) -> f64 {
        match self.winner {
            Some(w) if w == c => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.pdn_result(), self.reason.name())
    }
}

/// A move that is not legal in the position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("illegal move {mv} in position {fen}")]
pub struct IllegalMove {
    /// The move's text.
    pub mv: String,
    /// The position's setup string.
    pub fen: String,
}

/// A game of any [`GamePosition`]: start position, moves played, current
/// position and the history of hashes needed for repetition.
#[derive(Clone, Debug)]
pub struct Game<P: GamePosition> {
    start: P,
    pos: P,
    rules: DrawRules,
    moves: Vec<P::Move>,
    /// Hashes of the positions since the last irreversible move, current included.
    history: Vec<u64>,
    resigned: Option<Color>,
    /// Plies played before `start` (non-zero for a detached copy).
    ply_offset: usize,
}

impl<P: GamePosition> Game<P> {
    /// A new game from a start position.
    pub fn new(start: P, rules: DrawRules) -> Game<P> {
        Game {
            start,
            pos: start,
            rules,
            moves: Vec::new(),
            history: vec![start.hash_key()],
            resigned: None,
            ply_offset: 0,
        }
    }

    /// A copy that keeps what the rules need (position, repetition history,
    /// ply count, limits) but not the move list: cheap to clone in search.
    pub fn detached(&self) -> Game<P> {
        Game {
            start: self.pos,
            pos: self.pos,
            rules: self.rules,
            moves: Vec::new(),
            history: self.history.clone(),
            resigned: self.resigned,
            ply_offset: self.ply(),
        }
    }

    /// The current position.
    #[inline]
    pub fn position(&self) -> &P {
        &self.pos
    }
    /// The start position.
    pub fn start(&self) -> &P {
        &self.start
    }
    /// Moves played so far.
    pub fn moves(&self) -> &[P::Move] {
        &self.moves
    }
    /// Plies played so far.
    #[inline]
    pub fn ply(&self) -> usize {
        self.ply_offset + self.moves.len()
    }
    /// Draw limits in force.
    pub fn rules(&self) -> DrawRules {
        self.rules
    }
    /// Hashes of the positions since the last irreversible move, current last.
    pub fn history(&self) -> &[u64] {
        &self.history
    }
    /// Number of times the current position has occurred (with the same side to move).
    pub fn repetitions(&self) -> usize {
        let h = self.pos.hash_key();
        self.history.iter().filter(|&&x| x == h).count()
    }

    /// Play a move assumed legal.
    pub fn play_unchecked(&mut self, m: &P::Move) {
        if self.pos.play_unchecked(m) {
            self.history.clear();
        }
        self.history.push(self.pos.hash_key());
        self.moves.push(*m);
    }

    /// Play a move if legal.
    pub fn play(&mut self, m: &P::Move) -> Result<(), IllegalMove> {
        if !self.pos.legal_moves().contains(m) {
            return Err(IllegalMove {
                mv: self.pos.move_text(m),
                fen: self.pos.to_setup(),
            });
        }
        self.play_unchecked(m);
        Ok(())
    }

    /// Take back the last move (replays from the start). Returns false when
    /// there is none.
    pub fn undo(&mut self) -> bool {
        if self.moves.is_empty() {
            return false;
        }
        let mut moves = std::mem::take(&mut self.moves);
        moves.pop();
        let mut g = Game::<P>::new(self.start, self.rules);
        g.ply_offset = self.ply_offset;
        for m in &moves {
            g.play_unchecked(m);
        }
        *self = g;
        true
    }

    /// Record a resignation by `c`.
    pub fn resign(&mut self, c: Color) {
        self.resigned = Some(c);
    }

    /// The outcome if the game is over. `moves` must be the legal moves of
    /// the current position (pass them to avoid generating them twice).
    pub fn outcome_with(&self, moves: &[P::Move]) -> Option<Outcome> {
        let me = self.pos.side_to_move();
        if let Some(c) = self.resigned {
            return Some(Outcome {
                winner: Some(c.opposite()),
                reason: EndReason::Resignation,
            });
        }
        if let Some(o) = self.pos.decided() {
            return Some(o);
        }
        if moves.is_empty() {
            return Some(Outcome {
                winner: Some(me.opposite()),
                reason: EndReason::NoMoves,
            });
        }
        if self.repetitions() >= P::REPETITION_DRAW {
            return Some(Outcome {
                winner: None,
                reason: EndReason::Repetition,
            });
        }
        if self.pos.no_progress() as u32 >= self.rules.no_progress_plies {
            return Some(Outcome {
                winner: None,
                reason: EndReason::NoProgress,
            });
        }
        if self.ply() as u32 >= self.rules.max_plies {
            return Some(Outcome {
                winner: None,
                reason: EndReason::MaxPlies,
            });
        }
        None
    }

    /// The outcome if the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome_with(&self.pos.legal_moves())
    }
}
