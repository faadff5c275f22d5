//! The boundaries probe: access-delay boundaries (Lachesis section 3.3).
//!
//! 1. **Power-of-two units** (an array's stripe unit; alignment). For each
//!    unit `u` from 4 KiB to 4 MiB, small random reads that straddle a
//!    multiple of `u` against reads of the same size in the middle of a
//!    unit, alternately. Where `u` is the stripe unit, a straddling read
//!    goes to two disks and waits for the slower; below it only some of
//!    the multiples are stripe boundaries, and above it the "middle" reads
//!    straddle one too, so the penalty peaks at the stripe unit.
//! 2. **Tracks**, on a device that turns and showed no stripe: from a
//!    random sector `X`, the least time (over the platters' phase) of a
//!    read of `s` sectors grows by a sector's time per sector until the
//!    read crosses into the next track, where it jumps by the skew that
//!    hides the track switch. Sizes doubling from one sector find the jump;
//!    a bisection finds the exact sector. The next boundary after that one
//!    gives the track size; sampled over the device, the zones.
//! 3. Otherwise, none: a device without a mechanical boundary (flash,
//!    virtio, NVMe) says so rather than inventing one.

use super::device::Device;
use super::{quantile, random_offset, ProbeOptions};
use crate::doc::probe::{Boundaries, Rotation, StraddleTest, ZoneFound};
use crate::units::human_bytes;
use crate::Error;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The span the straddle tests draw from: short seeks, less noise.
const STRADDLE_SPAN: u64 = 1 << 30;

/// The least stripe unit: below it a penalty is the alignment of the
/// device's (or the file system's) blocks, reported apart.
const STRIPE_MIN: u64 = 8192;

/// A unit is a boundary when straddling reads are slower by a rank test
/// (Mann-Whitney, robust to the long tails of a virtual disk's times) with
/// z at least this...
const Z_MIN: f64 = 4.0;
/// ...and is at least this share of the reads' time.
const PENALTY_MIN: f64 = 0.03;

/// Runs the probe.
pub fn probe(
    dev: &mut dyn Device,
    rng: &mut Xoshiro256PlusPlus,
    rotation: Option<&Rotation>,
    opts: &ProbeOptions,
) -> Result<Boundaries, Error> {
    let straddle = straddle_tests(dev, rng, opts.straddle_pairs)?;
    let stripe = stripe_unit(&straddle).filter(|&u| u >= STRIPE_MIN);
    let alignment = stripe_unit(&straddle).filter(|&u| u < STRIPE_MIN);
    let mut b = Boundaries {
        stripe_unit_bytes: stripe,
        alignment_penalty_bytes: alignment,
        track_bytes: None,
        none_found: false,
        zones: vec![],
        sampled: vec![],
        straddle,
        summary: String::new(),
    };
    if let Some(s) = stripe {
        b.summary = format!("stripe unit {}", human_bytes(s as f64));
        return Ok(b);
    }
    // Tracks show only where the platters' position follows the clock;
    // a latency drawn anew for each read (a simulated disk without a
    // geometry) hides them.
    let rev = rotation
        .filter(|r| r.method.as_deref() == Some("period"))
        .and_then(|r| r.revolution_ms);
    let Some(rev) = rev else {
        b.none_found = true;
        b.summary = none_summary(rotation, alignment);
        return Ok(b);
    };
    let mut finder = TrackFinder::new(dev, rev / 1e3);
    let sector = dev.sector();
    let cap = dev.capacity();
    let mut found = Vec::new();
    for _ in 0..opts.boundary_samples {
        let x = random_offset(rng, 0, cap, 4096 * sector, sector);
        let Some(b1) = finder.next_boundary(dev, x)? else {
            continue;
        };
        // From a little past the track's start: a read from its very first
        // sector leaves no gap to arrive in when it nearly fills the track.
        let Some(b2) = finder.next_boundary(dev, b1 + 32 * sector)? else {
            continue;
        };
        b.sampled.push([x, b1]);
        found.push((b1, b2 - b1));
    }
    if found.is_empty() {
        b.none_found = true;
        b.summary = "none found: the device turns, but no read showed a track switch".into();
        return Ok(b);
    }
    b.zones = zones(&mut found, cap);
    refine_outer_zone(dev, &mut finder, &mut b.zones, &found)?;
    b.track_bytes = Some(b.zones.iter().map(|z| z.track_bytes).collect());
    b.summary = format!(
        "tracks of {} in {} zone(s), {} boundaries sampled",
        b.zones
            .iter()
            .map(|z| human_bytes(z.track_bytes as f64))
            .collect::<Vec<_>>()
            .join(", "),
        b.zones.len(),
        found.len()
    );
    Ok(b)
}

/// Why no boundary was found, in a sentence, with any alignment penalty.
fn none_summary(rotation: Option<&Rotation>, alignment: Option<u64>) -> String {
    let head = match rotation.and_then(|r| r.revolution_ms) {
        Some(_) => "none found: no stripe unit costs more to straddle, and the rotational latency varies from read to read as if drawn at random (no track boundary can show)",
        None => "none found: no stripe unit costs more to straddle, and the device does not turn (no tracks)",
    };
    match alignment {
        Some(a) => format!(
            "{head}; reads that straddle a {} boundary cost more (alignment)",
            human_bytes(a as f64)
        ),
        None => head.to_string(),
    }
}

/// Finds where the outer zone ends to within a hundredth of its width, by
/// bisection on the track size between its last sample and the next zone's
/// first: the efficiency probe reads there, and the span sets its seeks.
fn refine_outer_zone(
    dev: &mut dyn Device,
    finder: &mut TrackFinder,
    zones: &mut [ZoneFound],
    found: &[(u64, u64)],
) -> Result<(), Error> {
    if zones.len() < 2 {
        return Ok(());
    }
    let sector = dev.sector();
    let track = zones[0].track_bytes;
    let mut lo = found[zones[0].samples - 1].0;
    let mut hi = found[zones[0].samples].0;
    while hi - lo > lo / 100 && hi - lo > 4 * track {
        let mid = (lo + hi) / 2 / sector * sector;
        let size = match finder.next_boundary(dev, mid)? {
            Some(b1) => finder
                .next_boundary(dev, b1 + 32 * sector)?
                .map(|b2| b2 - b1),
            None => None,
        };
        if size == Some(track) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    zones[0].end_bytes = (lo + hi) / 2;
    zones[1].start_bytes = zones[0].end_bytes;
    Ok(())
}

/// Runs of equal track size, in order over the device.
fn zones(found: &mut [(u64, u64)], cap: u64) -> Vec<ZoneFound> {
    found.sort();
    let mut zones: Vec<ZoneFound> = Vec::new();
    for (i, &(at, track)) in found.iter().enumerate() {
        match zones.last_mut() {
            Some(z) if z.track_bytes == track => {
                z.samples += 1;
            }
            _ => {
                let start = if i == 0 { 0 } else { (found[i - 1].0 + at) / 2 };
                if let Some(z) = zones.last_mut() {
                    z.end_bytes = start;
                }
                zones.push(ZoneFound {
                    start_bytes: start,
                    end_bytes: cap,
                    track_bytes: track,
                    samples: 1,
                });
            }
        }
    }
    zones
}

/// The unit whose straddling reads rank highest above the others, if that
/// is significant: below the stripe unit only some straddles cross a
/// stripe, above it the reads inside a unit cross one too.
fn stripe_unit(tests: &[StraddleTest]) -> Option<u64> {
    tests
        .iter()
        .filter(|t| t.z >= Z_MIN && t.straddle_ms - t.inside_ms >= PENALTY_MIN * t.inside_ms)
        .max_by(|a, b| a.z.total_cmp(&b.z))
        .map(|t| t.unit_bytes)
}

/// Straddling against inside reads for every power-of-two unit.
fn straddle_tests(
    dev: &mut dyn Device,
    rng: &mut Xoshiro256PlusPlus,
    pairs: usize,
) -> Result<Vec<StraddleTest>, Error> {
    let sector = dev.sector();
    let span = dev.capacity().min(STRADDLE_SPAN);
    let mut out = Vec::new();
    let mut u = 4096u64.max(4 * sector);
    while u <= 4 << 20 && 4 * u <= span {
        let len = (u / 2).min(8192);
        let (mut s, mut i) = (Vec::new(), Vec::new());
        for _ in 0..pairs.max(8) {
            let k = rng.random_range(1..span / u - 1);
            s.push(dev.read(k * u - len / 2, len)? * 1e3);
            let k = rng.random_range(0..span / u - 1);
            i.push(dev.read(k * u + (u - len) / 2, len)? * 1e3);
        }
        let (ms, mi) = (quantile(&s, 0.5), quantile(&i, 0.5));
        out.push(StraddleTest {
            unit_bytes: u,
            read_bytes: len,
            straddle_ms: ms,
            inside_ms: mi,
            penalty_ci95_ms: 1.96 * (median_se(&s).powi(2) + median_se(&i).powi(2)).sqrt(),
            z: mann_whitney_z(&s, &i),
        });
        u *= 2;
    }
    Ok(out)
}

/// Finds track boundaries by the least time of growing reads.
struct TrackFinder {
    /// One revolution, s.
    rev: f64,
    sector: u64,
}

/// Phases tried per revolution, then again around the best.
const PHASES: usize = 24;

/// Phases per revolution to confirm a crossing.
const FINE: usize = 256;

/// Reads longer than any track: 4 MiB.
const LADDER_TOP: u64 = 4 << 20;

impl TrackFinder {
    fn new(dev: &dyn Device, rev: f64) -> TrackFinder {
        TrackFinder {
            rev,
            sector: dev.sector(),
        }
    }

    /// The least time of reading `s` sectors from `x`, over the phase at
    /// which the read arrives: a read of one sector at `x` first (to put
    /// the heads over its track), a pause, then the read; pauses over a
    /// revolution, then finer around the best.
    fn least(&self, dev: &mut dyn Device, x: u64, s: u64) -> Result<f64, Error> {
        self.least_over(dev, x, s, PHASES)
    }

    /// [`Self::least`] over `phases` phases, then finer around the best.
    /// With zero-latency access a read that nearly fills its track is
    /// quick only when it arrives in the short gap before its first
    /// sector (elsewhere it takes a revolution), so a read that seems to
    /// have crossed is timed again with [`FINE`] phases before it counts.
    fn least_over(
        &self,
        dev: &mut dyn Device,
        x: u64,
        s: u64,
        phases: usize,
    ) -> Result<f64, Error> {
        let time = |phase: f64, dev: &mut dyn Device| -> Result<f64, Error> {
            dev.read(x, self.sector)?;
            dev.idle(phase);
            dev.read(x, s * self.sector)
        };
        let step = self.rev / phases as f64;
        let mut best = (f64::INFINITY, 0.0);
        for i in 0..phases {
            let p = i as f64 * step;
            let t = time(p, dev)?;
            if t < best.0 {
                best = (t, p);
            }
        }
        let centre = best.1;
        for j in 0..PHASES {
            let p = (centre - step + 2.0 * step * j as f64 / PHASES as f64).rem_euclid(self.rev);
            best.0 = best.0.min(time(p, dev)?);
        }
        Ok(best.0)
    }

    /// The first sector of the track after the one holding `x` (bytes),
    /// or `None` if no jump showed.
    fn next_boundary(&mut self, dev: &mut dyn Device, x: u64) -> Result<Option<u64>, Error> {
        let sector = self.sector;
        let top = (LADDER_TOP / sector).min((dev.capacity() - x) / sector);
        if top < 8 {
            return Ok(None);
        }
        // Sizes doubling from one sector; a line through those before the
        // jump, in time per sector.
        let mut pts: Vec<(u64, f64)> = Vec::new();
        let mut s = 1;
        let mut jump = None;
        while s <= top {
            let mut t = self.least(dev, x, s)?;
            if pts.len() >= 2 {
                let (p, q) = fit_line(&pts);
                // A switch costs at least a tenth of a millisecond.
                if t - (p + q * s as f64) > 100e-6 {
                    t = self.least_over(dev, x, s, FINE)?;
                    let excess = t - (p + q * s as f64);
                    if excess > 100e-6 {
                        jump = Some((pts.last().expect("points").0, s, p, q, excess));
                        break;
                    }
                }
            }
            pts.push((s, t));
            s *= 2;
        }
        let Some((mut lo, mut hi, p, q, excess)) = jump else {
            return Ok(None);
        };
        // Bisect: reads of lo sectors stay on the track, of hi cross.
        while hi - lo > 1 {
            let m = (lo + hi) / 2;
            let crossed = |t: f64| t - (p + q * m as f64) > excess / 2.0;
            if crossed(self.least(dev, x, m)?) && crossed(self.least_over(dev, x, m, FINE)?) {
                hi = m;
            } else {
                lo = m;
            }
        }
        // A read of hi sectors is the first to cross: sector x + lo is the
        // next track's first.
        Ok(Some(x + lo * sector))
    }
}

/// Least squares line through (size, time).
fn fit_line(pts: &[(u64, f64)]) -> (f64, f64) {
    let n = pts.len() as f64;
    let sx: f64 = pts.iter().map(|p| p.0 as f64).sum();
    let sy: f64 = pts.iter().map(|p| p.1).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 as f64).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| p.0 as f64 * p.1).sum();
    let q = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    ((sy - q * sx) / n, q)
}

/// Mann-Whitney's z for `a` tending to exceed `b` (normal approximation,
/// ties counted half).
fn mann_whitney_z(a: &[f64], b: &[f64]) -> f64 {
    let mut all: Vec<(f64, bool)> = a
        .iter()
        .map(|&x| (x, true))
        .chain(b.iter().map(|&x| (x, false)))
        .collect();
    all.sort_by(|x, y| x.0.total_cmp(&y.0));
    // Ranks from 1, ties given their mean rank.
    let mut rank_a = 0.0;
    let mut i = 0;
    while i < all.len() {
        let mut j = i;
        while j + 1 < all.len() && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        let r = (i + j) as f64 / 2.0 + 1.0;
        rank_a += all[i..=j].iter().filter(|e| e.1).count() as f64 * r;
        i = j + 1;
    }
    let (n, m) = (a.len() as f64, b.len() as f64);
    let u = rank_a - n * (n + 1.0) / 2.0;
    let sd = (n * m * (n + m + 1.0) / 12.0).sqrt();
    if sd > 0.0 {
        (u - n * m / 2.0) / sd
    } else {
        0.0
    }
}

/// A median's standard error from the interquartile range: 1.2533 sigma /
/// sqrt(n), sigma = IQR / 1.349.
fn median_se(x: &[f64]) -> f64 {
    let iqr = quantile(x, 0.75) - quantile(x, 0.25);
    1.2533 * iqr / 1.349 / (x.len() as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rank_test_sees_a_shift_and_not_a_few_outliers() {
        let b: Vec<f64> = (0..300).map(|k| f64::from(k % 100)).collect();
        let shifted: Vec<f64> = b.iter().map(|x| x + 20.0).collect();
        assert!(mann_whitney_z(&shifted, &b) > 4.0);
        assert!(mann_whitney_z(&b, &shifted) < -4.0);
        // The same times with a tenth of them a hundred times longer: the
        // mean moves far, the ranks hardly.
        let tails: Vec<f64> = b
            .iter()
            .enumerate()
            .map(|(k, x)| if k % 10 == 0 { x * 100.0 } else { *x })
            .collect();
        assert!(
            mann_whitney_z(&tails, &b).abs() < 2.0,
            "{}",
            mann_whitney_z(&tails, &b)
        );
    }
}
