//! Damone, the three-rank variant (docs/rules.md): pieces of three
//! ranks ([`Rank`]), legal move generation with compulsory maximal capture
//! and its precedence order ([`position`]), promotion, Zobrist hashing,
//! the rule variants ([`variant`]), FEN ([`fen`]) and move notation
//! ([`notation`]), behind the game interface
//! ([`GamePosition`](crate::game::GamePosition), implemented in
//! [`position`]); the grid the network reads ([`encoding`]), the
//! alpha-beta baseline's evaluation ([`baseline`]) and the endgame tables
//! ([`tables`]).

pub mod baseline;
pub mod encoding;
pub mod fen;
pub mod notation;
pub mod position;
pub mod rank;
pub mod tables;
pub mod variant;

pub use fen::ParseFenError;
pub use notation::parse_move;
pub use position::{Move, MoveList, Position, MAX_JUMPS};
pub use rank::{Piece, Rank};
pub use variant::{UnknownVariant, Variant, VARIANT_NAMES};
