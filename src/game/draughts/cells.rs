//! Sets of cells as bit masks, and the types games name one cell by.

use crate::game::types::Square;
use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of cells as a bit mask, bit `i` for cell `i` (`u32`, `u64` or
/// `u128`: boards of up to 32, 64 or 128 cells).
pub trait CellSet:
    Copy
    + Eq
    + Hash
    + Debug
    + Default
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
{
    /// The most cells a set holds.
    const CAPACITY: usize;
    /// The empty set.
    const EMPTY: Self;
    /// The set of one cell.
    fn single(cell: usize) -> Self;
    /// True when the set holds `cell`.
    fn has(self, cell: usize) -> bool;
    /// The number of cells in the set.
    fn len(self) -> u32;
    /// True for the empty set.
    #[inline(always)]
    fn is_empty(self) -> bool {
        self == Self::EMPTY
    }
    /// The lowest cell and the set without it (`None` when empty).
    fn pop_lowest(self) -> Option<(usize, Self)>;
    /// The cells, lowest first.
    #[inline(always)]
    fn iter(self) -> CellIter<Self> {
        CellIter(self)
    }
}

/// The cells of a [`CellSet`], lowest first.
#[derive(Clone, Copy, Debug)]
pub struct CellIter<S>(S);

impl<S: CellSet> Iterator for CellIter<S> {
    type Item = usize;
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        let (cell, rest) = self.0.pop_lowest()?;
        self.0 = rest;
        Some(cell)
    }
}

macro_rules! cell_set {
    ($($t:ty),*) => {$(
        impl CellSet for $t {
            const CAPACITY: usize = <$t>::BITS as usize;
            const EMPTY: Self = 0;
            #[inline(always)]
            fn single(cell: usize) -> Self {
                1 << cell
            }
            #[inline(always)]
            fn has(self, cell: usize) -> bool {
                (self >> cell) & 1 != 0
            }
            #[inline(always)]
            fn len(self) -> u32 {
                self.count_ones()
            }
            #[inline(always)]
            fn pop_lowest(self) -> Option<(usize, Self)> {
                (self != 0).then(|| (self.trailing_zeros() as usize, self & (self - 1)))
            }
        }
    )*};
}
cell_set!(u32, u64, u128);

/// The type a game names one cell by: an index into its [`CellSet`].
pub trait Cell: Copy + Eq + Debug + Send + Sync + 'static {
    /// The cell of an index.
    fn at(index: usize) -> Self;
    /// Its index.
    fn index(self) -> usize;
}

impl Cell for usize {
    #[inline(always)]
    fn at(index: usize) -> usize {
        index
    }
    #[inline(always)]
    fn index(self) -> usize {
        self
    }
}

impl Cell for Square {
    #[inline(always)]
    fn at(index: usize) -> Square {
        Square::new(index as u8)
    }
    #[inline(always)]
    fn index(self) -> usize {
        Square::index(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_list_their_cells_lowest_first() {
        let s: u64 = u64::single(3) | u64::single(40) | u64::single(63);
        assert_eq!(s.iter().collect::<Vec<_>>(), [3, 40, 63]);
        assert_eq!(s.len(), 3);
        assert!(s.has(40) && !s.has(41));
        assert!(u128::single(127).has(127));
        assert!(u32::EMPTY.is_empty() && u32::EMPTY.iter().next().is_none());
        assert_eq!(<u128 as CellSet>::CAPACITY, 128);
    }
}
