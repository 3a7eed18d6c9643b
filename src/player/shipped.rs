//! The players shipped with the program: for each game of the list, the
//! strongest learned evaluation the project has trained and, where one is
//! shipped, its strongest network, compiled into the binary (the files and
//! their provenance are in the repository's `players/` folder;
//! `players/players.toml` is the one list). A spec
//! `shipped[:GAME][,kind=eval][,movetime=MS|depth=D|nodes=N][,threads=T][,tb=DIR][,contempt=C]`
//! plays the learned evaluation with alpha-beta, and
//! `shipped[:GAME],kind=net[,sims=N|movetime=MS][,algo=..][,threads=T][,tb=DIR]`
//! the network with its tree search, each at the list's own time a move
//! when the spec sets no limit. Without `kind` a spec plays the game's
//! first listed player, the stronger per second. A game compiled in
//! without a file (a downstream crate's own game) has none, and says so.

use super::{LoadedNet, PlayerFileError};
use crate::game::GameId;
use crate::learned::EvalFile;
use serde::Deserialize;
use std::sync::OnceLock;

/// The list of shipped players with their provenance, as the repository
/// holds it.
pub const SHIPPED_PLAYERS_TOML: &str = include_str!("../../players/players.toml");

/// The shipped files by name, as `players.toml` names them.
const FILES: [(&str, &[u8]); 6] = [
    ("damone.eval", include_bytes!("../../players/damone.eval")),
    ("italian.eval", include_bytes!("../../players/italian.eval")),
    ("dameo.eval", include_bytes!("../../players/dameo.eval")),
    ("damone-net.dmp", include_bytes!("../../players/damone-net.dmp")),
    ("italian-net.dmp", include_bytes!("../../players/italian-net.dmp")),
    ("dameo-net.dmp", include_bytes!("../../players/dameo-net.dmp")),
];

/// What a shipped player plays with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShippedKind {
    /// Alpha-beta with a learned evaluation (its file a `.eval`).
    #[default]
    Eval,
    /// A network with its tree search (its file a player file, `.dmp`).
    Net,
}

impl ShippedKind {
    /// The kind as a spec's `kind=` writes it.
    pub fn name(self) -> &'static str {
        match self {
            ShippedKind::Eval => "eval",
            ShippedKind::Net => "net",
        }
    }

    /// The kind a spec's `kind=` names.
    pub fn parse(text: &str) -> Result<ShippedKind, String> {
        match text {
            "eval" => Ok(ShippedKind::Eval),
            "net" => Ok(ShippedKind::Net),
            _ => Err("must be eval (alpha-beta with the learned evaluation) or net (the network)".into()),
        }
    }

    /// What it is, in words.
    pub fn describe(self) -> &'static str {
        match self {
            ShippedKind::Eval => "alpha-beta with its learned evaluation",
            ShippedKind::Net => "the network with its tree search",
        }
    }
}

/// One shipped player: its game, its kind, its file and where it came from.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShippedPlayer {
    /// The game's name.
    pub game: String,
    /// What it plays with (a learned evaluation unless the list says `net`).
    #[serde(default)]
    pub kind: ShippedKind,
    /// Its file's name in `players/`: a learned evaluation or a player file.
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

/// The shipped player of `game` of `kind` (None: the game's first listed,
/// the stronger per second); the error says there is none and what to use
/// instead.
pub fn shipped_player(game: GameId, kind: Option<ShippedKind>) -> Result<&'static ShippedPlayer, String> {
    find_in(shipped_players(), game, kind)
}

/// [`shipped_player`] in `list`.
fn find_in(
    list: &[ShippedPlayer],
    game: GameId,
    kind: Option<ShippedKind>,
) -> Result<&ShippedPlayer, String> {
    let of_game = || list.iter().filter(|p| p.game == game.name());
    if let Some(found) = of_game().find(|p| kind.is_none_or(|k| p.kind == k)) {
        return Ok(found);
    }
    if let (Some(kind), Some(other)) = (kind, of_game().next()) {
        return Err(format!(
            "no {} player is shipped for {} (its shipped player is {}: {})",
            kind.name(),
            game.title(),
            other.spec(),
            other.kind.describe()
        ));
    }
    let mut games: Vec<&str> = Vec::new();
    for p in list {
        if !games.contains(&p.game.as_str()) {
            games.push(&p.game);
        }
    }
    Err(format!(
        "no player is shipped for {} (the shipped ones play {}); name one with --player, e.g. alphabeta:depth=6 or a trained player file",
        game.title(),
        games.join(", ")
    ))
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

    /// The learned evaluation it plays with (a `kind = "net"` player's
    /// file is no learned evaluation, and says so).
    pub fn eval(&self) -> Result<EvalFile, String> {
        if self.kind != ShippedKind::Eval {
            return Err(format!("{} is a network, not a learned evaluation", self.spec()));
        }
        EvalFile::from_bytes(self.bytes()).map_err(|e| format!("shipped player of {}: {e}", self.game))
    }

    /// The network it plays with, from its player file (a learned
    /// evaluation's player has none, and says so).
    pub fn net(&self) -> Result<LoadedNet, String> {
        if self.kind != ShippedKind::Net {
            return Err(format!("{} is a learned evaluation, not a network", self.spec()));
        }
        let what = format!("shipped player {}", self.file);
        LoadedNet::from_bytes(self.bytes(), &what).map_err(|e: PlayerFileError| e.to_string())
    }

    /// The spec that plays it: `shipped:GAME`, with `,kind=...` where it
    /// is not its game's first listed player.
    pub fn spec(&self) -> String {
        let first = shipped_players().iter().find(|p| p.game == self.game);
        match first {
            Some(first) if first.kind == self.kind => format!("shipped:{}", self.game),
            _ => format!("shipped:{},kind={}", self.game, self.kind.name()),
        }
    }

    /// The shape of what it plays with, in words ("256x32 hidden" of a
    /// learned evaluation, the network's blocks and channels).
    fn shape(&self) -> String {
        match self.kind {
            ShippedKind::Eval => self.eval().map(|e| e.float.shape.describe()),
            // The header alone: no network is built to print its shape.
            ShippedKind::Net => super::decode_player(self.bytes(), &self.file)
                .map(|(h, _)| format!("{} blocks of {} channels", h.model.blocks, h.model.channels))
                .map_err(|e| e.to_string()),
        }
        .unwrap_or_else(|e| e)
    }

    /// What `damone players` prints of it: the spec, the kind, the size
    /// and time a move, the rating and the provenance, a line each.
    pub fn describe(&self) -> Vec<String> {
        vec![
            format!(
                "{}: {} ({}, {} KB), {} ms a move unless the spec sets a limit",
                self.spec(),
                self.kind.describe(),
                self.shape(),
                self.bytes().len().div_ceil(1024),
                self.movetime_ms
            ),
            format!("  rating: {}", self.rating),
            format!(
                "  trained: {} ({}, commit {})",
                self.trained, self.date, self.commit
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameKind;
    use crate::net::ComputeDevice;

    /// Every game of the list has a shipped player whose file is compiled
    /// in, reads and evaluates that game, its first listed a learned
    /// evaluation; every listed network reads as a player file of its game;
    /// every compiled-in file is listed.
    #[test]
    fn every_game_ships_a_player_that_loads() {
        for kind in GameKind::ALL {
            let p = shipped_player(kind.id(), None).unwrap();
            assert_eq!(p.kind, ShippedKind::Eval, "{}", p.game);
            let eval = p.eval().unwrap();
            assert_eq!(eval.game.name(), kind.name());
            assert_eq!(p.spec(), format!("shipped:{}", kind.name()));
        }
        for p in shipped_players() {
            assert!(p.movetime_ms > 0 && !p.rating.is_empty() && !p.trained.is_empty());
            if p.kind == ShippedKind::Net {
                let net = p.net().unwrap();
                assert_eq!(net.header.game.name(), p.game);
                assert_eq!(p.spec(), format!("shipped:{},kind=net", p.game));
                assert!(p.eval().unwrap_err().contains("is a network"));
            }
        }
        for (name, _) in FILES {
            assert!(
                shipped_players().iter().any(|p| p.file == name),
                "{name} is not listed"
            );
        }
        assert_eq!(shipped_players().len(), FILES.len());
    }

    /// Every shipped player, built from its spec at a small fixed budget,
    /// wins every game of a short match against random moves.
    #[test]
    fn every_shipped_player_beats_random_moves() {
        fn check<P: crate::run::RunGame>(spec: &str) {
            use crate::arena::tournament::schedule;
            use crate::arena::{run_games, tally, MatchSettings};
            let shipped = crate::player::open::<P>(spec, &ComputeDevice::cpu()).unwrap().0;
            let random = crate::player::open::<P>("random", &ComputeDevice::cpu())
                .unwrap()
                .0;
            let mut s = MatchSettings::from_start(P::start(Default::default()));
            s.games_per_pair = 4;
            let tasks = schedule(&[(0, 1)], &s);
            let names = [spec.to_string(), "random".to_string()];
            let records = run_games(&tasks, &names, &[shipped, random], &s, &|_| {});
            assert_eq!(tally(&records, 0), (4, 0, 0), "{spec} against random");
        }
        for p in shipped_players() {
            let budget = match p.kind {
                ShippedKind::Eval => "depth=3",
                ShippedKind::Net => "sims=32",
            };
            let spec = format!("{},{budget}", p.spec());
            let kind = GameKind::ALL.into_iter().find(|k| k.name() == p.game).unwrap();
            crate::with_game!(kind, P => check::<P>(&spec));
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
        assert!(err("shipped:damone,kind=tree").contains("must be eval"));
        assert!(err("shipped:damone,kind=net,depth=3").contains("unknown option 'depth'"));
        assert!(err("shipped:damone,kind=eval,sims=3").contains("unknown option 'sims'"));
    }

    #[test]
    fn a_game_without_one_says_so() {
        let e = shipped_player(GameId::new("checkers", "Checkers"), None).unwrap_err();
        assert!(e.contains("no player is shipped for Checkers"), "{e}");
        assert!(e.contains("--player"), "{e}");
        assert!(e.contains("the shipped ones play damone, italian, dameo)"), "{e}");
        let e = shipped_player(GameId::new("checkers", "Checkers"), Some(ShippedKind::Net)).unwrap_err();
        assert!(e.contains("no player is shipped for Checkers"), "{e}");
    }

    /// A game that ships a learned evaluation but no network says which
    /// player it does ship (every built-in game ships both: a list of
    /// Dameo's evaluation alone stands for one that does not).
    #[test]
    fn a_missing_kind_names_the_shipped_one() {
        let eval_only: Vec<ShippedPlayer> = shipped_players()
            .iter()
            .filter(|p| p.game == "dameo" && p.kind == ShippedKind::Eval)
            .cloned()
            .collect();
        let dameo = GameId::named("dameo").unwrap();
        let e = find_in(&eval_only, dameo, Some(ShippedKind::Net)).unwrap_err();
        assert!(e.contains("no net player is shipped for Dameo"), "{e}");
        assert!(e.contains("its shipped player is shipped:dameo"), "{e}");
        assert_eq!(find_in(&eval_only, dameo, None).unwrap().kind, ShippedKind::Eval);
        for p in shipped_players() {
            let id = GameId::named(&p.game).unwrap();
            assert_eq!(shipped_player(id, Some(p.kind)).unwrap().file, p.file);
        }
    }
}
