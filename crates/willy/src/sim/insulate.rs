//! Argon's insulation, worked out for a simulated system: the amortization
//! size for an R-value (section 3.3), and cache partitions sized from each
//! workload's LRU stack distances (section 3.4).

use super::config::{PartitionRule, Partitions, SimConfig};
use crate::analysis::StackProfile;
use crate::units::Bytes;
use crate::workload::Workload;
use crate::Error;

/// The amortization size for R-value `r` and what it is made of.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Amortization {
    /// The R-value asked for.
    pub r_value: f64,
    /// Positioning per access, ms: `overhead + mean seek + rotation / 2`.
    pub positioning_ms: f64,
    /// Of which the mean seek, ms.
    pub mean_seek_ms: f64,
    /// Of which half a revolution, ms.
    pub half_rotation_ms: f64,
    /// Of which the per-operation overhead, ms.
    pub overhead_ms: f64,
    /// The media rate, MB/s (10^6 bytes per second).
    pub media_mb_per_s: f64,
    /// The transfer time that keeps positioning at `1 - r` of an access, ms.
    pub transfer_ms: f64,
    /// The access size: `transfer_ms * media_mb_per_s`, bytes.
    pub size_bytes: u64,
}

impl Amortization {
    /// `S_R = r / (1 - r) * positioning * media rate`: an access of `S_R`
    /// spends `1 - r` of its time positioning (Argon, section 3.3). For an
    /// array, the positioning of one of its disks and the rate of all.
    pub fn of(storage: &super::config::StorageConfig, r: f64) -> Result<Amortization, Error> {
        if !(r > 0.0 && r < 1.0) {
            return Err(Error::Usage(format!(
                "--amortization {r}: the R-value must be between 0 and 1 (e.g. 0.9)"
            )));
        }
        use super::config::StorageConfig as S;
        let (seek, half, over) = match storage {
            S::Disk { disk } | S::Raid0 { disk, .. } | S::Bus { disk, .. } => (
                disk.mean_seek_ms(),
                disk.revolution_ms() / 2.0,
                disk.overhead_ms,
            ),
            S::Ssd {
                read_overhead_ms, ..
            } => (0.0, 0.0, *read_overhead_ms),
        };
        Ok(Amortization::from_parts(
            r,
            seek,
            half,
            over,
            storage.media_mb_per_s(),
        ))
    }

    /// The same from what `willy probe` measured on a device: the least
    /// time of a read at distance zero as the overhead, the fitted seek
    /// curve's mean over the device, half the revolution found (none on a
    /// device that does not turn) and the media rate.
    pub fn from_probe(p: &crate::doc::probe::Probe, r: f64) -> Result<Amortization, Error> {
        if !(r > 0.0 && r < 1.0) {
            return Err(Error::Usage(format!(
                "--amortization {r}: the R-value must be between 0 and 1 (e.g. 0.9)"
            )));
        }
        let (Some(seek), Some(rate)) = (&p.seek_curve, p.media_mb_per_s) else {
            return Err(Error::Usage(
                "the probe has no seek curve or media rate: run `willy probe` without --only (or with --only seek,media-rate)".into(),
            ));
        };
        let mean = if seek.none_found {
            0.0
        } else {
            crate::probe::efficiency::mean_seek(seek, 1.0)
        };
        let half = p
            .rotation
            .as_ref()
            .and_then(|r| r.revolution_ms)
            .map_or(0.0, |v| v / 2.0);
        Ok(Amortization::from_parts(r, mean, half, seek.zero_ms, rate))
    }

    fn from_parts(r: f64, seek: f64, half: f64, over: f64, rate: f64) -> Amortization {
        let positioning = over + seek + half;
        let transfer = r / (1.0 - r) * positioning;
        Amortization {
            r_value: r,
            positioning_ms: positioning,
            mean_seek_ms: seek,
            half_rotation_ms: half,
            overhead_ms: over,
            media_mb_per_s: rate,
            transfer_ms: transfer,
            size_bytes: (transfer * rate * 1e3).round() as u64,
        }
    }

    /// The working, in words.
    pub fn explain(&self) -> String {
        format!(
            "S = R / (1 - R) x (overhead + mean seek + rotation / 2) x media rate\n  \
             = {r} / {q:.2} x ({o:.3} + {s:.3} + {h:.3} ms) x {m:.1} MB/s\n  \
             = {r_q:.2} x {p:.3} ms x {m:.1} MB/s = {t:.1} ms of transfer = {b} ({bytes} bytes)",
            r = self.r_value,
            q = 1.0 - self.r_value,
            o = self.overhead_ms,
            s = self.mean_seek_ms,
            h = self.half_rotation_ms,
            m = self.media_mb_per_s,
            r_q = self.r_value / (1.0 - self.r_value),
            p = self.positioning_ms,
            t = self.transfer_ms,
            b = Bytes(self.size_bytes),
            bytes = self.size_bytes,
        )
    }
}

/// The cache partition of each workload, bytes, when `sim` partitions its
/// cache (and the cache is used): `None` otherwise.
pub fn partition_sizes(
    ws: &[Workload],
    sim: &SimConfig,
    direct: bool,
) -> Result<Option<Vec<u64>>, Error> {
    let (Some(ins), Some(cache)) = (&sim.insulation, &sim.cache) else {
        return Ok(None);
    };
    let Some(rule) = &ins.partitions else {
        return Ok(None);
    };
    if direct {
        return Ok(None);
    }
    let capacity = cache.capacity.0;
    let sizes = match rule {
        Partitions::Sizes(v) => {
            if v.len() != ws.len() {
                return Err(Error::Usage(format!(
                    "simulator config {}: insulation.partitions lists {} sizes for {} workloads",
                    sim.name,
                    v.len(),
                    ws.len()
                )));
            }
            let sum: u64 = v.iter().map(|b| b.0).sum();
            if sum > capacity {
                return Err(Error::Usage(format!(
                    "simulator config {}: insulation.partitions add up to {}, more than the {} cache",
                    sim.name,
                    Bytes(sum),
                    Bytes(capacity)
                )));
            }
            v.iter().map(|b| b.0).collect()
        }
        Partitions::Rule(PartitionRule::Equal) => vec![capacity / ws.len() as u64; ws.len()],
        Partitions::Rule(PartitionRule::Stack) => {
            let need: Vec<u64> = ws.iter().map(|w| needed(w, sim, ins.r_value)).collect();
            share_out(&need, capacity)
        }
    };
    Ok(Some(sizes))
}

/// Each workload gets what it needs (scaled down alike if the needs
/// exceed the cache), and what is left is shared out evenly.
pub fn share_out(need: &[u64], capacity: u64) -> Vec<u64> {
    let sum: u64 = need.iter().sum();
    if sum >= capacity {
        let f = capacity as f64 / sum as f64;
        return need.iter().map(|&n| (n as f64 * f) as u64).collect();
    }
    let extra = (capacity - sum) / need.len() as u64;
    need.iter().map(|&n| n + extra).collect()
}

/// The least cache with which `w` keeps `r` of the throughput the whole
/// cache gives it: a request costs its copy when it hits and the copy plus
/// a positioned access when it misses; the hit ratio at each size comes
/// from the workload's LRU stack distances. At least twice the read-ahead
/// (or amortization) size and its largest request, for the pages in
/// flight.
pub fn needed(w: &Workload, sim: &SimConfig, r: f64) -> u64 {
    let cache = sim.cache.as_ref().expect("a cache");
    let size = w.size_mean.0 as f64;
    let hit_ms = sim.cpu.request_overhead_ms + size / (sim.cpu.memory_mb_per_s * 1e3);
    let miss_ms =
        hit_ms + sim.storage.positioning_ms() + size / (sim.storage.media_mb_per_s() * 1e3);
    let requests = (4 * w.total_bytes() / w.size_mean.0.max(1)).clamp(20_000, 400_000);
    let profile = StackProfile::measure(w, requests, 7);
    let cost = |c: u64| {
        let h = profile.hit_ratio(c);
        h * hit_ms + (1.0 - h) * miss_ms
    };
    let whole = cost(cache.capacity.0);
    let page = cache.page_size.0;
    let (mut lo, mut hi) = (0u64, cache.capacity.0 / page);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if cost(mid * page) <= whole / r {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let ahead = sim
        .insulation
        .as_ref()
        .and_then(|i| i.amortization)
        .map_or(cache.readahead.0, |a| a.0);
    let floor = 2 * ahead + 2 * w.size_mean.0;
    (lo * page).max(floor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_seek_matches_numeric_integration() {
        let sim = SimConfig::load("hdd").unwrap();
        let super::super::config::StorageConfig::Disk { disk } = &sim.storage else {
            panic!("one disk")
        };
        let c = disk.cylinders as f64;
        let n = 200_000;
        let numeric: f64 = (0..n)
            .map(|i| {
                let d = (i as f64 + 0.5) * c / n as f64;
                disk.seek_ms(d as u64) * 2.0 * (c - d) / (c * c) * (c / n as f64)
            })
            .sum();
        let exact = disk.mean_seek_ms();
        assert!((exact / numeric - 1.0).abs() < 1e-3, "{exact} vs {numeric}");
    }

    #[test]
    fn shares_fit_the_cache() {
        assert_eq!(share_out(&[10, 20], 100), vec![45, 55]);
        assert_eq!(share_out(&[100, 300], 200), vec![50, 150]);
    }

    #[test]
    fn a_stream_needs_little_and_a_random_working_set_needs_its_hot_half() {
        let sim = SimConfig::load("hdd").unwrap();
        // A stream that fits the cache needs all of it; one twice its size
        // gets no hit from any cache: only its pages in flight, twice the
        // read-ahead and twice its request.
        let fits = Workload::of(1 << 30, 64 << 10, 1.0, 1.0, 1);
        assert!(needed(&fits, &sim, 0.9) > 1000 << 20);
        let stream = Workload::of(8 << 30, 64 << 10, 1.0, 1.0, 1);
        assert_eq!(needed(&stream, &sim, 0.9), 384 << 10);
        // Chen's depths come back to the top half of the stack: a cache of
        // half the unique bytes and a little more serves nearly every
        // random request.
        let random = Workload::of(256 << 20, 64 << 10, 1.0, 0.0, 1);
        let n = needed(&random, &sim, 0.9);
        assert!(n > 128 << 20 && n <= 256 << 20, "{}", Bytes(n));
    }
}
