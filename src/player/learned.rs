//! A learned evaluation for alpha-beta found by any path a user may name
//! (`alphabeta:eval=PATH`, `bench --eval`, `info`, the web page).

use super::{decode_player_with, MAGIC};
use crate::game::GameKind;
use crate::learned::EvalFile;
use std::path::Path;

/// The learned evaluation `path` names: a `learned_eval.bin` file, a
/// player file holding one, or a checkpoint or run folder (a checkpoint's
/// own, a run folder's newest:
/// [`checkpoint_eval_file`](crate::run::learned_eval::checkpoint_eval_file)).
/// With `game`, one of another game is refused by name.
pub fn learned_eval_at(path: &Path, game: Option<GameKind>) -> Result<EvalFile, String> {
    let file = if path.is_dir() {
        crate::run::learned_eval::checkpoint_eval_file(path)?
    } else {
        let what = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {what}: {e}"))?;
        if bytes.starts_with(MAGIC) {
            let (_, _, learned) = decode_player_with(&bytes, &what).map_err(|e| e.to_string())?;
            learned.ok_or_else(|| {
                format!("{what} holds no learned evaluation (export it again after `damone learn-eval` on its run)")
            })?
        } else {
            EvalFile::from_bytes(&bytes).map_err(|e| format!("{what}: {e}"))?
        }
    };
    if let Some(g) = game {
        file.check_game(g)
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(file)
}
