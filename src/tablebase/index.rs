//! Material balances and the index of a position in its balance's table,
//! for any game with tables ([`TableGame`]).
//!
//! A table holds the positions of one [`Material`] with the side to move
//! playing as White. A position with Black to move is looked up turned by
//! 180 degrees with the colours swapped ([`TableGame::rotate_swap`]),
//! which keeps every rule: on the game's numbered cells that turn is
//! `cells - 1 - cell`, a bit reversal of each set.
//!
//! Within a table, the pieces of each colour and kind form a group; a
//! group of `m` pieces on a set of cells is ranked by the combinatorial
//! number system (colex order: cells `s1 < s2 < ... < sm` have rank
//! `C(s1, 1) + C(s2, 2) + ... + C(sm, m)`), and the groups' ranks are the
//! digits of a mixed-radix number. Indices whose groups overlap, or whose
//! pieces the rules do not allow together, hold no position.

use crate::game::tables::{turn_cells, TableGame};
use crate::game::Color;

/// The most kinds of piece a game may have (Damone's three ranks).
const KINDS: usize = 3;

/// `BINOMIAL[n][k]` = C(n, k) for n <= 64, k <= 64.
static BINOMIAL: [[u64; 65]; 65] = binomials();

const fn binomials() -> [[u64; 65]; 65] {
    let mut c = [[0u64; 65]; 65];
    let mut n = 0;
    while n <= 64 {
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

/// How many pieces of each kind each side has: `counts[0]` the side to
/// move's, `counts[1]` its opponent's, each indexed by the kind (an index
/// into the game's `PIECE_KINDS`, lowest first: Damone's Pedine, Damas,
/// Damones; men and kings elsewhere, the third 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    /// Pieces of each kind, by colour (`counts[colour][kind]`).
    pub counts: [[u8; KINDS]; 2],
}

impl Material {
    /// The balance of `pos` from its side to move.
    pub fn of<P: TableGame>(pos: &P) -> Material {
        let me = pos.side_to_move();
        let side = |c: Color| {
            let mut counts = [0u8; KINDS];
            for (kind, n) in counts.iter_mut().enumerate().take(P::PIECE_KINDS.len()) {
                *n = pos.table_cells(c, kind).count_ones() as u8;
            }
            counts
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

    /// Sum of the pieces' kinds counted from 1 (Damone's Pedina 1, Dama 2,
    /// Damone 3; a man 1, a king 2): a promotion raises it, a capture
    /// lowers the piece count.
    pub fn rank_sum(&self) -> u32 {
        self.counts
            .iter()
            .flat_map(|s| s.iter().enumerate())
            .map(|(kind, &n)| (kind as u32 + 1) * n as u32)
            .sum()
    }

    /// Every balance of `P` with `pieces` pieces and at least one on each
    /// side.
    pub fn all_with<P: TableGame>(pieces: u32) -> Vec<Material> {
        let kinds = P::PIECE_KINDS.len().min(KINDS);
        let mut out = Vec::new();
        for mine in 1..pieces {
            for a in compositions(mine, kinds) {
                for b in compositions(pieces - mine, kinds) {
                    out.push(Material { counts: [a, b] });
                }
            }
        }
        out
    }

    /// The groups of a table: (side, kind, pieces), highest kind first,
    /// empty groups left out.
    fn groups(&self) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
        (0..2).flat_map(move |side| {
            (0..KINDS)
                .rev()
                .map(move |kind| (side, kind, self.counts[side][kind] as usize))
                .filter(|g| g.2 > 0)
        })
    }

    /// Indices of its table in `P` (some hold no position).
    pub fn table_len<P: TableGame>(&self) -> u64 {
        let cells = P::TABLE_CELLS as usize;
        self.groups().map(|(_, _, m)| BINOMIAL[cells][m]).product()
    }

    /// Where `pos` (of this balance, see [`Material::of`]) stands in the
    /// table.
    pub fn index<P: TableGame>(&self, pos: &P) -> u64 {
        let me = pos.side_to_move();
        let cells = P::TABLE_CELLS;
        let mut index = 0;
        let mut stride = 1;
        for (side, kind, m) in self.groups() {
            let color = if side == 0 { me } else { me.opposite() };
            let mut set = pos.table_cells(color, kind);
            if me == Color::Black {
                set = turn_cells(set, cells);
            }
            index += colex_rank(set) * stride;
            stride *= BINOMIAL[cells as usize][m];
        }
        index
    }

    /// The position at `index` (White to move, no-progress counter 0), or
    /// None where two groups overlap or the rules allow no such position.
    pub fn position<P: TableGame>(&self, mut index: u64) -> Option<P> {
        let cells = P::TABLE_CELLS;
        let mut pieces = [[0u64; KINDS]; 2];
        let mut taken = 0u64;
        for (side, kind, m) in self.groups() {
            let radix = BINOMIAL[cells as usize][m];
            let set = colex_unrank(index % radix, m, cells);
            index /= radix;
            if set & taken != 0 {
                return None;
            }
            taken |= set;
            pieces[side][kind] = set;
        }
        P::from_table_cells(&pieces)
    }

    /// A position of this balance drawn uniformly from its table's
    /// indices, turned to Black to move half the time (no-progress counter
    /// 0); None where the index drawn holds no position.
    pub fn random_position<P: TableGame>(&self, rng: &mut impl rand::Rng) -> Option<P> {
        let pos: P = self.position(rng.random_range(0..self.table_len::<P>()))?;
        Some(if rng.random::<bool>() {
            pos.rotate_swap()
        } else {
            pos
        })
    }

    /// A name such as `IDvP`: the side to move's pieces, `v`, the
    /// opponent's; each piece by the letter `P` gives its kind
    /// ([`GamePosition::PIECE_LETTERS`](crate::game::GamePosition)), highest
    /// kind first.
    pub fn name<P: TableGame>(&self) -> String {
        let side = |s: usize| -> String {
            (0..P::PIECE_LETTERS.len().min(KINDS))
                .rev()
                .map(|kind| {
                    P::PIECE_LETTERS[kind]
                        .to_string()
                        .repeat(self.counts[s][kind] as usize)
                })
                .collect()
        };
        format!("{}v{}", side(0), side(1))
    }

    /// Read a name written by [`Material::name`].
    pub fn parse<P: TableGame>(name: &str) -> Result<Material, String> {
        let letters: String = P::PIECE_LETTERS.iter().rev().collect();
        let bad = || {
            format!(
                "bad material '{name}': expected pieces {} for each side, as in {}v{}",
                letters.chars().map(String::from).collect::<Vec<_>>().join(", "),
                letters,
                P::PIECE_LETTERS[0]
            )
        };
        let (a, b) = name.split_once('v').ok_or_else(bad)?;
        let side = |s: &str| -> Result<[u8; KINDS], String> {
            let mut c = [0u8; KINDS];
            for ch in s.chars() {
                let kind = P::PIECE_LETTERS
                    .iter()
                    .position(|&l| l == ch)
                    .filter(|&k| k < KINDS)
                    .ok_or_else(bad)?;
                c[kind] += 1;
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

/// The ways of splitting `n` pieces over `kinds` kinds (the other kinds 0).
fn compositions(n: u32, kinds: usize) -> Vec<[u8; KINDS]> {
    let mut out = Vec::new();
    let mut parts = [0u8; KINDS];
    fn fill(n: u32, kind: usize, kinds: usize, parts: &mut [u8; KINDS], out: &mut Vec<[u8; KINDS]>) {
        if kind + 1 == kinds {
            parts[kind] = n as u8;
            out.push(*parts);
            return;
        }
        for here in 0..=n {
            parts[kind] = here as u8;
            fill(n - here, kind + 1, kinds, parts, out);
        }
    }
    fill(n, 0, kinds.max(1), &mut parts, &mut out);
    out
}

/// Positions drawn until `keep` has kept `count` or `max_draws` draws are
/// spent: each draw takes a balance of `balances` uniformly, then a
/// position of its table ([`Material::random_position`]); `keep` sees the
/// position and those kept so far and returns what to keep of it, if any.
pub fn draw_positions<P: TableGame, T>(
    balances: &[Material],
    count: usize,
    max_draws: usize,
    rng: &mut impl rand::Rng,
    mut keep: impl FnMut(P, &[T]) -> Option<T>,
) -> Vec<T> {
    let mut kept = Vec::with_capacity(count);
    let mut draws = 0;
    while kept.len() < count && !balances.is_empty() && draws < max_draws {
        draws += 1;
        let balance = &balances[rng.random_range(0..balances.len())];
        if let Some(item) = balance.random_position::<P>(rng).and_then(|p| keep(p, &kept)) {
            kept.push(item);
        }
    }
    kept
}

/// The colex rank of a set of cells among the sets of its size.
fn colex_rank(mut set: u64) -> u64 {
    let mut rank = 0;
    let mut i = 1;
    while set != 0 {
        rank += BINOMIAL[set.trailing_zeros() as usize][i];
        set &= set - 1;
        i += 1;
    }
    rank
}

/// The set of `m` of the cells `0..cells` with colex rank `rank`.
fn colex_unrank(mut rank: u64, m: usize, cells: u32) -> u64 {
    let mut set = 0;
    let mut top = cells as usize;
    for i in (1..=m).rev() {
        // The largest cell s below `top` with C(s, i) <= rank.
        let mut s = top - 1;
        while BINOMIAL[s][i] > rank {
            s -= 1;
        }
        set |= 1 << s;
        rank -= BINOMIAL[s][i];
        top = s;
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{dameo, damone::Position, italian};

    #[test]
    fn colex_ranks_are_dense_and_round_trip() {
        for cells in [32u32, 64] {
            for (m, &n) in BINOMIAL[cells as usize].iter().enumerate().skip(1).take(3) {
                for r in (0..n).step_by(if cells == 64 { 97 } else { 1 }) {
                    let set = colex_unrank(r, m, cells);
                    assert_eq!(set.count_ones() as usize, m);
                    assert!(cells == 64 || set < 1 << cells);
                    assert_eq!(colex_rank(set), r);
                }
            }
        }
    }

    /// Every index of `name`'s table that holds a position reads back to
    /// it, with White and with Black to move; the count of positions.
    fn round_trip<P: TableGame>(name: &str) -> u64 {
        let mat = Material::parse::<P>(name).unwrap();
        assert_eq!(mat.name::<P>(), name);
        let mut positions = 0;
        for i in 0..mat.table_len::<P>() {
            if let Some(p) = mat.position::<P>(i) {
                assert_eq!(Material::of(&p), mat);
                assert_eq!(mat.index(&p), i);
                // Black to move: the same index after the turn.
                let turned = p.rotate_swap();
                assert_eq!(Material::of(&turned), mat);
                assert_eq!(mat.index(&turned), i);
                assert_eq!(turned.rotate_swap(), p);
                positions += 1;
            }
        }
        positions
    }

    #[test]
    fn every_index_of_a_table_round_trips() {
        let mat = Material::parse::<Position>("IDvPP").unwrap();
        assert_eq!(mat.table_len::<Position>(), 32 * 32 * 496);
        assert_eq!(round_trip::<Position>("IDvPP"), 32 * 31 * (30 * 29 / 2));
        // Italian men never stand on the row they are promoted on.
        // A king anywhere, two men off their own first row (where Black's
        // would have been promoted).
        assert_eq!(round_trip::<italian::Position>("KvMM"), (28 * 27 / 2) * 30);
        assert_eq!(round_trip::<dameo::Position>("KvM"), 56 * 63);
    }

    #[test]
    fn balances_are_listed_once_and_names_parse() {
        let four = Material::all_with::<Position>(4);
        assert_eq!(four.len(), 30 + 36 + 30);
        let mut names: Vec<String> = four.iter().map(|m| m.name::<Position>()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 96);
        for m in &four {
            assert_eq!(Material::parse::<Position>(&m.name::<Position>()).unwrap(), *m);
        }
        for bad in ["", "v", "IvX", "IDP", "Iv"] {
            assert!(Material::parse::<Position>(bad).is_err(), "{bad}");
        }
        // Men and kings: 1+3 and 2+2 and 3+1 pieces, each side 2..4 ways.
        let italian_four = Material::all_with::<italian::Position>(4);
        assert_eq!(italian_four.len(), 2 * 4 + 3 * 3 + 4 * 2);
        assert!(italian_four
            .iter()
            .all(|m| m.counts[0][2] == 0 && m.counts[1][2] == 0));
        assert_eq!(
            Material::parse::<italian::Position>("KMvM")
                .unwrap()
                .name::<italian::Position>(),
            "KMvM"
        );
        assert!(Material::parse::<italian::Position>("IvP").is_err());
    }
}
