//! Confidence intervals for mean throughput by the method of batch means.
//!
//! Throughput measured in short consecutive intervals is autocorrelated
//! (a slow interval tends to follow a slow one), so the plain standard error
//! of the interval means is too optimistic. Batch means (Law and Kelton,
//! *Simulation Modeling and Analysis*, ch. 9.5.3; Schmeiser 1982, "Batch size
//! effects in the analysis of simulation output") groups the `n` intervals
//! into `b` consecutive batches of `k` intervals each. With batches long
//! enough, the batch means are nearly independent and nearly normal, and
//!
//! ```text
//!   half-width = t(0.975, b - 1) * s_b / sqrt(b)
//! ```
//!
//! where `s_b` is the standard deviation of the batch means. willy uses
//! between [`MIN_BATCHES`] and [`MAX_BATCHES`] batches (Schmeiser recommends
//! 10 to 30): `k = ceil(n / MAX_BATCHES)`, `b = floor(n / k)`. The last
//! `b * k` intervals enter the interval estimate (so that the newest
//! interval always counts: a stall that ends in a burst must widen the
//! interval); the mean reported is the mean over all `n`. With fewer than [`MIN_BATCHES`] intervals the interval
//! is infinite.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// Fewest batches for which an interval is given.
pub const MIN_BATCHES: usize = 10;
/// Most batches; past this, batches get longer instead.
pub const MAX_BATCHES: usize = 20;

/// A mean with its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeanCi {
    /// Mean of all samples.
    pub mean: f64,
    /// Half-width of the 95% interval; infinite when it cannot be computed.
    pub half_width: f64,
    /// Number of batches used.
    pub batches: usize,
}

impl MeanCi {
    /// Half-width relative to the mean; infinite if the mean is not
    /// positive. A closed loop always completes requests eventually, so a
    /// series of zeros is a stall longer than the measurement (e.g. a
    /// flush of a large write-back cache), not a precise zero.
    pub fn rel(&self) -> f64 {
        if self.mean > 0.0 {
            self.half_width / self.mean
        } else {
            f64::INFINITY
        }
    }
}

/// Two-sided 95% Student-t quantile with `df` degrees of freedom.
pub fn t975(df: usize) -> f64 {
    StudentsT::new(0.0, 1.0, df as f64)
        .expect("df > 0")
        .inverse_cdf(0.975)
}

/// The median of `v` (the mean of the middle two for an even count; NaN
/// for none).
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// True when most of a measurement's intervals moved no bytes: one slow
/// request held everything up, and batch means over a series of zeros (a
/// 95% interval of 0%) say nothing about throughput. A stalled
/// measurement never meets the stopping rule.
pub fn stalled(series: &[f64]) -> bool {
    let empty = series.iter().filter(|&&x| x == 0.0).count();
    2 * empty > series.len()
}

/// Batch length of [`transient`]: MSER-5.
const MSER_BATCH: usize = 5;
/// How far apart the two halves of what [`transient`] keeps may lie (in
/// the logarithm of their means) for it to count as a steady state.
const STEADY_HALVES: f64 = 0.1;
/// How near the level MSER found a shorter cut's mean must come.
const LEVEL_TOLERANCE: f64 = 0.02;

/// Where a measurement's steady state begins: how many intervals at its
/// start to leave out, by MSER-5 (White 1997, "An effective truncation
/// heuristic for bias reduction in simulation output"; White, Cobb and
/// Spratt 2000). The series is averaged in batches of 5 intervals, and the
/// start `d`, at most half the batches, is the one that minimises the
/// marginal standard error of what remains, `Σ_{i≥d} (y_i - ȳ_d)² /
/// (b - d)²`. 0 with fewer than [`MIN_BATCHES`] batches, and 0 when what
/// would remain is not steady itself: moved nothing, or its two halves'
/// means lie more than 10% apart (a cut that lands on the slow phase of a
/// cycle longer than the measurement would be no steady state either).
/// Of the cuts up to MSER's, the shortest that brings the mean within 2%
/// of what MSER's leaves is the one returned.
pub fn transient(xs: &[f64]) -> usize {
    let y: Vec<f64> = xs
        .chunks_exact(MSER_BATCH)
        .map(|c| c.iter().sum::<f64>() / MSER_BATCH as f64)
        .collect();
    let b = y.len();
    if b < MIN_BATCHES {
        return 0;
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let mser = |d: usize| {
        let (r, m) = (&y[d..], mean(&y[d..]));
        r.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (r.len() * r.len()) as f64
    };
    let d = (0..b / 2)
        .filter(|&d| mean(&y[d..]) > 0.0)
        .map(|d| (d, mser(d)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map_or(0, |(d, _)| d);
    let kept = &xs[d * MSER_BATCH..];
    let (a, z) = kept.split_at(kept.len() / 2);
    let (ma, mz) = (mean(a), mean(z));
    if !(ma > 0.0 && mz > 0.0 && (ma / mz).ln().abs() <= STEADY_HALVES) {
        return 0;
    }
    // MSER also cuts past a rare slow spell (a flush that stalls the
    // writers for seconds) to shed its variance; the transient is the
    // shortest start whose removal already brings the mean to 2% of the
    // level MSER found.
    let level = mean(kept);
    (0..=d)
        .map(|e| e * MSER_BATCH)
        .find(|&e| (mean(&xs[e..]) / level - 1.0).abs() <= LEVEL_TOLERANCE)
        .unwrap_or(d * MSER_BATCH)
}

/// A measurement's steady state ([`transient`]): the intervals left out at
/// its start, and the mean of the rest.
pub fn steady(xs: &[f64]) -> (usize, f64) {
    let d = transient(xs);
    let rest = &xs[d..];
    let m = if rest.is_empty() {
        0.0
    } else {
        rest.iter().sum::<f64>() / rest.len() as f64
    };
    (d, m)
}

/// Batch-means 95% interval of the mean of `xs` (equal-length intervals).
pub fn batch_means(xs: &[f64]) -> MeanCi {
    let n = xs.len();
    let mean = if n == 0 {
        0.0
    } else {
        xs.iter().sum::<f64>() / n as f64
    };
    if n < MIN_BATCHES {
        return MeanCi {
            mean,
            half_width: f64::INFINITY,
            batches: 0,
        };
    }
    let k = n.div_ceil(MAX_BATCHES);
    let b = n / k;
    let means: Vec<f64> = xs[n - b * k..]
        .chunks(k)
        .map(|c| c.iter().sum::<f64>() / k as f64)
        .collect();
    let m = means.iter().sum::<f64>() / b as f64;
    let var = means.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (b - 1) as f64;
    MeanCi {
        mean,
        half_width: t975(b - 1) * (var / b as f64).sqrt(),
        batches: b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand_distr::{Distribution, Normal};

    #[test]
    fn a_series_of_mostly_empty_intervals_is_stalled() {
        // sparc1990, 4 KiB writes: one 19 s write, 76 of 78 intervals empty.
        let mut xs = vec![0.0; 78];
        xs[3] = 4096.0 / 0.25;
        xs[77] = 4096.0 / 0.25;
        assert!(stalled(&xs));
        // Half empty is not most.
        let half: Vec<f64> = (0..20).map(|i| (i % 2) as f64).collect();
        assert!(!stalled(&half));
        assert!(!stalled(&[5.0; 12]));
    }

    proptest! {
        #[test]
        fn stalled_means_more_empty_than_busy(busy in 0usize..50, empty in 0usize..50) {
            let mut xs = vec![1e6; busy];
            xs.extend(std::iter::repeat_n(0.0, empty));
            prop_assert_eq!(stalled(&xs), empty > busy);
        }
    }

    #[test]
    fn t_quantiles_match_tables() {
        assert!((t975(9) - 2.262).abs() < 1e-3);
        assert!((t975(19) - 2.093).abs() < 1e-3);
    }

    /// Nothing completed in any interval: the run must go on (or end
    /// unmet), not stop with a "precise" zero. Nor when a burst ends the
    /// stall in the newest interval, whatever the number of intervals.
    #[test]
    fn a_stall_never_meets_a_target() {
        let ci = batch_means(&[0.0; 40]);
        assert_eq!(ci.half_width, 0.0);
        assert!(ci.rel().is_infinite());
        for n in MIN_BATCHES..200 {
            let mut xs = vec![0.0; n];
            xs[n - 1] = 1e9;
            let rel = batch_means(&xs).rel();
            assert!(rel > 1.0, "{n} intervals: relative half-width {rel}");
        }
    }

    #[test]
    fn too_few_intervals_give_an_infinite_interval() {
        let ci = batch_means(&[1.0; 9]);
        assert_eq!(ci.mean, 1.0);
        assert!(ci.rel().is_infinite());
    }

    /// The interval must cover the true mean about 95% of the time for
    /// independent normal samples, and clearly less than 95% would be a bug.
    #[test]
    fn coverage_is_near_95_percent_for_iid_samples() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
        let d = Normal::new(100.0, 10.0).unwrap();
        let trials = 4000;
        let mut covered = 0;
        for _ in 0..trials {
            let xs: Vec<f64> = (0..40).map(|_| d.sample(&mut rng)).collect();
            let ci = batch_means(&xs);
            if (ci.mean - 100.0).abs() <= ci.half_width {
                covered += 1;
            }
        }
        let rate = covered as f64 / trials as f64;
        assert!((0.93..=0.97).contains(&rate), "coverage {rate}");
    }

    /// Positively autocorrelated samples (AR(1), phi = 0.8): batching keeps
    /// coverage near nominal where the naive interval would fall far short.
    #[test]
    fn batching_helps_under_autocorrelation() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
        let d = Normal::new(0.0, 1.0).unwrap();
        let trials = 2000;
        let (mut covered, mut naive_covered) = (0, 0);
        for _ in 0..trials {
            let mut x = 0.0;
            let xs: Vec<f64> = (0..400)
                .map(|_| {
                    x = 0.8 * x + d.sample(&mut rng);
                    100.0 + x
                })
                .collect();
            let ci = batch_means(&xs);
            covered += usize::from((ci.mean - 100.0).abs() <= ci.half_width);
            let sd = (xs.iter().map(|v| (v - ci.mean).powi(2)).sum::<f64>() / 399.0).sqrt();
            naive_covered += usize::from((ci.mean - 100.0).abs() <= 1.966 * sd / 20.0);
        }
        let (rate, naive) = (
            covered as f64 / trials as f64,
            naive_covered as f64 / trials as f64,
        );
        assert!(rate > 0.90, "batch means coverage {rate}");
        assert!(naive < 0.75, "naive coverage {naive} (the test's premise)");
    }

    proptest! {
        #[test]
        fn scale_invariant_and_nonnegative(xs in prop::collection::vec(1.0f64..1e9, 10..200), c in 1e-3f64..1e3) {
            let a = batch_means(&xs);
            let scaled: Vec<f64> = xs.iter().map(|x| x * c).collect();
            let b = batch_means(&scaled);
            prop_assert!(a.half_width >= 0.0);
            prop_assert!((a.rel() - b.rel()).abs() <= 1e-9 * (1.0 + a.rel()));
            prop_assert!((10..=20).contains(&a.batches));
        }

        #[test]
        fn constant_series_has_zero_width(v in 1.0f64..1e9, n in 10usize..300) {
            let ci = batch_means(&vec![v; n]);
            prop_assert!((ci.mean - v).abs() <= 1e-9 * v);
            prop_assert!(ci.half_width <= 1e-6 * v);
        }

        #[test]
        fn mean_is_the_plain_mean(xs in prop::collection::vec(0.0f64..1e6, 1..100)) {
            let ci = batch_means(&xs);
            let m = xs.iter().sum::<f64>() / xs.len() as f64;
            prop_assert!((ci.mean - m).abs() <= 1e-9 * (1.0 + m));
        }
    }

    /// `n` intervals of `level` with normal noise of relative spread `sd`.
    fn noisy(rng: &mut rand::rngs::StdRng, level: f64, sd: f64, n: usize) -> Vec<f64> {
        let d = Normal::new(level, level * sd).unwrap();
        (0..n).map(|_| d.sample(rng).max(0.0)).collect()
    }

    #[test]
    fn a_cached_class_forming_is_a_transient() {
        // sim:sparc1990, 16 generators over 55 MiB: about 2 MB/s for the
        // first 250 s, then 8.7 MB/s once some shares stay cached.
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let mut xs = noisy(&mut rng, 2e6, 0.8, 1000);
        xs.extend(noisy(&mut rng, 8.7e6, 0.02, 1400));
        let (d, m) = steady(&xs);
        assert!((955..=1005).contains(&d), "cut {d}");
        assert!((m / 8.7e6 - 1.0).abs() < 0.025, "steady {m}");
        // A cut that would keep a slow tail that is still moving is none.
        let ramp: Vec<f64> = (0..400).map(|i| 1e8 - 2e5 * i as f64).collect();
        assert_eq!(transient(&ramp), 0);
        // Too short to tell.
        assert_eq!(transient(&[1.0, 1.0, 9.0, 9.0, 9.0]), 0);
    }

    proptest! {
        #[test]
        fn a_step_at_the_start_is_cut_off(
            seed in 0u64..1000,
            first in 5usize..100,
            rest in 120usize..400,
            from in 0.05f64..0.7,
        ) {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let mut xs = noisy(&mut rng, 1e9 * from, 0.05, first);
            xs.extend(noisy(&mut rng, 1e9, 0.03, rest));
            let (d, m) = steady(&xs);
            prop_assert!(d % MSER_BATCH == 0 && d <= xs.len() / 2);
            prop_assert!(d <= first + MSER_BATCH, "cut {} of a {}-interval step", d, first);
            prop_assert!((m / 1e9 - 1.0).abs() < 0.03, "steady {}", m);
        }

        #[test]
        fn a_steady_series_keeps_its_mean(
            seed in 0u64..1000,
            n in 10usize..600,
            sd in 0.0f64..0.3,
        ) {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let xs = noisy(&mut rng, 5e8, sd, n);
            let whole = xs.iter().sum::<f64>() / n as f64;
            let (d, m) = steady(&xs);
            prop_assert!(d <= n / 2);
            // What is left out is noise, not a level: the mean moves by
            // little more than its own standard error.
            let se = 5e8 * sd / ((n - d) as f64).sqrt();
            prop_assert!((m - whole).abs() <= 4.0 * se + 1e-6 * whole, "{} against {}", m, whole);
        }
    }
}
