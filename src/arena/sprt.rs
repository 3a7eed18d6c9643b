//! Sequential probability ratio test for matches, as engine testers use it
//! (cutechess-cli, fastchess, fishtest): H0 "the first player is `elo0`
//! stronger", H1 "it is `elo1` stronger", logistic Elo, the generalised SPRT
//! on win/draw/loss counts (the normal approximation of Van den Bergh), and
//! stopping bounds from the error rates `alpha` and `beta`.

use crate::util::range::{check, Bounds};
use std::str::FromStr;

/// The test's hypotheses and error rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// The Elo difference of the null hypothesis.
    pub elo0: f64,
    /// The Elo difference of the alternative hypothesis.
    pub elo1: f64,
    /// The false-positive rate: accepting H1 when H0 holds.
    pub alpha: f64,
    /// The false-negative rate: accepting H0 when H1 holds.
    pub beta: f64,
}

/// What the test has decided so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtDecision {
    /// The log-likelihood ratio crossed the upper bound: accept H1.
    H1,
    /// It crossed the lower bound: accept H0.
    H0,
}

fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

impl Sprt {
    /// (lower, upper) bounds of the log-likelihood ratio.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of H1 against H0 after `w` wins, `d` draws
    /// and `l` losses of the first player. One virtual game scored 1/2 (a
    /// quarter win, half a draw, a quarter loss) keeps the variance above
    /// zero when every game so far had the same result.
    pub fn llr(&self, w: u32, d: u32, l: u32) -> f64 {
        if w + d + l == 0 {
            return 0.0;
        }
        let (w, d, l) = (w as f64 + 0.25, d as f64 + 0.5, l as f64 + 0.25);
        let n = w + d + l;
        let s = (w + 0.5 * d) / n;
        let var = (w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2)) / n;
        let (s0, s1) = (score_of_elo(self.elo0), score_of_elo(self.elo1));
        n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var)
    }

    /// The decision after these counts, if the LLR is out of its bounds.
    pub fn decide(&self, w: u32, d: u32, l: u32) -> Option<SprtDecision> {
        let llr = self.llr(w, d, l);
        let (lo, hi) = self.bounds();
        if llr >= hi {
            Some(SprtDecision::H1)
        } else if llr <= lo {
            Some(SprtDecision::H0)
        } else {
            None
        }
    }
}

impl FromStr for Sprt {
    type Err = String;

    /// `elo0=0,elo1=10[,alpha=0.05][,beta=0.05]`.
    fn from_str(s: &str) -> Result<Sprt, String> {
        let mut t = Sprt {
            elo0: f64::NAN,
            elo1: f64::NAN,
            alpha: 0.05,
            beta: 0.05,
        };
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| format!("bad SPRT item '{part}' (expected key=value)"))?;
            let v: f64 = v
                .trim()
                .parse()
                .map_err(|_| format!("SPRT {k} needs a number, got '{v}'"))?;
            match k.trim() {
                "elo0" => t.elo0 = v,
                "elo1" => t.elo1 = v,
                "alpha" => t.alpha = v,
                "beta" => t.beta = v,
                other => {
                    return Err(format!(
                        "unknown SPRT key '{other}' (expected elo0, elo1, alpha, beta)"
                    ))
                }
            }
        }
        if !t.elo0.is_finite() || !t.elo1.is_finite() {
            return Err("SPRT needs elo0 and elo1 (e.g. elo0=0,elo1=10)".into());
        }
        if t.elo0 >= t.elo1 {
            return Err(format!("SPRT needs elo0 < elo1, got {} and {}", t.elo0, t.elo1));
        }
        check("SPRT alpha", t.alpha, Bounds::Open(0.0, 0.5))?;
        check("SPRT beta", t.beta, Bounds::Open(0.0, 0.5))?;
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bounds_and_decides() {
        let t: Sprt = "elo0=0,elo1=10,alpha=0.05,beta=0.05".parse().unwrap();
        let (lo, hi) = t.bounds();
        assert!((hi - 2.944).abs() < 1e-3 && (lo + 2.944).abs() < 1e-3);
        // An even match: no decision early, H0 in the long run.
        assert_eq!(t.decide(10, 20, 10), None);
        assert_eq!(t.decide(1000, 2000, 1000), Some(SprtDecision::H0));
        // A clearly stronger first player: H1; all wins decide within a few games.
        assert_eq!(t.decide(600, 300, 300), Some(SprtDecision::H1));
        assert_eq!(t.decide(4, 0, 0), None);
        assert_eq!(t.decide(40, 0, 0), Some(SprtDecision::H1));
        assert!(t.llr(600, 300, 300) > 0.0 && t.llr(300, 300, 600) < 0.0);
        assert!("elo0=10,elo1=0".parse::<Sprt>().is_err());
        assert!("elo1=5".parse::<Sprt>().is_err());
        assert!("elo0=0,elo1=5,alpha=2".parse::<Sprt>().is_err());
        assert!("elo0=0,elo1=5,gamma=1".parse::<Sprt>().is_err());
    }
}
