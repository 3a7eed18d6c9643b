//! Building `net:PATH,...` players (needs the network module).

use anyhow::{bail, Result};
use damone::arena::{PlayerFactory, PlayerSpec};

/// A factory for a `net:` spec.
pub fn net_factory(spec: &PlayerSpec) -> Result<PlayerFactory> {
    bail!(
        "player '{}': network players are not available in this build yet (no network module)",
        spec.text
    )
}
