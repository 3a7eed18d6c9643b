//! `damone._damone`, the native part of the `damone` Python package: thin
//! bindings over the damone library. Every behaviour (rules, encoding,
//! the batched environment, search, players, file readers) is the
//! library's; this crate converts arguments, arrays and errors.

mod data;
mod env;
mod game;
mod player;
mod search;

use damone::game::GameKind;
use damone::net::Inputs;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    _damone,
    DamoneError,
    PyValueError,
    "Bad input to damone (a setup string, a move, an action, a file, an option): the message says what to fix."
);

/// Raise `DamoneError` with the library's one-line message.
pub(crate) fn err(message: impl std::fmt::Display) -> PyErr {
    DamoneError::new_err(message.to_string())
}

/// The game named `name` (`"damone"`, `"italian"`).
pub(crate) fn game_kind(name: &str) -> PyResult<GameKind> {
    name.parse::<GameKind>().map_err(err)
}

/// The draw limits, checked (each at least 1).
pub(crate) fn draw_rules(no_progress_plies: u32, max_plies: u32) -> PyResult<damone::game::DrawRules> {
    let rules = damone::game::DrawRules {
        no_progress_plies,
        max_plies,
    };
    rules.validate().map_err(err)?;
    Ok(rules)
}

/// The input planes named `name` (`"basic"`, `"draughts"`).
pub(crate) fn inputs_named(name: &str) -> PyResult<Inputs> {
    Inputs::ALL
        .into_iter()
        .find(|i| i.name() == name)
        .ok_or_else(|| err(format!("unknown inputs '{name}': basic or draughts")))
}

#[pymodule]
fn _damone(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("DamoneError", m.py().get_type::<DamoneError>())?;
    m.add(
        "GAMES",
        GameKind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>(),
    )?;
    let titles = pyo3::types::PyDict::new(m.py());
    for kind in GameKind::ALL {
        titles.set_item(kind.name(), kind.title())?;
    }
    m.add("GAME_TITLES", titles)?;
    m.add("POLICY_SIZE", damone::net::POLICY_SIZE)?;
    m.add("ENCODING_VERSION", damone::net::ENCODING_VERSION)?;
    game::register(m)?;
    env::register(m)?;
    search::register(m)?;
    player::register(m)?;
    data::register(m)?;
    Ok(())
}
