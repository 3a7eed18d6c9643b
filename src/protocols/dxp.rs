//! DXP, the DamExchange Protocol: engine-against-engine games over TCP
//! (`damone dxp`), damone the follower that waits for a game request.
//! Messages are fixed-field ASCII, each ended by a NUL byte:
//!
//! | message | fields | damone's answer |
//! | --- | --- | --- |
//! | `R` game request | version (2), initiator's name (32), follower's colour (`W`/`Z`), minutes (3), moves (3), `A` (start) or `B`, then the colour to move and a letter a square (`e` `w` `z` `W` `Z`) | `A` + its name (32) + `0` (accepted) or `9` (declined, with a `C` chat line saying why); then its move if it is to move |
//! | `M` move | time (4), from (2), to (2), captured count (2), each captured square (2) | its own move, unless the game is over |
//! | `E` game end | reason (1), stop code (1) | `E` back, unless it sent one |
//! | `B` back request | move number (3), colour to move (1) | `K0` and the game taken back to there (then its move if it is to move), or `K1` |
//! | `C` chat | text | nothing |
//!
//! A game damone sees ended by the rules gets its `E` (reason `1` I lose,
//! `2` draw, `3` I win) right after the last move. A message that does not
//! read, or an illegal move, is answered with a `C` line saying what is
//! wrong, and the connection stays open. Only games on a numbered board
//! of men and kings ([`NumberedBoard`]: Italian draughts) can be spoken.

use super::notation::{find_numbered_move, lettered_pieces, NumberedBoard};
use crate::arena::{Player, SearchLimit};
use crate::game::{Color, DrawRules, Game, GamePosition};
use crate::util::clip;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

/// The longest message DXP allows (without its NUL).
pub const MAX_MESSAGE: usize = 127;

/// A game's state on one connection.
struct DxpGame<P: GamePosition> {
    game: Game<P>,
    start: P,
    moves: Vec<P::Move>,
    ours: Color,
    /// Seconds left on damone's clock (None: no clock; the player's own time).
    clock: Option<f64>,
    /// Moves of the time control (0: the whole game).
    control_moves: u32,
    ended: bool,
}

/// The follower's side of DXP: its player and name.
pub struct DxpEngine<P: NumberedBoard> {
    player: Box<dyn Player<P>>,
    name: String,
    rules: DrawRules,
}

impl<P: NumberedBoard> DxpEngine<P> {
    /// An engine playing with `player`, answering with `name`, its games
    /// under `rules`.
    pub fn new(player: Box<dyn Player<P>>, name: String, rules: DrawRules) -> Self {
        DxpEngine { player, name, rules }
    }

    /// Accept connections on `listener` one after another, each served to
    /// its end; stops after `connections` of them (None: never).
    pub fn listen(&mut self, listener: &TcpListener, connections: Option<usize>) -> std::io::Result<()> {
        for (served, stream) in listener.incoming().enumerate() {
            let stream = stream?;
            // A connection that fails ends; the next one is served.
            if let Err(e) = self.serve_connection(stream) {
                eprintln!("dxp: connection ended: {e}");
            }
            if connections.is_some_and(|c| served + 1 >= c) {
                break;
            }
        }
        Ok(())
    }

    /// Serve one connection until the other side closes it.
    pub fn serve_connection(&mut self, stream: TcpStream) -> std::io::Result<()> {
        stream.set_nodelay(true)?;
        let mut writer = stream.try_clone()?;
        let mut reader = BufReader::new(stream);
        let mut game: Option<DxpGame<P>> = None;
        loop {
            let mut buf = Vec::new();
            if reader.read_until(0, &mut buf)? == 0 {
                return Ok(());
            }
            if buf.last() == Some(&0) {
                buf.pop();
            }
            let text = String::from_utf8_lossy(&buf).trim().to_string();
            if text.is_empty() {
                continue;
            }
            // The answer goes out before damone thinks about its move, each
            // message written apart.
            let mut replies = self.answer(&text, &mut game);
            for reply in replies.drain(..) {
                send(&mut writer, &reply)?;
            }
            if let Some(g) = game.as_mut() {
                for reply in self.our_turn(g) {
                    send(&mut writer, &reply)?;
                }
            }
        }
    }

    /// The replies to one message.
    fn answer(&mut self, text: &str, game: &mut Option<DxpGame<P>>) -> Vec<String> {
        let result = match text.as_bytes()[0] {
            b'R' => self.game_request(text).map(|(g, replies)| {
                *game = Some(g);
                replies
            }),
            b'M' => match game.as_mut() {
                Some(g) => self.their_move(text, g),
                None => Err("a move before any game request".into()),
            },
            b'E' => match game.as_mut() {
                Some(g) if !g.ended => {
                    g.ended = true;
                    Ok(vec!["E01".into()])
                }
                _ => Ok(vec![]),
            },
            b'B' => match game.as_mut() {
                Some(g) => Ok(self.back_request(text, g)),
                None => Ok(vec!["K1".into()]),
            },
            b'C' => Ok(vec![]),
            _ => Err(format!(
                "unknown message '{}' (expected R, M, E, B or C)",
                clip(text, 40)
            )),
        };
        result.unwrap_or_else(|e| vec![chat(&e)])
    }

    /// A game request: the game, and `A` accepting or declining it.
    fn game_request(&mut self, text: &str) -> Result<(DxpGame<P>, Vec<String>), String> {
        let field = |from: usize, to: usize| text.get(from..to.min(text.len())).unwrap_or("");
        let decline = |why: String| format!("{why}; game request declined");
        let ours = match field(35, 36) {
            "W" => Color::White,
            "Z" => Color::Black,
            other => {
                return Err(decline(format!(
                    "bad follower colour '{}' (expected W or Z)",
                    clip(other, 5)
                )))
            }
        };
        let minutes: u32 = field(36, 39)
            .trim()
            .parse()
            .map_err(|_| decline("bad game time".into()))?;
        let control_moves: u32 = field(39, 42)
            .trim()
            .parse()
            .map_err(|_| decline("bad move count".into()))?;
        let start = match field(42, 43) {
            "A" => P::start(Default::default()),
            "B" => read_position::<P>(field(43, 44 + P::SQUARES as usize)).map_err(decline)?,
            other => {
                return Err(decline(format!(
                    "bad position flag '{}' (expected A or B)",
                    clip(other, 5)
                )))
            }
        };
        let game = DxpGame {
            game: Game::new(start, self.rules),
            start,
            moves: Vec::new(),
            ours,
            clock: (minutes > 0).then_some(minutes as f64 * 60.0),
            control_moves,
            ended: false,
        };
        Ok((game, vec![format!("A{:<32}0", clip(&self.name, 32))]))
    }

    /// The opponent's move (damone's answer follows, from `our_turn`).
    fn their_move(&mut self, text: &str, g: &mut DxpGame<P>) -> Result<Vec<String>, String> {
        if g.ended || g.game.outcome().is_some() {
            return Err("the game is over; no move is played".into());
        }
        if g.game.position().side_to_move() == g.ours {
            return Err("a move while it is damone's turn".into());
        }
        let mv = read_move(g.game.position(), text)?;
        g.game.play_unchecked(&mv);
        g.moves.push(mv);
        Ok(vec![])
    }

    /// damone's move if it is to move in a game not ended, and `E` when the
    /// game is over by the rules.
    fn our_turn(&mut self, g: &mut DxpGame<P>) -> Vec<String> {
        let mut out = Vec::new();
        if g.ended {
            return out;
        }
        if g.game.outcome().is_none() && g.game.position().side_to_move() == g.ours {
            let started = Instant::now();
            if let Some(t) = move_time(g) {
                self.player.set_limit(SearchLimit::Time(t));
            }
            let mv = self.player.choose(&g.game);
            self.player.set_budget(None);
            let spent = started.elapsed().as_secs_f64();
            if let Some(c) = g.clock.as_mut() {
                *c = (*c - spent).max(0.0);
            }
            out.push(move_message::<P>(&mv, spent));
            g.game.play_unchecked(&mv);
            g.moves.push(mv);
        }
        if let Some(o) = g.game.outcome() {
            g.ended = true;
            let reason = match o.winner {
                None => '2',
                Some(c) if c == g.ours => '3',
                Some(_) => '1',
            };
            out.push(format!("E{reason}0"));
        }
        out
    }

    /// A back request: the game taken back to move `NNN` with the named
    /// colour to move, where it has been there.
    fn back_request(&mut self, text: &str, g: &mut DxpGame<P>) -> Vec<String> {
        let number: Option<usize> = text.get(1..4).and_then(|t| t.trim().parse().ok());
        let side = match text.get(4..5) {
            Some("W") => Some(Color::White),
            Some("Z") => Some(Color::Black),
            _ => None,
        };
        // Move n with White to move is ply 2(n-1) of the game, with Black
        // to move the ply after it (as pydraughts counts them).
        let ply = match (number, side) {
            (Some(n), Some(c)) if n >= 1 => Some((n - 1) * 2 + usize::from(c == Color::Black)),
            _ => None,
        };
        let Some(ply) = ply.filter(|&p| p <= g.moves.len()) else {
            return vec!["K1".into()];
        };
        g.moves.truncate(ply);
        g.game = Game::new(g.start, self.rules);
        for m in &g.moves {
            g.game.play_unchecked(m);
        }
        g.ended = false;
        vec!["K0".into()]
    }
}

/// damone's time for its next move: its share of the clock, None without one.
fn move_time<P: GamePosition>(g: &DxpGame<P>) -> Option<Duration> {
    let left = g.clock?;
    let made = g.moves.len() as u32 / 2;
    let to_go = match g.control_moves {
        0 => 30,
        n => (n - made % n).max(1),
    };
    Some(Duration::from_secs_f64(
        (left / to_go as f64 * 0.9).clamp(0.01, 600.0),
    ))
}

/// Write one message and its NUL, flushed.
fn send(w: &mut impl Write, message: &str) -> std::io::Result<()> {
    w.write_all(message.as_bytes())?;
    w.write_all(&[0])?;
    w.flush()
}

/// A `C` chat message of at most the protocol's length.
fn chat(text: &str) -> String {
    format!("C{}", clip(&text.replace('\0', " "), MAX_MESSAGE - 4))
}

/// The position of a game request's `B` fields: the colour to move and a
/// letter a square.
pub fn read_position<P: NumberedBoard>(text: &str) -> Result<P, String> {
    let side = |c| match c {
        'W' => Some(Color::White),
        'Z' => Some(Color::Black),
        _ => None,
    };
    let square = |c| match c {
        'e' => Some(None),
        'w' => Some(Some((Color::White, false))),
        'W' => Some(Some((Color::White, true))),
        'z' => Some(Some((Color::Black, false))),
        'Z' => Some(Some((Color::Black, true))),
        _ => None,
    };
    let (to_move, pieces) = lettered_pieces::<P>(text, side, square).ok_or_else(|| {
        format!(
            "bad position '{}' (expected W or Z and {} letters e, w, z, W, Z)",
            clip(text, 40),
            P::SQUARES
        )
    })?;
    P::with_pieces(&pieces, to_move)
}

/// The legal move an `M` message names.
pub fn read_move<P: NumberedBoard>(pos: &P, text: &str) -> Result<P::Move, String> {
    let number = |from: usize| {
        text.get(from..from + 2)
            .and_then(|t| t.trim().parse::<u32>().ok())
    };
    let bad = || format!("bad move message '{}'", clip(text, 40));
    let (from, to, count) = (
        number(5).ok_or_else(bad)?,
        number(7).ok_or_else(bad)?,
        number(9).ok_or_else(bad)?,
    );
    let captured: Option<Vec<u32>> = (0..count as usize).map(|i| number(11 + 2 * i)).collect();
    let captured = captured.ok_or_else(bad)?;
    find_numbered_move(pos, from, to, Some(&captured)).ok_or_else(|| {
        format!(
            "illegal move {from}-{to} taking {captured:?} in {}",
            pos.to_setup()
        )
    })
}

/// The `M` message of damone's move, `seconds` spent on it.
pub fn move_message<P: NumberedBoard>(mv: &P::Move, seconds: f64) -> String {
    let (from, to, captured) = P::move_squares(mv);
    let mut out = format!(
        "M{:04}{from:02}{to:02}{:02}",
        (seconds.round() as u64).min(9999),
        captured.len()
    );
    for c in captured {
        out.push_str(&format!("{c:02}"));
    }
    out
}
