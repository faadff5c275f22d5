//! The rotation probe: one block read again and again. On a disk whose
//! platters turn with the clock, each read waits for the block to come
//! round and completes exactly a revolution after the one before; on a disk
//! modelled with a random rotational latency the times spread over a
//! revolution; on a device that does not turn they are a fraction of a
//! millisecond.

use super::device::Device;
use super::{quantile, random_offset};
use crate::doc::probe::Rotation;
use crate::Error;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Re-reads timed.
const REREADS: usize = 256;

/// The least time between two reads of one block on a device that turns:
/// about 20,000 rpm is as fast as disks spin.
const TURNING_MS: f64 = 2.0;

/// Times [`REREADS`] re-reads of one sector near the start of the device.
pub fn probe(dev: &mut dyn Device, rng: &mut Xoshiro256PlusPlus) -> Result<Rotation, Error> {
    let sector = dev.sector();
    let span = (dev.capacity() / 100).max(64 * sector);
    let x = random_offset(rng, 0, span, sector, sector);
    dev.read(x, sector)?;
    let mut last = dev.clock();
    let mut gaps = Vec::with_capacity(REREADS);
    for _ in 0..REREADS {
        dev.read(x, sector)?;
        let now = dev.clock();
        gaps.push((now - last) * 1e3);
        last = now;
    }
    Ok(from_gaps(&gaps))
}

/// What re-read intervals (ms) say of the rotation.
pub fn from_gaps(gaps: &[f64]) -> Rotation {
    let med = quantile(gaps, 0.5);
    let (p5, p95) = (quantile(gaps, 0.05), quantile(gaps, 0.95));
    let mut r = Rotation {
        found: med >= TURNING_MS,
        reread_ms: med,
        revolution_ms: None,
        revolution_ci95_ms: None,
        rpm: None,
        method: None,
    };
    if !r.found {
        return r;
    }
    let n = gaps.len() as f64;
    let (rev, ci, method) = if (p95 - p5) < 0.05 * med {
        // Each re-read waits a whole turn: the period is the revolution.
        (med, (p95 - p5) / 2.0, "period")
    } else {
        // Latency uniform over a turn: its range is the revolution, less
        // the expected gaps at either end (range = R (n - 1) / (n + 1)).
        let lo = gaps.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = gaps.iter().copied().fold(0.0, f64::max);
        let rev = (hi - lo) * (n + 1.0) / (n - 1.0);
        (rev, 2.0 * rev / n, "range")
    };
    r.revolution_ms = Some(rev);
    r.revolution_ci95_ms = Some(ci);
    r.rpm = Some(60_000.0 / rev);
    r.method = Some(method.into());
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::device::SimDevice;
    use crate::sim::SimConfig;
    use rand::SeedableRng;

    fn rotation(preset: &str) -> Rotation {
        let cfg = SimConfig::load(preset).unwrap();
        let mut dev = SimDevice::new(&cfg, 3);
        probe(&mut dev, &mut Xoshiro256PlusPlus::seed_from_u64(3)).unwrap()
    }

    #[test]
    fn the_revolution_of_every_kind_of_simulated_storage() {
        // Platters that follow the clock: exactly 6 ms at 10,000 rpm.
        let a = rotation("atlas10k3");
        assert_eq!(a.method.as_deref(), Some("period"));
        assert!((a.revolution_ms.unwrap() - 6.0).abs() < 1e-3, "{a:?}");
        // A random latency over 8.33 ms at 7200 rpm: its range.
        let h = rotation("hdd");
        assert_eq!(h.method.as_deref(), Some("range"));
        assert!((h.rpm.unwrap() / 7200.0 - 1.0).abs() < 0.02, "{h:?}");
        // Flash does not turn.
        let s = rotation("ssd");
        assert!(!s.found && s.revolution_ms.is_none(), "{s:?}");
    }
}
