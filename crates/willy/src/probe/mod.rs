//! `willy probe`: a device's own characteristics from timed single reads,
//! after Lachesis (Schindler et al.: access-delay boundaries, efficiency
//! against request size) and Barve et al. (the seek curve, eq. 7).
//!
//! Every probe reads one request at a time and times it:
//! - [`rotation`]: one block read again and again;
//! - [`seek`]: reads alternating between two places a distance apart;
//! - [`boundaries`]: reads that straddle power-of-two multiples (stripe
//!   units, alignment), then, on a disk that turns, the size at which a
//!   read starts paying a track switch;
//! - media rate: a track per revolution where tracks were found, else the
//!   streaming rate of long reads;
//! - [`efficiency`]: random reads of growing sizes, aligned and not.
//!
//! Only reads: a probe never writes.

pub mod boundaries;
pub mod device;
pub mod efficiency;
pub mod rotation;
pub mod seek;

use crate::doc::probe::{Probe, ProbeCost, PROBES, PROBE_SCHEMA_VERSION};
use crate::Error;
use device::Device;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// How much to measure.
#[derive(Clone, Debug)]
pub struct ProbeOptions {
    /// The sub-probes to run (names from [`PROBES`]); what they need of
    /// the others runs too.
    pub only: Vec<String>,
    /// Seed of the random positions.
    pub seed: u64,
    /// Reads per seek distance.
    pub seek_samples: usize,
    /// Track boundaries to sample.
    pub boundary_samples: usize,
    /// Pairs of reads per power-of-two unit tried.
    pub straddle_pairs: usize,
    /// Random reads per request size and alignment.
    pub efficiency_samples: usize,
}

impl Default for ProbeOptions {
    fn default() -> ProbeOptions {
        ProbeOptions {
            only: PROBES.iter().map(|s| s.to_string()).collect(),
            seed: 1,
            seek_samples: 400,
            boundary_samples: 20,
            straddle_pairs: 300,
            efficiency_samples: 100,
        }
    }
}

/// Something to report as a probe goes.
pub trait Progress {
    /// A sub-probe starts.
    fn start(&mut self, probe: &str);
    /// A sub-probe ended with this cost.
    fn done(&mut self, cost: &ProbeCost);
}

/// No progress shown.
pub struct Quiet;

impl Progress for Quiet {
    fn start(&mut self, _: &str) {}
    fn done(&mut self, _: &ProbeCost) {}
}

/// Runs the probes asked for on `dev`.
pub fn probe(
    dev: &mut dyn Device,
    target: &str,
    opts: &ProbeOptions,
    progress: &mut dyn Progress,
) -> Result<Probe, Error> {
    for o in &opts.only {
        if !PROBES.contains(&o.as_str()) {
            return Err(Error::Usage(format!(
                "unknown probe {o:?}; probes: {}",
                PROBES.join(", ")
            )));
        }
    }
    let wants = |p: &str| opts.only.iter().any(|o| o == p);
    // What each needs: efficiency the boundaries and the media rate, the
    // media rate the boundaries, the boundaries the rotation.
    let eff = wants("efficiency");
    let media = eff || wants("media-rate");
    let bounds = media || wants("boundaries");
    let seek = wants("seek");
    let rot = bounds || seek || wants("rotation");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(opts.seed);
    let mut doc = empty(dev, target, opts.seed);
    if rot {
        let (r, c) = start(progress, "rotation", dev);
        doc.rotation = Some(rotation::probe(dev, &mut rng)?);
        finish(progress, "rotation", dev, &mut doc, r, c);
    }
    let rotation = doc.rotation.clone();
    if seek {
        let (r, c) = start(progress, "seek", dev);
        doc.seek_curve = Some(seek::probe(
            dev,
            &mut rng,
            rotation.as_ref(),
            opts.seek_samples,
        )?);
        finish(progress, "seek", dev, &mut doc, r, c);
    }
    if bounds {
        let (r, c) = start(progress, "boundaries", dev);
        doc.boundaries = Some(boundaries::probe(dev, &mut rng, rotation.as_ref(), opts)?);
        finish(progress, "boundaries", dev, &mut doc, r, c);
    }
    let mut streaming = None;
    if media {
        let (r, c) = start(progress, "media-rate", dev);
        let b = doc.boundaries.as_ref().expect("boundaries ran");
        let m = efficiency::media_rate(dev, rotation.as_ref(), b)?;
        doc.media_mb_per_s = Some(m.media_mb_per_s);
        streaming = Some(m);
        finish(progress, "media-rate", dev, &mut doc, r, c);
    }
    if eff {
        let (r, c) = start(progress, "efficiency", dev);
        let e = efficiency::probe(
            dev,
            &mut rng,
            streaming.as_ref().expect("media rate ran"),
            doc.seek_curve.as_ref(),
            opts.efficiency_samples,
        )?;
        doc.efficient_size_bytes = e.efficient_size_bytes;
        doc.media_mb_per_s = Some(e.media_mb_per_s);
        doc.efficiency = Some(e);
        finish(progress, "efficiency", dev, &mut doc, r, c);
    }
    Ok(doc)
}

/// The document before any probe has run.
fn empty(dev: &dyn Device, target: &str, seed: u64) -> Probe {
    Probe {
        kind: "willy-probe".into(),
        schema_version: PROBE_SCHEMA_VERSION,
        willy_version: env!("CARGO_PKG_VERSION").into(),
        target: target.into(),
        capacity_bytes: dev.capacity(),
        sector_bytes: dev.sector(),
        simulated: dev.simulated(),
        seed,
        costs: vec![],
        warnings: vec![],
        rotation: None,
        seek_curve: None,
        boundaries: None,
        media_mb_per_s: None,
        efficiency: None,
        efficient_size_bytes: None,
    }
}

fn start(progress: &mut dyn Progress, name: &str, dev: &dyn Device) -> (u64, f64) {
    progress.start(name);
    (dev.requests(), dev.clock())
}

fn finish(
    progress: &mut dyn Progress,
    name: &str,
    dev: &dyn Device,
    doc: &mut Probe,
    requests: u64,
    clock: f64,
) {
    let cost = ProbeCost {
        probe: name.to_string(),
        requests: dev.requests() - requests,
        seconds: dev.clock() - clock,
    };
    progress.done(&cost);
    doc.costs.push(cost);
}

/// A random sector-aligned offset in `[lo, hi)` for a read of `len`.
pub(crate) fn random_offset(
    rng: &mut Xoshiro256PlusPlus,
    lo: u64,
    hi: u64,
    len: u64,
    unit: u64,
) -> u64 {
    let first = lo.div_ceil(unit);
    let last = hi.saturating_sub(len) / unit;
    if last <= first {
        return first * unit;
    }
    rng.random_range(first..=last) * unit
}

/// The `q` quantile of `xs` (sorted copy, linear interpolation).
pub(crate) fn quantile(xs: &[f64], q: f64) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return f64::NAN;
    }
    let pos = q.clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let (i, f) = (pos.floor() as usize, pos.fract());
    if i + 1 < v.len() {
        v[i] * (1.0 - f) + v[i + 1] * f
    } else {
        v[i]
    }
}
