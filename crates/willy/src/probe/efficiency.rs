//! The media-rate and efficiency probes (Lachesis section 3.2, Fig. 3).
//!
//! *Efficiency* is the share of a read's time spent moving data at the
//! media rate. On a disk whose tracks were found the media rate is a track
//! per revolution, and long sequential reads fall short of it by the track
//! switches (Lachesis: 0.9). On a device without tracks the media rate is
//! the best rate any reads reached (long sequential ones, or middle-sized
//! random ones where the device splits and spreads them), so efficiency is
//! at most 1 and streaming is 1 unless middle-sized reads beat it.
//!
//! Random reads of each size lie in one span: the outer zone of a disk
//! with zones, otherwise the first GiB. *Aligned* reads start at a track
//! boundary (or a stripe unit's, or 4 KiB's), *unaligned* ones at any
//! sector.

use super::device::Device;
use super::random_offset;
use crate::doc::probe::{Boundaries, Efficiency, EfficiencyPoint, Rotation, SeekCurve};
use crate::Error;
use rand::seq::SliceRandom;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Where to read, what aligned means and the rate to measure against.
#[derive(Clone, Debug)]
pub struct MediaRate {
    /// The rate, MB/s.
    pub media_mb_per_s: f64,
    /// Long sequential reads' efficiency against it, and its half-width.
    pub streaming: (f64, f64),
    /// The alignment unit, bytes.
    pub unit: u64,
    /// What the unit is.
    pub alignment: &'static str,
    /// Where random reads lie: [from, to).
    pub span: [u64; 2],
}

/// Rounds of the efficiency probe over every size.
const ROUNDS: usize = 5;

/// The span when there are no zones.
const SPAN: u64 = 1 << 30;

/// Sequential reads timed per length for the streaming rate.
const STREAM_REPEATS: usize = 5;

/// The media rate, and streaming efficiency against it.
pub fn media_rate(
    dev: &mut dyn Device,
    rotation: Option<&Rotation>,
    b: &Boundaries,
) -> Result<MediaRate, Error> {
    let cap = dev.capacity();
    let (unit, alignment, span, per_rev) = match (&b.track_bytes, b.stripe_unit_bytes) {
        (Some(_), _) => {
            let z = &b.zones[0];
            let rev = rotation
                .and_then(|r| r.revolution_ms)
                .expect("tracks need a revolution");
            (
                z.track_bytes,
                "track",
                [z.start_bytes, z.end_bytes],
                Some(rev),
            )
        }
        (None, Some(s)) => (s, "stripe unit", [0, cap.min(SPAN)], None),
        (None, None) => (4096, "4 KiB", [0, cap.min(SPAN)], None),
    };
    // Long reads: the marginal time of more units is the streaming cost.
    let (n1, n2) = match per_rev {
        Some(_) => (8, 32),
        None => (
            (4 << 20) / unit.min(4 << 20),
            (16 << 20) / unit.min(4 << 20),
        ),
    };
    let units = (span[1] - span[0]) / unit;
    let n1 = n1.min(units / 4).max(1);
    let n2 = n2.min(units).max(n1 + 1);
    let (mut t1, mut t2) = (Vec::new(), Vec::new());
    for _ in 0..STREAM_REPEATS {
        t1.push(dev.read(span[0], n1 * unit)?);
        t2.push(dev.read(span[0], n2 * unit)?);
    }
    let med = |v: &[f64]| super::quantile(v, 0.5);
    let marginal = (med(&t2) - med(&t1)).max(1e-9);
    let spread = (super::quantile(&t2, 0.9) - super::quantile(&t2, 0.1)).abs()
        + (super::quantile(&t1, 0.9) - super::quantile(&t1, 0.1)).abs();
    let stream_rate = ((n2 - n1) * unit) as f64 / marginal / 1e6;
    Ok(match per_rev {
        Some(rev) => {
            let media = unit as f64 / (rev / 1e3) / 1e6;
            let s = stream_rate / media;
            MediaRate {
                media_mb_per_s: media,
                streaming: (s, s * spread / marginal),
                unit,
                alignment,
                span,
            }
        }
        None => MediaRate {
            media_mb_per_s: stream_rate,
            streaming: (1.0, 0.0),
            unit,
            alignment,
            span,
        },
    })
}

/// The request sizes: multiples of a track, or powers of two.
fn sizes(m: &MediaRate, sector: u64) -> Vec<u64> {
    if m.alignment == "track" {
        [
            0.125, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0,
        ]
        .iter()
        .map(|f| ((f * m.unit as f64 / sector as f64).round() as u64).max(1) * sector)
        .collect()
    } else {
        (12..=24).map(|k| (1u64 << k).max(sector)).collect()
    }
}

/// Efficiency of reads that each move `data` seconds' worth at the media
/// rate: total time moving data over total time, with a
/// 95% half-width by the delta method.
fn ratio(data: f64, time: &[f64]) -> (f64, f64) {
    let n = time.len() as f64;
    let t = time.iter().sum::<f64>();
    let e = data * n / t;
    let var = time.iter().map(|t| (data - e * t).powi(2)).sum::<f64>() / (n * (n - 1.0)).max(1.0);
    (e, 1.96 * var.sqrt() / (t / n))
}

/// Runs the efficiency probe.
pub fn probe(
    dev: &mut dyn Device,
    rng: &mut Xoshiro256PlusPlus,
    m: &MediaRate,
    seek: Option<&SeekCurve>,
    samples: usize,
) -> Result<Efficiency, Error> {
    let sector = dev.sector();
    let mut points = Vec::new();
    let sizes: Vec<u64> = sizes(m, sector)
        .into_iter()
        .take_while(|&s| s <= (m.span[1] - m.span[0]) / 4)
        .collect();
    // Rounds over the sizes in a new random order each time, so that a
    // device whose speed drifts (a virtual disk whose host caches) shows
    // the drift as noise in every size rather than as a shape.
    let mut times = vec![(Vec::new(), Vec::new()); sizes.len()];
    let per_round = samples.max(ROUNDS * 2).div_ceil(ROUNDS);
    for _ in 0..ROUNDS {
        let mut order: Vec<usize> = (0..sizes.len()).collect();
        order.shuffle(rng);
        for i in order {
            at_size(dev, rng, m, sizes[i], per_round, &mut times[i])?;
        }
    }
    for (size, (al, un)) in sizes.iter().zip(&times) {
        let data = *size as f64 / (m.media_mb_per_s * 1e6);
        let (aligned, aligned_ci95) = ratio(data, al);
        let (unaligned, unaligned_ci95) = ratio(data, un);
        points.push(EfficiencyPoint {
            size_bytes: *size,
            aligned,
            aligned_ci95,
            unaligned,
            unaligned_ci95,
        });
    }
    let (media, streaming) = against_best(m, &mut points);
    let goal = 0.9 * streaming.0;
    let first = |f: &dyn Fn(&EfficiencyPoint) -> f64, at: f64| {
        points.iter().find(|p| f(p) >= at).map(|p| p.size_bytes)
    };
    let at_unit = points
        .iter()
        .find(|p| p.size_bytes == m.unit)
        .map(|p| p.aligned);
    let span_mean_seek_ms = seek.map(|s| {
        let w = (m.span[1] - m.span[0]) as f64 / dev.capacity() as f64;
        mean_seek(s, w)
    });
    Ok(Efficiency {
        span_bytes: m.span,
        span_mean_seek_ms,
        alignment_bytes: m.unit,
        alignment: m.alignment.into(),
        media_mb_per_s: media,
        streaming: streaming.0,
        streaming_ci95: streaming.1,
        efficient_size_bytes: first(&|p| p.aligned, goal),
        efficient_size_unaligned_bytes: first(&|p| p.unaligned, goal),
        unaligned_matching_bytes: at_unit.and_then(|e| first(&|p| p.unaligned, e)),
        points,
    })
}

/// Without tracks the media rate is the best any reads reached: long
/// ones, or (on devices that split and spread requests) middle-sized ones;
/// efficiency is then at most 1 by construction. Returns the media rate
/// and streaming efficiency, the points rescaled.
fn against_best(m: &MediaRate, points: &mut [EfficiencyPoint]) -> (f64, (f64, f64)) {
    if m.alignment == "track" {
        return (m.media_mb_per_s, m.streaming);
    }
    let best = points
        .iter()
        .map(|p| p.aligned.max(p.unaligned))
        .fold(1.0, f64::max);
    for p in points.iter_mut() {
        p.aligned /= best;
        p.aligned_ci95 /= best;
        p.unaligned /= best;
        p.unaligned_ci95 /= best;
    }
    (m.media_mb_per_s * best, (1.0 / best, 0.0))
}

/// `n` random reads of `size` aligned and `n` not: their times, added.
fn at_size(
    dev: &mut dyn Device,
    rng: &mut Xoshiro256PlusPlus,
    m: &MediaRate,
    size: u64,
    n: usize,
    (al, un): &mut (Vec<f64>, Vec<f64>),
) -> Result<(), Error> {
    let sector = dev.sector();
    for _ in 0..n {
        let a = random_offset(rng, m.span[0], m.span[1], size, m.unit);
        al.push(dev.read(a, size)?);
        let mut u = random_offset(rng, m.span[0], m.span[1], size + sector, sector);
        if (u - m.span[0]).is_multiple_of(m.unit) {
            u += sector;
        }
        un.push(dev.read(u, size)?);
    }
    Ok(())
}

/// The mean seek, by the fitted curve, between two places drawn evenly
/// over a span of `w` (a fraction of the device): the curve against the
/// density `2 (w - x) / w^2` of their distance.
pub fn mean_seek(s: &SeekCurve, w: f64) -> f64 {
    let n = 10_000;
    let f = |x: f64| {
        if x < s.break_fraction {
            s.a_ms + s.b_ms * x.sqrt()
        } else {
            s.c_ms + s.d_ms * x
        }
    };
    (0..n)
        .map(|i| {
            let x = (i as f64 + 0.5) / n as f64 * w;
            2.0 * (w - x) / (w * w) * f(x) * (w / n as f64)
        })
        .sum()
}
