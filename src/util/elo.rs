//! Elo ratings by maximum likelihood (Bradley-Terry with draws counted as
//! half a win each), with 95% intervals from the observed information.

/// Expected score of a player rated `a` against one rated `b`.
pub fn expected(a: f64, b: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf((b - a) / 400.0))
}

/// Elo difference for a score fraction (clamped away from 0 and 1).
pub fn diff_from_score(score: f64) -> f64 {
    let s = score.clamp(1e-3, 1.0 - 1e-3);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Score fraction and its 95% normal interval half-width from W/D/L counts.
pub fn score_interval(wins: u32, draws: u32, losses: u32) -> (f64, f64) {
    let n = (wins + draws + losses) as f64;
    if n == 0.0 {
        return (0.5, 0.5);
    }
    let s = (wins as f64 + 0.5 * draws as f64) / n;
    let var =
        (wins as f64 * (1.0 - s).powi(2) + draws as f64 * (0.5 - s).powi(2) + losses as f64 * s.powi(2)) / n;
    (s, 1.96 * (var / n).sqrt())
}

/// Ratings of `n` players from pairwise scores. `score[i][j]` is the points
/// player i took from j, `games[i][j]` the games they played. The player
/// `anchor` is fixed at 0. Returns (ratings, 95% half-widths). Players with
/// all wins or all losses are regularised by a weak prior (one virtual draw
/// against the anchor's level) so that ratings stay finite.
pub fn mle_ratings(score: &[Vec<f64>], games: &[Vec<f64>], anchor: usize) -> (Vec<f64>, Vec<f64>) {
    let n = score.len();
    let k = 10f64.ln() / 400.0;
    let mut r = vec![0.0; n];
    let prior = 0.5; // virtual games against a 0-rated opponent
    for _ in 0..2000 {
        let mut max_step: f64 = 0.0;
        for i in 0..n {
            if i == anchor {
                continue;
            }
            // Newton step on player i's log-likelihood.
            let mut grad = 0.0;
            let mut hess = 0.0;
            for j in 0..n {
                if games[i][j] > 0.0 {
                    let e = expected(r[i], r[j]);
                    grad += k * (score[i][j] - games[i][j] * e);
                    hess += k * k * games[i][j] * e * (1.0 - e);
                }
            }
            let e0 = expected(r[i], 0.0);
            grad += k * prior * (0.5 - e0);
            hess += k * k * prior * e0 * (1.0 - e0);
            let step = (grad / hess).clamp(-200.0, 200.0);
            r[i] += step;
            max_step = max_step.max(step.abs());
        }
        if max_step < 1e-6 {
            break;
        }
    }
    let ci = (0..n)
        .map(|i| {
            if i == anchor {
                return 0.0;
            }
            let mut info = 0.0;
            for j in 0..n {
                if games[i][j] > 0.0 {
                    let e = expected(r[i], r[j]);
                    info += k * k * games[i][j] * e * (1.0 - e);
                }
            }
            let e0 = expected(r[i], 0.0);
            info += k * k * prior * e0 * (1.0 - e0);
            1.96 / info.sqrt()
        })
        .collect();
    (r, ci)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mle_recovers_a_known_gap() {
        // B scores 76% against A over 1000 games: about +200 Elo.
        let score = vec![vec![0.0, 240.0], vec![760.0, 0.0]];
        let games = vec![vec![0.0, 1000.0], vec![1000.0, 0.0]];
        let (r, ci) = mle_ratings(&score, &games, 0);
        assert_eq!(r[0], 0.0);
        assert!((r[1] - diff_from_score(0.76)).abs() < 5.0, "{r:?}");
        assert!(ci[1] > 10.0 && ci[1] < 40.0, "{ci:?}");
    }
}
