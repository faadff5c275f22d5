//! Che's approximation for Chen's generators under an LRU cache
//! (docs/PREDICTION.md, step 22).
//!
//! Chen's generator draws a random request's depth from `Binomial(U - 1,
//! 1/2)` in its own LRU stack (docs/WORKLOAD.md), so it cycles through
//! about the top half of its file. One generator's block hit ratio under a
//! private LRU cache of a fraction `x` of its file, `H(x)`, is flat up to
//! half the file and steps there ([`HitCurve`], fitted to
//! `cargo run --release -p willy --example hit_curve`). After touching `u`
//! files' worth of pages, the top `x(u)` of its stack is cached, with
//! `u(x) = ∫_0^x dy / (1 - H(y))` (each touch below the cached part adds
//! a page); for `H(x) = x` (uniform access) that is Che's `1 - exp(-u)`.
//! Classes of generators share the cache where `Σ count·share·x_i(rate_i·T
//! / share) = C` ([`che`]); the example `shared_lru` checks it against a
//! trace of the generators through the simulator's LRU (within 0.02).

use willy::workload::Workload;

/// How near the cache Newton's method takes the bytes cached before it
/// stops, as a share of the cache (here and in `composed::che`): the
/// classes' fixed point asks the hit ratios to 1e-4. Against 1e-9, three
/// of 6843 validated workloads' predictions (the presets' seeds 1, 7, 3,
/// 5, 11 and 12 and this machine's runs) moved, by at most 0.06%, and the
/// `willy` model ran 4-7.5% faster (docs/PREDICTION.md, "Speed").
pub(crate) const CHE_TOLERANCE: f64 = 1e-6;

/// Where the step begins and ends, as fractions of the file.
pub(crate) const A: f64 = 0.47;
const B: f64 = 0.53;

/// One generator's block hit ratio under a private LRU cache of a fraction
/// `x` of its file: `p0` up to [`A`], rising linearly to `p1` at [`B`],
/// then linearly to 1 at the whole file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct HitCurve {
    p0: f64,
    p1: f64,
    /// The miss ratios below the step and past it, `1 - p0` and `1 - p1`,
    /// and whether they are the same (the step is flat).
    q0: f64,
    q1: f64,
    flat: bool,
    /// The touches to the step's start and to its end ([`HitCurve::depth`]),
    /// computed once: `depth` runs in every step of [`che`]'s Newton
    /// iterations, and the logarithm the second takes was about half of
    /// the `willy` model's logarithms on sim:ssd's profile (`perf
    /// record` of the bench: 8.8% of its time in `ln`, 4.0% after).
    u1: f64,
    u2: f64,
}

impl HitCurve {
    /// The curve of `w`'s generators. Below half the file only the blocks
    /// a request shares with recent ones hit: none for one-block random
    /// requests, about 0.29 of them otherwise (0.16-0.36 measured, 8 KiB
    /// to 1 MiB, seqFrac 0 to 0.95); past the step 0.83 (0.78-0.87), and
    /// for one-block requests `1 - 0.26·seqFrac`.
    pub(crate) fn of(w: &Workload) -> HitCurve {
        let m = (w.effective_size_mean() / w.block_size.0 as f64).max(1.0);
        let p0 = 0.29 * (w.seq_frac + (m - 1.0)).min(1.0);
        let p1 = if m < 1.5 {
            1.0 - 0.26 * w.seq_frac
        } else {
            0.83
        };
        HitCurve::new(p0, p1)
    }

    /// The curve of hit ratios `p0` below the step and `p1` past it.
    pub(crate) fn new(p0: f64, p1: f64) -> HitCurve {
        let (q0, q1) = (1.0 - p0, 1.0 - p1);
        let u1 = A / q0;
        let w = B - A;
        let flat = (q1 - q0).abs() < 1e-9;
        let u2 = if q1 <= 0.0 {
            f64::INFINITY
        } else if flat {
            u1 + w / q0
        } else {
            u1 + w / (q1 - q0) * (q1 / q0).ln()
        };
        HitCurve {
            p0,
            p1,
            q0,
            q1,
            flat,
            u1,
            u2,
        }
    }

    /// `H(x)`.
    pub(crate) fn hit_at(&self, x: f64) -> f64 {
        if x < A {
            self.p0
        } else if x < B {
            self.p0 + (self.p1 - self.p0) * (x - A) / (B - A)
        } else {
            (self.p1 + (1.0 - self.p1) * (x - B) / (1.0 - B)).min(1.0)
        }
    }

    /// The fraction of the file cached after touching `u` files' worth of
    /// pages, and the block hit ratio there: `u(x)` inverted, piece by
    /// piece (`1 - H` is constant, then linear, on each).
    pub(crate) fn depth(&self, u: f64) -> (f64, f64) {
        let (q0, q1, u1, u2) = (self.q0, self.q1, self.u1, self.u2);
        if u <= u1 {
            return (u * q0, self.p0);
        }
        let w = B - A;
        if u <= u2 {
            if self.flat {
                return (A + (u - u1) * q0, self.p0);
            }
            let g = q0 * ((u - u1) * (q1 - q0) / w).exp();
            return (A + w * (g - q0) / (q1 - q0), 1.0 - g);
        }
        let x = 1.0 - (1.0 - B) * (-(u - u2) * q1 / (1.0 - B)).exp();
        (x, 1.0 - q1 * (1.0 - x) / (1.0 - B))
    }
}

/// Che's time of an LRU cache of `c` bytes for two classes of (count,
/// bytes each, bytes per second each) of generators with `curve`, and each
/// class's block hit ratio there (1 where everything fits). By Newton's
/// method from `from` (an earlier solution near this one, or 0): the
/// bytes cached grow with the time at `Σ count·rate·(1 - H)`, which falls
/// as the hit ratios rise, so they are concave, and from below the root
/// the iterates rise to it without passing it, while from above the
/// first step lands below it.
pub(crate) fn che(
    c: f64,
    classes: &[(f64, f64, f64); 2],
    curve: &HitCurve,
    from: f64,
) -> (f64, [f64; 2]) {
    // The bytes cached at `t`, their derivative and the hit ratios.
    let at = |t: f64| -> (f64, f64, [f64; 2]) {
        let (mut filled, mut slope) = (0.0, 0.0);
        let mut hits = [1.0; 2];
        for (h, &(m, s, x)) in hits.iter_mut().zip(classes) {
            if m > 0.0 && s > 0.0 {
                let (d, hit) = curve.depth(x * t / s);
                filled += m * s * d;
                slope += m * x * (1.0 - hit);
                *h = hit;
            }
        }
        (filled, slope, hits)
    };
    if classes.iter().map(|&(m, s, _)| m * s).sum::<f64>() <= c {
        return (f64::INFINITY, [1.0; 2]);
    }
    let mut t = if from.is_finite() { from.max(0.0) } else { 0.0 };
    let mut now = at(t);
    if now.0 > c && now.1 > 0.0 {
        t = (t + (c - now.0) / now.1).max(0.0);
        now = at(t);
    }
    // Above the root where every class is whole (no slope): from 0.
    if now.0 > c {
        t = 0.0;
        now = at(t);
    }
    for _ in 0..100 {
        let (filled, slope, _) = now;
        let gap = c - filled;
        if gap <= CHE_TOLERANCE * c || slope <= 0.0 {
            break;
        }
        let next = t + gap / slope;
        if !next.is_finite() || next <= t * (1.0 + 1e-12) {
            break;
        }
        t = next;
        now = at(t);
    }
    (t, now.2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn one_block_random_requests_step_at_half_the_file() {
        let w = Workload::of(1 << 30, 4096, 1.0, 0.0, 1);
        let h = HitCurve::of(&w);
        assert_eq!(h.hit_at(0.4), 0.0);
        assert_eq!(h.hit_at(0.6), 1.0);
        // Touching more never caches more than the hot half and its step.
        assert!(h.depth(1e9).0 <= B + 1e-9);
    }

    /// Measured by the example `shared_lru` (docs/PREDICTION.md, step 22):
    /// five generators of 28 KiB, seqFrac 0.8, over 51 MiB each, cached,
    /// beside five over the same running 1/25 as fast, in 256 MiB. The
    /// trace gives the cached class 0.973 of its blocks and the other
    /// 0.276; uniform access (Che as step 2 has it) 0.912 and 0.092.
    #[test]
    fn the_classes_hit_as_the_trace_of_an_lru_cache() {
        let w = Workload::of(51 << 20, 28672, 1.0, 0.8, 1);
        let s = (51u64 << 20) as f64;
        let (_, [hu, hc]) = che(
            (256u64 << 20) as f64,
            &[(5.0, s, 1.0), (5.0, s, 25.0)],
            &HitCurve::of(&w),
            0.0,
        );
        assert!((hc - 0.973).abs() < 0.03, "{hc}");
        assert!((hu - 0.276).abs() < 0.03, "{hu}");
    }

    proptest! {
        /// `depth` inverts `u(x) = ∫ dy / (1 - H(y))`: it is increasing,
        /// its hit ratio is the curve's at the depth it gives, and with
        /// the curve's slope it fills as Che's approximation does.
        #[test]
        fn depth_follows_the_curve(p0 in 0.0f64..0.4, p1 in 0.6f64..1.0, u in 0.0f64..20.0, du in 1e-6f64..1.0) {
            let h = HitCurve::new(p0, p1);
            let (x, hit) = h.depth(u);
            let (x2, _) = h.depth(u + du);
            prop_assert!((0.0..=1.0).contains(&x));
            prop_assert!(x2 >= x - 1e-12);
            prop_assert!((hit - h.hit_at(x)).abs() < 1e-6, "{hit} vs {}", h.hit_at(x));
            // dx/du = 1 - H(x), to first order.
            let step = 1e-7;
            let slope = (h.depth(u + step).0 - x) / step;
            prop_assert!((slope - (1.0 - hit)).abs() < 1e-3 || u < A / (1.0 - p0) + 1e-6 && u + step > A / (1.0 - p0), "{slope} vs {}", 1.0 - hit);
        }

        /// The classes fill the cache exactly where they do not all fit,
        /// from any earlier solution.
        #[test]
        fn che_fills_the_cache(c in 1.0f64..1e3, m in 1.0f64..8.0, b in 1.0f64..1e3, x in 1e-3f64..1e3, x2 in 1e-3f64..1e3, p0 in 0.0f64..0.4, p1 in 0.6f64..0.99, from in prop_oneof![Just(0.0), 1e-6f64..1e6]) {
            let h = HitCurve::new(p0, p1);
            let classes = [(m, b, x), (m, b, x2)];
            let (t, hits) = che(c, &classes, &h, from);
            if 2.0 * m * b <= c {
                prop_assert_eq!(hits, [1.0, 1.0]);
            } else {
                let filled: f64 = classes.iter().map(|&(k, s, r)| k * s * h.depth(r * t / s).0).sum();
                prop_assert!((filled - c).abs() <= 1e-6 * c, "{filled} vs {c}");
                // The faster class keeps at least as much.
                prop_assert!((hits[1] - hits[0]) * (x2 - x) >= -1e-9);
            }
        }
    }
}
