//! The factory for every player spec ([`open`], the one entry point): built-in
//! kinds, alpha-beta with the hand-written or a learned evaluation, and
//! network players from a player file, a checkpoint or a run folder; and
//! the game a spec, a set of players or a run folder plays.

use super::learned::learned_eval_at;
use super::shipped::ShippedKind;
use super::{decode_player, LeafMix, LoadError, LoadedNet, PlayerFileError, PlayerHeader};
use crate::arena::spec::{alphabeta_factory, ALPHABETA_OPTIONS};
use crate::arena::{
    builtin_factory, HandWritten, MctsPlayer, PlayerFactory, PlayerKind, PlayerSpec, SpecError,
};
use crate::game::{DrawRules, GameId};
use crate::learned::LearnedEval;
use crate::mcts::{Evaluator, ExactValues};
use crate::net::ComputeDevice;
use crate::run::{Checkpoint, RunGame};
use std::path::Path;
use std::sync::Arc;

/// Whether `text` names a network player (`net:...`, an existing path or
/// a shipped network, `shipped:GAME,kind=net`), as [`open`] reads it;
/// false for built-in kinds and for text that is no player at all.
pub fn is_network_spec(text: &str) -> bool {
    match PlayerSpec::parse(text) {
        Ok(spec) if spec.kind == PlayerKind::Shipped => {
            spec.options.get("kind").and_then(|k| ShippedKind::parse(k).ok()) == Some(ShippedKind::Net)
        }
        Ok(spec) => spec.kind == PlayerKind::Net,
        Err(SpecError::UnknownKind(..)) => Path::new(text.trim()).exists(),
        Err(_) => false,
    }
}

/// A player spec, or an existing path that is no spec read as `net:PATH`
/// (a spec of a built-in kind is never shadowed by a file of that name).
pub fn parse_spec_or_path(text: &str) -> Result<PlayerSpec, SpecError> {
    match PlayerSpec::parse(text) {
        Err(SpecError::UnknownKind(..)) if Path::new(text.trim()).exists() => {
            PlayerSpec::parse(&format!("net:{}", text.trim()))
        }
        r => r,
    }
}

/// The game a network player spec plays (its player file's or
/// checkpoint's), None for a built-in kind; builds no network.
pub fn game_of_spec(text: &str) -> Result<Option<GameId>, LoadError> {
    // Text that is no player at all is reported where the player is made.
    let spec = match parse_spec_or_path(text) {
        Ok(spec) if spec.kind == PlayerKind::Net => spec,
        Ok(spec) if spec.kind == PlayerKind::Shipped => return Ok(shipped_game(&spec)?),
        Ok(spec) if spec.kind == PlayerKind::AlphaBeta && spec.options.contains_key("eval") => {
            let path = Path::new(&spec.options["eval"]);
            return learned_eval_at(path, None).map(|f| Some(f.game)).map_err(|e| {
                SpecError::BadValue("eval".into(), spec.options["eval"].clone(), spec.text.clone(), e).into()
            });
        }
        _ => return Ok(None),
    };
    let path = Path::new(spec.path.as_deref().expect("net spec has a path"));
    if path.is_dir() {
        return Ok(Some(Checkpoint::for_player(path, false)?.config.game));
    }
    let what = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| PlayerFileError::Io(what.clone(), e))?;
    Ok(Some(decode_player(&bytes, &what)?.0.game))
}

/// The game the players `specs` meet in: their networks' game (they must
/// agree), `explicit` (`--game`) when given, which a network of another
/// game is refused against by name, else Damone.
pub fn game_of_players<'a>(
    specs: impl IntoIterator<Item = &'a str>,
    explicit: Option<GameId>,
) -> Result<GameId, LoadError> {
    let mut found = explicit;
    for text in specs {
        let Some(game) = game_of_spec(text)? else {
            continue;
        };
        match found {
            Some(g) if g != game => {
                return Err(LoadError::WrongGame {
                    what: text.to_string(),
                    found: game,
                    expected: g,
                })
            }
            _ => found = Some(game),
        }
    }
    Ok(found.unwrap_or_default())
}

/// The game of a run folder: its checkpoints' (as [`game_of_players`]
/// reads a run folder), else, for a run that has no checkpoint yet, its
/// live view's ([`RunDir::live_game`](crate::run::RunDir::live_game));
/// else `explicit`, else Damone. A run of another game than `explicit` is
/// refused by name.
pub fn game_of_run(run: &Path, explicit: Option<GameId>) -> Result<GameId, LoadError> {
    let dir = crate::run::RunDir::new(run);
    if !dir.checkpoints().is_empty() {
        return game_of_players([run.display().to_string().as_str()], explicit);
    }
    match (dir.live_game(), explicit) {
        (Some(found), Some(expected)) if found != expected => Err(LoadError::WrongGame {
            what: run.display().to_string(),
            found,
            expected,
        }),
        (found, explicit) => Ok(found.or(explicit).unwrap_or_default()),
    }
}

/// The one entry point for players: the factory of any player spec for
/// the game `P`, its networks running on `device`, and the header of a
/// network player (its variant, draw rules and search defaults; None for
/// the other kinds). The specs: `random`, `shipped[:GAME][,kind=net]`, `mcts:...`,
/// `alphabeta:[depth=D][,nodes=N][,movetime=MS][,eval=PATH][,tb=DIR][,threads=T]`
/// and `net:PATH[,sims=N][,movetime=MS][,algo=puct|gumbel][,cpuct=C][,tb=DIR][,threads=T][,leaf=W]`
/// where PATH is a checkpoint folder or a player file (for `eval`, also a
/// run folder or a `learned_eval.bin`), DIR a folder of Damone endgame
/// tables (built for the default no-progress limit) and T the threads of
/// each search ([`MctsPlayer::with_pool`]); `leaf=W` mixes the learned
/// evaluation PATH holds into the network's values ([`LeafMix`]). A bare
/// existing path that is not a spec is read as `net:PATH`.
pub fn open<P: RunGame>(
    text: &str,
    device: &ComputeDevice,
) -> Result<(PlayerFactory<P>, Option<PlayerHeader>), LoadError> {
    P::ID.declare();
    let spec = parse_spec_or_path(text)?;
    if spec.kind == PlayerKind::AlphaBeta {
        return Ok((alphabeta_player(&spec)?, None));
    }
    if spec.kind == PlayerKind::Shipped {
        return shipped_factory(&spec, device);
    }
    if spec.kind != PlayerKind::Net {
        return Ok((builtin_factory(&spec)?, None));
    }
    let mut allowed = PlayerSpec::SEARCH_OPTIONS.to_vec();
    allowed.extend(["tb", "threads", "leaf"]);
    spec.check_options(&allowed)?;
    let path = spec.path.as_deref().expect("net spec has a path");
    let loaded = LoadedNet::load(path)?;
    net_factory(&spec, path, loaded, device)
}

/// The factory of network player `spec`: `loaded` (read from `what`) with
/// the spec's search settings, tables, thread pool and `leaf` mix, its
/// network on `device`, and its header.
fn net_factory<P: RunGame>(
    spec: &PlayerSpec,
    what: &str,
    loaded: LoadedNet,
    device: &ComputeDevice,
) -> Result<(PlayerFactory<P>, Option<PlayerHeader>), LoadError> {
    if loaded.header.game != P::ID {
        return Err(LoadError::WrongGame {
            what: what.to_string(),
            found: loaded.header.game,
            expected: P::ID,
        });
    }
    let pool = spec.search_pool()?;
    let exact = spec_tables::<P>(spec)?;
    let leaf = match leaf_weight(spec)? {
        Some(weight) => Some((leaf_eval::<P>(spec, &loaded)?, weight)),
        None => None,
    };
    let loaded = loaded.on(device);
    let params = spec.search_params(loaded.header.search.clone())?;
    let header = loaded.header.clone();
    let loaded = Arc::new(loaded);
    let name = spec.text.clone();
    let f: PlayerFactory<P> = Arc::new(move |seed| {
        let (params, exact, pool) = (params.clone(), exact.clone(), pool.clone());
        match &leaf {
            None => boxed(loaded.player_with::<P>(&name, params, seed), exact, pool),
            Some((eval, w)) => {
                let player =
                    loaded.player_evaluating(&name, params, seed, |net| LeafMix::new(net, eval.clone(), *w));
                boxed(player, exact, pool)
            }
        }
    });
    Ok((f, Some(header)))
}

/// A network player with its spec's tables and thread pool, boxed.
fn boxed<P: RunGame, E: Evaluator<P> + Send + 'static>(
    player: MctsPlayer<E, P>,
    exact: Option<Arc<dyn ExactValues<P>>>,
    pool: Option<Arc<rayon::ThreadPool>>,
) -> Box<dyn crate::arena::Player<P>> {
    Box::new(player.with_exact_values(exact).with_pool(pool))
}

/// A network spec's `leaf=W`: the weight W in (0, 1] the learned
/// evaluation's value gets at the search's leaves ([`LeafMix`]); None
/// without the option.
fn leaf_weight(spec: &PlayerSpec) -> Result<Option<f32>, SpecError> {
    match spec.get::<f32>("leaf")? {
        Some(w) if !(w > 0.0 && w <= 1.0) => Err(SpecError::BadValue(
            "leaf".into(),
            w.to_string(),
            spec.text.clone(),
            "must be above 0 and at most 1".into(),
        )),
        w => Ok(w),
    }
}

/// The learned evaluation a `leaf=` network player mixes in: the one its
/// player file carries (already read with the network), else the one its
/// folder holds, as `alphabeta:eval=PATH` reads it.
fn leaf_eval<P: RunGame>(spec: &PlayerSpec, loaded: &LoadedNet) -> Result<Arc<LearnedEval>, SpecError> {
    let path = spec.path.as_deref().expect("net spec has a path");
    let file = match &loaded.learned {
        Some(file) => file.clone(),
        None => learned_eval_at(Path::new(path), Some(P::ID)).map_err(|e| {
            SpecError::BadValue("leaf".into(), spec.options["leaf"].clone(), spec.text.clone(), e)
        })?,
    };
    Ok(Arc::new(LearnedEval::new(file.float)))
}

/// An `alphabeta` spec's player, with its learned evaluation (`eval`) and
/// endgame tables (`tb`) where it names them.
fn alphabeta_player<P: RunGame>(spec: &PlayerSpec) -> Result<PlayerFactory<P>, LoadError> {
    spec.check_options(&ALPHABETA_OPTIONS)?;
    let exact = spec_tables::<P>(spec)?;
    let Some(path) = spec.options.get("eval") else {
        return Ok(alphabeta_factory(spec, Arc::new(HandWritten), exact)?);
    };
    let eval = learned_eval_at(Path::new(path), Some(P::ID))
        .map(|f| LearnedEval::new(f.float))
        .map_err(|e| SpecError::BadValue("eval".into(), path.clone(), spec.text.clone(), e))?;
    Ok(alphabeta_factory(spec, Arc::new(eval), exact)?)
}

/// A `shipped` spec's player: alpha-beta with the game's shipped learned
/// evaluation, or with `kind=net` its shipped network, at the spec's
/// limits or else the shipped player's time a move. A spec naming another
/// game than `P` is refused by name.
fn shipped_factory<P: RunGame>(
    spec: &PlayerSpec,
    device: &ComputeDevice,
) -> Result<(PlayerFactory<P>, Option<PlayerHeader>), LoadError> {
    if let Some(named) = shipped_game(spec)? {
        if named != P::ID {
            return Err(LoadError::WrongGame {
                what: spec.text.clone(),
                found: named,
                expected: P::ID,
            });
        }
    }
    let kind = spec
        .options
        .get("kind")
        .map(|k| {
            ShippedKind::parse(k)
                .map_err(|e| SpecError::BadValue("kind".into(), k.clone(), spec.text.clone(), e))
        })
        .transpose()?;
    let missing = SpecError::Unavailable;
    let shipped = super::shipped::shipped_player(P::ID, kind).map_err(missing)?;
    // The kind's own options (a shipped evaluation takes no `eval`), and
    // those that limit its search.
    let (mut allowed, limits): (Vec<&str>, &[&str]) = match shipped.kind {
        ShippedKind::Eval => (
            ALPHABETA_OPTIONS
                .iter()
                .copied()
                .filter(|k| *k != "eval")
                .collect(),
            &["depth", "nodes", "movetime"],
        ),
        ShippedKind::Net => {
            let mut allowed = PlayerSpec::SEARCH_OPTIONS.to_vec();
            allowed.extend(["tb", "threads"]);
            (allowed, &["sims", "movetime"])
        }
    };
    allowed.push("kind");
    spec.check_options(&allowed)?;
    let mut limited = spec.clone();
    limited.options.remove("kind");
    if !limits.iter().any(|k| spec.options.contains_key(*k)) {
        limited
            .options
            .insert("movetime".into(), shipped.movetime_ms.to_string());
    }
    if shipped.kind == ShippedKind::Net {
        let loaded = shipped.net().map_err(missing)?;
        return net_factory(&limited, &shipped.file, loaded, device);
    }
    let eval = shipped.eval().map_err(missing)?;
    let exact = spec_tables::<P>(spec)?;
    let eval = Arc::new(LearnedEval::new(eval.float));
    Ok((alphabeta_factory(&limited, eval, exact)?, None))
}

/// The game a `shipped:GAME` spec names (None: the game being played).
fn shipped_game(spec: &PlayerSpec) -> Result<Option<GameId>, SpecError> {
    spec.path
        .as_deref()
        .map(|game| {
            GameId::named(game)
                .map_err(|e| SpecError::BadValue("game".into(), game.into(), spec.text.clone(), e))
        })
        .transpose()
}

/// The endgame tables a spec's `tb=DIR` names (built for the default
/// no-progress limit), None without one.
fn spec_tables<P: RunGame>(spec: &PlayerSpec) -> Result<Option<Arc<dyn ExactValues<P>>>, SpecError> {
    let Some(dir) = spec.options.get("tb") else {
        return Ok(None);
    };
    P::open_exact_values(Path::new(dir), DrawRules::default())
        .map(Some)
        .map_err(|e| SpecError::BadValue("tb".into(), dir.clone(), spec.text.clone(), e))
}
