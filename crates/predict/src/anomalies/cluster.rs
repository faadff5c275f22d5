//! Shen, Zhong and Li's anomaly clustering (FAST'05, section 4.2,
//! Algorithm 4.1): anomalous samples grouped into hyper-rectangles of
//! parameter ranges, each likely one cause.
//!
//! A rectangle grows greedily from a seed anomaly: at each step it takes in
//! the anomaly whose bounding box with it holds the most anomalies while
//! the anomalous fraction of the samples inside stays at least `eps`
//! (Shen's 0.9); it stops when no anomaly can be taken in. The best
//! rectangle over the seeds (the most anomalies) is a cluster; the next is
//! grown the same way from the anomalies it leaves, with the anomalies
//! earlier clusters explain counted as neither anomalous nor normal (so
//! that a second cause whose zone overlaps the first's is neither helped
//! nor hindered by it), until a rectangle would explain fewer than
//! `min_anomalies` new ones. Brute-force counting, as in the paper:
//! O(seeds x steps x anomalies x samples x dimensions).
//!
//! willy adds one step. Growing while the fraction stays at `eps` pushes
//! each face out as far as `eps` allows: into a neighbouring cause's zone,
//! or over a few chance anomalies, wherever a thin slab past the true edge
//! is anomalous enough. So each grown rectangle is then *tightened*: a
//! face moves in past the slab beside it when that slab is less than
//! [`TIGHTEN`] anomalous (at the cut where `TIGHTEN x normals - (1 -
//! TIGHTEN) x anomalies` removed is largest, and at least [`MIN_CUT`]),
//! until no face can. Planted zones come back within 10% of each range
//! where the growth alone overshot by up to 14%. And the best rectangle
//! over the seeds is the one with the most new anomalies weighted by its
//! precision to the power [`PURITY`], not simply the most.
//!
//! Dimensions are numbers (a categorical parameter is its value's index);
//! a rectangle's projection on a dimension is the range its anomalies span
//! there.

/// One cluster: a rectangle and what it holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Cluster {
    /// Lower bound on each dimension.
    pub lo: Vec<f64>,
    /// Upper bound on each dimension.
    pub hi: Vec<f64>,
    /// Anomalous samples inside.
    pub anomalies: usize,
    /// Samples inside.
    pub samples: usize,
    /// Anomalies inside that no earlier cluster held.
    pub new_anomalies: usize,
    /// `anomalies / samples`.
    pub precision: f64,
    /// `anomalies / all anomalies`.
    pub recall: f64,
}

impl Cluster {
    fn contains(&self, x: &[f64]) -> bool {
        inside(&self.lo, &self.hi, x)
    }
}

fn inside(lo: &[f64], hi: &[f64], x: &[f64]) -> bool {
    x.iter()
        .zip(lo.iter().zip(hi))
        .all(|(v, (l, h))| *v >= *l && *v <= *h)
}

/// A slab beside a face is cut off when less than this fraction of it is
/// anomalous. Not `eps`: a slab of a few samples with one chance normal
/// among them is below 0.9, and cutting it splits zones. Over 100 draws of
/// the planted test: at 0.5, 25 draws leave a bound more than 10% of its
/// range off (growth into the neighbouring zone survives); at 0.75, 3
/// (and 4 split a zone into two clusters).
pub const TIGHTEN: f64 = 0.75;

/// A grown rectangle is scored by its new anomalies times its precision
/// to this power, and the best over the seeds becomes the cluster. Shen
/// take the most anomalies (power 0); then a box that cuts diagonally
/// across two overlapping causes at just over `eps` can win over either
/// cause's own, purer, rectangle, and the rest of both comes back as two
/// more clusters (4 of the first 100 planted draws).
pub const PURITY: i32 = 4;

/// Tightening cuts a slab only when that removes at least this much
/// (`TIGHTEN x normals - (1 - TIGHTEN) x anomalies`): at least two
/// normals more than a third of the anomalies. One chance normal in a
/// slab whose anomalies an earlier cluster explains (and which count as
/// neither) no longer cuts a face off a range that should be whole.
pub const MIN_CUT: f64 = 1.6;

/// At most this many seeds per cluster, spread evenly over the
/// anomalies not yet explained (each seed costs a whole growth).
pub const MAX_SEEDS: usize = 32;

/// The clusters of the anomalous samples among `points` (`anomalous[i]`
/// for `points[i]`), best first.
pub fn clusters(
    points: &[Vec<f64>],
    anomalous: &[bool],
    eps: f64,
    min_anomalies: usize,
) -> Vec<Cluster> {
    let anomalies: Vec<usize> = (0..points.len()).filter(|&i| anomalous[i]).collect();
    let total = anomalies.len();
    let mut found: Vec<Cluster> = Vec::new();
    loop {
        let open: Vec<usize> = anomalies
            .iter()
            .copied()
            .filter(|&i| !found.iter().any(|c| c.contains(&points[i])))
            .collect();
        if open.len() < min_anomalies.max(1) {
            break;
        }
        // Normal, open anomaly, or explained (neither).
        let state: Vec<Kind> = (0..points.len())
            .map(|i| match anomalous[i] {
                false => Kind::Normal,
                true if open.contains(&i) => Kind::Anomaly,
                true => Kind::Explained,
            })
            .collect();
        let step = open.len().div_ceil(MAX_SEEDS);
        let best = open
            .iter()
            .step_by(step)
            .map(|&s| grow(points, &state, &open, s, eps))
            .map(|(lo, hi)| tighten(points, &state, lo, hi, TIGHTEN))
            .map(|(lo, hi)| {
                let new = open
                    .iter()
                    .filter(|&&i| inside(&lo, &hi, &points[i]))
                    .count();
                let (a, n) = count_open(points, &state, &lo, &hi);
                let score = new as f64 * (a as f64 / n.max(1) as f64).powi(PURITY);
                (new, lo, hi, score)
            })
            .max_by(|a, b| a.3.total_cmp(&b.3))
            .map(|(new, lo, hi, _)| (new, lo, hi));
        let Some((new, lo, hi)) = best.filter(|b| b.0 >= min_anomalies.max(1)) else {
            break;
        };
        let (a, n) = count(points, anomalous, &lo, &hi);
        found.push(Cluster {
            lo,
            hi,
            anomalies: a,
            samples: n,
            new_anomalies: new,
            precision: a as f64 / n.max(1) as f64,
            recall: a as f64 / total.max(1) as f64,
        });
    }
    found.sort_by_key(|c| std::cmp::Reverse(c.anomalies));
    found
}

/// A sample, as a cluster's growth sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Normal,
    Anomaly,
    /// An anomaly an earlier cluster explains: counted as neither.
    Explained,
}

/// (anomalies, samples) inside `[lo, hi]`.
fn count(points: &[Vec<f64>], anomalous: &[bool], lo: &[f64], hi: &[f64]) -> (usize, usize) {
    points
        .iter()
        .zip(anomalous)
        .filter(|(x, _)| inside(lo, hi, x))
        .fold((0, 0), |(a, n), (_, &bad)| (a + usize::from(bad), n + 1))
}

/// (open anomalies, samples not explained) inside `[lo, hi]`.
fn count_open(points: &[Vec<f64>], state: &[Kind], lo: &[f64], hi: &[f64]) -> (usize, usize) {
    points
        .iter()
        .zip(state)
        .filter(|(x, k)| **k != Kind::Explained && inside(lo, hi, x))
        .fold((0, 0), |(a, n), (_, k)| {
            (a + usize::from(*k == Kind::Anomaly), n + 1)
        })
}

/// Algorithm 4.1 from anomaly `seed`: the rectangle, as (lo, hi).
fn grow(
    points: &[Vec<f64>],
    state: &[Kind],
    anomalies: &[usize],
    seed: usize,
    eps: f64,
) -> (Vec<f64>, Vec<f64>) {
    let (mut lo, mut hi) = (points[seed].clone(), points[seed].clone());
    loop {
        let mut best: Option<(usize, Vec<f64>, Vec<f64>)> = None;
        for &y in anomalies {
            let p = &points[y];
            if inside(&lo, &hi, p) {
                continue;
            }
            let l: Vec<f64> = lo.iter().zip(p).map(|(a, b)| a.min(*b)).collect();
            let h: Vec<f64> = hi.iter().zip(p).map(|(a, b)| a.max(*b)).collect();
            let (a, n) = count_open(points, state, &l, &h);
            if a as f64 >= eps * n as f64 && best.as_ref().is_none_or(|b| a > b.0) {
                best = Some((a, l, h));
            }
        }
        match best {
            Some((_, l, h)) => (lo, hi) = (l, h),
            None => return (lo, hi),
        }
    }
}

/// Moves faces in past slabs with more normal samples than anomalies
/// (see the module's documentation); the faces stay on anomalies.
fn tighten(
    points: &[Vec<f64>],
    state: &[Kind],
    mut lo: Vec<f64>,
    mut hi: Vec<f64>,
    cut_below: f64,
) -> (Vec<f64>, Vec<f64>) {
    let dims = lo.len();
    let mut moved = true;
    while moved {
        moved = false;
        for d in 0..dims {
            for upper in [false, true] {
                let mut inside: Vec<(f64, Kind)> = points
                    .iter()
                    .zip(state)
                    .filter(|(x, _)| self::inside(&lo, &hi, x))
                    .map(|(x, &k)| (x[d], k))
                    .collect();
                // From the face inward.
                inside.sort_by(|a, b| {
                    let o = a.0.total_cmp(&b.0);
                    if upper {
                        o.reverse()
                    } else {
                        o
                    }
                });
                let (mut net, mut best, mut cut) = (0.0, MIN_CUT, 0usize);
                for (k, &(v, kind)) in inside.iter().enumerate() {
                    net += match kind {
                        Kind::Normal => cut_below,
                        Kind::Anomaly => cut_below - 1.0,
                        Kind::Explained => 0.0,
                    };
                    let boundary = inside.get(k + 1).is_none_or(|n| n.0 != v);
                    if boundary && net > best {
                        (best, cut) = (net, k + 1);
                    }
                }
                let Some(face) = inside[cut.min(inside.len())..]
                    .iter()
                    .find(|p| p.1 == Kind::Anomaly)
                    .map(|p| p.0)
                else {
                    continue; // no anomaly would be left
                };
                if cut > 0 {
                    if upper {
                        hi[d] = face;
                    } else {
                        lo[d] = face;
                    }
                    moved = true;
                }
            }
        }
    }
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Two rectangles planted in [0, 1]^5 that overlap on two dimensions,
    /// one of them spanning all of two others; 400 uniform samples,
    /// anomalous inside either, and 2% of the others anomalous by chance.
    /// A planted rectangle: (lo, hi) on each of five dimensions.
    type Planted = [(f64, f64); 5];

    fn planted(seed: u64) -> (Vec<Vec<f64>>, Vec<bool>, [Planted; 2]) {
        let rects = [
            [(0.1, 0.6), (0.1, 0.6), (0.0, 1.0), (0.0, 1.0), (0.3, 1.0)],
            [(0.4, 0.9), (0.4, 0.95), (0.0, 1.0), (0.2, 1.0), (0.0, 1.0)],
        ];
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut points = Vec::new();
        let mut bad = Vec::new();
        for _ in 0..400 {
            let x: Vec<f64> = (0..5).map(|_| rng.random::<f64>()).collect();
            let hit = rects
                .iter()
                .any(|r| r.iter().zip(&x).all(|((l, h), v)| v >= l && v <= h));
            bad.push(hit || rng.random::<f64>() < 0.02);
            points.push(x);
        }
        (points, bad, rects)
    }

    /// Whether one draw gives back exactly the two rectangles, each bound
    /// within 0.1 (10% of the range), every cluster at precision >= 0.9.
    fn recovered(seed: u64) -> Result<(), String> {
        let (points, bad, rects) = planted(seed);
        let total = bad.iter().filter(|&&b| b).count();
        let found = clusters(&points, &bad, 0.9, (total / 10).max(5));
        if found.len() != 2 {
            return Err(format!("seed {seed}: {} clusters: {found:?}", found.len()));
        }
        for r in &rects {
            let err = |c: &Cluster| {
                (0..5)
                    .map(|d| (c.lo[d] - r[d].0).abs().max((c.hi[d] - r[d].1).abs()))
                    .fold(0.0, f64::max)
            };
            let best = found.iter().map(err).fold(f64::INFINITY, f64::min);
            if best > 0.1 {
                return Err(format!(
                    "seed {seed}: {r:?} within {best:.3} only: {found:?}"
                ));
            }
        }
        match found.iter().find(|c| c.precision < 0.9) {
            Some(c) => Err(format!("seed {seed}: precision {}", c.precision)),
            None => Ok(()),
        }
    }

    /// Issue 18's first check, over 100 draws rather than one: 98 give
    /// back both rectangles, 2 leave a bound 0.107 and 0.179 off (Shen's
    /// growth alone, scored by count and without the tightening: 93). On
    /// draws 101-400, which did not tune [`PURITY`] and [`MIN_CUT`], 292
    /// of 300 (scored by count, cut at any gain: 288). So it holds in most
    /// draws, not in every one.
    #[test]
    fn two_overlapping_planted_rectangles_are_recovered_in_most_draws() {
        let failed: Vec<String> = (1..=100).filter_map(|s| recovered(s).err()).collect();
        assert!(
            failed.len() <= 3,
            "{} of 100 failed: {failed:#?}",
            failed.len()
        );
    }

    #[test]
    fn no_anomalies_no_cluster_and_scattered_ones_none_either() {
        let (points, _, _) = planted(9);
        assert!(clusters(&points, &vec![false; points.len()], 0.9, 5).is_empty());
        // 3% anomalous at random: nothing dense enough to be a cause.
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(4);
        let bad: Vec<bool> = points.iter().map(|_| rng.random::<f64>() < 0.03).collect();
        assert!(clusters(&points, &bad, 0.9, 5).is_empty());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        /// Whatever the samples: every cluster keeps its precision at
        /// least eps, counts what it holds, and its recall is its share of
        /// all anomalies.
        #[test]
        fn clusters_hold_what_they_claim(
            pts in proptest::collection::vec((0.0f64..1.0, 0.0f64..1.0, proptest::bool::ANY), 1..80),
        ) {
            let points: Vec<Vec<f64>> = pts.iter().map(|p| vec![p.0, p.1]).collect();
            let bad: Vec<bool> = pts.iter().map(|p| p.2).collect();
            let total = bad.iter().filter(|&&b| b).count();
            for c in clusters(&points, &bad, 0.9, 1) {
                let (a, n) = count(&points, &bad, &c.lo, &c.hi);
                proptest::prop_assert_eq!((a, n), (c.anomalies, c.samples));
                proptest::prop_assert!(c.precision >= 0.9);
                proptest::prop_assert!((c.recall - a as f64 / total as f64).abs() < 1e-12);
            }
        }
    }
}
