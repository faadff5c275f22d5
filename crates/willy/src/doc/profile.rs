//! The profile: what a self-scaling run found, as a versioned JSON document.
//!
//! `willy run --scale` writes it, `willy predict` reads it. Its JSON Schema
//! is generated from these types ([`schema`]) and checked in as
//! `docs/schema/profile.schema.json`; a test keeps the two equal.
//!
//! Versions: 1, the first; 2 adds `direct` (whether the points were
//! measured with O_DIRECT; a version-1 profile reads as buffered) and, for
//! each cache, `size_interval_bytes`, `fit_factor` and `poor_fit` (absent
//! in version 1); 3 and 4 add `caches` and `mpi`; 5 adds `probe` (what
//! `willy probe` found first, with `--scale --probe`); 6 each point's CPU
//! time and device busy time; 7 each region's focal repeats; 8 each
//! point's `steady_bytes_per_sec`, where its measurement began before its
//! steady state; 9 each point's `generators_bytes_per_sec`.
//!
//! Points are stored once, in `points`; curves refer to them by index, so a
//! point shared by two curves (every focal point is on all its region's
//! curves) is measured and stored once.

use super::{DocError, Document};
use crate::engine::EngineKind;
use crate::sysinfo::SystemInfo;
use crate::workload::Workload;
use serde::{Deserialize, Serialize};

/// A profile's curves of sizeMean and processNum grow while a doubling
/// gains this factor (the scaler's rule), and prediction reads a last
/// region's processNum curve whose last step gains less as saturated.
pub const IMPROVES: f64 = 1.05;

/// Version of the profile document this willy writes.
pub const PROFILE_SCHEMA_VERSION: u32 = 9;

/// Why a profile cannot be used.
pub type ProfileError = DocError;

/// What a self-scaling run found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Always `"willy-profile"`.
    pub kind: String,
    /// [`PROFILE_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The machine (or simulated system).
    pub system: SystemInfo,
    /// True when the target was simulated.
    pub simulated: bool,
    /// Directory, device or `sim:NAME`.
    pub target: String,
    /// The memory cgroup limit the run used (`--cache-limit`), bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_limit_bytes: Option<u64>,
    /// The engine used.
    pub engine: EngineKind,
    /// Whether the points were measured with O_DIRECT (absent in version 1,
    /// whose profiles read as buffered).
    #[serde(default)]
    pub direct: bool,
    /// The generators' seed.
    pub seed: u64,
    /// The ranges the parameters were scaled over.
    pub ranges: Ranges,
    /// Every measured point.
    pub points: Vec<ProfilePoint>,
    /// The uniqueBytes curve: indices into `points`, by uniqueBytes.
    pub unique_bytes_curve: Vec<usize>,
    /// The performance regions, by uniqueBytes.
    pub regions: Vec<ProfileRegion>,
    /// Effective cache sizes inferred, smallest first.
    pub cache_sizes_bytes: Vec<u64>,
    /// The same caches, each with the probe that found it (`"reads"`: a
    /// cache that serves reads; `"writes"`: a limit seen by writes only,
    /// such as a write-back limit). Absent in older profiles.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub caches: Vec<CacheFound>,
    /// Measured on several ranks (`mpirun ... willy run --scale --mpi`):
    /// processNum counts generators across them, uniqueBytes the working
    /// set across them. Absent otherwise (and before version 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mpi: Option<MpiRanks>,
    /// What `willy probe` found on the target before the run
    /// (`--scale --probe`): its boundary and efficient request size are on
    /// every sizeMean curve. Absent otherwise (and before version 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<super::probe::Probe>,
}

/// The ranks a profile was measured on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MpiRanks {
    /// How many.
    pub ranks: usize,
    /// Each rank's host, in rank order.
    pub hosts: Vec<String>,
}

/// One inferred cache.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CacheFound {
    /// Its size, bytes.
    pub size_bytes: u64,
    /// The probe whose drop showed it: `"reads"` or `"writes"`.
    pub probe: Probe,
    /// uniqueBytes where its drop begins (h = 0.98) and its centre
    /// (h = 1/2).
    pub onset_unique_bytes: u64,
    /// See `onset_unique_bytes`.
    pub centre_unique_bytes: u64,
    /// The sizes the sweep's points allow, `[lo, hi]`: what the rule gives
    /// at the two measured uniqueBytes around the drop's onset (read probe)
    /// or centre (write probe). Absent in profiles before version 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_interval_bytes: Option<[u64; 2]>,
    /// The read probe's self-check: the factor between the cache the
    /// drop's centre implies (the LRU size that serves half the probe's
    /// requests there) and `size_bytes` (1 is a perfect fit; Linux's page
    /// cache, not LRU, gives about 1.4). Absent for write probes and older
    /// profiles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fit_factor: Option<f64>,
    /// True when the self-check fails (`fit_factor` above 1.8): the fall
    /// is not that of an LRU-like cache of this size, and `size_bytes` is
    /// not to be taken as precise.
    #[serde(default)]
    pub poor_fit: bool,
}

/// The size of the largest cache the read probe found among `caches`,
/// else of the largest of any: the cache the `willy` model composes
/// generators' shares over, and the one the scaler measures the last
/// region's processNum curve to.
pub fn read_cache_size<'a>(caches: impl IntoIterator<Item = &'a CacheFound>) -> Option<u64> {
    let (mut reads, mut any) = (None, None);
    for c in caches {
        any = any.max(Some(c.size_bytes));
        if c.probe == Probe::Reads {
            reads = reads.max(Some(c.size_bytes));
        }
    }
    reads.or(any)
}

/// The probes whose drops locate the caches.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Probe {
    /// Random reads (readFrac 1): a cache that serves reads.
    Reads,
    /// Random writes (readFrac 0): a limit seen by writes, such as a
    /// write-back limit.
    Writes,
}

impl Probe {
    /// Both probes, reads first.
    pub const ALL: [Probe; 2] = [Probe::Reads, Probe::Writes];

    /// The probe's readFrac.
    pub fn read_frac(self) -> f64 {
        match self {
            Probe::Reads => 1.0,
            Probe::Writes => 0.0,
        }
    }
}

impl std::fmt::Display for Probe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Probe::Reads => "reads",
            Probe::Writes => "writes",
        })
    }
}

/// The scaled ranges: `[lowest, highest]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Ranges {
    /// uniqueBytes, bytes.
    pub unique_bytes: [u64; 2],
    /// sizeMean, bytes.
    pub size_mean: [u64; 2],
    /// readFrac.
    pub read_frac: [f64; 2],
    /// seqFrac.
    pub seq_frac: [f64; 2],
    /// processNum.
    pub process_num: [u32; 2],
}

/// One measured workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProfilePoint {
    /// The workload.
    pub workload: Workload,
    /// Throughput, bytes per second.
    pub throughput_bytes_per_sec: f64,
    /// Relative half-width of its 95% confidence interval, if computed.
    pub ci95_rel: Option<f64>,
    /// Seconds measured.
    pub duration_secs: f64,
    /// What the rest of the machine was doing meanwhile (version 3; real
    /// targets only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<crate::background::Background>,
    /// The CPU time the requests used, as cores busy over the measurement
    /// (1.0 = one core): the simulated host's CPUs on simulated systems,
    /// willy's own (`getrusage`) on real targets (version 6). With the
    /// throughput it gives CPU time per request, a resource demand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_cores_busy: Option<f64>,
    /// The share of the measurement during which the device was busy
    /// (0..1), where known (version 6; see the run document's
    /// `device_busy_frac`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_busy_frac: Option<f64>,
    /// Where the measurement began before its steady state: the
    /// throughput after the transient (the run document's
    /// `stopping.steady_throughput_bytes_per_sec`), bytes per second;
    /// absent where none was found and before version 8. The throughput
    /// above, which prediction uses, counts the whole measurement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_bytes_per_sec: Option<f64>,
    /// Each generator's throughput, bytes per second (the run document's
    /// `generators_bytes_per_sec`): where the shares that fit the cache
    /// ran apart from the others. Absent before version 9.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub generators_bytes_per_sec: Vec<f64>,
}

/// One performance region and its family of curves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProfileRegion {
    /// Smallest uniqueBytes in the region.
    pub from_unique_bytes: u64,
    /// Largest uniqueBytes in the region.
    pub to_unique_bytes: u64,
    /// The focal vector: every curve of the region varies one parameter of it.
    pub focal: Workload,
    /// The single-parameter curves: indices into `points`.
    pub curves: Curves,
    /// The focal point measured again during the region's curves, bytes
    /// per second (version 7; empty in older profiles and where the
    /// budget afforded no more). Every curve passes through the focal
    /// point, so its error enters every curve's ratio: prediction takes
    /// the median of its point and these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub focal_repeats_bytes_per_sec: Vec<f64>,
}

/// How far past a region's span's ends a uniqueBytes still lies in it:
/// the scaler's points round uniqueBytes up to whole blocks per
/// generator.
pub const SPAN_SLACK: f64 = 0.01;

/// The part of a region's span `from`..`to` (bytes) that holds no cache's
/// edge, its focal point at `focal` bytes: cut at the size of the
/// nearest cache of `caches` (bytes) inside it on each side of the focal
/// point, [`SPAN_SLACK`] twice further in (a point rounded up to whole
/// blocks at the cache's size is on its edge). A region's span runs
/// between the probes' drops, and a drop's onset can lie past its
/// cache's size (sim:split-cache's first region runs to 6.2 MiB, where
/// the write probe's drop begins, past its 4 MiB write cache, and 1 MiB
/// requests there ran 0.67 times as much faster than 16 KiB ones as at
/// the focal 2.5 MiB), so that part of a span lies on a cache's edge.
pub fn plateau(from: f64, to: f64, focal: f64, caches: &[f64]) -> (f64, f64) {
    let inside = |c: &&f64| from < **c && **c < to;
    let cut = 2.0 * SPAN_SLACK;
    let below = caches.iter().filter(inside).filter(|&&c| c < focal);
    let above = caches.iter().filter(inside).filter(|&&c| c > focal);
    (
        below.map(|c| c * (1.0 + cut)).fold(from, f64::max),
        above.map(|c| c * (1.0 - cut)).fold(to, f64::min),
    )
}

/// Whether `u` bytes lies between `from` and `to` (bytes), within
/// [`SPAN_SLACK`].
pub fn within((from, to): (f64, f64), u: u64) -> bool {
    let (u, s) = (u as f64, 1.0 + SPAN_SLACK);
    from <= u * s && u <= to * s
}

/// A region's single-parameter curves, as indices into the profile's points.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Curves {
    /// uniqueBytes varied, over the region and the drops beside it (empty
    /// in older profiles: prediction then uses the profile's
    /// `unique_bytes_curve`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unique_bytes: Vec<usize>,
    /// sizeMean varied.
    pub size_mean: Vec<usize>,
    /// readFrac varied.
    pub read_frac: Vec<usize>,
    /// seqFrac varied.
    pub seq_frac: Vec<usize>,
    /// processNum varied.
    pub process_num: Vec<usize>,
}

impl Curves {
    /// The four curves through the region's focal point: sizeMean,
    /// readFrac, seqFrac and processNum.
    pub fn through_focal(&self) -> [&Vec<usize>; 4] {
        [
            &self.size_mean,
            &self.read_frac,
            &self.seq_frac,
            &self.process_num,
        ]
    }
}

/// Whether `w` and `f` agree in every parameter but uniqueBytes, sizeMean
/// and readFrac (the kind ends' and size ends' match,
/// [`Profile::size_kind_ends`], [`Profile::sizes_elsewhere`]).
fn alike(w: &Workload, f: &Workload) -> bool {
    w.process_num == f.process_num
        && w.seq_frac == f.seq_frac
        && w.cpu_think == f.cpu_think
        && w.block_size == f.block_size
}

/// A region's points at another uniqueBytes ([`Profile::sizes_elsewhere`]).
#[derive(Clone, Debug, PartialEq)]
pub struct SizesAt {
    /// The uniqueBytes, bytes.
    pub unique_bytes: u64,
    /// The point at the focal size; `Some` in what `sizes_elsewhere`
    /// returns.
    pub focal_size: Option<usize>,
    /// The other sizes measured there, with their points, by size.
    pub sizes: Vec<(u64, usize)>,
}

impl Document for Profile {
    const KIND: &'static str = "willy-profile";
    const WHAT: &'static str = "profile";
    const VERSIONS: &'static [u32] = &[1, 2, 3, 4, 5, 6, 7, 8, PROFILE_SCHEMA_VERSION];
    const REDO: &'static str = "rerun `willy run --scale`";
    fn check(&self) -> Result<(), DocError> {
        self.validate()
    }
}

impl Profile {
    /// How long the profile measured a typical point, seconds: the median
    /// of its points' `duration_secs` (None without points). On real
    /// files a workload's throughput depends on how long it is measured
    /// after its dirty pages were written back (docs/MEASUREMENT.md,
    /// "Real files settle late"), so `willy validate` measures as long.
    pub fn median_point_secs(&self) -> Option<f64> {
        let secs: Vec<f64> = self
            .points
            .iter()
            .map(|p| p.duration_secs)
            .filter(|s| s.is_finite() && *s > 0.0)
            .collect();
        (!secs.is_empty()).then(|| crate::stats::median(&secs))
    }

    /// Region `k`'s focal throughput: the median of its focal point's (on
    /// whichever of its four curves holds it: a curve cut short by the
    /// budget may not) and the region's focal repeats.
    pub fn focal_throughput(&self, k: usize) -> Option<f64> {
        let r = self.regions.get(k)?;
        let i = self.focal_index(k)?;
        let v: Vec<f64> = std::iter::once(self.points[i].throughput_bytes_per_sec)
            .chain(r.focal_repeats_bytes_per_sec.iter().copied())
            .collect();
        Some(crate::stats::median(&v))
    }

    /// The index of region `k`'s focal point, on whichever of its four
    /// curves holds it.
    fn focal_index(&self, k: usize) -> Option<usize> {
        let r = self.regions.get(k)?;
        r.curves
            .through_focal()
            .into_iter()
            .flatten()
            .copied()
            .find(|&i| self.points[i].workload == r.focal)
    }

    /// Region `k`'s focal point as a reference through its curves: each
    /// of its measurements as `(position, throughput)`, in the order they
    /// were made, the position counted in the profile's points (measured
    /// in the order of their indices). The point itself is at its index;
    /// the scaler measures the first repeat after the region's sizeMean
    /// and processNum curves and the second after all five
    /// (`curves_through`, since version 7), so they lie just after the
    /// last point of those curves. Empty without repeats.
    pub fn focal_levels(&self, k: usize) -> Vec<(f64, f64)> {
        let Some(r) = self.regions.get(k) else {
            return Vec::new();
        };
        let c = &r.curves;
        let (Some(i), false) = (
            self.focal_index(k),
            r.focal_repeats_bytes_per_sec.is_empty(),
        ) else {
            return Vec::new();
        };
        let last = |lists: &[&Vec<usize>]| {
            lists
                .iter()
                .flat_map(|l| l.iter())
                .copied()
                .max()
                .unwrap_or(i) as f64
                + 0.5
        };
        let after = [
            last(&[&c.size_mean, &c.process_num]),
            last(&[
                &c.size_mean,
                &c.process_num,
                &c.read_frac,
                &c.seq_frac,
                &c.unique_bytes,
            ]),
        ];
        std::iter::once((i as f64, self.points[i].throughput_bytes_per_sec))
            .chain(
                after
                    .into_iter()
                    .zip(r.focal_repeats_bytes_per_sec.iter().copied()),
            )
            .collect()
    }

    /// Region `k`'s points of all reads and of all writes (readFrac 1 and
    /// 0) at its focal point but for the request size (the scaler's kind
    /// ends, `scaler::KIND_ENDS`): each size other than the focal one at
    /// which both were measured, with the two points' indices, by size.
    pub fn size_kind_ends(&self, k: usize) -> Vec<(u64, usize, usize)> {
        let Some(f) = self.regions.get(k).map(|r| &r.focal) else {
            return Vec::new();
        };
        self.kind_pairs(|w| {
            let at = w.unique_bytes == f.unique_bytes && w.size_mean != f.size_mean && alike(w, f);
            at.then_some(w.size_mean.0)
        })
        .into_iter()
        .map(|(z, (r, w))| (z, r, w))
        .collect()
    }

    /// The points of all reads and of all writes (readFrac 1 and 0) that
    /// `key` places (`None`: left out), the first measured of each, paired
    /// by key where both were measured.
    fn kind_pairs<K: Ord>(
        &self,
        key: impl Fn(&Workload) -> Option<K>,
    ) -> std::collections::BTreeMap<K, (usize, usize)> {
        let mut by_key = std::collections::BTreeMap::<K, (Option<usize>, Option<usize>)>::new();
        for (i, w) in self.points.iter().map(|p| &p.workload).enumerate() {
            let Some(k) = key(w) else {
                continue;
            };
            let slot = by_key.entry(k).or_default();
            if w.read_frac == 1.0 {
                slot.0 = slot.0.or(Some(i));
            } else if w.read_frac == 0.0 {
                slot.1 = slot.1.or(Some(i));
            }
        }
        by_key
            .into_iter()
            .filter_map(|(k, pair)| match pair {
                (Some(r), Some(w)) => Some((k, (r, w))),
                _ => None,
            })
            .collect()
    }

    /// Region `k`'s points at its focal point but for the uniqueBytes and
    /// the request size (its uniqueBytes curve's points, and the scaler's
    /// size ends): for each uniqueBytes other than the focal one at which
    /// the focal size and another size were measured, the focal size's
    /// point and the others' as (size, index), by uniqueBytes and size.
    pub fn sizes_elsewhere(&self, k: usize) -> Vec<SizesAt> {
        let Some(f) = self.regions.get(k).map(|r| &r.focal) else {
            return Vec::new();
        };
        let mut by_unique = std::collections::BTreeMap::<u64, SizesAt>::new();
        for (i, w) in self.points.iter().map(|p| &p.workload).enumerate() {
            let at = w.unique_bytes != f.unique_bytes && w.read_frac == f.read_frac && alike(w, f);
            if !at {
                continue;
            }
            let u = w.unique_bytes.0;
            let e = by_unique.entry(u).or_insert(SizesAt {
                unique_bytes: u,
                focal_size: None,
                sizes: Vec::new(),
            });
            if w.size_mean == f.size_mean {
                e.focal_size = e.focal_size.or(Some(i));
            } else if !e.sizes.iter().any(|s| s.0 == w.size_mean.0) {
                e.sizes.push((w.size_mean.0, i));
            }
        }
        by_unique
            .into_values()
            .filter(|e| e.focal_size.is_some() && !e.sizes.is_empty())
            .map(|mut e| {
                e.sizes.sort_unstable();
                e
            })
            .collect()
    }

    /// Region `k`'s points at its focal point but for the request size and
    /// the generators (the scaler's focal sizeMean search, whose rounds
    /// before the last run at one generator): of the processNums other
    /// than the focal one with sizes measured on both sides of the focal
    /// size, the one with the most, and its points other than at the focal
    /// size as (size, index), by size. `None` without one.
    pub fn sizes_by_generators(&self, k: usize) -> Option<(u32, Vec<(u64, usize)>)> {
        let f = &self.regions.get(k)?.focal;
        let mut by_n = std::collections::BTreeMap::<u32, Vec<(u64, usize)>>::new();
        for (i, w) in self.points.iter().map(|p| &p.workload).enumerate() {
            let at = w.unique_bytes == f.unique_bytes
                && w.read_frac == f.read_frac
                && w.size_mean != f.size_mean
                && w.process_num != f.process_num
                && alike(
                    &Workload {
                        process_num: f.process_num,
                        ..w.clone()
                    },
                    f,
                );
            if at {
                by_n.entry(w.process_num)
                    .or_default()
                    .push((w.size_mean.0, i));
            }
        }
        let zf = f.size_mean.0;
        by_n.into_iter()
            .map(|(n, mut sizes)| {
                sizes.sort_unstable();
                sizes.dedup_by_key(|s| s.0);
                (n, sizes)
            })
            .filter(|(_, s)| {
                s.first().is_some_and(|z| z.0 < zf) && s.last().is_some_and(|z| z.0 > zf)
            })
            .max_by_key(|(_, s)| s.len())
    }

    /// Region `k`'s points of all reads and of all writes (readFrac 1 and
    /// 0) at its focal point but for the generators (the scaler's
    /// generators' kind ends, `scaler::PROCS_ENDS`): the most generators
    /// other than the focal number at which both were measured, and the
    /// two points' indices. `None` without them.
    pub fn reads_by_generators(&self, k: usize) -> Option<(u32, usize, usize)> {
        let f = &self.regions.get(k)?.focal;
        let at = |w: &Workload| {
            let at = w.unique_bytes == f.unique_bytes
                && w.size_mean == f.size_mean
                && w.process_num != f.process_num
                && alike(
                    &Workload {
                        process_num: f.process_num,
                        ..w.clone()
                    },
                    f,
                );
            at.then_some(w.process_num)
        };
        let (n, (r, w)) = self.kind_pairs(at).pop_last()?;
        Some((n, r, w))
    }

    /// Region `k`'s [`plateau`], widened by [`SPAN_SLACK`]: whether
    /// `u` bytes lies on it.
    pub fn on_plateau(&self, k: usize, u: u64) -> bool {
        let Some(r) = self.regions.get(k) else {
            return false;
        };
        let caches: Vec<f64> = self.caches.iter().map(|c| c.size_bytes as f64).collect();
        let span = plateau(
            r.from_unique_bytes as f64,
            r.to_unique_bytes as f64,
            r.focal.unique_bytes.0 as f64,
            &caches,
        );
        within(span, u)
    }

    /// Parses and checks a profile. The version is checked before the rest,
    /// so a profile from another willy says so instead of failing on a field.
    pub fn from_json(text: &str) -> Result<Profile, ProfileError> {
        let mut p: Profile = super::read(text)?;
        p.schema_version = PROFILE_SCHEMA_VERSION;
        Ok(p)
    }

    /// Checks what the types cannot: indices in range, at least one region,
    /// regions in order, sizes increasing.
    pub fn validate(&self) -> Result<(), ProfileError> {
        let invalid = |msg: String| ProfileError::Invalid {
            what: "profile",
            msg,
        };
        let bad = |m: String| Err(invalid(m));
        if self.regions.is_empty() {
            return bad("no regions".into());
        }
        let n = self.points.len();
        let check = |what: &str, idx: &[usize]| -> Result<(), ProfileError> {
            match idx.iter().find(|&&i| i >= n) {
                Some(i) => Err(invalid(format!(
                    "{what} refers to point {i}, but there are {n}"
                ))),
                None => Ok(()),
            }
        };
        check("unique_bytes_curve", &self.unique_bytes_curve)?;
        for (k, r) in self.regions.iter().enumerate() {
            let c = &r.curves;
            for (name, idx) in [
                ("uniqueBytes", &c.unique_bytes),
                ("sizeMean", &c.size_mean),
                ("readFrac", &c.read_frac),
                ("seqFrac", &c.seq_frac),
                ("processNum", &c.process_num),
            ] {
                check(&format!("region {k}'s {name} curve"), idx)?;
            }
            if r.from_unique_bytes > r.to_unique_bytes {
                return bad(format!("region {k} ends before it starts"));
            }
            r.focal
                .validate()
                .map_err(|e| invalid(format!("region {k}'s focal point: {e}")))?;
            if let Some(x) = r
                .focal_repeats_bytes_per_sec
                .iter()
                .find(|x| !(x.is_finite() && **x > 0.0))
            {
                return bad(format!(
                    "region {k}'s focal repeats: {x} is not a positive throughput"
                ));
            }
        }
        if self
            .regions
            .windows(2)
            .any(|w| w[0].to_unique_bytes > w[1].from_unique_bytes)
        {
            return bad("regions overlap or are out of order".into());
        }
        if self.cache_sizes_bytes.windows(2).any(|w| w[0] >= w[1]) {
            return bad("cache_sizes_bytes must increase".into());
        }
        for c in &self.caches {
            if let Some([lo, hi]) = c.size_interval_bytes {
                if !(lo <= c.size_bytes && c.size_bytes <= hi) {
                    return bad(format!(
                        "the cache of {} bytes lies outside its interval [{lo}, {hi}]",
                        c.size_bytes
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The JSON Schema of [`Profile`], pretty-printed.
pub fn schema() -> String {
    super::schema_of::<Profile>()
}

fn focal(u: u64) -> Workload {
    Workload::of(u, 16 << 10, 0.5, 0.5, 1)
}

/// A small valid profile of one region and three points, for tests
/// and examples.
pub fn sample() -> Profile {
    let point = |u| ProfilePoint {
        background: None,
        cpu_cores_busy: None,
        device_busy_frac: None,
        steady_bytes_per_sec: None,
        generators_bytes_per_sec: vec![],
        workload: focal(u),
        throughput_bytes_per_sec: 1e8,
        ci95_rel: Some(0.03),
        duration_secs: 5.0,
    };
    Profile {
        kind: "willy-profile".into(),
        schema_version: PROFILE_SCHEMA_VERSION,
        system: SystemInfo::collect(std::path::Path::new(".")),
        simulated: false,
        target: "willy-data".into(),
        cache_limit_bytes: None,
        engine: EngineKind::Uring,
        direct: false,
        seed: 1,
        ranges: Ranges {
            unique_bytes: [1 << 20, 1 << 30],
            size_mean: [4096, 1 << 20],
            read_frac: [0.0, 1.0],
            seq_frac: [0.0, 1.0],
            process_num: [1, 8],
        },
        points: vec![point(1 << 20), point(64 << 20), point(1 << 30)],
        unique_bytes_curve: vec![0, 1, 2],
        regions: vec![ProfileRegion {
            from_unique_bytes: 1 << 20,
            to_unique_bytes: 1 << 30,
            focal: focal(64 << 20),
            curves: Curves {
                unique_bytes: vec![0],
                size_mean: vec![1],
                read_frac: vec![1],
                seq_frac: vec![1],
                process_num: vec![1],
            },
            focal_repeats_bytes_per_sec: Vec::new(),
        }],
        cache_sizes_bytes: vec![],
        caches: vec![],
        mpi: None,
        probe: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_without_the_cpu_cache_still_reads() {
        let mut v = serde_json::to_value(sample()).unwrap();
        v["system"]
            .as_object_mut()
            .unwrap()
            .remove("cpu_cache_bytes");
        let p = Profile::from_json(&v.to_string()).unwrap();
        assert_eq!(p.system.cpu_cache_bytes, None);
    }

    #[test]
    fn a_typical_point_lasts_the_median_of_the_points() {
        let mut p = sample();
        assert_eq!(p.median_point_secs(), Some(5.0));
        // One long fill does not move it; a point without a duration is
        // left out.
        p.points[0].duration_secs = 75.0;
        p.points[1].duration_secs = 2.5;
        p.points[2].duration_secs = 0.0;
        assert_eq!(p.median_point_secs(), Some((75.0 + 2.5) / 2.0));
        p.points[0].duration_secs = 2.5;
        p.points[2].duration_secs = 3.0;
        assert_eq!(p.median_point_secs(), Some(2.5));
        p.points.clear();
        assert_eq!(p.median_point_secs(), None);
    }

    #[test]
    fn round_trips() {
        let p = sample();
        let text = serde_json::to_string_pretty(&p).unwrap();
        assert_eq!(Profile::from_json(&text).unwrap(), p);
    }

    #[test]
    fn bad_profiles_say_what_is_wrong() {
        let text = serde_json::to_string(&sample()).unwrap();
        let err = |t: &str| Profile::from_json(t).unwrap_err().to_string();
        assert!(err("{nope").starts_with("malformed profile"));
        assert!(err(r#"{"kind":"willy-run","schema_version":1}"#).contains("not a willy profile"));
        assert!(err(&text.replace(
            &format!("\"schema_version\":{PROFILE_SCHEMA_VERSION}"),
            "\"schema_version\":99"
        ))
        .contains("schema version 99 is not supported"));
        let mut p = sample();
        p.regions.clear();
        assert_eq!(
            err(&serde_json::to_string(&p).unwrap()),
            "invalid profile: no regions"
        );
        let mut p = sample();
        p.regions[0].curves.read_frac = vec![7];
        assert!(
            err(&serde_json::to_string(&p).unwrap()).contains("readFrac curve refers to point 7")
        );
        let mut p = sample();
        p.regions[0].focal_repeats_bytes_per_sec = vec![1e9, -1.0];
        assert_eq!(
            err(&serde_json::to_string(&p).unwrap()),
            "invalid profile: region 0's focal repeats: -1 is not a positive throughput"
        );
        let mut p = sample();
        p.cache_sizes_bytes = vec![2 << 20, 1 << 20];
        assert!(err(&serde_json::to_string(&p).unwrap()).contains("must increase"));
        assert!(err(&text.replace("\"seed\":1", "\"seed\":1,\"extra\":0"))
            .contains("unknown field `extra`"));
    }

    proptest::proptest! {
        /// The focal throughput is the median of the point and its
        /// repeats: the point itself without repeats, one of the values
        /// for an odd count, and never outside them.
        #[test]
        fn the_focal_throughput_is_the_median(
            point in 1.0f64..1e10,
            repeats in proptest::collection::vec(1.0f64..1e10, 0..6),
        ) {
            let mut p = sample();
            p.points[1].throughput_bytes_per_sec = point;
            p.regions[0].focal_repeats_bytes_per_sec = repeats.clone();
            let m = p.focal_throughput(0).unwrap();
            let all: Vec<f64> = std::iter::once(point).chain(repeats.iter().copied()).collect();
            let (lo, hi) = all.iter().fold((f64::MAX, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
            proptest::prop_assert!(lo <= m && m <= hi);
            let below = all.iter().filter(|&&x| x < m).count();
            let above = all.iter().filter(|&&x| x > m).count();
            proptest::prop_assert!(below <= all.len() / 2 && above <= all.len() / 2);
            if repeats.is_empty() {
                proptest::prop_assert_eq!(m, point);
            }
            if all.len() % 2 == 1 {
                proptest::prop_assert!(all.contains(&m));
            }
        }
    }

    /// Only sizes measured as both all reads and all writes, at the focal
    /// point but for the size, count; by size, whatever the order of
    /// measurement.
    #[test]
    fn kind_ends_pair_all_reads_with_all_writes_by_size() {
        let mut p = sample();
        let base = p.points[1].clone();
        let mut add = |z: u64, r: f64, u: u64| {
            let mut q = base.clone();
            q.workload = Workload::of(u, z, r, 0.5, 1);
            p.points.push(q);
            p.points.len() - 1
        };
        let fu = 64 << 20;
        let big_w = add(1 << 20, 0.0, fu);
        let small_r = add(4096, 1.0, fu);
        add(8192, 1.0, fu); // no write beside it
        add(4096, 0.0, 1 << 30); // another uniqueBytes
        let small_w = add(4096, 0.0, fu);
        let big_r = add(1 << 20, 1.0, fu);
        add(16384, 0.5, fu); // neither kind
        assert_eq!(
            p.size_kind_ends(0),
            vec![(4096, small_r, small_w), (1 << 20, big_r, big_w)]
        );
        assert!(p.size_kind_ends(1).is_empty(), "no region 1");
    }

    /// A cache inside a span cuts it on the focal point's side, a little
    /// inside its size; caches outside it or at its ends cut nothing.
    #[test]
    fn a_plateau_ends_before_a_cache_inside_its_span() {
        let mib = f64::from(1 << 20);
        assert_eq!(plateau(mib, 6.0 * mib, 2.5 * mib, &[]), (mib, 6.0 * mib));
        let (from, to) = plateau(mib, 6.0 * mib, 2.5 * mib, &[4.0 * mib, 35.0 * mib]);
        assert_eq!(from, mib);
        assert!(to < 4.0 * mib && to > 3.8 * mib, "{to}");
        let (from, to) = plateau(mib, 64.0 * mib, 40.0 * mib, &[4.0 * mib, 64.0 * mib]);
        assert!(from > 4.0 * mib && from < 4.2 * mib, "{from}");
        assert_eq!(to, 64.0 * mib);
        let mut p = sample();
        p.caches.push(CacheFound {
            size_bytes: 128 << 20,
            probe: Probe::Writes,
            onset_unique_bytes: 160 << 20,
            centre_unique_bytes: 192 << 20,
            size_interval_bytes: None,
            fit_factor: None,
            poor_fit: false,
        });
        // The sample's region spans 1 MiB to 1 GiB, its focal point 64 MiB.
        assert!(p.on_plateau(0, 1 << 20) && p.on_plateau(0, 120 << 20));
        assert!(!p.on_plateau(0, 127 << 20) && !p.on_plateau(0, 512 << 20));
        assert!(!p.on_plateau(1, 64 << 20), "no region 1");
    }

    /// Each other uniqueBytes with the focal size and another size
    /// measured there, the rest as at the focal point, by uniqueBytes and
    /// size.
    #[test]
    fn sizes_elsewhere_group_by_uniquebytes() {
        let mut p = sample();
        let base = p.points[1].clone();
        let mut add = |u: u64, z: u64, n: u32| {
            let mut q = base.clone();
            q.workload = Workload::of(u, z, 0.5, 0.5, n);
            p.points.push(q);
            p.points.len() - 1
        };
        let big = add(8 << 20, 1 << 20, 1);
        let at_focal = add(8 << 20, 16 << 10, 1);
        let small = add(8 << 20, 4096, 1);
        add(8 << 20, 8192, 2); // other generators
        add(256 << 20, 4096, 1); // no focal size there
                                 // The sample's own points at 1 MiB and 1 GiB have the focal size
                                 // alone.
        let e = p.sizes_elsewhere(0);
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].unique_bytes, 8 << 20);
        assert_eq!(e[0].focal_size, Some(at_focal));
        assert_eq!(e[0].sizes, vec![(4096, small), (1 << 20, big)]);
    }

    #[test]
    fn sizes_by_generators_take_the_processnum_with_most_sizes_around_the_focal_one() {
        let mut p = sample();
        assert_eq!(p.sizes_by_generators(0), None);
        let base = p.points[1].clone();
        let mut add = |z: u64, n: u32, read: f64| {
            let mut q = base.clone();
            q.workload = Workload::of(64 << 20, z, read, 0.5, n);
            p.points.push(q);
            p.points.len() - 1
        };
        let big = add(1 << 20, 3, 0.5);
        add(16 << 10, 3, 0.5); // the focal size: left out
        let small = add(4096, 3, 0.5);
        let mid = add(64 << 10, 3, 0.5);
        add(1 << 20, 3, 1.0); // another readFrac
        add(4096, 8, 0.5); // one side only, more sizes than none
        add(8192, 8, 0.5);
        add(1 << 20, 2, 0.5); // one size each side, fewer
        add(4096, 2, 0.5);
        let again = add(4096, 3, 0.5); // a size measured again: the first
        assert_eq!(
            p.sizes_by_generators(0),
            Some((3, vec![(4096, small), (64 << 10, mid), (1 << 20, big)]))
        );
        assert!(again > small);
        assert_eq!(p.sizes_by_generators(1), None);
    }

    #[test]
    fn the_read_cache_is_the_largest_the_read_probe_found() {
        let cache = |size_bytes, probe| CacheFound {
            size_bytes,
            probe,
            onset_unique_bytes: size_bytes,
            centre_unique_bytes: size_bytes,
            size_interval_bytes: None,
            fit_factor: None,
            poor_fit: false,
        };
        let (w, r) = (Probe::Writes, Probe::Reads);
        let found = [cache(4, w), cache(32, r), cache(64, w), cache(16, r)];
        assert_eq!(read_cache_size(&found), Some(32));
        assert_eq!(read_cache_size(&found[2..3]), Some(64));
        assert_eq!(read_cache_size(&[]), None);
    }

    #[test]
    fn reads_by_generators_take_the_most_generators_with_both_ends() {
        let mut p = sample();
        assert_eq!(p.reads_by_generators(0), None);
        let f = p.regions[0].focal.clone();
        let base = p.points[1].clone();
        let add = |p: &mut Profile, z: u64, n: u32, read: f64, seq: f64| {
            let mut q = base.clone();
            q.workload = Workload::of(f.unique_bytes.0, z, read, seq, n);
            p.points.push(q);
            p.points.len() - 1
        };
        let z = f.size_mean.0;
        let reads = add(&mut p, z, 8, 1.0, f.seq_frac);
        let writes = add(&mut p, z, 8, 0.0, f.seq_frac);
        add(&mut p, z, 16, 1.0, f.seq_frac); // reads only
        add(&mut p, z, 16, 0.0, 0.9); // another seqFrac
        add(&mut p, 4096, 16, 0.0, f.seq_frac); // another size
        let again = add(&mut p, z, 8, 1.0, f.seq_frac); // the first counts
        assert_eq!(p.reads_by_generators(0), Some((8, reads, writes)));
        assert!(again > reads);
        add(&mut p, z, 4, 0.0, f.seq_frac); // fewer generators
        add(&mut p, z, 4, 1.0, f.seq_frac);
        assert_eq!(p.reads_by_generators(0), Some((8, reads, writes)));
        assert_eq!(p.reads_by_generators(1), None);
    }

    #[test]
    fn checked_in_schema_is_current() {
        crate::doc::assert_schema_current("profile.schema.json", &schema());
    }

    #[test]
    fn a_version_1_profile_reads_as_buffered() {
        let mut v = serde_json::to_value(sample()).unwrap();
        v["schema_version"] = 1.into();
        v.as_object_mut().unwrap().remove("direct");
        let p = Profile::from_json(&v.to_string()).unwrap();
        assert!(!p.direct);
        assert_eq!(p.schema_version, PROFILE_SCHEMA_VERSION);
    }

    #[test]
    fn probes_are_the_strings_of_version_1() {
        let c = CacheFound {
            size_bytes: 1,
            probe: Probe::Writes,
            onset_unique_bytes: 1,
            centre_unique_bytes: 1,
            size_interval_bytes: Some([1, 2]),
            fit_factor: None,
            poor_fit: false,
        };
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(v["probe"], "writes");
        assert_eq!(Probe::Reads.to_string(), "reads");
    }
}
