//! Range checks of settings, written once: configs, player-file headers,
//! player specs and self-training settings check each number against its
//! bounds here, so every such error reads the same way, one line naming
//! the key, the bounds and the value given:
//!
//! ```
//! use damone::util::range::{check, Bounds};
//!
//! assert_eq!(check("train.lr", 12.0, Bounds::Open(0.0, 10.0)).unwrap_err(),
//!            "train.lr must be in (0, 10), got 12");
//! assert!(check("threads", 2, Bounds::Closed(1, 256)).is_ok());
//! assert!(check("time_limit_minutes", f64::INFINITY, Bounds::AtLeast(0.0)).is_err());
//! ```
//!
//! No bounds hold a value that is not finite (NaN or an infinity).

use std::fmt;

/// The values a setting may take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bounds<T> {
    /// `lo <= v <= hi`, written `[lo, hi]`.
    Closed(T, T),
    /// `lo <= v < hi`, written `[lo, hi)`.
    ClosedOpen(T, T),
    /// `lo < v < hi`, written `(lo, hi)`.
    Open(T, T),
    /// `lo < v <= hi`, written `(lo, hi]`.
    OpenClosed(T, T),
    /// `v >= lo`, written `at least lo`.
    AtLeast(T),
    /// `v > lo`, written `above lo`.
    Above(T),
}

/// A number a setting holds.
pub trait Setting: PartialOrd + fmt::Display + Copy {
    /// Whether the value is finite (always, for integers).
    fn is_finite_value(self) -> bool {
        true
    }
}

impl Setting for f32 {
    fn is_finite_value(self) -> bool {
        self.is_finite()
    }
}

impl Setting for f64 {
    fn is_finite_value(self) -> bool {
        self.is_finite()
    }
}

impl Setting for u8 {}
impl Setting for u16 {}
impl Setting for u32 {}
impl Setting for u64 {}
impl Setting for usize {}
impl Setting for i32 {}
impl Setting for i64 {}

impl<T: Setting> Bounds<T> {
    /// Whether `v` lies within the bounds.
    pub fn contains(&self, v: T) -> bool {
        v.is_finite_value()
            && match *self {
                Bounds::Closed(lo, hi) => lo <= v && v <= hi,
                Bounds::ClosedOpen(lo, hi) => lo <= v && v < hi,
                Bounds::Open(lo, hi) => lo < v && v < hi,
                Bounds::OpenClosed(lo, hi) => lo < v && v <= hi,
                Bounds::AtLeast(lo) => lo <= v,
                Bounds::Above(lo) => lo < v,
            }
    }
}

impl<T: Setting> fmt::Display for Bounds<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bounds::Closed(lo, hi) => write!(f, "in [{lo}, {hi}]"),
            Bounds::ClosedOpen(lo, hi) => write!(f, "in [{lo}, {hi})"),
            Bounds::Open(lo, hi) => write!(f, "in ({lo}, {hi})"),
            Bounds::OpenClosed(lo, hi) => write!(f, "in ({lo}, {hi}]"),
            Bounds::AtLeast(lo) => write!(f, "at least {lo}"),
            Bounds::Above(lo) => write!(f, "above {lo}"),
        }
    }
}

/// `Ok` where `value` lies within `bounds`, else the one-line error
/// "`key` must be in BOUNDS, got `value`".
pub fn check<T: Setting>(key: &str, value: T, bounds: Bounds<T>) -> Result<(), String> {
    if bounds.contains(value) {
        Ok(())
    } else {
        Err(format!("{key} must be {bounds}, got {value}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_bound_holds_its_ends_as_written() {
        let cases: [(Bounds<f64>, f64, bool); 10] = [
            (Bounds::Closed(0.0, 1.0), 0.0, true),
            (Bounds::Closed(0.0, 1.0), 1.0, true),
            (Bounds::ClosedOpen(0.0, 1.0), 0.0, true),
            (Bounds::ClosedOpen(0.0, 1.0), 1.0, false),
            (Bounds::Open(0.0, 1.0), 0.0, false),
            (Bounds::Open(0.0, 1.0), 0.5, true),
            (Bounds::OpenClosed(0.0, 1.0), 1.0, true),
            (Bounds::OpenClosed(0.0, 1.0), 0.0, false),
            (Bounds::AtLeast(0.0), 1e300, true),
            (Bounds::AtLeast(0.0), -1e-9, false),
        ];
        for (bounds, v, inside) in cases {
            assert_eq!(bounds.contains(v), inside, "{v} {bounds}");
            assert!(
                !bounds.contains(f64::NAN) && !bounds.contains(f64::INFINITY),
                "{bounds}"
            );
        }
        assert_eq!(
            check("model.blocks", 0u32, Bounds::Closed(1, 40)).unwrap_err(),
            "model.blocks must be in [1, 40], got 0"
        );
        assert_eq!(
            check("keep_last", 0u32, Bounds::AtLeast(1)).unwrap_err(),
            "keep_last must be at least 1, got 0"
        );
    }
}
