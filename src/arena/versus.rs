//! A game between a person and an engine, as `damone play` and the web page
//! hold it: whose turn it is, the person's moves checked and played, the
//! engine's moves accepted only on its turn, undo back to the person's
//! turn, resignation, the result and the PDN. The engine itself (a
//! [`Player`](super::Player)) stays with the front end, which decides when
//! and where it searches.

use crate::game::{to_pdn, Color, DrawRules, Game, GamePosition, Outcome, PdnHeaders};

/// A person's colour from its name: `white`/`w` or `black`/`b`.
pub fn parse_color(text: &str) -> Result<Color, String> {
    match text.trim() {
        "white" | "w" => Ok(Color::White),
        "black" | "b" => Ok(Color::Black),
        other => Err(format!(
            "bad colour '{}' (expected white or black)",
            crate::util::clip(other, 20)
        )),
    }
}

/// A game of a person against an engine.
#[derive(Clone, Debug)]
pub struct VersusGame<P: GamePosition> {
    game: Game<P>,
    human: Color,
    opponent: String,
}

impl<P: GamePosition> VersusGame<P> {
    /// A game from `start` under `rules`; the person plays `human`, against
    /// the engine named `opponent`.
    pub fn new(start: P, rules: DrawRules, human: Color, opponent: impl Into<String>) -> VersusGame<P> {
        VersusGame {
            game: Game::new(start, rules),
            human,
            opponent: opponent.into(),
        }
    }

    /// The game so far.
    pub fn game(&self) -> &Game<P> {
        &self.game
    }

    /// The person's colour.
    pub fn human(&self) -> Color {
        self.human
    }

    /// The engine's name.
    pub fn opponent(&self) -> &str {
        &self.opponent
    }

    /// The result, once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.game.outcome()
    }

    /// The game goes on and the person is to move.
    pub fn humans_turn(&self) -> bool {
        self.game.position().side_to_move() == self.human && self.outcome().is_none()
    }

    /// The game goes on and the engine is to move.
    pub fn engines_turn(&self) -> bool {
        self.game.position().side_to_move() != self.human && self.outcome().is_none()
    }

    /// Play the person's move given as text; the error says why it cannot
    /// be played (the game is over, not their turn, not a legal move).
    pub fn play_human(&mut self, text: &str) -> Result<P::Move, String> {
        if let Some(o) = self.outcome() {
            return Err(o.over_message());
        }
        if !self.humans_turn() {
            return Err("not your turn".into());
        }
        let mv = self.game.position().parse_move(text).map_err(|e| e.to_string())?;
        self.game.play_unchecked(&mv);
        Ok(mv)
    }

    /// Play the engine's move if it is the engine's turn and the move is
    /// legal here; false otherwise (a reply that arrives after the game was
    /// undone or replaced is dropped).
    pub fn play_engine(&mut self, mv: &P::Move) -> bool {
        let legal = self.engines_turn() && self.game.position().legal_moves().contains(mv);
        if legal {
            self.game.play_unchecked(mv);
        }
        legal
    }

    /// Take back moves until the person is to move again (their last move
    /// and the engine's reply to it); the plies taken back, or an error
    /// when there is nothing to undo.
    pub fn undo(&mut self) -> Result<usize, String> {
        let mut taken = 0;
        while self.game.undo() {
            taken += 1;
            if self.game.position().side_to_move() == self.human {
                break;
            }
        }
        if taken == 0 {
            return Err("nothing to undo".into());
        }
        Ok(taken)
    }

    /// The person resigns.
    pub fn resign(&mut self) {
        self.game.resign(self.human);
    }

    /// The game as PDN, the person named `human_name`.
    pub fn pdn(&self, event: &str, human_name: &str) -> String {
        let (white, black) = match self.human {
            Color::White => (human_name.to_string(), self.opponent.clone()),
            Color::Black => (self.opponent.clone(), human_name.to_string()),
        };
        let headers = PdnHeaders {
            event: event.into(),
            white,
            black,
            ..Default::default()
        };
        to_pdn(&self.game, self.outcome().as_ref(), &headers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::damone::{Position, Variant};

    fn start(human: Color) -> VersusGame<Position> {
        VersusGame::new(
            Position::start(Variant::Standard),
            DrawRules::default(),
            human,
            "bot",
        )
    }

    #[test]
    fn turns_moves_and_undo() {
        let mut v = start(Color::White);
        assert!(v.humans_turn() && !v.engines_turn());
        assert!(v.play_human("a1-b2").is_err());
        let mv = v.play_human("f3-e4").unwrap();
        assert_eq!(mv.to_string(), "f3-e4");
        assert_eq!(v.play_human("c6-d5").unwrap_err(), "not your turn");
        let reply = v.game().position().legal_moves()[0];
        assert!(v.play_engine(&reply));
        assert!(!v.play_engine(&reply), "the engine moves only on its turn");
        assert_eq!(v.undo(), Ok(2));
        assert_eq!(v.game().ply(), 0);
        assert_eq!(v.undo(), Err("nothing to undo".to_string()));
    }

    #[test]
    fn black_undo_stops_at_the_persons_turn() {
        let mut v = start(Color::Black);
        assert!(v.engines_turn());
        let first = v.game().position().legal_moves()[0];
        assert!(v.play_engine(&first));
        assert!(v.humans_turn());
        // Only the engine's move is there: nothing of the person's to undo
        // but that move, which leaves the engine to move again.
        assert_eq!(v.undo(), Ok(1));
        assert!(v.engines_turn());
    }

    #[test]
    fn resign_and_pdn() {
        let mut v = start(Color::Black);
        let first = v.game().position().legal_moves()[0];
        v.play_engine(&first);
        v.resign();
        assert_eq!(v.outcome().unwrap().pdn_result(), "1-0");
        assert!(v.play_human("c6-d5").unwrap_err().contains("over"));
        let pdn = v.pdn("test", "you");
        assert!(
            pdn.contains("[White \"bot\"]") && pdn.contains("[Black \"you\"]"),
            "{pdn}"
        );
        assert!(pdn.contains("1-0"), "{pdn}");
    }

    #[test]
    fn colours_by_name() {
        assert_eq!(parse_color("w"), Ok(Color::White));
        assert_eq!(parse_color("black"), Ok(Color::Black));
        assert!(parse_color("green").unwrap_err().contains("'green'"));
    }
}
