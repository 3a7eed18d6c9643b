//! Material balances and the index of a position in its balance's table.
//!
//! A table holds the positions of one [`Material`] with the side to move
//! playing as White. A position with Black to move is looked up turned by
//! 180 degrees with the colours swapped ([`Position::rotate_swap`]), which
//! keeps every rule: on the 32 dark squares that turn is `31 - square`, a
//! bit reversal of each bitboard.
//!
//! Within a table, the pieces of each colour and rank form a group; a
//! group of `m` pieces on a set of squares is ranked by the combinatorial
//! number system (colex order: squares `s1 < s2 < ... < sm` have rank
//! `C(s1, 1) + C(s2, 2) + ... + C(sm, m)`), and the groups' ranks are the
//! digits of a mixed-radix number. Indices whose groups overlap hold no
//! position.

use crate::game::{Bitboard, Color, Piece, Position, Rank, Square, Variant};

/// Ranks in the order of a balance's name and a table's groups.
const RANKS_HIGH_FIRST: [Rank; 3] = [Rank::Damone, Rank::Dama, Rank::Pedina];

/// `BINOMIAL[n][k]` = C(n, k) for n <= 32, k <= 32.
static BINOMIAL: [[u64; 33]; 33] = binomials();

const fn binomials() -> [[u64; 33]; 33] {
    let mut c = [[0u64; 33]; 33];
    let mut n = 0;
    while n <= 32 {
        c[n][0] = 1;
        let mut k = 1;
        while k <= n {
            c[n][k] = c[n - 1][k - 1] + if k < n { c[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    c
}

/// How many pieces of each rank each side has: `counts[0]` the side to
/// move's, `counts[1]` its opponent's, each indexed by [`Rank::index`]
/// (Pedine, Damas, Damones).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    pub counts: [[u8; 3]; 2],
}

impl Material {
    /// The balance of `pos` from its side to move.
    pub fn of(pos: &Position) -> Material {
        let me = pos.side_to_move();
        let count = |c: Color, r: Rank| pos.pieces(c, r).count_ones() as u8;
        let side = |c: Color| {
            [
                count(c, Rank::Pedina),
                count(c, Rank::Dama),
                count(c, Rank::Damone),
            ]
        };
        Material {
            counts: [side(me), side(me.opposite())],
        }
    }

    /// The same pieces with the other side to move.
    pub fn swapped(self) -> Material {
        Material {
            counts: [self.counts[1], self.counts[0]],
        }
    }

    /// Pieces of `side` (0: the side to move).
    pub fn side_pieces(&self, side: usize) -> u32 {
        self.counts[side].iter().map(|&c| c as u32).sum()
    }

    /// Pieces on the board.
    pub fn pieces(&self) -> u32 {
        self.side_pieces(0) + self.side_pieces(1)
    }

    /// Sum of the pieces' ranks (Pedina 1, Dama 2, Damone 3): a promotion
    /// raises it, a capture lowers the piece count.
    pub fn rank_sum(&self) -> u32 {
        self.counts
            .iter()
            .map(|s| s[0] as u32 + 2 * s[1] as u32 + 3 * s[2] as u32)
            .sum()
    }

    /// Every balance of `pieces` pieces with at least one on each side.
    pub fn all_with(pieces: u32) -> Vec<Material> {
        let mut out = Vec::new();
        let sides = |n: u32| -> Vec<[u8; 3]> {
            let mut v = Vec::new();
            for i in 0..=n {
                for d in 0..=n - i {
                    v.push([(n - i - d) as u8, d as u8, i as u8]);
                }
            }
            v
        };
        for mine in 1..pieces {
            for a in sides(mine) {
                for b in sides(pieces - mine) {
                    out.push(Material { counts: [a, b] });
                }
            }
        }
        out
    }

    /// The groups of a table: (side, rank, pieces), damones first, empty
    /// groups left out.
    fn groups(&self) -> impl Iterator<Item = (usize, Rank, usize)> + '_ {
        (0..2).flat_map(move |side| {
            RANKS_HIGH_FIRST
                .into_iter()
                .map(move |r| (side, r, self.counts[side][r.index()] as usize))
                .filter(|g| g.2 > 0)
        })
    }

    /// Indices of its table (some hold no position: overlapping groups).
    pub fn table_len(&self) -> u64 {
        self.groups().map(|(_, _, m)| BINOMIAL[32][m]).product()
    }

    /// Where `pos` (of this balance, see [`Material::of`]) stands in the
    /// table.
    pub fn index(&self, pos: &Position) -> u64 {
        let me = pos.side_to_move();
        let mut index = 0;
        let mut stride = 1;
        for (side, rank, m) in self.groups() {
            let color = if side == 0 { me } else { me.opposite() };
            let mut bb = pos.pieces(color, rank);
            if me == Color::Black {
                bb = bb.reverse_bits();
            }
            index += colex_rank(bb) * stride;
            stride *= BINOMIAL[32][m];
        }
        index
    }

    /// The position at `index` (White to move, no-progress counter 0), or
    /// None where two groups overlap.
    pub fn position(&self, mut index: u64) -> Option<Position> {
        let mut pos = Position::empty(Variant::Standard);
        let mut taken: Bitboard = 0;
        for (side, rank, m) in self.groups() {
            let radix = BINOMIAL[32][m];
            let bb = colex_unrank(index % radix, m);
            index /= radix;
            if bb & taken != 0 {
                return None;
            }
            taken |= bb;
            let color = if side == 0 { Color::White } else { Color::Black };
            let mut b = bb;
            while b != 0 {
                pos.put(Square::new(b.trailing_zeros() as u8), Piece { color, rank });
                b &= b - 1;
            }
        }
        Some(pos)
    }

    /// A position of this balance drawn uniformly from its table's
    /// indices, turned to Black to move half the time (no-progress counter
    /// 0); None where the index drawn holds no position.
    pub fn random_position(&self, rng: &mut impl rand::Rng) -> Option<Position> {
        let pos = self.position(rng.random_range(0..self.table_len()))?;
        Some(if rng.random::<bool>() {
            pos.rotate_swap()
        } else {
            pos
        })
    }

    /// A name such as `IDvP`: the side to move's pieces, `v`, the
    /// opponent's; each as `I` (Damone), `D` (Dama) and `P` (Pedina),
    /// highest first.
    pub fn name(&self) -> String {
        let side = |s: usize| -> String {
            RANKS_HIGH_FIRST
                .iter()
                .map(|r| letter(*r).to_string().repeat(self.counts[s][r.index()] as usize))
                .collect()
        };
        format!("{}v{}", side(0), side(1))
    }

    /// Read a name written by [`Material::name`].
    pub fn parse(name: &str) -> Result<Material, String> {
        let bad = || format!("bad material '{name}': expected pieces I, D, P for each side, as in IDvP");
        let (a, b) = name.split_once('v').ok_or_else(bad)?;
        let side = |s: &str| -> Result<[u8; 3], String> {
            let mut c = [0u8; 3];
            for ch in s.chars() {
                let r = RANKS_HIGH_FIRST
                    .into_iter()
                    .find(|r| letter(*r) == ch)
                    .ok_or_else(bad)?;
                c[r.index()] += 1;
            }
            if s.is_empty() || s.len() > 12 {
                return Err(bad());
            }
            Ok(c)
        };
        Ok(Material {
            counts: [side(a)?, side(b)?],
        })
    }
}

/// Positions drawn until `keep` has kept `count` or `max_draws` draws are
/// spent: each draw takes a balance of `balances` uniformly, then a
/// position of its table ([`Material::random_position`]); `keep` sees the
/// position and those kept so far and returns what to keep of it, if any.
pub fn draw_positions<T>(
    balances: &[Material],
    count: usize,
    max_draws: usize,
    rng: &mut impl rand::Rng,
    mut keep: impl FnMut(Position, &[T]) -> Option<T>,
) -> Vec<T> {
    let mut kept = Vec::with_capacity(count);
    let mut draws = 0;
    while kept.len() < count && !balances.is_empty() && draws < max_draws {
        draws += 1;
        let balance = &balances[rng.random_range(0..balances.len())];
        if let Some(item) = balance.random_position(rng).and_then(|p| keep(p, &kept)) {
            kept.push(item);
        }
    }
    kept
}

/// A rank's letter in balance names.
fn letter(r: Rank) -> char {
    match r {
        Rank::Damone => 'I',
        Rank::Dama => 'D',
        Rank::Pedina => 'P',
    }
}

/// The colex rank of a set of squares among the sets of its size.
fn colex_rank(mut bb: Bitboard) -> u64 {
    let mut rank = 0;
    let mut i = 1;
    while bb != 0 {
        rank += BINOMIAL[bb.trailing_zeros() as usize][i];
        bb &= bb - 1;
        i += 1;
    }
    rank
}

/// The set of `m` squares with colex rank `rank`.
fn colex_unrank(mut rank: u64, m: usize) -> Bitboard {
    let mut bb = 0;
    let mut top = 32;
    for i in (1..=m).rev() {
        // The largest square s below `top` with C(s, i) <= rank.
        let mut s = top - 1;
        while BINOMIAL[s][i] > rank {
            s -= 1;
        }
        bb |= 1 << s;
        rank -= BINOMIAL[s][i];
        top = s;
    }
    bb
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colex_ranks_are_dense_and_round_trip() {
        for (m, &n) in BINOMIAL[32].iter().enumerate().skip(1).take(3) {
            for r in 0..n {
                let bb = colex_unrank(r, m);
                assert_eq!(bb.count_ones() as usize, m);
                assert_eq!(colex_rank(bb), r);
            }
        }
    }

    #[test]
    fn every_index_of_a_table_round_trips() {
        let mat = Material::parse("IDvPP").unwrap();
        assert_eq!(mat.name(), "IDvPP");
        assert_eq!(mat.table_len(), 32 * 32 * 496);
        let mut positions = 0;
        for i in 0..mat.table_len() {
            if let Some(p) = mat.position(i) {
                assert_eq!(Material::of(&p), mat);
                assert_eq!(mat.index(&p), i);
                // Black to move: the same index after the turn.
                let turned = p.rotate_swap();
                assert_eq!(Material::of(&turned), mat);
                assert_eq!(mat.index(&turned), i);
                positions += 1;
            }
        }
        assert_eq!(positions, 32 * 31 * (30 * 29 / 2));
    }

    #[test]
    fn balances_are_listed_once_and_names_parse() {
        let four = Material::all_with(4);
        assert_eq!(four.len(), 30 + 36 + 30);
        let mut names: Vec<String> = four.iter().map(|m| m.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 96);
        for m in &four {
            assert_eq!(Material::parse(&m.name()).unwrap(), *m);
        }
        for bad in ["", "v", "IvX", "IDP", "Iv"] {
            assert!(Material::parse(bad).is_err(), "{bad}");
        }
    }
}
