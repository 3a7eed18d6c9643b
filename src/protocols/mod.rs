//! The draughts world's engine protocols: Hub (Scan's, for the Hub and
//! Damage interfaces and pydraughts; [`hub`]) and DXP (the DamExchange
//! Protocol for engine-against-engine games over TCP; [`dxp`]), with the
//! numbered notation both write ([`notation`]). damone's own line protocol
//! is [`crate::engine_protocol`]. Their commands and messages are in
//! `docs/protocols.md`.

pub mod dxp;
pub mod hub;
pub mod notation;

pub use hub::HubSession;
pub use notation::{HubNotation, NumberedBoard};
