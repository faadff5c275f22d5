//! How far a self-scaling run scales, from what the target is: a
//! simulated system's cache, or the machine's memory (or the cache limit)
//! and the free space of the directory.

use crate::scaler::{Focus, ScalePlan};
use crate::sweep::SweepPlan;
use willy::sim::SimConfig;
use willy::units::Bytes;
use willy::Error;

/// Working sets reach this multiple of the largest cache.
pub const BEYOND_CACHE: u64 = 4;

/// The smallest uniqueBytes of the sweep.
pub const SWEEP_FROM: u64 = 1 << 20;

impl ScalePlan {
    /// The plan on a simulated system: to [`BEYOND_CACHE`] times its cache
    /// (16 MiB without one), within its capacity.
    pub fn for_sim(sim: &SimConfig, focus: Focus) -> ScalePlan {
        let mem = sim.cache.as_ref().map(|c| c.capacity.0).unwrap_or(16 << 20);
        ScalePlan {
            unique: SweepPlan::new(SWEEP_FROM, (BEYOND_CACHE * mem).min(sim.capacity())),
            max_process_num: 16,
            max_size_mean: 1 << 20,
            focus,
            extra_sizes: Vec::new(),
        }
    }

    /// The plan on files: to [`BEYOND_CACHE`] times the cache (the cache
    /// limit, else the machine's memory), within the free space less a
    /// tenth and 64 MiB. Returns a warning when the free space cuts the
    /// sweep short.
    pub fn for_files(
        memory: u64,
        cache_limit: Option<u64>,
        free: Option<u64>,
        dir: &str,
        focus: Focus,
    ) -> Result<(ScalePlan, Option<String>), Error> {
        let cache = match (cache_limit, memory) {
            (Some(c), _) => c,
            (None, 0) => {
                return Err(Error::Usage(
                    "cannot tell this machine's memory size (/proc/meminfo is unreadable): pass --cache-limit to size the sweep".into(),
                ))
            }
            (None, m) => m,
        };
        let want = BEYOND_CACHE * cache;
        let free = free.unwrap_or(u64::MAX);
        // The same margin a single run keeps, and a tenth for others.
        let usable = (free - free / 10).saturating_sub(64 << 20);
        let to = want.min(usable);
        if to < 16 << 20 {
            return Err(Error::Usage(format!(
                "not enough free space in {dir} for --scale: {} is free",
                Bytes(free)
            )));
        }
        let warning = (to < want).then(|| {
            format!(
                "uniqueBytes should reach {} ({BEYOND_CACHE} x the {} cache) but {dir} holds only {} free; {}",
                Bytes(want),
                Bytes(cache),
                Bytes(free),
                if to < 2 * cache {
                    "the disk region cannot be reached: pass --cache-limit"
                } else {
                    "the disk region will be short"
                }
            )
        });
        let plan = ScalePlan {
            unique: SweepPlan::new(SWEEP_FROM, to),
            max_process_num: 16,
            max_size_mean: 8 << 20,
            focus,
            extra_sizes: Vec::new(),
        };
        Ok((plan, warning))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_memory_size_asks_for_a_cache_limit_not_free_space() {
        let e = ScalePlan::for_files(0, None, Some(100 << 30), "d", Focus::Middle)
            .err()
            .unwrap();
        assert!(e.to_string().contains("pass --cache-limit"), "{e}");
        let (p, w) =
            ScalePlan::for_files(0, Some(1 << 30), Some(100 << 30), "d", Focus::Middle).unwrap();
        assert_eq!(p.unique.to, 4 << 30);
        assert!(w.is_none());
    }

    #[test]
    fn free_space_bounds_the_sweep() {
        let (p, w) =
            ScalePlan::for_files(8 << 30, None, Some(10 << 30), "d", Focus::Middle).unwrap();
        assert!(p.unique.to < 10 << 30);
        assert!(w.unwrap().contains("cannot be reached"));
        let e = ScalePlan::for_files(8 << 30, None, Some(40 << 20), "d", Focus::Middle)
            .err()
            .unwrap();
        assert!(e.to_string().contains("not enough free space"), "{e}");
    }
}
