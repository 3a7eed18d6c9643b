//! The players shipped with the program: for each game of the list, the
//! strongest learned evaluation the project has trained, compiled into the
//! binary (the files and their provenance are in the repository's
//! `players/` folder; `players/players.toml` is the one list). A spec
//! `shipped[:GAME][,movetime=MS|depth=D|nodes=N][,threads=T][,tb=DIR][,contempt=C]`
//! plays one: alpha-beta with that evaluation, at the file's own time a
//! move when the spec sets no limit. A game compiled in without a file (a
//! downstream crate's own game) has none, and says so.

use crate::game::GameId;
use crate::learned::EvalFile;
use serde::Deserialize;
use std::sync::OnceLock;

/// The list of shipped players with their provenance, as the repository
/// holds it.
pub const SHIPPED_PLAYERS_TOML: &str = include_str!("../../players/players.toml");

/// The shipped files by name, as `players.toml` names them.
const FILES: [(&str, &[u8]); 3] = [
    ("damone.eval", include_bytes!("../../players/damone.eval")),
    ("italian.eval", include_bytes!("../../players/italian.eval")),
    ("dameo.eval", include_bytes!("../../players/dameo.eval")),
];

/// One shipped player: its game, its file and where it came from.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShippedPlayer {
    /// The game's name.
    pub game: String,
    /// The learned evaluation's file name in `players/`.
    pub file: String,
    /// Milliseconds a move when a spec sets no limit.
    pub movetime_ms: u64,
    /// How it was trained (the commands and settings).
    pub trained: String,
    /// The day it was trained.
    pub date: String,
    /// The commit of the program that trained it.
    pub commit: String,
    /// Its measured strength, with the match that measured it.
    pub rating: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShippedList {
    player: Vec<ShippedPlayer>,
}

/// Every shipped player, in the list's order.
pub fn shipped_players() -> &'static [ShippedPlayer] {
    static LIST: OnceLock<Vec<ShippedPlayer>> = OnceLock::new();
    LIST.get_or_init(|| {
        toml::from_str::<ShippedList>(SHIPPED_PLAYERS_TOML)
            .expect("players/players.toml reads (held by a test)")
            .player
    })
}

/// The shipped player of `game`; the error says there is none and what
/// to use instead.
pub fn shipped_player(game: GameId) -> Result<&'static ShippedPlayer, String> {
    shipped_players()
        .iter()
        .find(|p| p.game == game.name())
        .ok_or_else(|| {
            format!(
                "no player is shipped for {} (the shipped ones play {}); name one with --player, e.g. alphabeta:depth=6 or a trained player file",
                game.title(),
                shipped_players().iter().map(|p| p.game.as_str()).collect::<Vec<_>>().join(", ")
            )
        })
}

impl ShippedPlayer {
    /// The file's bytes.
    pub fn bytes(&self) -> &'static [u8] {
        FILES
            .iter()
            .find(|(name, _)| *name == self.file)
            .map(|(_, bytes)| *bytes)
            .expect("every listed file is compiled in (held by a test)")
    }

    /// The learned evaluation it plays with.
    pub fn eval(&self) -> Result<EvalFile, String> {
        EvalFile::from_bytes(self.bytes()).map_err(|e| format!("shipped player of {}: {e}", self.game))
    }

    /// The spec that plays it.
    pub fn spec(&self) -> String {
        format!("shipped:{}", self.game)
    }

    /// What `damone players` prints of it: the spec, the kind, the size
    /// and time a move, the rating and the provenance, a line each.
    pub fn describe(&self) -> Vec<String> {
        let shape = self
            .eval()
            .map(|e| format!("{}x{}", e.float.shape.hidden, e.float.shape.hidden2))
            .unwrap_or_else(|e| e);
        vec![
            format!(
                "{}: alpha-beta with a learned evaluation ({shape} hidden, {} KB), {} ms a move unless the spec sets a limit",
                self.spec(),
                self.bytes().len().div_ceil(1024),
                self.movetime_ms
            ),
            format!("  rating: {}", self.rating),
            format!("  trained: {} ({}, commit {})", self.trained, self.date, self.commit),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameKind;
    use crate::net::ComputeDevice;

    /// Every game of the list has a shipped player whose file is compiled
    /// in, reads and evaluates that game; every compiled-in file is listed.
    #[test]
    fn every_game_ships_a_player_that_loads() {
        for kind in GameKind::ALL {
            let p = shipped_player(kind.id()).unwrap();
            let eval = p.eval().unwrap();
            assert_eq!(eval.game.name(), kind.name());
            assert!(p.movetime_ms > 0 && !p.rating.is_empty() && !p.trained.is_empty());
        }
        for (name, _) in FILES {
            assert!(
                shipped_players().iter().any(|p| p.file == name),
                "{name} is not listed"
            );
        }
        assert_eq!(shipped_players().len(), FILES.len());
    }

    /// Each game's shipped player, built from its spec at a fixed depth,
    /// wins every game of a short match against random moves.
    #[test]
    fn every_shipped_player_beats_random_moves() {
        fn check<P: crate::run::RunGame>() {
            use crate::arena::tournament::schedule;
            use crate::arena::{run_games, tally, MatchSettings};
            let spec = format!("shipped:{},depth=3", P::ID.name());
            let shipped = crate::player::open::<P>(&spec, &ComputeDevice::cpu()).unwrap().0;
            let random = crate::player::open::<P>("random", &ComputeDevice::cpu())
                .unwrap()
                .0;
            let mut s = MatchSettings::from_start(P::start(Default::default()));
            s.games_per_pair = 4;
            let tasks = schedule(&[(0, 1)], &s);
            let names = [spec.clone(), "random".to_string()];
            let records = run_games(&tasks, &names, &[shipped, random], &s, &|_| {});
            assert_eq!(tally(&records, 0), (4, 0, 0), "{spec} against random");
        }
        for kind in GameKind::ALL {
            crate::with_game!(kind, P => check::<P>());
        }
    }

    /// Bad `shipped` specs are refused with one line naming what is wrong.
    #[test]
    fn bad_shipped_specs_are_refused_by_name() {
        let err = |spec: &str| match crate::player::open::<crate::game::damone::Position>(
            spec,
            &ComputeDevice::cpu(),
        ) {
            Ok(_) => panic!("{spec} was accepted"),
            Err(e) => e.to_string(),
        };
        assert!(err("shipped:italian").contains("plays italian"));
        assert!(err("shipped:Bad Name").contains("invalid game name"));
        assert!(err("shipped,movetime=0").contains("unknown player kind"));
        assert!(err("shipped:damone,eval=x").contains("unknown option 'eval'"));
        assert!(err("shipped:damone,movetime=0").contains("movetime"));
    }

    #[test]
    fn a_game_without_one_says_so() {
        let e = shipped_player(GameId::new("checkers", "Checkers")).unwrap_err();
        assert!(e.contains("no player is shipped for Checkers"), "{e}");
        assert!(e.contains("--player"), "{e}");
    }
}
