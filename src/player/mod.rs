//! Network players: one self-contained, versioned player file holding the
//! weights, the model shape, the rules variant, default search settings and
//! provenance; one loader that turns a path (a player file or a checkpoint
//! folder) into a network with its play settings ([`LoadedNet`]); and
//! [`open`], the one entry point that builds a player of any spec,
//! networks included. Every player is an
//! [`arena::Player`](crate::arena::Player).
//!
//! ```no_run
//! use damone::arena::Player as _;
//! use damone::game::damone::{Position, Variant};
//! use damone::game::{DrawRules, Game, GamePosition};
//! use damone::mcts::Budget;
//! use damone::player::LoadedNet;
//!
//! let loaded = LoadedNet::load("my-player.dmp")?;
//! let mut player = loaded.player("me", 1);
//! player.set_budget(Some(Budget::Simulations(200)));
//! let game = Game::new(Position::start(Variant::Standard), DrawRules::default());
//! let analysis = player.analyse(&game).expect("game not over");
//! for line in analysis.lines.iter().take(3) {
//!     println!("{} visits {} prior {:.2} q {:?}", line.mv, line.visits, line.prior, line.q);
//! }
//! # Ok::<(), damone::player::LoadError>(())
//! ```
//!
//! ## File format (version 4)
//!
//! Written with the binary reader and writer (`util::bin`): `b"DAMONEPL"`, `u32` format version,
//! `u32` header length, the header as TOML ([`PlayerHeader`], which holds
//! the input-encoding version), `u64` weights length, the weights
//! (burnpack), `u32` length of the learned evaluation for alpha-beta and
//! its file's bytes ([`crate::learned::file`]; length 0: none), and the
//! `u32` CRC-32 of everything before it, as every file of the project
//! ends. Version 3 is version 4 ending with a `u64` FNV-1a checksum
//! instead, and version 2 is version 3 without the learned evaluation;
//! both are read as before. Version 1 files (no encoding version) are
//! refused by name.

pub mod endgames;
pub mod export;
mod factory;
pub mod grade;
mod learned;
pub mod rate;
mod rating_rows;
pub mod run_tournament;
pub mod shipped;

pub use factory::{game_of_players, game_of_run, game_of_spec, is_network_spec, open, parse_spec_or_path};
pub use learned::{learned_eval_at, LeafMix};
pub use shipped::{shipped_player, shipped_players, ShippedKind, ShippedPlayer};

use crate::arena::{MctsPlayer, SpecError};
use crate::game::{DrawRules, GameId};
use crate::learned::EvalFile;
use crate::mcts::{Evaluator, SearchParams};
use crate::net::{
    net_from_bytes, weights_to_bytes, ComputeDevice, ModelConfig, Net, NetEvaluator, ENCODING_VERSION,
};
use crate::run::RunGame;
use crate::run::{Checkpoint, CheckpointError};
use crate::util::bin::{crc32_body, BinError, Reader, Writer};
use crate::util::{fnv1a, rng_stream};
use burn::module::Module as _;
use burn::tensor::Device;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The magic bytes a player file starts with.
pub(crate) const MAGIC: &[u8; 8] = b"DAMONEPL";
/// Version of the player file format this build writes and reads.
pub const PLAYER_FORMAT_VERSION: u32 = 4;
/// The versions this build reads.
const PLAYER_FORMAT_VERSIONS: [u32; 3] = [2, 3, 4];
/// The first version sealed with the project's CRC-32
/// ([`crate::util::bin::crc32_body`]); earlier ones end with an FNV-1a `u64`.
const FIRST_CRC32_VERSION: u32 = 4;

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
    /// The opponent the rating is measured against.
    pub rating_anchor: Option<String>,
    /// FNV-1a hash of the training config text.
    pub config_hash: String,
}

/// Everything in a player file except the weights.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerHeader {
    /// The player file's format version.
    pub format_version: u32,
    /// The network's input encoding version (`net::ENCODING_VERSION`).
    pub encoding_version: u32,
    /// The game the network plays (files written before there were other
    /// games lack the key: Damone).
    #[serde(default)]
    pub game: GameId,
    /// The variant's name in the game (`standard`).
    pub variant: String,
    /// The draw limits the network was trained under.
    pub rules: DrawRules,
    /// The network's shape and heads.
    pub model: ModelConfig,
    /// Default search settings for play (the budget included).
    pub search: SearchParams,
    /// Where the weights came from.
    pub provenance: Provenance,
}

/// Why a player file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PlayerFileError {
    /// The file could not be read.
    #[error("cannot read {0}: {1}")]
    Io(String, std::io::Error),
    /// The file's bytes do not read.
    #[error("{0}: {1}")]
    Format(String, BinError),
    /// The file's checksum does not match.
    #[error("{0} is corrupt (checksum mismatch)")]
    Checksum(String),
    /// The header does not parse.
    #[error("{0}: bad header: {1}")]
    Header(String, String),
    /// The file uses another input encoding than this build.
    #[error("{0} uses input encoding version {1}; this build uses version {ENCODING_VERSION}")]
    Encoding(String, u32),
    /// The weights do not load.
    #[error("{0}: {1}")]
    Weights(String, String),
}

/// Why a path could not be loaded as a network player.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The player file does not read.
    #[error(transparent)]
    PlayerFile(#[from] PlayerFileError),
    /// The checkpoint does not read.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The player spec is invalid.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The network plays another game than the one asked for.
    #[error("{what} plays {found}, and this is a game of {expected}")]
    WrongGame {
        /// The player's path or spec.
        what: String,
        /// The game it plays.
        found: GameId,
        /// The game asked for.
        expected: GameId,
    },
}

/// Serialise a header and a network into player-file bytes.
pub fn encode_player(header: &PlayerHeader, net: &Net) -> Result<Vec<u8>, String> {
    encode_player_with(header, net, None)
}

/// Serialise a header, a network and a learned evaluation for alpha-beta
/// into player-file bytes in the header's format version (a version 2 or
/// 3 header is written as those versions were).
pub fn encode_player_with(
    header: &PlayerHeader,
    net: &Net,
    learned: Option<&EvalFile>,
) -> Result<Vec<u8>, String> {
    let head = toml::to_string_pretty(header).map_err(|e| e.to_string())?;
    let weights = weights_to_bytes(net)?;
    let mut w = Writer::header(MAGIC, header.format_version);
    w.blob(head.as_bytes());
    w.blob64(&weights);
    if header.format_version >= 3 {
        w.blob(&learned.map(EvalFile::to_bytes).unwrap_or_default());
    } else if learned.is_some() {
        return Err("a version 2 player file cannot hold a learned evaluation".into());
    }
    if header.format_version >= FIRST_CRC32_VERSION {
        return Ok(w.finish_with_crc32());
    }
    let sum = fnv1a(w.as_slice());
    w.u64(sum);
    Ok(w.finish())
}

/// Split player-file bytes into header and weights, checking everything.
pub fn decode_player(bytes: &[u8], what: &str) -> Result<(PlayerHeader, Vec<u8>), PlayerFileError> {
    decode_player_with(bytes, what).map(|(h, w, _)| (h, w))
}

/// Split player-file bytes into header, weights and the learned
/// evaluation for alpha-beta (None in version 2 files and where the
/// exporter had none), checking everything.
pub fn decode_player_with(
    bytes: &[u8],
    what: &str,
) -> Result<(PlayerHeader, Vec<u8>, Option<EvalFile>), PlayerFileError> {
    let fmt = |e: BinError| PlayerFileError::Format(what.to_string(), e);
    let mut r = Reader::new(bytes, "damone player file");
    let version = r.header(MAGIC, &PLAYER_FORMAT_VERSIONS).map_err(fmt)?;
    let seal = if version >= FIRST_CRC32_VERSION { 4 } else { 8 };
    if r.remaining() < seal {
        return Err(fmt(r.take(seal).expect_err("too short")));
    }
    let body = if version >= FIRST_CRC32_VERSION {
        crc32_body(bytes)
    } else {
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        let sum = u64::from_le_bytes(sum.try_into().expect("8 bytes"));
        (fnv1a(body) == sum).then_some(body)
    };
    let Some(body) = body else {
        return Err(PlayerFileError::Checksum(what.to_string()));
    };
    let mut r = Reader::new(body, "damone player file");
    r.take(12).map_err(fmt)?;
    let head = r.blob().map_err(fmt)?;
    let weights = r.blob64().map_err(fmt)?;
    let learned = match version {
        2 => None,
        _ => match r.blob().map_err(fmt)? {
            [] => None,
            b => Some(EvalFile::from_bytes(b).map_err(fmt)?),
        },
    };
    r.end().map_err(fmt)?;
    let head =
        std::str::from_utf8(head).map_err(|_| PlayerFileError::Header(what.into(), "not UTF-8".into()))?;
    let header: PlayerHeader = toml::from_str(head)
        .map_err(|e| PlayerFileError::Header(what.to_string(), e.to_string().trim().replace('\n', " ")))?;
    if header.encoding_version != ENCODING_VERSION {
        return Err(PlayerFileError::Encoding(
            what.to_string(),
            header.encoding_version,
        ));
    }
    // The header is checked with the same rules and limits as a config.
    let bad = |e: String| PlayerFileError::Header(what.to_string(), e);
    if header.format_version != version {
        return Err(bad(format!(
            "format_version {} does not match the file's version {version}",
            header.format_version
        )));
    }
    if let Some(l) = &learned {
        l.check_game(header.game).map_err(bad)?;
    }
    header.rules.validate().map_err(bad)?;
    header
        .search
        .validate()
        .map_err(|e| PlayerFileError::Header(what.to_string(), format!("search.{e}")))?;
    header
        .model
        .validate()
        .map_err(|e| PlayerFileError::Header(what.to_string(), e))?;
    Ok((header, weights.to_vec(), learned))
}

/// A network and the settings to play it with, from a player file or a
/// checkpoint folder.
#[derive(Clone)]
pub struct LoadedNet {
    /// What the file says of the network.
    pub header: PlayerHeader,
    /// The network.
    pub net: Net,
    /// Where its players run the network (the CPU unless [`LoadedNet::on`]
    /// said otherwise).
    pub device: ComputeDevice,
    /// The learned evaluation for alpha-beta trained from the same run,
    /// where there is one.
    pub learned: Option<EvalFile>,
}

impl LoadedNet {
    /// A network with its play settings, its players on the CPU.
    pub fn new(header: PlayerHeader, net: Net) -> LoadedNet {
        LoadedNet {
            header,
            net,
            device: ComputeDevice::cpu(),
            learned: None,
        }
    }

    /// Load a player file, a checkpoint folder (`.../iter_NNNN`) or a run
    /// folder (its best checkpoint, as
    /// [`RunDir::player_checkpoint`](crate::run::RunDir::player_checkpoint)
    /// picks it).
    pub fn load(path: impl AsRef<Path>) -> Result<LoadedNet, LoadError> {
        let path = path.as_ref();
        if path.is_dir() {
            let ck = Checkpoint::for_player(path, false)?;
            return Ok(LoadedNet::from_checkpoint(&ck, ck.config.eval.sims)?);
        }
        Ok(LoadedNet::from_file(path)?)
    }

    /// The weights as safetensors, with the run, iteration, encoding
    /// version and model shape in its metadata (for inspection in Python).
    pub fn safetensors_bytes(&self) -> Result<Vec<u8>, String> {
        use burn::store::{ModuleSnapshot, SafetensorsStore};
        let h = &self.header;
        let mut store = SafetensorsStore::from_bytes(None)
            .metadata("damone_run", h.provenance.run.clone())
            .metadata("damone_iteration", h.provenance.iteration.to_string())
            .metadata("damone_encoding_version", h.encoding_version.to_string())
            .metadata("damone_model", h.model.describe());
        self.net
            .save_into(&mut store)
            .map_err(|e| format!("safetensors export failed: {e}"))?;
        store
            .get_bytes()
            .map_err(|e| format!("safetensors export failed: {e}"))
    }

    /// Load a player file.
    pub fn from_file(path: &Path) -> Result<LoadedNet, PlayerFileError> {
        let what = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| PlayerFileError::Io(what.clone(), e))?;
        LoadedNet::from_bytes(&bytes, &what)
    }

    /// Read a player file's bytes; `what` names them in errors.
    pub fn from_bytes(bytes: &[u8], what: &str) -> Result<LoadedNet, PlayerFileError> {
        let (header, weights, learned) = decode_player_with(bytes, what)?;
        let net = net_from_bytes(&header.model, weights, &Device::flex(), what)
            .map_err(|e| PlayerFileError::Weights(what.to_string(), e.to_string()))?;
        Ok(LoadedNet {
            learned,
            ..LoadedNet::new(header, net)
        })
    }

    /// A checkpoint's network, playing with `sims` simulations per move by
    /// default.
    pub fn from_checkpoint(ck: &Checkpoint, sims: u32) -> Result<LoadedNet, CheckpointError> {
        let cfg = &ck.config;
        let net = ck.load_net(&Device::flex())?;
        let header = PlayerHeader {
            format_version: PLAYER_FORMAT_VERSION,
            encoding_version: ENCODING_VERSION,
            game: cfg.game,
            variant: cfg.variant.clone(),
            rules: cfg.rules,
            model: cfg.model.clone(),
            search: cfg.search.for_play(sims.max(1)),
            provenance: Provenance {
                run: cfg.run.clone(),
                iteration: ck.state.iteration,
                games: ck.state.games,
                rating: None,
                rating_anchor: None,
                config_hash: format!("{:016x}", fnv1a(cfg.to_toml().as_bytes())),
            },
        };
        Ok(LoadedNet::new(header, net))
    }

    /// The same network, its players running on `device` (the weights
    /// move there once).
    pub fn on(mut self, device: &ComputeDevice) -> LoadedNet {
        if device.is_gpu() {
            self.net = self.net.to_device(device.burn());
        }
        self.device = device.clone();
        self
    }

    /// The player-file bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, String> {
        encode_player_with(&self.header, &self.net, self.learned.as_ref())
    }

    /// Take the learned evaluation of checkpoint `ck` (its
    /// `learned_eval.bin`) where it has one; true when it had. A damaged
    /// or foreign file is an error.
    pub fn attach_learned_eval(&mut self, ck: &Checkpoint) -> Result<bool, String> {
        let path = ck.dir.join(crate::learned::EVAL_FILE_NAME);
        if !path.is_file() {
            return Ok(false);
        }
        let file = EvalFile::read(&path)?;
        file.check_game(self.header.game)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        self.learned = Some(file);
        Ok(true)
    }

    /// A player (MCTS guided by the network) with the header's settings.
    pub fn player<P: RunGame>(&self, name: &str, seed: u64) -> MctsPlayer<NetEvaluator, P> {
        self.player_with(name, self.header.search.clone(), seed)
    }

    /// A player with other search settings.
    pub fn player_with<P: RunGame>(
        &self,
        name: &str,
        params: SearchParams,
        seed: u64,
    ) -> MctsPlayer<NetEvaluator, P> {
        self.player_evaluating(name, params, seed, |net| net)
    }

    /// A player with other search settings whose evaluator is `wrap` of
    /// the network's (as [`LeafMix`] wraps it).
    pub fn player_evaluating<P: RunGame, E: Evaluator<P> + Send>(
        &self,
        name: &str,
        params: SearchParams,
        seed: u64,
        wrap: impl FnOnce(NetEvaluator) -> E,
    ) -> MctsPlayer<E, P> {
        MctsPlayer::with_evaluator(
            name.to_string(),
            params,
            wrap(NetEvaluator::on_device(&self.net, &self.device)),
            rng_stream(seed, "net-player", 0),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::Player as _;
    use crate::game::{
        damone::{Position, Variant},
        Game, GameKind, GamePosition,
    };
    use crate::mcts::Budget;

    #[test]
    fn a_run_without_checkpoints_says_its_game_by_its_live_view() {
        let dir = std::env::temp_dir().join(format!("damone-live-game-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(game_of_run(&dir, None).unwrap(), GameKind::Damone);
        assert_eq!(
            game_of_run(&dir, Some(GameKind::Dameo.id())).unwrap(),
            GameKind::Dameo
        );
        let live = r#"{"fen":"W:W21-32:B1-12","game":"italian","iteration":1,"ply":0,"variant":"standard"}"#;
        std::fs::write(dir.join("live.json"), live).unwrap();
        assert_eq!(game_of_run(&dir, None).unwrap(), GameKind::Italian);
        assert_eq!(
            game_of_run(&dir, Some(GameKind::Italian.id())).unwrap(),
            GameKind::Italian
        );
        let err = game_of_run(&dir, Some(GameKind::Damone.id()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("italian"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn sample() -> (PlayerHeader, Net) {
        let model = ModelConfig {
            blocks: 1,
            channels: 8,
            value_hidden: 8,
            ..ModelConfig::default()
        };
        let device = Device::flex();
        let net = model.init_seeded(&device, &device, 5);
        let header = PlayerHeader {
            format_version: PLAYER_FORMAT_VERSION,
            encoding_version: ENCODING_VERSION,
            game: GameKind::Damone.id(),
            variant: "standard".into(),
            rules: DrawRules::default(),
            model,
            search: SearchParams::plain(),
            provenance: Provenance {
                run: "t".into(),
                ..Default::default()
            },
        };
        (header, net)
    }

    /// Version 2 files (no learned evaluation) still load; version 3
    /// files carry one, which must be of the network's game.
    #[test]
    fn older_files_load_and_learned_evaluations_travel() {
        let (h, net) = sample();
        let v2 = PlayerHeader {
            format_version: 2,
            ..h.clone()
        };
        let (h2, _, learned) = decode_player_with(&encode_player(&v2, &net).unwrap(), "x").unwrap();
        assert_eq!((h2, learned), (v2, None));
        // Version 3 ends with an FNV-1a u64, version 4 with a CRC-32.
        let v3 = PlayerHeader {
            format_version: 3,
            ..h.clone()
        };
        let v3_bytes = encode_player(&v3, &net).unwrap();
        let v4_bytes = encode_player(&h, &net).unwrap();
        assert_eq!(v3_bytes.len(), v4_bytes.len() + 4);
        assert_eq!(decode_player(&v3_bytes, "x").unwrap().0, v3);
        let mut damaged = v3_bytes.clone();
        damaged[20] ^= 1;
        assert!(matches!(
            decode_player(&damaged, "x"),
            Err(PlayerFileError::Checksum(..))
        ));
        let float = crate::learned::FloatEval::new(
            crate::learned::Shape {
                hidden: 8,
                hidden2: 4,
                ..Default::default()
            },
            u64::MAX,
            &mut rng_stream(1, "t", 0),
        );
        let eval = EvalFile {
            game: GameKind::Damone.id(),
            float,
            note: "n".into(),
        };
        let bytes = encode_player_with(&h, &net, Some(&eval)).unwrap();
        let (_, _, learned) = decode_player_with(&bytes, "x").unwrap();
        assert_eq!(learned, Some(eval.clone()));
        let italian = EvalFile {
            game: GameKind::Italian.id(),
            ..eval
        };
        let e = decode_player_with(&encode_player_with(&h, &net, Some(&italian)).unwrap(), "x").unwrap_err();
        assert!(e.to_string().contains("learned evaluation is for italian"), "{e}");
    }

    #[test]
    fn round_trip_and_clear_errors() {
        let (h, net) = sample();
        let bytes = encode_player(&h, &net).unwrap();
        let (h2, _) = decode_player(&bytes, "x").unwrap();
        assert_eq!(h, h2);
        assert!(matches!(
            decode_player(b"hello world, not a player", "x"),
            Err(PlayerFileError::Format(_, BinError::BadMagic { .. }))
        ));
        assert!(matches!(
            decode_player(&bytes[..bytes.len() - 100], "x"),
            Err(PlayerFileError::Checksum(..))
        ));
        let mut v = bytes.clone();
        v[8] = 1;
        let e = decode_player(&v, "x").unwrap_err().to_string();
        assert!(e.contains("version 1") && e.contains("version 4"), "{e}");
        let mut c = bytes.clone();
        let mid = c.len() / 2;
        c[mid] ^= 0xff;
        assert!(matches!(
            decode_player(&c, "x"),
            Err(PlayerFileError::Checksum(..))
        ));
        // Every truncation is an error, never a panic.
        for n in 0..40.min(bytes.len()) {
            assert!(decode_player(&bytes[..n], "x").is_err());
        }
        // A crafted file with a valid checksum but a header length past the end.
        let mut w = Writer::header(MAGIC, PLAYER_FORMAT_VERSION);
        w.u32(1_000_000);
        assert!(matches!(
            decode_player(&w.finish_with_crc32(), "x"),
            Err(PlayerFileError::Format(_, BinError::Truncated { .. }))
        ));
    }

    /// A header written before there were other games has no `game`: it
    /// reads as Damone's. An Italian header keeps its game.
    #[test]
    fn headers_without_a_game_are_damones() {
        let (mut h, _) = sample();
        h.game = GameKind::Italian.id();
        let text = toml::to_string(&h).unwrap();
        assert!(text.contains("game = \"italian\""), "{text}");
        assert_eq!(
            toml::from_str::<PlayerHeader>(&text).unwrap().game,
            GameKind::Italian
        );
        let old: String = text
            .lines()
            .filter(|l| !l.starts_with("game ="))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(
            toml::from_str::<PlayerHeader>(&old).unwrap().game,
            GameKind::Damone
        );
    }

    #[test]
    fn analysis_lists_moves_and_is_deterministic() {
        let (h, net) = sample();
        let loaded = LoadedNet::new(h, net);
        let g = Game::new(Position::start(Variant::Standard), DrawRules::default());
        let mut p = loaded.player("p", 1);
        assert!(p.set_budget(Some(Budget::Simulations(40))));
        let a = p.analyse(&g).unwrap();
        assert_eq!(a.lines.len(), 8);
        assert_eq!(a.simulations, 40);
        assert!(a.lines.iter().any(|l| l.mv == a.best));
        let mut q = loaded.player("p", 1);
        q.set_budget(Some(Budget::Simulations(40)));
        assert_eq!(q.analyse(&g).unwrap(), a);
    }
}
