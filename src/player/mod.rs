//! Exported players: one self-contained, versioned file holding the weights,
//! the model shape, the rules variant, default search settings and
//! provenance; and the library API to load one and ask it for moves.
//!
//! ```no_run
//! use damone::game::{DrawRules, Game, Variant};
//! use damone::player::{Budget, Player};
//!
//! let mut player = Player::load("my-player.dmp")?;
//! let game = Game::from_variant(Variant::Standard, DrawRules::default());
//! let best = player.best_move(&game, Budget::Simulations(200));
//! let analysis = player.analyse(&game, Budget::Simulations(200)).expect("game not over");
//! for line in analysis.lines.iter().take(3) {
//!     println!("{} visits {} prior {:.2} q {:?}", line.mv, line.visits, line.prior, line.q);
//! }
//! # Ok::<(), damone::player::PlayerFileError>(())
//! ```
//!
//! ## File format (version 1)
//!
//! `b"DAMONEPL"`, `u32` format version, `u32` header length, the header as
//! TOML ([`PlayerHeader`]), `u64` weights length, the weights (burnpack),
//! and an `u64` FNV-1a checksum of everything before it. All little-endian.

use crate::game::{DrawRules, Game, Move, Variant};
use crate::mcts::{search, SearchAlgorithm, SearchParams, Tree};
use crate::net::{net_from_bytes, weights_to_bytes, ModelConfig, Net, NetEvaluator};
use crate::util::{fnv1a, rng_stream};
use burn::tensor::Device;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::{Duration, Instant};

const MAGIC: &[u8; 8] = b"DAMONEPL";
/// Version of the player file format this build writes and reads.
pub const PLAYER_FORMAT_VERSION: u32 = 1;

/// Where a player came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// Training run name.
    pub run: String,
    /// Training iteration of the weights.
    pub iteration: u32,
    /// Training games played up to that iteration.
    pub games: u64,
    /// Elo rating if one was measured (anchor given in `rating_anchor`).
    pub rating: Option<f64>,
    pub rating_anchor: Option<String>,
    /// FNV-1a hash of the training config text.
    pub config_hash: String,
}

/// Everything in a player file except the weights.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerHeader {
    pub format_version: u32,
    /// Rules variant name.
    pub variant: String,
    pub rules: DrawRules,
    pub model: ModelConfig,
    /// Default search settings for play.
    pub search: SearchParams,
    pub provenance: Provenance,
}

/// Why a player file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum PlayerFileError {
    #[error("cannot read {0}: {1}")]
    Io(String, std::io::Error),
    #[error("{0} is not a damone player file")]
    NotAPlayer(String),
    #[error("{0} has player format version {1}; this build reads version {PLAYER_FORMAT_VERSION}")]
    Version(String, u32),
    #[error("{0} is truncated or corrupt ({1})")]
    Corrupt(String, String),
    #[error("{0}: {1}")]
    Header(String, String),
    #[error("{0}: {1}")]
    Weights(String, String),
}

/// Serialise a header and a network into player-file bytes.
pub fn encode_player(header: &PlayerHeader, net: &Net) -> Result<Vec<u8>, String> {
    let head = toml::to_string_pretty(header).map_err(|e| e.to_string())?;
    let weights = weights_to_bytes(net)?;
    let mut b = Vec::with_capacity(weights.len() + head.len() + 40);
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&header.format_version.to_le_bytes());
    b.extend_from_slice(&(head.len() as u32).to_le_bytes());
    b.extend_from_slice(head.as_bytes());
    b.extend_from_slice(&(weights.len() as u64).to_le_bytes());
    b.extend_from_slice(&weights);
    let sum = fnv1a(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    Ok(b)
}

/// Split player-file bytes into header and weights, checking everything.
pub fn decode_player(bytes: &[u8], what: &str) -> Result<(PlayerHeader, Vec<u8>), PlayerFileError> {
    let corrupt = |why: &str| PlayerFileError::Corrupt(what.to_string(), why.to_string());
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err(PlayerFileError::NotAPlayer(what.to_string()));
    }
    if bytes.len() < 16 {
        return Err(corrupt("file ends inside the header"));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != PLAYER_FORMAT_VERSION {
        return Err(PlayerFileError::Version(what.to_string(), version));
    }
    if bytes.len() < 8 + 8 {
        return Err(corrupt("file ends inside the checksum"));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    if fnv1a(body) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
        return Err(corrupt("checksum mismatch"));
    }
    let hlen = u32::from_le_bytes(body[12..16].try_into().expect("4 bytes")) as usize;
    let head = body
        .get(16..16 + hlen)
        .ok_or_else(|| corrupt("header length past the end"))?;
    let head = std::str::from_utf8(head).map_err(|_| corrupt("header is not UTF-8"))?;
    let header: PlayerHeader = toml::from_str(head)
        .map_err(|e| PlayerFileError::Header(what.to_string(), e.to_string().trim().replace('\n', " ")))?;
    let at = 16 + hlen;
    let wlen = body
        .get(at..at + 8)
        .ok_or_else(|| corrupt("weights length missing"))?;
    let wlen = u64::from_le_bytes(wlen.try_into().expect("8 bytes")) as usize;
    let weights = body.get(at + 8..).ok_or_else(|| corrupt("weights missing"))?;
    if weights.len() != wlen {
        return Err(corrupt("weights length mismatch"));
    }
    header
        .variant
        .parse::<Variant>()
        .map_err(|e| PlayerFileError::Header(what.to_string(), e.to_string()))?;
    Ok((header, weights.to_vec()))
}

/// How long to search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    /// A fixed number of simulations (deterministic for a seed).
    Simulations(u32),
    /// Search in batches until the time is up.
    Time(Duration),
}

/// One candidate move of an analysis.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalysisLine {
    pub mv: Move,
    pub visits: u32,
    pub prior: f32,
    /// Mean value for the side to move (win minus loss), if visited.
    pub q: Option<f32>,
}

/// The result of [`Player::analyse`]: candidate moves, most visited first.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    pub lines: Vec<AnalysisLine>,
    /// The move the player would play.
    pub best: Move,
    /// Root win/draw/loss estimate for the side to move.
    pub wdl: [f32; 3],
    pub simulations: u32,
}

/// A loaded player: a network and its search settings.
pub struct Player {
    header: PlayerHeader,
    net: Net,
    eval: NetEvaluator,
    seed: u64,
    calls: u64,
}

impl Player {
    /// Load a player file.
    pub fn load(path: impl AsRef<Path>) -> Result<Player, PlayerFileError> {
        let path = path.as_ref();
        let what = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| PlayerFileError::Io(what.clone(), e))?;
        let (header, weights) = decode_player(&bytes, &what)?;
        let device = Device::flex();
        let net = net_from_bytes(&header.model, weights, &device, &what)
            .map_err(|e| PlayerFileError::Weights(what.clone(), e.to_string()))?;
        Ok(Player::from_parts(header, net))
    }

    /// A player from a header and a network.
    pub fn from_parts(header: PlayerHeader, net: Net) -> Player {
        let eval = NetEvaluator::new(&net);
        Player {
            header,
            net,
            eval,
            seed: 1,
            calls: 0,
        }
    }

    /// The file's header (model, variant, search defaults, provenance).
    pub fn header(&self) -> &PlayerHeader {
        &self.header
    }
    /// The network.
    pub fn net(&self) -> &Net {
        &self.net
    }
    /// Seed for the search's random streams (default 1).
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
        self.calls = 0;
    }

    /// The variant the player was trained for.
    pub fn variant(&self) -> Variant {
        self.header.variant.parse().unwrap_or_default()
    }

    /// Search settings for play: the file's defaults without noise.
    pub fn play_params(&self, sims: u32) -> SearchParams {
        self.header.search.for_play(sims)
    }

    /// The best move, or None if the game is over.
    pub fn best_move(&mut self, game: &Game, budget: Budget) -> Option<Move> {
        self.analyse(game, budget).map(|a| a.best)
    }

    /// Search and report the candidate moves, or None if the game is over.
    pub fn analyse(&mut self, game: &Game, budget: Budget) -> Option<Analysis> {
        if game.outcome().is_some() {
            return None;
        }
        self.calls += 1;
        let rng = rng_stream(self.seed, "player", game.ply() as u64 ^ (self.calls << 32));
        let r = match budget {
            Budget::Simulations(n) => {
                let mut tree = Tree::new(game, self.play_params(n.max(1)), rng);
                search(&mut tree, &mut self.eval, n.max(1))?
            }
            Budget::Time(limit) => {
                let t = Instant::now();
                let mut p = self.play_params(32);
                p.algorithm = SearchAlgorithm::Puct;
                let mut tree = Tree::new(game, p, rng);
                let mut r = search(&mut tree, &mut self.eval, 32)?;
                let mut total = r.simulations;
                while t.elapsed() < limit {
                    r = search(&mut tree, &mut self.eval, 32)?;
                    total += r.simulations;
                }
                r.simulations = total;
                r
            }
        };
        let mut lines: Vec<AnalysisLine> = (0..r.moves.len())
            .map(|i| AnalysisLine {
                mv: r.moves[i],
                visits: r.visits[i],
                prior: r.priors[i],
                q: r.q[i],
            })
            .collect();
        lines.sort_by(|a, b| b.visits.cmp(&a.visits).then(b.prior.total_cmp(&a.prior)));
        Some(Analysis {
            lines,
            best: r.best,
            wdl: r.wdl,
            simulations: r.simulations,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> (PlayerHeader, Net) {
        let model = ModelConfig {
            blocks: 1,
            channels: 8,
            value_hidden: 8,
        };
        let device = Device::flex();
        device.seed(5);
        let net = model.init(&device);
        let header = PlayerHeader {
            format_version: PLAYER_FORMAT_VERSION,
            variant: "standard".into(),
            rules: DrawRules::default(),
            model,
            search: SearchParams::default(),
            provenance: Provenance {
                run: "t".into(),
                ..Default::default()
            },
        };
        (header, net)
    }

    #[test]
    fn round_trip_and_clear_errors() {
        let (h, net) = sample();
        let bytes = encode_player(&h, &net).unwrap();
        let (h2, _) = decode_player(&bytes, "x").unwrap();
        assert_eq!(h, h2);
        assert!(matches!(
            decode_player(b"hello world, not a player", "x"),
            Err(PlayerFileError::NotAPlayer(_))
        ));
        assert!(matches!(
            decode_player(&bytes[..bytes.len() - 100], "x"),
            Err(PlayerFileError::Corrupt(..))
        ));
        let mut v = bytes.clone();
        v[8] = 7;
        assert!(matches!(
            decode_player(&v, "x"),
            Err(PlayerFileError::Version(_, 7))
        ));
        let mut c = bytes.clone();
        let mid = c.len() / 2;
        c[mid] ^= 0xff;
        assert!(matches!(
            decode_player(&c, "x"),
            Err(PlayerFileError::Corrupt(..))
        ));
    }

    #[test]
    fn analysis_lists_moves_and_is_deterministic() {
        let (h, net) = sample();
        let mut p = Player::from_parts(h, net);
        let g = Game::from_variant(Variant::Standard, DrawRules::default());
        let a = p.analyse(&g, Budget::Simulations(40)).unwrap();
        assert_eq!(a.lines.len(), 8);
        assert!(a.lines.iter().any(|l| l.mv == a.best));
        p.set_seed(1);
        let b = p.analyse(&g, Budget::Simulations(40)).unwrap();
        assert_eq!(a, b);
    }
}
