//! The seek probe: reads alternating between two places a distance apart,
//! at distances from a thousandth of the device to nine tenths, and Barve's
//! two-piece curve fitted to them (Barve et al., eq. 7).
//!
//! A read's time is the overhead, the seek, the rotational latency and the
//! transfer. The latency is uniform over a revolution (on a disk whose
//! platters follow the clock, because a random pause before each read
//! makes it so), so the least time at a distance, less the least time at
//! distance zero, is the seek. With the revolution `R` known, the
//! midrange of `n` times estimates the constant part better than their
//! minimum (`(min + max - R) / 2`, error about `R / (n sqrt 2)`); on a
//! device that does not turn, the median does.

use super::device::Device;
use super::{quantile, random_offset};
use crate::doc::probe::{Rotation, SeekCurve, SeekPoint};
use crate::Error;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The distances, as fractions of the device: 16, evenly spaced in their
/// logarithm from 0.001 to 0.9.
pub fn fractions() -> Vec<f64> {
    let (lo, hi, n) = (1e-3f64, 0.9f64, 16);
    (0..n)
        .map(|i| lo * (hi / lo).powf(i as f64 / (n - 1) as f64))
        .collect()
}

/// Reads from one starting place before the next is drawn.
const CHAIN: usize = 8;

/// Measures and fits the seek curve.
pub fn probe(
    dev: &mut dyn Device,
    rng: &mut Xoshiro256PlusPlus,
    rotation: Option<&Rotation>,
    samples: usize,
) -> Result<SeekCurve, Error> {
    let sector = dev.sector();
    let cap = dev.capacity();
    let rev = rotation.and_then(|r| r.revolution_ms);
    let pause = rotation
        .filter(|r| r.method.as_deref() == Some("period"))
        .and_then(|r| r.revolution_ms);
    let samples = samples.max(16);
    let (zero, zero_ci) = at_distance(dev, rng, 4 * sector, samples, rev, pause)?;
    let mut points = Vec::new();
    for x in fractions() {
        let d = ((x * cap as f64) as u64 / sector).max(1) * sector;
        if d + sector >= cap {
            continue;
        }
        let (c, ci) = at_distance(dev, rng, d, samples, rev, pause)?;
        points.push(SeekPoint {
            fraction: d as f64 / cap as f64,
            distance_bytes: d,
            seek_ms: c - zero,
            seek_ci95_ms: (ci * ci + zero_ci * zero_ci).sqrt(),
            samples,
            fitted_ms: 0.0,
        });
    }
    let xy: Vec<(f64, f64)> = points.iter().map(|p| (p.fraction, p.seek_ms)).collect();
    let f = fit(&xy);
    for p in &mut points {
        p.fitted_ms = f.at(p.fraction);
    }
    let none_found = points.iter().all(|p| p.seek_ms < p.seek_ci95_ms.max(0.05));
    Ok(SeekCurve {
        none_found,
        a_ms: f.a,
        b_ms: f.b,
        c_ms: f.c,
        d_ms: f.d,
        break_fraction: f.brk,
        stderr_ms: f.stderr,
        rms_rel_residual: f.rms,
        zero_ms: zero,
        points,
    })
}

/// The constant part of the reads' time at distance `d`, ms, and its 95%
/// half-width: reads alternate between `A` and `A + d`.
fn at_distance(
    dev: &mut dyn Device,
    rng: &mut Xoshiro256PlusPlus,
    d: u64,
    samples: usize,
    rev: Option<f64>,
    pause: Option<f64>,
) -> Result<(f64, f64), Error> {
    let sector = dev.sector();
    let mut times = Vec::with_capacity(samples);
    while times.len() < samples {
        let a = random_offset(rng, 0, dev.capacity() - d, sector, sector);
        dev.read(a, sector)?;
        for i in 0..CHAIN.min(samples - times.len()) {
            if let Some(p) = pause {
                dev.idle(rng.random::<f64>() * p / 1e3);
            }
            let at = if i % 2 == 0 { a + d } else { a };
            times.push(dev.read(at, sector)? * 1e3);
        }
    }
    let n = times.len() as f64;
    Ok(match rev {
        Some(r) => {
            let lo = times.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = times.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            // Midrange of a uniform spread of width r; its sd is about
            // r / (n sqrt 2).
            ((lo + hi - r) / 2.0, 1.96 * r / (n * 2f64.sqrt()))
        }
        None => {
            let iqr = quantile(&times, 0.75) - quantile(&times, 0.25);
            (quantile(&times, 0.5), 1.96 * 1.25 * iqr / 1.35 / n.sqrt())
        }
    })
}

/// Barve's curve fitted to points.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// Short seeks' constant.
    pub a: f64,
    /// Short seeks' sqrt coefficient.
    pub b: f64,
    /// Long seeks' constant.
    pub c: f64,
    /// Long seeks' slope.
    pub d: f64,
    /// The break.
    pub brk: f64,
    /// Standard errors of a, b, c, d.
    pub stderr: [f64; 4],
    /// Root mean square relative residual.
    pub rms: f64,
}

impl Fit {
    /// The curve at `x`.
    pub fn at(&self, x: f64) -> f64 {
        if x < self.brk {
            self.a + self.b * x.sqrt()
        } else {
            self.c + self.d * x
        }
    }
}

/// Weighted least squares of `y = p + q g(x)`: (p, q, stderr p, stderr q,
/// weighted SSE).
fn line(
    pts: &[(f64, f64)],
    g: fn(f64) -> f64,
    w: &dyn Fn(f64) -> f64,
) -> (f64, f64, f64, f64, f64) {
    let (mut sw, mut sx, mut sy, mut sxx, mut sxy) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &(x, y) in pts {
        let (wi, u) = (w(y), g(x));
        sw += wi;
        sx += wi * u;
        sy += wi * y;
        sxx += wi * u * u;
        sxy += wi * u * y;
    }
    let det = sw * sxx - sx * sx;
    if det.abs() < 1e-300 {
        let p = sy / sw;
        return (p, 0.0, f64::NAN, f64::NAN, 0.0);
    }
    let q = (sw * sxy - sx * sy) / det;
    let p = (sy - q * sx) / sw;
    let sse: f64 = pts
        .iter()
        .map(|&(x, y)| w(y) * (y - p - q * g(x)).powi(2))
        .sum();
    let s2 = if pts.len() > 2 {
        sse / (pts.len() - 2) as f64
    } else {
        0.0
    };
    (p, q, (s2 * sxx / det).sqrt(), (s2 * sw / det).sqrt(), sse)
}

/// Fits `a + b sqrt(x)` below a break and `c + d x` above it, the break
/// between two measured distances chosen for the least relative squared
/// error (each piece needs two points; or one piece over all).
pub fn fit(pts: &[(f64, f64)]) -> Fit {
    let scale = pts.iter().map(|p| p.1.abs()).fold(0.0, f64::max);
    // Relative errors, but not relative to nothing: on a device that does
    // not seek every "seek" is noise around zero.
    let floor = (0.02 * scale).max(1e-3);
    let w = move |y: f64| 1.0 / y.abs().max(floor).powi(2);
    let n = pts.len();
    let mut best: Option<(f64, Fit)> = None;
    for k in (2..=n).filter(|&k| k == n || n - k >= 2) {
        let (a, b, sa, sb, e1) = line(&pts[..k], f64::sqrt, &w);
        let (c, d, sc, sd, e2, brk) = if k == n {
            (a + b, 0.0, sa, 0.0, 0.0, 1.0)
        } else {
            let (c, d, sc, sd, e2) = line(&pts[k..], |x| x, &w);
            let brk = meet(a, b, c, d, pts[k - 1].0, pts[k].0);
            (c, d, sc, sd, e2, brk)
        };
        let sse = e1 + e2;
        if best.as_ref().is_none_or(|(s, _)| sse < *s) {
            let f = Fit {
                a,
                b,
                c,
                d,
                brk,
                stderr: [sa, sb, sc, sd],
                rms: 0.0,
            };
            best = Some((sse, f));
        }
    }
    let (_, mut f) = best.unwrap_or((
        0.0,
        Fit {
            a: 0.0,
            b: 0.0,
            c: 0.0,
            d: 0.0,
            brk: 1.0,
            stderr: [f64::NAN; 4],
            rms: f64::NAN,
        },
    ));
    let rel: Vec<f64> = pts
        .iter()
        .map(|&(x, y)| ((f.at(x) - y) / y.abs().max(floor)).powi(2))
        .collect();
    f.rms = (rel.iter().sum::<f64>() / rel.len().max(1) as f64).sqrt();
    f
}

/// Where `a + b sqrt(x)` meets `c + d x` between `lo` and `hi` (their
/// geometric mean if they do not).
fn meet(a: f64, b: f64, c: f64, d: f64, lo: f64, hi: f64) -> f64 {
    let g = |x: f64| a + b * x.sqrt() - c - d * x;
    let (mut l, mut h) = (lo, hi);
    if g(l).signum() == g(h).signum() {
        return (lo * hi).sqrt();
    }
    for _ in 0..60 {
        let m = (l + h) / 2.0;
        if g(m).signum() == g(l).signum() {
            l = m;
        } else {
            h = m;
        }
    }
    (l + h) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Points drawn from a two-piece curve give that curve back.
        #[test]
        fn a_two_piece_curve_is_fitted_back(
            a in 0.2f64..2.0, b in 0.5f64..20.0, brk_i in 4usize..11, slope in 0.5f64..10.0,
        ) {
            let xs = fractions();
            let brk = (xs[brk_i - 1] * xs[brk_i]).sqrt();
            // Continuous at the break.
            let c = a + b * brk.sqrt() - slope * brk;
            let f = |x: f64| if x < brk { a + b * x.sqrt() } else { c + slope * x };
            let pts: Vec<(f64, f64)> = xs.iter().map(|&x| (x, f(x))).collect();
            let fit = fit(&pts);
            for &(x, y) in &pts {
                proptest::prop_assert!((fit.at(x) / y - 1.0).abs() < 1e-6, "{x}: {} vs {y}", fit.at(x));
            }
            proptest::prop_assert!(fit.rms < 1e-6);
        }
    }
}
