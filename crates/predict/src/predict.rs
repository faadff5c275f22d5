//! Predicted performance (Chen 1992, section 5.2 and Appendix B).
//!
//! Throughput is modelled as a product of single-parameter functions, one
//! per region:
//!
//! ```text
//! T(w) = T(focal_k) * Π_p  f_p,k(w.p) / f_p,k(focal_k.p)
//! ```
//!
//! where `f_p,k` is region `k`'s measured curve for parameter `p`
//! (uniqueBytes, sizeMean, readFrac, seqFrac, processNum). A region's
//! uniqueBytes curve covers the region and the drops beside it (profiles
//! without one use the uniqueBytes sweep across all regions).
//!
//! - **Region** (Appendix B): of the two focal points whose uniqueBytes
//!   bracket the workload's, the one whose uniqueBytes-curve throughput is
//!   nearer (in ratio) to the curve's throughput at the workload's
//!   uniqueBytes. Outside all focal points, the nearest one.
//! - **Interpolation**: piecewise linear in throughput, against `ln x` for
//!   uniqueBytes, sizeMean and processNum (they are measured at doubling or
//!   log-spaced values), and against `x` for readFrac and seqFrac.
//! - **Outside a curve**: the value is clamped to the curve's ends and the
//!   prediction is flagged `extrapolated` with the parameter's name.
//! - **Near a border**: when uniqueBytes lies in the drop between two
//!   regions, or within a factor [`BORDER`] of either side of it, the
//!   prediction is flagged `near_border` (Chen found the error concentrates
//!   there).
//! - **Little's law**: IOPS is throughput over the mean request size, and
//!   the mean response time is `processNum / IOPS - cpuThink` (a closed
//!   loop of processNum generators).

use crate::profile::{Profile, ProfileError};
use willy::doc::profile::{Probe, ProfilePoint, SizesAt};
use willy::workload::Workload;

/// A workload this close (a factor in uniqueBytes) to a drop between
/// regions is flagged `near_border`.
pub const BORDER: f64 = 1.25;
/// uniqueBytes or sizeMean more than this factor beyond the profile's range
/// is refused rather than extrapolated.
pub const FAR: f64 = 1024.0;

/// A workload parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Param {
    /// uniqueBytes.
    UniqueBytes,
    /// sizeMean.
    SizeMean,
    /// readFrac.
    ReadFrac,
    /// seqFrac.
    SeqFrac,
    /// processNum.
    ProcessNum,
}

impl Param {
    /// All five, in Chen's order.
    pub const ALL: [Param; 5] = [
        Param::UniqueBytes,
        Param::SizeMean,
        Param::ReadFrac,
        Param::SeqFrac,
        Param::ProcessNum,
    ];

    /// The JSON name.
    pub fn name(self) -> &'static str {
        match self {
            Param::UniqueBytes => "uniqueBytes",
            Param::SizeMean => "sizeMean",
            Param::ReadFrac => "readFrac",
            Param::SeqFrac => "seqFrac",
            Param::ProcessNum => "processNum",
        }
    }

    /// The parameter's value in `w`.
    pub fn of(self, w: &Workload) -> f64 {
        match self {
            Param::UniqueBytes => w.unique_bytes.0 as f64,
            Param::SizeMean => w.size_mean.0 as f64,
            Param::ReadFrac => w.read_frac,
            Param::SeqFrac => w.seq_frac,
            Param::ProcessNum => f64::from(w.process_num),
        }
    }

    /// Whether the parameter is interpolated against its logarithm.
    pub fn log_scale(self) -> bool {
        matches!(
            self,
            Param::UniqueBytes | Param::SizeMean | Param::ProcessNum
        )
    }

    fn axis(self, v: f64) -> f64 {
        // Logarithms of whole numbers of generators, looked up: the
        // `willy` model asks for them many times per prediction.
        static LN: std::sync::LazyLock<[f64; 65]> =
            std::sync::LazyLock::new(|| std::array::from_fn(|i| (i as f64).ln()));
        match self {
            Param::ProcessNum if (1.0..=64.0).contains(&v) && v == (v as usize) as f64 => {
                LN[v as usize]
            }
            _ if self.log_scale() => v.max(f64::MIN_POSITIVE).ln(),
            _ => v,
        }
    }
}

/// A measured single-parameter curve, on its interpolation axis.
#[derive(Clone, Debug)]
pub struct Curve {
    param: Param,
    xs: Vec<f64>,
    ys: Vec<f64>,
    /// Each segment's slope, of throughput and of its inverse.
    slopes: Vec<[f64; 2]>,
}

impl Curve {
    fn new(param: Param, mut pts: Vec<(f64, f64)>) -> Curve {
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        pts.dedup_by(|a, b| a.0 == b.0);
        let (xs, ys): (Vec<f64>, Vec<f64>) =
            pts.into_iter().map(|(x, y)| (param.axis(x), y)).unzip();
        let slopes = (1..xs.len())
            .map(|j| {
                let dx = xs[j] - xs[j - 1];
                [
                    (ys[j] - ys[j - 1]) / dx,
                    (1.0 / ys[j] - 1.0 / ys[j - 1]) / dx,
                ]
            })
            .collect();
        Curve {
            param,
            xs,
            ys,
            slopes,
        }
    }

    /// Throughput at parameter value `v` interpolated as time (its inverse
    /// linear between the measured points): where two costs mix in
    /// proportion to the parameter, as reads and writes do by readFrac.
    fn at_as_time(&self, v: f64) -> f64 {
        self.interpolated(self.param.axis(v), true).0
    }

    /// Throughput at parameter value `v`, and whether `v` lay outside the
    /// measured range (then the nearest end's value is returned).
    pub fn at(&self, v: f64) -> (f64, bool) {
        self.interpolated(self.param.axis(v), false)
    }

    /// Its least parameter value measured (on the curve's axis) and the
    /// throughput there.
    fn least(&self) -> (f64, f64) {
        (self.xs[0], self.ys[0])
    }

    /// [`Curve::at`] for `x` on the curve's axis (the parameter's value,
    /// or its log).
    fn at_axis(&self, x: f64) -> (f64, bool) {
        self.interpolated(x, false)
    }

    /// [`Curve::at`] at `x` on the curve's axis, linear in the throughput
    /// or, `as_time`, in its inverse.
    fn interpolated(&self, x: f64, as_time: bool) -> (f64, bool) {
        let n = self.xs.len();
        // A relative slack, so that a value measured is never "outside".
        let eps = 1e-9 * x.abs().max(1.0);
        if x <= self.xs[0] {
            return (self.ys[0], x < self.xs[0] - eps);
        }
        if x >= self.xs[n - 1] {
            return (self.ys[n - 1], x > self.xs[n - 1] + eps);
        }
        // The first point past `x` (the curves are short: counted without
        // the branches of a binary search).
        let j = self.xs.iter().map(|&a| usize::from(a <= x)).sum::<usize>();
        let (x0, y0, [slope, time_slope]) = (self.xs[j - 1], self.ys[j - 1], self.slopes[j - 1]);
        let y = if as_time {
            1.0 / (1.0 / y0 + time_slope * (x - x0))
        } else {
            y0 + slope * (x - x0)
        };
        (y, false)
    }

    /// The least-squares line of time per byte (the inverse of
    /// throughput) against the parameter's axis: its value at 0 and its
    /// slope.
    fn time_line(&self) -> (f64, f64) {
        let pts: Vec<(f64, f64)> = self
            .xs
            .iter()
            .zip(&self.ys)
            .map(|(&x, &y)| (x, 1.0 / y))
            .collect();
        match least_squares(&pts) {
            Some((mx, mt, slope)) => (mt - slope * mx, slope),
            None => (pts.iter().map(|p| p.1).sum::<f64>() / pts.len() as f64, 0.0),
        }
    }

    /// Whether this seqFrac curve shows seeks: on the least-squares line
    /// of its time per byte, all-random requests take at least
    /// [`SEQUENTIAL_WORTH`] times as long as all-sequential ones.
    fn saves_seeks(&self) -> bool {
        let (t0, slope) = self.time_line();
        let t1 = t0 + slope;
        t1 > 0.0 && t0 >= SEQUENTIAL_WORTH * t1
    }

    /// The measured (value, throughput) pairs, by value.
    pub fn points(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        let log = self.param.log_scale();
        self.xs
            .iter()
            .zip(&self.ys)
            .map(move |(&x, &y)| (if log { x.exp() } else { x }, y))
    }
}

#[derive(Clone, Debug)]
struct RegionModel {
    from: f64,
    to: f64,
    focal: Workload,
    /// sizeMean, readFrac, seqFrac, processNum.
    curves: [Curve; 4],
    /// Each curve's throughput at the focal point, computed once.
    at_focal: [f64; 4],
    /// The region's own uniqueBytes curve, if the profile has one.
    unique: Option<Curve>,
    /// That curve's throughput (or the profile's, without one) at the
    /// focal uniqueBytes, and the profile's, computed once.
    unique_at_focal: (f64, f64),
    /// The most any point of its four curves could deliver with every CPU
    /// busy ([`capacity`]).
    peak: f64,
    /// The most any point of its four curves measured.
    measured_peak: f64,
    /// Whether its seqFrac curve shows seeks ([`Curve::saves_seeks`]).
    /// Only then does seqFrac's effect add as a seek saved per request.
    seeks: bool,
    /// The device's busy fraction at the readFrac curve's least readFrac
    /// (all writes), if the profile recorded it.
    writes_busy: Option<f64>,
    /// The CPU time per generator at the readFrac curve's least readFrac
    /// (all writes), as a share of the measurement's time, if the profile
    /// recorded it ([`Predictor::size_on_reads_in_last_region`]).
    writes_cpu: Option<f64>,
    /// The device's busy fraction at the processNum curve's most
    /// generators, if the profile recorded it.
    most_busy: Option<f64>,
    /// Its reads' and writes' kinds where they are served apart
    /// ([`Kinds::of`], computed once).
    kinds: Option<Kinds>,
    /// Its processNum curve's points as (generators, throughput, CPUs
    /// busy), by generators, where every one recorded its CPU time
    /// ([`Predictor::cpus_fill_first`]); empty otherwise.
    busy: Vec<(f64, f64, f64)>,
    /// How much longer a write takes than a read, by request size
    /// ([`WriteGap`]); `None` where the profile has no points of all reads
    /// and all writes at other sizes (before `scaler::KIND_ENDS`).
    gap: Option<WriteGap>,
    /// Whether its uniqueBytes curve falls at a write cache inside it
    /// ([`Predictor::unique_on_writes_past_a_write_cache`]; false until
    /// that is asked for).
    falls_at_write_cache: bool,
    /// How its sizeMean curve changes with uniqueBytes
    /// ([`SizeByUnique`]); `None` without points at the focal point but
    /// for the uniqueBytes and the size.
    size_by_unique: Option<SizeByUnique>,
    /// How its sizeMean curve changes with the generators
    /// ([`SizeByGenerators`]); `None` without sizes measured at another
    /// processNum, and in the first and the last region.
    size_by_generators: Option<SizeByGenerators>,
    /// How its readFrac curve changes with the generators
    /// ([`ReadByGenerators`]); `None` without reads and writes measured at
    /// more generators, and in the last region.
    read_by_generators: Option<ReadByGenerators>,
}

/// Writes' time per request over reads' at a region's focal point but for
/// the request size, by size: the readFrac curve's ends at the focal size
/// and the points measured at both ends at other sizes
/// ([`Predictor::writes_by_size`], [`Profile::size_kind_ends`]), interpolated
/// in the logarithm of the size, the nearest one's outside them.
#[derive(Clone, Debug)]
struct WriteGap {
    /// Writes' time over reads', by size.
    rho: Curve,
    /// The focal readFrac.
    r0: f64,
    /// The gap at the focal size ([`WriteGap::at`]).
    at_focal: f64,
}

impl WriteGap {
    /// A write's time beyond a read's at size `z`, for a request whose
    /// time at the focal readFrac is `t`.
    fn at(&self, z: f64, t: f64) -> f64 {
        self.at_axis(Param::SizeMean.axis(z), t)
    }

    /// [`WriteGap::at`], the size on the sizeMean curve's axis.
    fn at_axis(&self, x: f64, t: f64) -> f64 {
        let rho = self.rho.at_axis(x).0;
        t * (rho - 1.0) / (self.r0 + (1.0 - self.r0) * rho)
    }

    /// Region `k`'s, from its sizeMean and readFrac curves `size` and
    /// `read` and its sizeMean kind ends. `None` without them, or where
    /// writes are no slower at some size.
    fn of(p: &Profile, k: usize, size: &Curve, read: &Curve) -> Option<WriteGap> {
        let f = &p.regions[k].focal;
        let tp = |i: usize| p.points[i].throughput_bytes_per_sec;
        let rho: Vec<(f64, f64)> =
            std::iter::once((f.size_mean.0 as f64, read.at(1.0).0 / read.at(0.0).0))
                .chain(
                    p.size_kind_ends(k)
                        .into_iter()
                        .map(|(z, r, w)| (z as f64, tp(r) / tp(w))),
                )
                .collect();
        (rho.len() > 1 && rho.iter().all(|p| p.1 > 1.0)).then(|| {
            let mut gap = WriteGap {
                rho: Curve::new(Param::SizeMean, rho),
                r0: f.read_frac,
                at_focal: 0.0,
            };
            let zf = f.size_mean.0 as f64;
            let tf = zf * f64::from(f.process_num) / size.at(zf).0;
            gap.at_focal = gap.at(zf, tf);
            gap
        })
    }
}

/// Point `i`'s relative 95% interval, 0 where it has none.
fn ci_of(p: &Profile, i: usize) -> f64 {
    p.points[i].ci95_rel.unwrap_or(0.0)
}

/// [`ci_of`] the first of points `idx` whose workload `hit` holds, 0
/// where none does.
fn curve_ci(p: &Profile, idx: &[usize], hit: impl Fn(&Workload) -> bool) -> f64 {
    idx.iter()
        .find(|&&i| hit(&p.points[i].workload))
        .map_or(0.0, |&i| ci_of(p, i))
}

/// [`ci_of`] region `k`'s sizeMean curve's point at size `z`, 0 where the
/// curve has none.
fn size_curve_ci(p: &Profile, k: usize, z: u64) -> f64 {
    curve_ci(p, &p.regions[k].curves.size_mean, |w| w.size_mean.0 == z)
}

/// How a region's sizeMean curve changes with uniqueBytes
/// ([`Predictor::sizes_by_unique`]), from the points at the focal point
/// but for the uniqueBytes and the size ([`Profile::sizes_elsewhere`]):
/// at each uniqueBytes on the region's plateau ([`Profile::on_plateau`]:
/// its span without a cache's edge) where sizes below and above the focal
/// one were measured (the scaler's size ends at the plateau's ends,
/// `scaler::SIZE_ENDS`), the log of a size's gain there over the sizeMean
/// curve's, by size (0 at the focal size, interpolated in the log of the
/// size, the nearest one's outside; 0 where within the sum of the three
/// points' 95% intervals). Between them it is interpolated in the log of
/// uniqueBytes, from 0 at the focal uniqueBytes; beyond the farthest on a
/// workload's side there is none (1): there lie the drops, where a
/// cache's edge, not the plateau's gradual change, sets how sizes fare.
#[derive(Clone, Debug)]
struct SizeByUnique {
    /// The log of the focal uniqueBytes.
    x0: f64,
    /// Below and above it, nearest first: (log uniqueBytes, the log
    /// factor by size).
    sides: [Vec<(f64, Curve)>; 2],
}

impl SizeByUnique {
    /// Region `k`'s, its sizeMean curve `size` (throughput `at_focal` at
    /// the focal size), its focal point's reference `focal`; `None`
    /// without points elsewhere on its plateau.
    fn of(
        p: &Profile,
        k: usize,
        (size, at_focal): (&Curve, f64),
        focal: Option<FocalRef>,
    ) -> Option<SizeByUnique> {
        let f = &p.regions[k].focal;
        let (zf, fu) = (f.size_mean.0, f.unique_bytes.0);
        let straddles = |e: &SizesAt| {
            let (lo, hi) = (e.sizes.first(), e.sizes.last());
            p.on_plateau(k, e.unique_bytes)
                && lo.is_some_and(|z| z.0 < zf)
                && hi.is_some_and(|z| z.0 > zf)
        };
        let ci = |i: usize| ci_of(p, i);
        let on_curve = |z: u64| size_curve_ci(p, k, z);
        let at = |e: &SizesAt| {
            let i0 = e.focal_size?;
            let t0 = leveled(p, i0, focal);
            // Within the three measurements' noise, no change.
            let log_factor = |&(z, i): &(u64, usize)| {
                let here = leveled(p, i, focal) / t0;
                let there = size.at(z as f64).0 / at_focal;
                let l = (here / there).ln();
                let noise = ci(i) + ci(i0) + on_curve(z);
                (z as f64, if l.abs() > noise { l } else { 0.0 })
            };
            let pts = std::iter::once((zf as f64, 0.0))
                .chain(e.sizes.iter().map(log_factor))
                .collect();
            Some((
                (e.unique_bytes as f64).ln(),
                Curve::new(Param::SizeMean, pts),
            ))
        };
        let all: Vec<SizesAt> = p.sizes_elsewhere(k).into_iter().filter(straddles).collect();
        // sizes_elsewhere is by uniqueBytes.
        let below = all.iter().rev().filter(|e| e.unique_bytes < fu);
        let above = all.iter().filter(|e| e.unique_bytes > fu);
        let sides = [
            below.filter_map(at).collect(),
            above.filter_map(at).collect(),
        ];
        let x0 = (fu as f64).ln();
        (sides.iter().any(|s: &Vec<_>| !s.is_empty())).then_some(SizeByUnique { x0, sides })
    }

    /// The factor on the sizeMean curve's ratio for a size and a
    /// uniqueBytes given on the curves' axes (their logarithms).
    fn factor(&self, size_x: f64, x: f64) -> f64 {
        let d = (x - self.x0).abs();
        let mut before = (0.0, 0.0);
        for (xe, c) in &self.sides[usize::from(x > self.x0)] {
            let (de, l) = ((xe - self.x0).abs(), c.at_axis(size_x).0);
            if d <= de {
                let t = (d - before.0) / (de - before.0);
                return (before.1 + (l - before.1) * t).exp();
            }
            before = (de, l);
        }
        1.0
    }
}

/// How a region's sizeMean curve changes with the generators
/// ([`Predictor::sizes_by_generators`]), from the focal search's sizes at
/// another processNum `n1` ([`Profile::sizes_by_generators`]; one
/// generator): the log of a size's gain there over the sizeMean curve's,
/// by size (0 at the focal size, interpolated in the log of the size, the
/// nearest one's outside; 0 where within the sum of the points' 95%
/// intervals). The gain at `n1` is over the focal size's throughput there
/// interpolated between its neighbours, which were measured in the same
/// search (the processNum curve's point there was measured at another
/// time). A workload of `n` generators takes that log times
/// `ln(n / nf) / ln(n1 / nf)`, within -1 and 1: the change continues in
/// the log of the generators as far beyond the focal processNum as `n1`
/// lies on the other side, and no farther.
#[derive(Clone, Debug)]
struct SizeByGenerators {
    /// `ln(n1 / nf)`.
    ln_n1: f64,
    /// The focal processNum, `nf`.
    nf: f64,
    /// The log factor by size.
    log_factor: Curve,
}

impl SizeByGenerators {
    /// Region `k`'s, its sizeMean curve `size`, its focal point's
    /// reference `focal`.
    fn of(
        p: &Profile,
        k: usize,
        size: &Curve,
        focal: Option<FocalRef>,
    ) -> Option<SizeByGenerators> {
        let f = &p.regions[k].focal;
        let (n1, sizes) = p.sizes_by_generators(k)?;
        let zf = f.size_mean.0 as f64;
        let ci = |i: usize| ci_of(p, i);
        let on_curve = |z: u64| size_curve_ci(p, k, z);
        let at_n1 = |&(z, i): &(u64, usize)| (z as f64, leveled(p, i, focal));
        let t1f = Curve::new(Param::SizeMean, sizes.iter().map(at_n1).collect())
            .at(zf)
            .0;
        // The two points the focal size's throughput at `n1` lies between.
        let j = sizes.partition_point(|s| (s.0 as f64) < zf);
        let ci1f = ci(sizes[j - 1].1).max(ci(sizes[j].1));
        let at_focal = size.at(zf).0;
        let log_factor = |e: &(u64, usize)| {
            let (z, t) = at_n1(e);
            let l = (t / t1f / (size.at(z).0 / at_focal)).ln();
            let noise = ci(e.1) + ci1f + on_curve(e.0);
            (z, if l.abs() > noise { l } else { 0.0 })
        };
        let pts = std::iter::once((zf, 0.0))
            .chain(sizes.iter().map(log_factor))
            .collect();
        let nf = f64::from(f.process_num);
        Some(SizeByGenerators {
            ln_n1: (f64::from(n1) / nf).ln(),
            nf,
            log_factor: Curve::new(Param::SizeMean, pts),
        })
    }

    /// The factor on the sizeMean curve's ratio for a size given on the
    /// curve's axis and `n` generators.
    fn factor(&self, size_x: f64, n: f64) -> f64 {
        let e = ((n / self.nf).ln() / self.ln_n1).clamp(-1.0, 1.0);
        (self.log_factor.at_axis(size_x).0 * e).exp()
    }
}

/// How a region's readFrac curve changes with the generators
/// ([`Predictor::reads_by_generators`]), from its points of all reads and
/// all writes at the processNum curve's most generators `nm`
/// ([`Profile::reads_by_generators`]): at each end, the log of its gain
/// from the focal processNum `nf` to `nm` over the focal readFrac's gain
/// there (the readFrac curve's end and the processNum curve's point at
/// `nm`; 0 where within the sum of the four points' 95% intervals),
/// interpolated in readFrac through 0 at the focal readFrac. A workload of
/// `n` generators takes that log times `ln(n / nf) / ln(nm / nf)`, within
/// 0 and 1: only where more generators than the focal point's share the
/// CPUs.
#[derive(Clone, Debug)]
struct ReadByGenerators {
    /// `ln(nm / nf)`.
    ln_nm: f64,
    /// The focal processNum, `nf`.
    nf: f64,
    /// The log factor by readFrac.
    log_factor: Curve,
}

impl ReadByGenerators {
    /// Region `k`'s, its readFrac and processNum curves `read` and
    /// `procs`, its focal point's reference `focal`.
    fn of(
        p: &Profile,
        k: usize,
        (read, procs): (&Curve, &Curve),
        focal: Option<FocalRef>,
    ) -> Option<ReadByGenerators> {
        let r = &p.regions[k];
        let f = &r.focal;
        let (nm, ir, iw) = p.reads_by_generators(k)?;
        let (nf, nm) = (f64::from(f.process_num), f64::from(nm));
        if nm <= nf {
            return None;
        }
        let gain = procs.at(nm).0 / procs.at(nf).0;
        let ci_gain = curve_ci(p, &r.curves.process_num, |w| f64::from(w.process_num) == nm);
        let end = |v: f64, i: usize| {
            let l = (leveled(p, i, focal) / read.at(v).0 / gain).ln();
            let noise =
                ci_of(p, i) + ci_gain + curve_ci(p, &r.curves.read_frac, |w| w.read_frac == v);
            (v, if l.abs() > noise { l } else { 0.0 })
        };
        let pts = vec![end(0.0, iw), (f.read_frac, 0.0), end(1.0, ir)];
        Some(ReadByGenerators {
            ln_nm: (nm / nf).ln(),
            nf,
            log_factor: Curve::new(Param::ReadFrac, pts),
        })
    }

    /// The factor on the readFrac curve's ratio for readFrac `r` and `n`
    /// generators.
    fn factor(&self, r: f64, n: f64) -> f64 {
        let e = ((n / self.nf).ln() / self.ln_nm).clamp(0.0, 1.0);
        (self.log_factor.at(r).0 * e).exp()
    }
}

impl RegionModel {
    /// Whether `next` begins where this region ends: the two parts of a
    /// region cut where it kept falling, with no drop between them.
    fn touches(&self, next: &RegionModel) -> bool {
        self.to >= next.from
    }

    /// Profile `p`'s region `k`, with its four curves, its own uniqueBytes
    /// curve if any, the profile's, and its focal point's reference.
    fn new(
        p: &Profile,
        k: usize,
        curves: [Curve; 4],
        (own, unique): (Option<Curve>, &Curve),
        focal: Option<FocalRef>,
    ) -> RegionModel {
        let r = &p.regions[k];
        let lists = r.curves.through_focal();
        let points = || lists.iter().flat_map(|idx| idx.iter());
        let tp = |i: usize| p.points[i].throughput_bytes_per_sec;
        let fu = r.focal.unique_bytes.0 as f64;
        RegionModel {
            from: r.from_unique_bytes as f64,
            to: r.to_unique_bytes as f64,
            focal: r.focal.clone(),
            at_focal: std::array::from_fn(|j| curves[j].at(REGION_PARAMS[j].of(&r.focal)).0),
            unique_at_focal: (own.as_ref().unwrap_or(unique).at(fu).0, unique.at(fu).0),
            unique: own,
            kinds: Kinds::of(&curves[1], &r.focal),
            seeks: curves[2].saves_seeks(),
            writes_busy: busy_where_least(p, lists[1], |w| w.read_frac),
            writes_cpu: cpu_where_least(p, lists[1], |w| w.read_frac),
            most_busy: busy_where_least(p, lists[3], |w| -f64::from(w.process_num)),
            busy: busy_curve(p, lists[3]),
            gap: WriteGap::of(p, k, &curves[0], &curves[1]),
            falls_at_write_cache: false,
            size_by_unique: SizeByUnique::of(
                p,
                k,
                (&curves[0], curves[0].at(r.focal.size_mean.0 as f64).0),
                focal,
            ),
            size_by_generators: (k > 0 && k + 1 < p.regions.len())
                .then(|| SizeByGenerators::of(p, k, &curves[0], focal))
                .flatten(),
            read_by_generators: (k + 1 < p.regions.len())
                .then(|| ReadByGenerators::of(p, k, (&curves[1], &curves[3]), focal))
                .flatten(),
            curves,
            // The size kind ends too: all reads at the largest size is
            // often the region's fastest point (step 32).
            peak: points()
                .copied()
                .chain(p.size_kind_ends(k).into_iter().flat_map(|(_, r, w)| [r, w]))
                .map(|i| capacity(p, i))
                .fold(0.0, f64::max),
            measured_peak: points().map(|&i| tp(i)).fold(0.0, f64::max),
        }
    }
}

const REGION_PARAMS: [Param; 4] = [
    Param::SizeMean,
    Param::ReadFrac,
    Param::SeqFrac,
    Param::ProcessNum,
];

pub use willy::doc::prediction::Prediction;

/// Why a workload cannot be predicted.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum PredictError {
    /// The profile cannot be used for prediction.
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// The workload is not valid, or far outside the profile.
    #[error("{0}")]
    Workload(String),
}

/// processNum's loss is read as lost sequentiality only where the focal
/// point's sequential requests are worth at least this much, as the
/// throughput at the focal seqFrac over that at seqFrac 0: there seeking
/// is what the device spends its time on. Where seqFrac changes little, a
/// small loss would map to a large change of seqFrac, inside the curve's
/// own noise (docs/PREDICTION.md gives the presets on either side).
const SEQUENTIAL_WORTH: f64 = 1.25;

/// A processNum curve whose last step gains less than this per doubling
/// of the generators shows a saturated resource
/// ([`Predictor::saturated_peak`]): the factor by which the scaler stops
/// growing a curve ([`willy::doc::profile::IMPROVES`]). On this machine
/// (docs/runs/2026-11-24h) the disk region's curve went from 3.1 GB/s
/// with four generators to 3.3 with sixteen, the device busy all the
/// time at both.
pub const SATURATED: f64 = willy::doc::profile::IMPROVES;

/// Reads and writes count as served by different resources where the
/// readFrac curve's ends (all writes, all reads) differ at least this much
/// (write-through: 15x in its cache region; a write-back cache's: 1.03x).
const SERVED_APART: f64 = 2.0;

/// The least the reads' time at a uniqueBytes can be of the focal point's
/// ([`Predictor::unique_ratio`]): where the uniqueBytes curve gains
/// more than the reads' share of the focal point's time could give, the
/// writes' share was overestimated. The same for the writes' time, past a
/// write cache inside a cache region.
const MIN_READ_TIME: f64 = 0.05;

/// A region's uniqueBytes curve falls at a write cache inside it where,
/// between the cache's size and the region's end, it loses at least
/// [`WRITE_CACHE_DROP`] at a log-log slope below this: a drop, as the
/// scaler has them (`curve::STEEP_SLOPE` and `curve::MIN_DROP`).
/// sim:split-cache's first region loses 1.96x at -1.6 past its 4 MiB write
/// cache; this machine's middle regions at most 1.23x at -0.3, or 1.10x at
/// -0.55 over the last 19 MiB of one, past the 32-360 MiB its write probes
/// found: the CPUs' caches, not the write limit, shape them
/// ([`Predictor::unique_on_writes_past_a_write_cache`]).
const WRITE_CACHE_FALL: f64 = -0.5;

/// See [`WRITE_CACHE_FALL`].
const WRITE_CACHE_DROP: f64 = 1.25;

/// The least busy fraction of the device, with all writes, at which a
/// region's writes wait for it ([`Predictor::apart_in`]): sim:write-through's
/// cache region 0.93, sim:split-cache's second region 0.88; this machine's
/// region beyond a 115 MiB write limit, under its 1 GiB cgroup, 0 (the
/// page cache still took the writes, 2.1 GB/s against 5.0 for reads, and
/// served apart there the region went from 12.7% to 30.3%).
const WRITES_WAIT: f64 = 0.5;

/// [`Predictor::size_on_reads_in_last_region`] applies where the readFrac
/// curve's all-writes point kept its generators on a CPU less than this
/// share of the time: the writes waited for the device (sim:split-cache's
/// last region 0.11). Where they copy into a page cache that takes them
/// faster than the device could (this machine's last regions, 0.86-0.95
/// with one generator), their time follows the request's size as reads'
/// does.
const WRITES_COPY: f64 = 0.5;

/// The least share of the CPUs busy at which they count as full
/// ([`Predictor::cpus_fill_first`]): on this machine the cache region's
/// processNum curve keeps 1.98-2.00 of its 2 CPUs busy from two
/// generators on; sim:sparc1990's, whose generators wait for its memory
/// copies, at most 0.9 of one.
const CPUS_FULL: f64 = 0.95;

/// The least busy fraction of the device, at the last region's all-writes
/// point, at which writing back what a write-back cache evicts counts as
/// saturating it ([`Predictor::writes_reach_the_device`]): this machine's
/// 0.96-1.00 in each of the fifteen runs of docs/runs/2026-11-26g to
/// -27e, where the point wrote 2.3-3.8 GB/s; sim:ssd's 0.16 and sim:raid0's
/// 0.54, whose devices serve several requests at once, and sim:sparc1990's
/// 0.88 did not measure what the device takes.
const WRITES_SATURATE: f64 = 0.95;

/// The least busy fraction of the device at which it counts as saturated
/// ([`Predictor::device_saturated_peak`]): `/proc/diskstats`' io_ticks
/// give 1.00 on this machine where the disk region's processNum curve
/// ends (sixteen generators) in every run that recorded them.
pub const DEVICE_FULL: f64 = 0.99;

/// The prediction of throughput `tp` for `w`: its requests per second and
/// mean response time follow (Little's law over its generators), in region
/// 0, nothing extrapolated.
pub(crate) fn of_throughput(w: &Workload, tp: f64) -> Prediction {
    let iops = tp / w.effective_size_mean();
    let response = f64::from(w.process_num) / iops - w.cpu_think.0.as_secs_f64();
    Prediction {
        predicted_throughput_bytes_per_sec: tp,
        predicted_iops: iops,
        predicted_mean_response_secs: response.max(0.0),
        region: 0,
        extrapolated: Vec::new(),
        near_border: false,
    }
}

/// Keeps a prediction's region and flags with another throughput.
pub(crate) trait WithThroughput {
    fn with_throughput(self, w: &Workload, tp: f64) -> Prediction;
}

impl WithThroughput for Prediction {
    /// This prediction's region, extrapolated parameters and border flag,
    /// with throughput `tp` for `w` (and what follows from it).
    fn with_throughput(self, w: &Workload, tp: f64) -> Prediction {
        Prediction {
            region: self.region,
            extrapolated: self.extrapolated,
            near_border: self.near_border,
            ..of_throughput(w, tp)
        }
    }
}

/// A profile made ready for prediction.
#[derive(Clone, Debug)]
pub struct Predictor {
    unique: Curve,
    regions: Vec<RegionModel>,
    ranges: crate::profile::Ranges,
    /// Parameters whose effects add as time per request instead of
    /// multiplying throughput (none in Chen's model).
    additive: Vec<Param>,
    /// Whether the regions before the last are bounded by their peak
    /// (not in Chen's model).
    bounded: bool,
    /// For each region, whether its predictions are bounded by the region
    /// before's (not in Chen's model;
    /// [`Predictor::no_faster_than_the_region_before`]); empty when none is.
    below_before: Vec<bool>,
    /// With processNum's loss in the last region read as sequentiality
    /// lost to interleaving (not in Chen's model): for 1 to the profile's
    /// most generators, what [`Predictor::interleaving`] gives, computed
    /// once. Empty otherwise.
    interleaved: Vec<(f64, f64)>,
    /// The same where [`Predictor::overlapping_in_last_region`] applies:
    /// of the focal point's gain what the CPUs and the device working at
    /// once do not explain. Empty otherwise.
    interleaved_cpu: Vec<(f64, f64)>,
    /// Whether regions before the last whose reads and writes are served
    /// apart mix them as time (not in Chen's model).
    apart: bool,
    /// Per region served apart with one generator at its focal point
    /// ([`Predictor::queued_where_served_apart`]): for 0 to the profile's
    /// most generators, what [`Kinds::queued`] gives. Empty otherwise.
    apart_queued: Vec<Vec<Queued>>,
    /// The profile's CPUs.
    cores: f64,
    /// The largest cache the write probe found (writes return before the
    /// storage has them), bytes; 0 without one.
    write_cache: f64,
    /// Whether the CPUs and the device are two stations in the last
    /// region (not in Chen's model; [`Predictor::overlapping_in_last_region`]).
    overlapping: bool,
    /// The CPU time per request the profile measured, `a + b·size`
    /// seconds fitted to the last region's sizeMean curve, and the CPUs;
    /// `None` without CPU times.
    cpu_measured: Option<CpuDemand>,
    /// The cache whose shares the `willy` model composes
    /// ([`read_cache`]), bytes; 0 without one.
    share_cache: f64,
    /// Whether, in every region but the last, processNum between two
    /// measured points is the CPUs busy times the throughput per busy CPU
    /// (not in Chen's model; [`Predictor::cpus_fill_first`]).
    cpus_first: bool,
    /// Whether, in every region but the last whose reads and writes are
    /// not served apart, readFrac changes time per request by a write's
    /// extra time at the request's size (not in Chen's model;
    /// [`Predictor::writes_by_size`]).
    by_size: bool,
    /// Whether, in every region but the last, the sizeMean curve's ratio
    /// changes with uniqueBytes as measured elsewhere (not in Chen's
    /// model; [`Predictor::sizes_by_unique`]).
    size_unique: bool,
    /// Whether [`Predictor::sizes_by_generators`] applies.
    size_procs: bool,
    /// Whether [`Predictor::reads_by_generators`] applies.
    read_procs: bool,
    /// Whether [`Predictor::unique_on_reads_in_last_region`] applies.
    unique_reads: bool,
    /// Whether [`Predictor::size_on_reads_in_last_region`] applies.
    size_reads: bool,
    /// Whether [`Predictor::unique_on_reads_past_the_read_cache`] applies.
    unique_reads_past: bool,
}

/// CPU time per request, `fixed + per_byte·size` seconds, on `cores` CPUs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuDemand {
    /// Seconds per request.
    pub fixed: f64,
    /// Seconds per byte.
    pub per_byte: f64,
    /// CPUs.
    pub cores: f64,
}

impl CpuDemand {
    /// The least-squares line through (request size, CPU seconds per
    /// request) pairs, neither coefficient below zero; `None` with fewer
    /// than two sizes.
    pub fn fit(points: &[(f64, f64)], cores: f64) -> Option<CpuDemand> {
        let (mx, my, slope) = least_squares(points)?;
        let mut per_byte = slope.max(0.0);
        let mut fixed = my - per_byte * mx;
        if fixed < 0.0 {
            // Through the origin instead.
            fixed = 0.0;
            let sx2: f64 = points.iter().map(|&(x, _)| x * x).sum();
            per_byte = points.iter().map(|&(x, y)| x * y).sum::<f64>() / sx2;
        }
        (per_byte.is_finite() && fixed.is_finite()).then_some(CpuDemand {
            fixed,
            per_byte: per_byte.max(0.0),
            cores: cores.max(1.0),
        })
    }

    /// The fit to the CPU time per request of `p`'s last region's
    /// sizeMean curve, on the profile's CPUs; `None` where a point of it
    /// has no CPU time (profiles before version 6).
    pub fn of_last_region(p: &Profile) -> Option<CpuDemand> {
        let r = p.regions.last()?;
        let pairs: Option<Vec<(f64, f64)>> = r
            .curves
            .size_mean
            .iter()
            .map(|&i| {
                let pt = &p.points[i];
                let z = pt.workload.effective_size_mean();
                // CPU seconds per second over requests per second.
                Some((z, pt.cpu_cores_busy? * z / pt.throughput_bytes_per_sec))
            })
            .collect();
        CpuDemand::fit(&pairs?, p.system.cpus as f64)
    }

    /// Seconds of CPU for a request of `size` bytes.
    pub fn at(&self, size: f64) -> f64 {
        self.fixed + self.per_byte * size
    }
}

/// Throughput of `n` generators over that of one, by exact mean value
/// analysis ([`crate::mva::throughput`]) of the CPUs (`cores` of them)
/// and a device, with demands `dc` and `dd` seconds per request. No more
/// than `n`, no more than the busier station allows.
pub fn overlap_gain(dc: f64, dd: f64, n: u32, cores: f64) -> f64 {
    let one = dc + dd;
    if one <= 0.0 {
        return 1.0;
    }
    crate::mva::throughput(n.max(1) as usize, dc, cores, |_| dd) * one
}

impl Predictor {
    /// Checks that `p` has what prediction needs: a uniqueBytes curve, and
    /// in each region four non-empty curves of positive throughputs.
    pub fn new(p: &Profile) -> Result<Predictor, PredictError> {
        p.validate()?;
        let bad = |msg: String| {
            PredictError::Profile(ProfileError::Invalid {
                what: "profile",
                msg,
            })
        };
        let tp = |i: usize| p.points[i].throughput_bytes_per_sec;
        let positive = |what: &str, idx: &[usize]| -> Result<(), PredictError> {
            if idx.is_empty() {
                return Err(bad(format!("{what} has no points")));
            }
            match idx.iter().find(|&&i| !(tp(i).is_finite() && tp(i) > 0.0)) {
                Some(&i) => Err(bad(format!(
                    "{what}: point {i} has throughput {}, not a positive number",
                    tp(i)
                ))),
                None => Ok(()),
            }
        };
        positive("the uniqueBytes curve", &p.unique_bytes_curve)?;
        let unique = curve_of(p, Param::UniqueBytes, &p.unique_bytes_curve, None);
        let mut regions = Vec::new();
        for (k, r) in p.regions.iter().enumerate() {
            let c = &r.curves;
            let lists = c.through_focal();
            for (param, idx) in REGION_PARAMS.iter().zip(lists) {
                positive(&format!("region {k}'s {} curve", param.name()), idx)?;
            }
            let levels = p.focal_levels(k);
            let focal = p
                .focal_throughput(k)
                .map(|x| (&r.focal, x, levels.as_slice()));
            let sizes = beyond_the_ends(p, &r.focal, lists[0]);
            let lists = [&sizes, lists[1], lists[2], lists[3]];
            let curves = std::array::from_fn(|j| curve_of(p, REGION_PARAMS[j], lists[j], focal));
            let own = (!c.unique_bytes.is_empty())
                .then(|| {
                    positive(&format!("region {k}'s uniqueBytes curve"), &c.unique_bytes)
                        .map(|_| curve_of(p, Param::UniqueBytes, &c.unique_bytes, focal))
                })
                .transpose()?;
            regions.push(RegionModel::new(p, k, curves, (own, &unique), focal));
        }
        Ok(Predictor {
            unique,
            regions,
            ranges: p.ranges.clone(),
            additive: Vec::new(),
            bounded: false,
            below_before: Vec::new(),
            interleaved: Vec::new(),
            interleaved_cpu: Vec::new(),
            apart: false,
            apart_queued: Vec::new(),
            cores: (p.system.cpus as f64).max(1.0),
            write_cache: write_cache(p),
            overlapping: false,
            cpu_measured: CpuDemand::of_last_region(p),
            share_cache: read_cache(p).unwrap_or(0.0),
            cpus_first: false,
            by_size: false,
            size_unique: false,
            size_procs: false,
            read_procs: false,
            unique_reads: false,
            size_reads: false,
            unique_reads_past: false,
        })
    }

    /// The same, with readFrac's effect in every region but the last whose
    /// reads and writes are not served apart taken as time per request:
    /// a workload of size `z` and readFrac `r` takes the sizeMean curve's
    /// time at `z` plus the readFrac curve's change of time from the focal
    /// readFrac to `r`, scaled by a write's extra time at `z` over the
    /// focal size's ([`WriteGap`]).
    pub fn writes_by_size(mut self) -> Predictor {
        self.by_size = true;
        self
    }

    /// The same, with the sizeMean curve's ratio in every region but the
    /// last changed by how it changes with uniqueBytes ([`SizeByUnique`]):
    /// on this machine's cache region (4 generators, 1 MiB to 123 MiB)
    /// 2 MiB requests ran as fast as 16 KiB ones at 1 MiB, 1.56 times as
    /// fast at the focal 11 MiB, 2.13 times at 123 MiB (docs/PREDICTION.md,
    /// step 18).
    pub fn sizes_by_unique(mut self) -> Predictor {
        self.size_unique = true;
        self
    }

    /// The same, with the sizeMean curve's ratio in every region but the
    /// first and the last changed by how it changes with the generators
    /// ([`SizeByGenerators`]): on this machine's middle region (139 MiB,
    /// half reads), nine generators ran 0.93 times as fast as three with
    /// 32 KiB requests, 0.88 with 568 KiB, 0.82 with 7 MiB
    /// (docs/PREDICTION.md, step 20).
    pub fn sizes_by_generators(mut self) -> Predictor {
        self.size_procs = true;
        self
    }

    /// The same, with the readFrac curve's ratio in every region but the
    /// last changed by how it changes with the generators
    /// ([`ReadByGenerators`]): on this machine's cache region (32 KiB
    /// over 9 MiB) sixteen generators ran 1.54 times as fast as four with
    /// writes alone, 1.40 with half reads, 1.11 with reads alone
    /// (docs/PREDICTION.md, step 21).
    pub fn reads_by_generators(mut self) -> Predictor {
        self.read_procs = true;
        self
    }

    /// The same, with uniqueBytes's effect in the last region on reads'
    /// time alone, where the profile found a write cache smaller than its
    /// read cache and the last region lies beyond it: there every write
    /// reaches the device whatever the uniqueBytes (as in
    /// [`Predictor::writes_reach_the_device`]), and only reads hit the
    /// read cache more or less often. The uniqueBytes curve, measured at
    /// the focal readFrac, gives the reads' change of time once the
    /// writes' share of the focal point's time (from the readFrac curve's
    /// ends) is taken out; a workload's reads' share of its own time
    /// changes by that much ([`Predictor::unique_ratio`]).
    pub fn unique_on_reads_in_last_region(mut self) -> Predictor {
        self.unique_reads = true;
        self
    }

    /// The same, the other way round: in a region but the last whose focal
    /// point lies below a write cache smaller than the read cache, for a
    /// workload past the write cache but within the read cache, and where
    /// the region's uniqueBytes curve falls there ([`WRITE_CACHE_FALL`]),
    /// uniqueBytes changes the writes' time alone: every read still hits,
    /// and the writes reach the device more as the working set outgrows
    /// the write cache (sim:split-cache's first region, 1-6.2 MiB with a
    /// 4 MiB write cache: its 4-6.5 MiB workloads of 3-5 generators were
    /// predicted 41% low, those of under 30% reads 27% high).
    pub fn unique_on_writes_past_a_write_cache(mut self) -> Predictor {
        let falls: Vec<bool> = self
            .regions
            .iter()
            .map(|r| self.falls_at_write_cache(r))
            .collect();
        for (r, f) in self.regions.iter_mut().zip(falls) {
            r.falls_at_write_cache = f;
        }
        self
    }

    /// The same, [`Predictor::unique_on_reads_in_last_region`] also in a
    /// region but the last, for a workload past the read cache: there too
    /// every write reaches the device whatever the uniqueBytes, and only
    /// reads miss more as it grows (sim:split-cache's middle region, to
    /// 31 MiB, and its workloads of 35-55 MiB beyond its 34.8 MiB read
    /// cache: those of 8-39% reads were 17-30% under).
    pub fn unique_on_reads_past_the_read_cache(mut self) -> Predictor {
        self.unique_reads_past = true;
        self
    }

    /// The same, with sizeMean's and seqFrac's effect in the last region
    /// on the reads' time alone, where its writes go beyond a write cache
    /// (as for [`Predictor::unique_on_reads_in_last_region`]) and wait for
    /// the device: the readFrac curve's all-writes point kept its
    /// generators on a CPU less than [`WRITES_COPY`] of the time. There a
    /// byte written costs what the device takes to write it back, whatever
    /// the request's size, and a read pays the seeks. Time per byte
    /// mixes the two kinds, with what interleaving them costs beyond the
    /// mixture (from the readFrac curve) in proportion to the reads' time
    /// ([`Predictor::reads_carry_size`]): sim:split-cache beyond its 4
    /// MiB write cache wrote 2.4-3.0 MB/s from 8 KiB to 680 KiB requests
    /// and read 0.70-2.9 MB/s.
    pub fn size_on_reads_in_last_region(mut self) -> Predictor {
        self.size_reads = true;
        self
    }

    /// [`Predictor::size_on_reads_in_last_region`]'s ratio for `w` in
    /// region `r`, in place of the readFrac curve's ratio and the ratio the
    /// additive parameters give (`tau_size`: the time per byte they give
    /// at the focal readFrac, at `w`'s size and seqFrac); `None` where it
    /// does not apply. Per byte, writes take `t_w` (the readFrac curve at
    /// 0) and reads `t_r(z)`; interleaving them adds `P(r)·t_r(z)/t_r0`,
    /// with `P(r)` what the readFrac curve's time at `r` has beyond the
    /// mixture of its ends and `t_r0` the reads' time at the focal size.
    /// The sizeMean curve, at the focal readFrac `r0`, gives `t_r(z)`; the
    /// readFrac curve at the focal size and the sizeMean curve at `r0`
    /// stay exact.
    fn reads_carry_size(
        &self,
        r: &RegionModel,
        w: &Workload,
        last: bool,
        tau_size: f64,
    ) -> Option<f64> {
        if !(last && self.size_reads && tau_size > 0.0)
            || self.writes_beyond(r) != Some(WritesBeyond::WriteCache)
        {
            return None;
        }
        let tau = self.interleaved(r)?.at(tau_size, w.read_frac)?;
        let at_w = r.curves[1].at(w.read_frac).0;
        Some(1.0 / tau / r.at_focal[0] / (at_w / r.at_focal[1]))
    }

    /// Region `r`'s reads and writes as [`Interleaved`], where
    /// [`Predictor::size_on_reads_in_last_region`] applies and the
    /// readFrac curve's all-writes point kept its generators on a CPU
    /// less than [`WRITES_COPY`] of the time (its writes waited for the
    /// device).
    fn interleaved<'a>(&self, r: &'a RegionModel) -> Option<Interleaved<'a>> {
        let waits = r.writes_cpu.is_some_and(|c| c < WRITES_COPY);
        (self.size_reads && waits).then(|| Interleaved::of(r))
    }

    /// The uniqueBytes curve's ratio at `w`'s uniqueBytes (`x` on the
    /// curves' axis, where the profile's curve gives `at_u`) over the focal
    /// point's, in region `r` (the `last`, or not), as it applies to `w`
    /// ([`Predictor::unique_on_reads_in_last_region`]).
    fn unique_ratio(
        &self,
        r: &RegionModel,
        w: &Workload,
        (x, at_u): (f64, f64),
        last: bool,
    ) -> f64 {
        let unique = r.unique.as_ref().map_or(at_u, |c| c.at_axis(x).0) / r.unique_at_focal.0;
        let past_read = self.unique_reads_past && w.unique_bytes.0 as f64 > self.share_cache;
        let reads = (last || past_read)
            && self.unique_reads
            && self.writes_beyond(r) == Some(WritesBeyond::WriteCache);
        let writes = !last && r.falls_at_write_cache && self.past_the_write_cache(w);
        if !(reads || writes) {
            return unique;
        }
        let read = &r.curves[1];
        if let Some(tau) = self
            .interleaved(r)
            .filter(|_| reads && unique > 0.0)
            .and_then(|m| m.at(1.0 / r.at_focal[1] / unique, w.read_frac))
        {
            return 1.0 / read.at(w.read_frac).0 / tau;
        }
        // Time per byte of reads alone and of writes alone at the focal point.
        let (tr, tw) = (1.0 / read.at(1.0).0, 1.0 / read.at(0.0).0);
        // The share of a workload's time that the kind uniqueBytes changes takes.
        let share = |rf: f64| {
            let (reading, writing) = (rf * tr, (1.0 - rf) * tw);
            if reads {
                reading / (reading + writing)
            } else {
                writing / (reading + writing)
            }
        };
        let focal = share(r.focal.read_frac);
        if !(focal > 0.0 && unique > 0.0) {
            return unique;
        }
        // That kind's time at `w`'s uniqueBytes over the focal point's.
        let g = (1.0 + (1.0 / unique - 1.0) / focal).max(MIN_READ_TIME);
        let s = share(w.read_frac);
        1.0 / (s * g + 1.0 - s)
    }

    /// Whether `w` lies past the write cache and within the read cache.
    fn past_the_write_cache(&self, w: &Workload) -> bool {
        let u = w.unique_bytes.0 as f64;
        u > self.write_cache && u < self.share_cache
    }

    /// Whether region `r` holds a write cache smaller than the read cache
    /// above its focal point, at which its uniqueBytes curve falls
    /// ([`Predictor::unique_on_writes_past_a_write_cache`]).
    fn falls_at_write_cache(&self, r: &RegionModel) -> bool {
        let (wc, c) = (self.write_cache, self.share_cache);
        let fu = r.focal.unique_bytes.0 as f64;
        if !(wc > 0.0 && wc < c && fu < wc && wc < r.to) {
            return false;
        }
        let at = |v: f64| r.unique.as_ref().map_or(self.unique.at(v).0, |c| c.at(v).0);
        let drop = at(wc) / at(r.to);
        drop >= WRITE_CACHE_DROP && -drop.ln() / (r.to / wc).ln() < WRITE_CACHE_FALL
    }

    /// The factor on the readFrac curve's ratio for `w` in region `r`
    /// ([`Predictor::reads_by_generators`]).
    fn read_elsewhere(&self, r: &RegionModel, w: &Workload) -> f64 {
        r.read_by_generators
            .as_ref()
            .filter(|_| self.read_procs)
            .map_or(1.0, |g| g.factor(w.read_frac, f64::from(w.process_num)))
    }

    /// The factor on the sizeMean curve's ratio for `w` in region `r`, its
    /// size and uniqueBytes on the curves' axes: how a size's gain changes
    /// with uniqueBytes and the generators where measured there
    /// ([`Predictor::sizes_by_unique`], [`Predictor::sizes_by_generators`]).
    fn size_elsewhere(&self, r: &RegionModel, w: &Workload, x: f64, x_unique: f64) -> f64 {
        let f = r.size_by_unique.as_ref().filter(|_| self.size_unique);
        let g = r.size_by_generators.as_ref().filter(|_| self.size_procs);
        let n = f64::from(w.process_num);
        f.map_or(1.0, |f| f.factor(x, x_unique)) * g.map_or(1.0, |g| g.factor(x, n))
    }

    /// [`Predictor::writes_by_size`]'s readFrac ratio for `w` in region
    /// `r`, `t` the readFrac curve's throughput at its readFrac: where the
    /// region has a [`WriteGap`], the sizeMean curve's time per request at
    /// `w`'s size over that time changed by the readFrac curve's change,
    /// scaled by the gap at `w`'s size over the focal size's; the curve's
    /// ratio elsewhere, or where that time would not be positive. `(x,
    /// size_tp)`: `w`'s size on the sizeMean curve's axis, and that curve's
    /// throughput there.
    fn read_by_size(r: &RegionModel, w: &Workload, t: f64, (x, size_tp): (f64, f64)) -> f64 {
        let ratio = t / r.at_focal[1];
        let Some(gap) = &r.gap else {
            return ratio;
        };
        let (zf, nf) = (r.focal.size_mean.0 as f64, f64::from(r.focal.process_num));
        let tz = w.size_mean.0 as f64 * nf / size_tp;
        let change = zf * nf / t - zf * nf / r.at_focal[1];
        let tw = tz + change * gap.at_axis(x, tz) / gap.at_focal;
        if tw > 0.0 {
            tz / tw
        } else {
            ratio
        }
    }

    /// The same, with processNum between two points of a region's curve
    /// (every region but the last) taken apart into the CPUs busy and the
    /// throughput per busy CPU, where the points recorded their CPU time:
    /// `N` generators keep `min(b_a·N/N_a, b_b)` CPUs busy between points
    /// `a` and `b` (each as busy as at `a` until the CPUs measured at `b`
    /// are full), and the throughput per busy CPU is interpolated as the
    /// curve is; only where the CPUs do fill between the two, `a`
    /// keeping less than [`CPUS_FULL`] of them busy and `b` at least that
    /// (where both do, as on sim:sparc1990, whose one CPU is busy from
    /// one generator on, nothing fills between them). Where the CPUs fill between two
    /// measured points (the cache region's copies: two CPUs, a curve at
    /// one and four generators), interpolating the throughput itself puts
    /// two generators halfway, though they keep both CPUs busy.
    pub fn cpus_fill_first(mut self) -> Predictor {
        self.cpus_first = true;
        self
    }

    /// A processNum curve's points `busy` (generators, throughput, CPUs
    /// busy; by generators) at `n` generators by
    /// [`Predictor::cpus_fill_first`], where it applies: where the CPUs
    /// fill between the two points around `n`, the earlier keeping fewer
    /// than `full` of them busy and the later at least `full`.
    fn filled(busy: &[(f64, f64, f64)], n: f64, full: f64) -> Option<f64> {
        let j = busy.partition_point(|&(m, _, _)| m <= n);
        if j == 0 || j == busy.len() || busy[j - 1].0 == n {
            return None;
        }
        let ((na, xa, ba), (nb, xb, bb)) = (busy[j - 1], busy[j]);
        // Where the CPUs grow faster than the generators, the rule would
        // not meet the point at `b`: the curve as it is.
        if ba >= full || bb < full || ba <= 0.0 || ba * nb / na < bb {
            return None;
        }
        let f = (n.ln() - na.ln()) / (nb.ln() - na.ln());
        let per = xa / ba + f * (xb / bb - xa / ba);
        Some((ba * n / na).min(bb) * per)
    }

    /// The same, with `params`' effects in the last region (the disk's,
    /// or a system without a cache's only one) added as time per request
    /// instead of multiplied as throughput: there one device serves every
    /// request, and its costs add (`seek·(1 - seqFrac) + size / rate`).
    /// Where the sum would not be positive, the product is used. seqFrac
    /// adds only where sequential requests cost less: where its curve's
    /// time falls as seqFrac grows, what it saves is a seek, a cost per
    /// request. Elsewhere (this machine's disk region, whose random
    /// requests went faster than sequential ones; sim:ssd) its effect is
    /// not a seek, and subtracting it from a small request's time would
    /// leave almost nothing.
    pub fn additive_in_last_region(mut self, params: &[Param]) -> Predictor {
        self.additive = params.to_vec();
        self
    }

    /// The same, with every region but the last bounded by the most its
    /// curves' points and its size kind ends ([`Profile::size_kind_ends`];
    /// all reads of the largest size is often the region's fastest)
    /// could deliver with every CPU busy ([`capacity`]; scaled by its
    /// uniqueBytes curve to the workload's uniqueBytes):
    /// there one resource, the CPUs copying memory, gives both sizeMean's
    /// and processNum's gains, and their product must not go beyond what
    /// that resource can deliver (the bottleneck law).
    pub fn bounded_by_peak(mut self) -> Predictor {
        self.bounded = true;
        self
    }

    /// The same, with every region after the first bounded by what the
    /// region before predicts for the same workload at its focal
    /// uniqueBytes (where that region's product is on its own curves),
    /// where the uniqueBytes curve drops between the two ([`BORDER`]):
    /// more unique bytes never make a workload faster (fewer of its
    /// requests hit a cache, its seeks grow). A region's curves measured
    /// beyond a cache can carry gains that come from the cache, and the
    /// product multiplies them into workloads the cache cannot serve that
    /// fast: sim:raid0's disk-region processNum curve, at 2.9 GiB, rose
    /// from 45 MB/s with one generator to 5.4 GB/s with eight, whose
    /// 360 MiB shares fit the 1 GiB cache. The product predicted 27.9 GB/s
    /// for 11 generators of 508 KiB requests, 84% writes, over 1.36 GiB,
    /// which ran at 4.5 GB/s; the cache region gives 5.7 GB/s. On this
    /// machine (the afternoon profile of docs/runs/2026-11-24b), 3 MiB
    /// requests alike: 18.4 GB/s predicted, 3.4 measured, 5.9 now.
    pub fn no_faster_than_the_region_before(mut self) -> Predictor {
        // Where the uniqueBytes curve falls by at least BORDER from one
        // region's focal uniqueBytes to the next's: a cache serves the one
        // before, and it is the faster.
        let at = |r: &RegionModel| r.unique_at_focal.1;
        self.below_before = (0..self.regions.len())
            .map(|k| k > 0 && at(&self.regions[k - 1]) >= BORDER * at(&self.regions[k]))
            .collect();
        self
    }

    /// The same, with processNum's loss in the last region read as
    /// sequentiality lost: one device serves the generators' requests in
    /// turn, so a request continues the one before it less often than its
    /// generator's seqFrac says. The processNum curve measured at the
    /// focal seqFrac `s0` gives, through the seqFrac curve, the seqFrac
    /// `s'` that costs as much; a workload's seqFrac is then taken as
    /// `seqFrac·s'/s0`, and only what that does not explain stays a
    /// processNum ratio. A workload with no sequential requests loses
    /// nothing to interleaving, one with many loses most.
    pub fn interleaved_in_last_region(mut self) -> Predictor {
        if let Some(r) = self.regions.last() {
            let most = self.ranges.process_num[1].clamp(1, 4096);
            self.interleaved = (0..=most)
                .map(|n| Self::interleaving(r, f64::from(n.max(1)), 1.0))
                .collect();
            if self.cpu().is_some() {
                self.interleaved_cpu = (0..=most)
                    .map(|n| {
                        let n = n.max(1);
                        Self::interleaving(r, f64::from(n), self.focal_overlap(r, n))
                    })
                    .collect();
            }
        }
        self
    }

    /// The same, with the CPUs and the device as two stations of a closed
    /// network in the last region, where the profile measured CPU time
    /// per request and the focal point has one generator: there a
    /// generator's request copies on a CPU while another's is on the
    /// device, a gain that grows with the CPU's share of a request. The
    /// processNum curve's gain at the focal point is divided by what mean
    /// value analysis ([`overlap_gain`]) gives there, and a workload's
    /// own gain multiplies what remains; its device demand is its time
    /// per request with one generator less its CPU time. Only where no
    /// generator's share fits the read cache (else the shares decide,
    /// see the `willy` model).
    pub fn overlapping_in_last_region(mut self) -> Predictor {
        self.overlapping = true;
        if !self.interleaved.is_empty() {
            self = self.interleaved_in_last_region();
        }
        self
    }

    /// The CPU time per request the profile measured in its last region
    /// (a line in the request size), if it did.
    pub fn measured_cpu_demand(&self) -> Option<CpuDemand> {
        self.cpu_measured
    }

    /// The CPU time per request where the CPUs and the device overlap.
    fn cpu(&self) -> Option<CpuDemand> {
        self.cpu_measured.filter(|_| self.overlapping)
    }

    /// For `w` in region `r` (`last` or not): the share of its
    /// sequential requests that stay sequential and processNum's remaining
    /// ratio ([`Predictor::interleaved_in_last_region`]; NaN where it does
    /// not apply), and where the CPUs and the device overlap
    /// ([`Predictor::overlapping_in_last_region`]) the focal point's gain
    /// and `w`'s that the overlap explains (else 1 and 1).
    fn processes(&self, r: &RegionModel, w: &Workload, last: bool) -> (f64, f64, f64, f64) {
        let n = w.process_num;
        let cpu = last && self.overlaps(r, w);
        let (table, overlap) = if cpu {
            (&self.interleaved_cpu, self.focal_overlap(r, n))
        } else {
            (&self.interleaved, 1.0)
        };
        let (keep, procs) = match table.get(n as usize) {
            _ if !last || self.interleaved.is_empty() => (1.0, f64::NAN),
            Some(&v) => v,
            None => Self::interleaving(r, f64::from(n), overlap),
        };
        let gain = if cpu { self.workload_overlap(w) } else { 1.0 };
        (keep, procs, overlap, gain)
    }

    /// Whether [`Predictor::overlapping_in_last_region`] applies to `w`
    /// in the last region `r`: CPU time measured, one generator at the
    /// focal point, more than one in `w`, and no share of `w` fits the
    /// read cache ([`read_cache`]).
    fn overlaps(&self, r: &RegionModel, w: &Workload) -> bool {
        let n = w.process_num;
        self.cpu().is_some()
            && r.focal.process_num == 1
            && n > 1
            && w.unique_bytes.0 as f64 / f64::from(n) > self.share_cache
    }

    /// [`overlap_gain`] for `n` generators at region `r`'s focal point
    /// (1 without CPU time measured).
    fn focal_overlap(&self, r: &RegionModel, n: u32) -> f64 {
        let Some(cpu) = self.cpu() else {
            return 1.0;
        };
        let z = r.focal.effective_size_mean();
        let dc = cpu.at(z);
        let dd = (z / r.curves[3].at(1.0).0 - dc).max(0.0);
        overlap_gain(dc, dd, n, cpu.cores)
    }

    /// The same, with reads and writes mixed as time in every region but
    /// the last where they are served apart: no cache holds the region's
    /// writes (the write probe found none, or one smaller than the
    /// region's focal uniqueBytes), they keep the device busy
    /// (`WRITES_WAIT`, where recorded), and the readFrac curve's ends
    /// differ at least [`SERVED_APART`] times. That is a write-through cache, or
    /// a write cache overflowing beneath a larger read cache: a read hits
    /// memory, a write waits for the disk, and the two add as time per
    /// request. The time at the workload's readFrac is the readFrac
    /// curve's; sizeMean and seqFrac change it through each kind's own
    /// time, weighted by that kind's share of the requests. A request of
    /// the fast kind costs its time at the curve's end scaled by its size
    /// (a copy); the slow kind's time is what the sizeMean and seqFrac
    /// curves' times leave once the fast kind's share is taken out, their
    /// changes added (one device's costs). processNum and uniqueBytes
    /// still multiply.
    pub fn mixed_where_served_apart(mut self) -> Predictor {
        self.apart = true;
        self
    }

    /// Whether [`Predictor::mixed_where_served_apart`] applies in region
    /// `k`: not the last, its focal uniqueBytes more than any write cache
    /// holds, and with all writes the device busy at least
    /// [`WRITES_WAIT`] of the time, where the profile recorded it.
    fn apart_in(&self, k: usize) -> bool {
        let r = &self.regions[k];
        self.apart
            && !self.is_last(k)
            && r.focal.unique_bytes.0 as f64 > self.write_cache
            && r.writes_busy.is_none_or(|b| b >= WRITES_WAIT)
    }

    /// [`Predictor::mixed_where_served_apart`]'s throughput for `w`'s
    /// sizeMean, readFrac and seqFrac in region `r`, at its focal processNum
    /// and uniqueBytes; `None` where reads and writes are not served apart.
    fn served_apart(r: &RegionModel, w: &Workload) -> Option<f64> {
        let (fast, slow) = Self::apart_times(r, w, w.seq_frac)?;
        let z = w.size_mean.0 as f64;
        Some(z * f64::from(r.focal.process_num) / (fast + slow))
    }

    /// The fast and the slow kind's shares of [`Predictor::served_apart`]'s
    /// time per request for `w`, its seqFrac taken as `seq_frac`: the fast
    /// kind's share of the requests times its time, and the rest.
    fn apart_times(r: &RegionModel, w: &Workload, seq_frac: f64) -> Option<(f64, f64)> {
        let [size, read, seq, _] = &r.curves;
        let k = r.kinds.as_ref()?;
        let (z0, nf) = (k.z0, k.nf);
        let share = k.share(w);
        let z = w.size_mean.0 as f64;
        let at_focal = k.slow(r.at_focal[0], z0);
        let d_slow = k.slow(size.at(z).0, z) + k.slow(seq.at(seq_frac).0, z0) - 2.0 * at_focal;
        let t = z0 * nf / read.at_as_time(w.read_frac)
            + share * (k.fast(z) - k.fast(z0))
            + (1.0 - share) * d_slow;
        let fast = share * k.fast(z);
        (t > 0.0 && at_focal + d_slow > 0.0).then_some((fast, t - fast))
    }

    /// The same with generators queued: where reads and writes are served
    /// apart and the focal point has one generator, every request copies
    /// on the CPUs (the CPU time per request the profile measured, else
    /// the fast kind's time) and the slow kind also waits for one device:
    /// two stations that `n` generators share, as fast as their
    /// asymptotic bound ([`crate::mva::bound`]; with mean value analysis
    /// instead, sim:write-through's two-generator workloads were 7.8% and
    /// 10.8% off, not 6.8% and 8.2%). Their requests reach the device in
    /// turn, so a request continues the one before it less often than its
    /// generator's seqFrac says: the processNum curve's ratio at the focal
    /// point gives the share of seqFrac kept (as
    /// `Predictor::interleaving` does from the device's own curves). A
    /// loss beyond all of it is device time that each slow request takes
    /// beyond its time alone (the generators' files lie apart); a gain
    /// beyond the bound stays a ratio. On sim:write-through, two
    /// generators of 4 KiB requests, 2% reads, 92% sequential, over
    /// 4.5 MiB ran at 0.43 MB/s and one at 1.95: their requests together
    /// seek as random ones do.
    pub fn queued_where_served_apart(mut self) -> Predictor {
        let most = self.ranges.process_num[1].clamp(1, 4096);
        let (cores, cpu) = (self.cores, self.cpu_measured);
        self.apart_queued = self
            .regions
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let applies = self.apart_in(k) && r.focal.process_num == 1;
                match &r.kinds {
                    Some(kinds) if applies => (0..=most)
                        .map(|n| kinds.queued(r, n.max(1), cores, cpu))
                        .collect(),
                    _ => Vec::new(),
                }
            })
            .collect();
        self
    }

    /// [`Predictor::queued_where_served_apart`]'s throughput for `w` in
    /// region `k`, at the focal uniqueBytes; `None` where it does not
    /// apply.
    fn queued_apart(&self, k: usize, w: &Workload) -> Option<f64> {
        let table = self.apart_queued.get(k).filter(|t| !t.is_empty())?;
        let r = &self.regions[k];
        let n = w.process_num;
        let kinds = r.kinds.as_ref()?;
        let q = match table.get(n as usize) {
            Some(&q) => q,
            None => kinds.queued(r, n, self.cores, self.cpu_measured),
        };
        let (fast, slow) = Self::apart_times(r, w, w.seq_frac * q.keep)?;
        let z = w.size_mean.0 as f64;
        let t = fast + slow + (1.0 - kinds.share(w)) * q.device;
        let dc = self.cpu_measured.map_or(fast, |c| c.at(z).min(t));
        let x = crate::mva::bound(n.max(1) as usize, dc, self.cores, t - dc);
        Some(x * z * q.rest)
    }

    /// For `n` generators in region `r`: the share of sequential requests
    /// that stay sequential, and processNum's ratio that remains (see
    /// [`Predictor::interleaved_in_last_region`]).
    /// `overlap` is the part of processNum's gain at the focal point that
    /// the CPUs and the device working at once explain (1 without).
    fn interleaving(r: &RegionModel, n: f64, overlap: f64) -> (f64, f64) {
        let [_, _, seq, procs] = &r.curves;
        let ratio = procs.at(n).0 / procs.at(f64::from(r.focal.process_num)).0 / overlap;
        let s0 = r.focal.seq_frac;
        let at0 = seq.at(s0).0;
        let target = at0 * ratio;
        if ratio >= 1.0 || s0 <= 0.0 || at0 < SEQUENTIAL_WORTH * seq.at(0.0).0 {
            return (1.0, ratio);
        }
        // The seqFrac curve rises from 0 to s0; the largest s' at or below
        // s0 whose throughput is at most the target, by bisection.
        let (mut lo, mut hi) = (0.0, s0);
        if seq.at(0.0).0 < target {
            for _ in 0..40 {
                let mid = 0.5 * (lo + hi);
                if seq.at(mid).0 <= target {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
        }
        (lo / s0, ratio / (seq.at(lo).0 / at0))
    }

    /// [`overlap_gain`] for workload `w` (1 without CPU time measured).
    fn workload_overlap(&self, w: &Workload) -> f64 {
        let Some(cpu) = self.cpu() else {
            return 1.0;
        };
        let n = w.process_num;
        let mut one = w.clone();
        one.process_num = 1;
        let z = w.effective_size_mean();
        let dc = cpu.at(z);
        let dd = (z / self.throughput(&one).1 - dc).max(0.0);
        overlap_gain(dc, dd, n, cpu.cores)
    }

    /// Whether `k` is the last region.
    pub fn is_last(&self, k: usize) -> bool {
        k + 1 == self.regions.len()
    }

    /// Where the last region's processNum curve peaks before its last
    /// point, or its last step gains less than [`SATURATED`] per doubling
    /// of the generators, the most any point of that region's four curves
    /// measured: more generators stopped gaining there, so a resource
    /// they share was saturated, and nothing in the region runs faster
    /// than the most it was measured to deliver (the bottleneck law).
    /// `None` where the curve still rises at its end.
    pub fn saturated_peak(&self) -> Option<f64> {
        let r = self.regions.last()?;
        let c = &r.curves[3];
        let (ys, xs) = (&c.ys, &c.xs);
        let top = ys.iter().copied().fold(f64::MIN, f64::max);
        let n = ys.len();
        // Its last step, against the log of processNum: less than
        // SATURATED per doubling.
        let flat = n >= 2 && {
            let doublings = (xs[n - 1] - xs[n - 2]) / std::f64::consts::LN_2;
            ys[n - 1] < ys[n - 2] * SATURATED.powf(doublings)
        };
        (ys.last() < Some(&top) || flat).then_some(r.measured_peak)
    }

    /// Where the device was busy at least [`DEVICE_FULL`] of the time at
    /// the last region's processNum curve's most generators, the most any
    /// point of that region's four curves measured: the device was
    /// saturated there, whether or not the curve still rose (the scaler
    /// may have measured only its ends). A bound only for workloads that
    /// need the device as that point did (see `Composed`).
    pub fn device_saturated_peak(&self) -> Option<f64> {
        let r = self.regions.last()?;
        r.most_busy
            .is_some_and(|b| b >= DEVICE_FULL)
            .then_some(r.measured_peak)
    }

    /// The most `w` can run in the last region where the bytes it writes
    /// reach the device, by the bottleneck law. The readFrac curve's point
    /// of fewest reads (all writes, one generator) gives the device's busy
    /// time per byte written that reached it, `D_w`, and `w`'s bytes that
    /// reach it, `m·(1 - readFrac)·X`, keep it busy at most all the time:
    /// `X <= 1 / (m·(1 - readFrac)·D_w)`. Which bytes written reach it:
    ///
    /// - where the profile found a write cache smaller than its read
    ///   cache and the last region's focal point lies beyond it, every
    ///   byte (`m = 1`): the cache holds no more of the writes;
    /// - where the writes are cached as the reads are (no write cache of
    ///   their own), those that miss the cache of `C` bytes, `m = 1 - C/U`
    ///   (a page written back once for every time it is written and then
    ///   evicted), and only where the all-writes point kept the device
    ///   busy at least [`WRITES_SATURATE`] of the time, so that it
    ///   measured what the device takes: on this machine, 1.3-2.5 GB/s
    ///   written back (docs/PREDICTION.md, step 19).
    ///
    /// `None` elsewhere, without the device's busy time, for reads alone,
    /// and below the cache.
    pub fn writes_reach_the_device(&self, w: &Workload) -> Option<f64> {
        let r = self.regions.last()?;
        if w.read_frac >= 1.0 {
            return None;
        }
        let m = match self.writes_beyond(r)? {
            WritesBeyond::WriteCache => 1.0,
            WritesBeyond::WriteBack if r.writes_busy >= Some(WRITES_SATURATE) => {
                1.0 - self.share_cache / w.unique_bytes.0 as f64
            }
            WritesBeyond::WriteBack => return None,
        };
        let per_byte = self.written_back_per_byte()?;
        (m > 0.0).then(|| 1.0 / (m * (1.0 - w.read_frac) * per_byte))
    }

    /// The device's busy time per byte written that reached it, from the
    /// last region's readFrac curve's point of fewest reads (see
    /// [`Predictor::writes_reach_the_device`]): beyond a write cache
    /// smaller than the read cache every byte written, beyond a
    /// write-back cache those that missed it (`1 - C/U` at the focal
    /// point). `None` without the device's busy time or such a cache.
    pub(crate) fn written_back_per_byte(&self) -> Option<f64> {
        let r = self.regions.last()?;
        let busy = r.writes_busy.filter(|&b| b > 0.0)?;
        let (rf, tp) = r.curves[1].least();
        let reached = match self.writes_beyond(r)? {
            WritesBeyond::WriteCache => 1.0,
            WritesBeyond::WriteBack => 1.0 - self.share_cache / r.focal.unique_bytes.0 as f64,
        };
        (rf < 1.0).then(|| busy / (tp * (1.0 - rf) * reached).max(f64::MIN_POSITIVE))
    }

    /// Which cache region `r`'s focal point lies beyond, where its writes
    /// reach the device: a write cache smaller than the read cache, or,
    /// without a write cache of their own, the read cache that holds them
    /// as it holds reads (a write-back cache). `None` below both.
    fn writes_beyond(&self, r: &RegionModel) -> Option<WritesBeyond> {
        let (wc, c) = (self.write_cache, self.share_cache);
        let fu = r.focal.unique_bytes.0 as f64;
        if wc > 0.0 && wc < c && fu > wc {
            Some(WritesBeyond::WriteCache)
        } else if wc == 0.0 && c > 0.0 && fu > c {
            Some(WritesBeyond::WriteBack)
        } else {
            None
        }
    }

    /// The uniqueBytes curve.
    pub fn unique_curve(&self) -> &Curve {
        &self.unique
    }

    /// The region Appendix B chooses for uniqueBytes `u`.
    pub fn region_of(&self, u: f64) -> usize {
        self.region_at(u, || self.unique.at(u).0)
    }

    /// [`Predictor::region_of`], `t` giving the uniqueBytes curve's
    /// throughput at `u` where needed.
    fn region_at(&self, u: f64, t: impl FnOnce() -> f64) -> usize {
        let n = self.regions.len();
        let fu = |k: usize| self.regions[k].focal.unique_bytes.0 as f64;
        let more = (0..n).find(|&k| fu(k) >= u);
        let less = (0..n).rev().find(|&k| fu(k) <= u);
        match (less, more) {
            // The two parts of a region cut where it kept falling touch:
            // each holds its own span, which its uniqueBytes curve covers.
            (Some(l), Some(m)) if l != m && self.regions[l].touches(&self.regions[m]) => {
                if u <= self.regions[l].to {
                    l
                } else {
                    m
                }
            }
            (Some(l), Some(m)) if l != m => {
                let t = t();
                let fa = |k: usize| self.regions[k].unique_at_focal.1;
                // The nearer in the log of throughput.
                let far = |a: f64| (t / a).max(a / t);
                if far(fa(l)) <= far(fa(m)) {
                    l
                } else {
                    m
                }
            }
            (Some(k), _) | (None, Some(k)) => k,
            (None, None) => 0,
        }
    }

    /// Whether `u` lies in a drop between two regions or near one (regions
    /// that touch, cut from one that kept falling, have no drop between).
    fn near_border(&self, u: f64) -> bool {
        self.regions
            .windows(2)
            .filter(|w| !w[0].touches(&w[1]))
            .any(|w| u >= w[0].to / BORDER && u <= w[1].from * BORDER)
    }

    /// Checks that `w` is valid and not absurdly far outside the profile.
    pub fn check(&self, w: &Workload) -> Result<(), PredictError> {
        w.validate()
            .map_err(|e| PredictError::Workload(e.to_string()))?;
        let r = &self.ranges;
        for (param, range) in [
            (Param::UniqueBytes, r.unique_bytes),
            (Param::SizeMean, r.size_mean),
        ] {
            let v = param.of(w);
            let (lo, hi) = (range[0] as f64, range[1] as f64);
            if v > hi * FAR || v * FAR < lo {
                return Err(PredictError::Workload(format!(
                    "{} = {} is more than {FAR}x outside the profile's range {}..{}; a prediction there would mean nothing",
                    param.name(),
                    willy::units::Bytes(v as u64),
                    willy::units::Bytes(lo as u64),
                    willy::units::Bytes(hi as u64)
                )));
            }
        }
        Ok(())
    }

    /// Predicts `w`'s throughput (without [`Predictor::check`]ing it).
    pub fn predict(&self, w: &Workload) -> Prediction {
        let (k, tp, outside) = self.throughput(w);
        let params = std::iter::once(Param::UniqueBytes).chain(REGION_PARAMS);
        let extrapolated = params
            .enumerate()
            .filter(|&(j, _)| outside & (1 << j) != 0)
            .map(|(_, param)| param.name().to_string())
            .collect();
        Prediction {
            region: k,
            extrapolated,
            near_border: self.near_border(w.unique_bytes.0 as f64),
            ..of_throughput(w, tp)
        }
    }

    /// [`Predictor::predict`]'s region and throughput for `w`, and the
    /// parameters outside their curves' measured range: a bit for
    /// uniqueBytes, then one for each of [`REGION_PARAMS`]. Without the
    /// document's strings, for the models that predict many workloads to
    /// make one prediction.
    pub(crate) fn throughput(&self, w: &Workload) -> (usize, f64, u8) {
        self.throughput_at(w, self.locate(w.unique_bytes))
    }

    /// Where uniqueBytes `u` lies: on the curves' axis, the uniqueBytes
    /// curve there, and its region. The same for every workload over
    /// `u` bytes ([`Predictor::throughput_at`]).
    pub(crate) fn locate(&self, u: willy::units::Bytes) -> Located {
        let u = u.0 as f64;
        let x = Param::UniqueBytes.axis(u);
        let at_u = self.unique.at_axis(x);
        Located {
            x,
            at_u,
            region: self.region_at(u, || at_u.0),
        }
    }

    /// [`Predictor::throughput`] of `w`, whose uniqueBytes lies at `at`
    /// ([`Predictor::locate`]).
    pub(crate) fn throughput_at(&self, w: &Workload, at: Located) -> (usize, f64, u8) {
        let Located { x, at_u, region: k } = at;
        let (tp, outside) = self.throughput_in(k, w, (x, at_u));
        if !self.below_before.get(k).copied().unwrap_or(false) {
            return (k, tp, outside);
        }
        // See no_faster_than_the_region_before.
        let mut nearer = w.clone();
        nearer.unique_bytes = self.regions[k - 1].focal.unique_bytes.min(w.unique_bytes);
        let v = nearer.unique_bytes.0 as f64;
        let x = Param::UniqueBytes.axis(v);
        let before = self
            .throughput_in(k - 1, &nearer, (x, self.unique.at_axis(x)))
            .0;
        (k, tp.min(before), outside)
    }

    /// `w`'s throughput on region `k`'s curves, and the parameters outside
    /// them ([`Predictor::throughput`]); `(x, at_u)` its uniqueBytes on the
    /// curves' axis and the uniqueBytes curve there ([`Curve::at`]).
    fn throughput_in(&self, k: usize, w: &Workload, (x, at_u): (f64, (f64, bool))) -> (f64, u8) {
        let (r, x_unique) = (&self.regions[k], x);
        // Outside the profile's uniqueBytes range is extrapolation; outside
        // only the region's own curve is the flat end of its region.
        let mut outside = u8::from(at_u.1);
        let last = k + 1 == self.regions.len();
        let unique = self.unique_ratio(r, w, (x, at_u.0), last);
        let (mut factor, mut procs_ratio) = (unique, 1.0);
        // The focal point lies on every curve of its region.
        let focal_tp = r.at_focal[0];
        // Time per request of one generator at the focal point, and what
        // the additive parameters add to it (see additive_in_last_region).
        let zf = r.focal.size_mean.0 as f64;
        let nf = f64::from(r.focal.process_num);
        let tf = zf * nf / focal_tp;
        let (mut dt, mut z, mut ratios) = (0.0, zf, 1.0);
        let (keep, procs, overlap, gain) = self.processes(r, w, last);
        let by_size = self.by_size && !last && !(self.apart_in(k) && r.kinds.is_some());
        // `w`'s size on the sizeMean curve's axis, the curve's throughput there.
        let mut size_at = (0.0, 0.0);
        for (j, ((param, c), at_focal)) in REGION_PARAMS
            .iter()
            .zip(&r.curves)
            .zip(r.at_focal)
            .enumerate()
        {
            let v = match param {
                Param::SeqFrac => param.of(w) * keep,
                _ => param.of(w),
            };
            let x = param.axis(v);
            let (mut t, out) = c.at_axis(x);
            if *param == Param::SizeMean {
                size_at = (x, t);
            }
            if self.cpus_first && !last && *param == Param::ProcessNum {
                t = Self::filled(&r.busy, v, CPUS_FULL * self.cores).unwrap_or(t);
            }
            outside |= u8::from(out) << (j + 1);
            let ratio = match param {
                Param::ProcessNum if procs.is_finite() => procs,
                Param::ProcessNum => t / at_focal / overlap,
                Param::ReadFrac if by_size => {
                    Self::read_by_size(r, w, t, size_at) * self.read_elsewhere(r, w)
                }
                Param::ReadFrac if !last => t / at_focal * self.read_elsewhere(r, w),
                Param::SizeMean if !last => t / at_focal * self.size_elsewhere(r, w, x, x_unique),
                _ => t / at_focal,
            };
            if *param == Param::ProcessNum {
                procs_ratio = ratio;
            }
            let adds = *param != Param::SeqFrac || r.seeks;
            if last && self.additive.contains(param) && adds {
                let zp = if *param == Param::SizeMean { v } else { zf };
                z = if *param == Param::SizeMean { v } else { z };
                dt += zp * nf / t - tf;
                ratios *= ratio;
            } else {
                factor *= ratio;
            }
        }
        let t = tf + dt;
        let added = match self.reads_carry_size(r, w, last, t / (z * nf)) {
            Some(a) => a,
            None if t > 0.0 && dt != 0.0 => z * nf / t / focal_tp,
            None => ratios,
        };
        let apart = self.apart_in(k).then(|| Self::served_apart(r, w));
        let mut tp = match (self.queued_apart(k, w), apart.flatten()) {
            (Some(x), _) => x * unique,
            (None, Some(x)) => x * procs_ratio * unique,
            (None, None) => focal_tp * factor * added,
        };
        if self.bounded && !last {
            // See bounded_by_peak.
            tp = tp.min(r.peak * unique);
        }
        (tp * gain, outside)
    }
}

/// Time per byte where reads and writes are served by one device at
/// different costs ([`Predictor::size_on_reads_in_last_region`]): per
/// byte, writes take `t_w` and reads `t_r`, and interleaving them adds
/// `P(r)·t_r/t_r0`, `P(r)` what the readFrac curve's time per byte at `r`
/// has beyond the mixture of its ends (`t_r0` reads alone there, `t_w`
/// writes alone). A change of the reads' time (by the request's size or
/// uniqueBytes) is read from a curve measured at the focal readFrac
/// `r0`.
#[derive(Clone, Copy, Debug)]
struct Interleaved<'a> {
    read: &'a Curve,
    r0: f64,
    tr0: f64,
    tw: f64,
    /// `r0 + P(r0)/t_r0`: how much of the focal point's time per byte
    /// moves with the reads' time.
    share: f64,
}

impl<'a> Interleaved<'a> {
    fn of(r: &'a RegionModel) -> Interleaved<'a> {
        let read = &r.curves[1];
        let (tr0, tw) = (1.0 / read.at(1.0).0, 1.0 / read.at(0.0).0);
        let r0 = r.focal.read_frac;
        let p0 = 1.0 / r.at_focal[1] - r0 * tr0 - (1.0 - r0) * tw;
        Interleaved {
            read,
            r0,
            tr0,
            tw,
            share: r0 + p0 / tr0,
        }
    }

    /// Time per byte at readFrac `rw` where the focal readFrac's is
    /// `tau0`; `None` where the reads' time would not be positive.
    fn at(&self, tau0: f64, rw: f64) -> Option<f64> {
        let tr = (tau0 - (1.0 - self.r0) * self.tw) / self.share;
        let pw = 1.0 / self.read.at(rw).0 - rw * self.tr0 - (1.0 - rw) * self.tw;
        let tau = rw * tr + (1.0 - rw) * self.tw + pw * tr / self.tr0;
        (self.share > 0.0 && tr > 0.0 && tau > 0.0).then_some(tau)
    }
}

/// The cache a region's writes go beyond ([`Predictor::writes_beyond`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WritesBeyond {
    /// A write cache smaller than the read cache: every byte written
    /// reaches the device.
    WriteCache,
    /// A write-back cache holding writes as reads: those that miss it.
    WriteBack,
}

/// Where a uniqueBytes lies in a profile ([`Predictor::locate`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Located {
    x: f64,
    at_u: (f64, bool),
    region: usize,
}

impl Located {
    /// The region it lies in.
    pub(crate) fn region(&self) -> usize {
        self.region
    }
}

/// A region whose reads and writes are served apart
/// ([`Predictor::mixed_where_served_apart`]): its focal point and the
/// fast kind's time per request there.
#[derive(Clone, Debug)]
struct Kinds {
    z0: f64,
    nf: f64,
    /// The fast kind's share of the focal point's requests.
    share0: f64,
    /// The fast kind's time per request at the focal size.
    t_fast: f64,
    reads_fast: bool,
}

impl Kinds {
    /// `None` where the readFrac curve's ends differ less than
    /// [`SERVED_APART`] times, or the focal point has only the fast kind.
    fn of(read: &Curve, f: &Workload) -> Option<Kinds> {
        let (z0, nf) = (f.size_mean.0 as f64, f64::from(f.process_num));
        let (reads, writes) = (read.at(1.0).0, read.at(0.0).0);
        if (reads / writes).max(writes / reads) < SERVED_APART {
            return None;
        }
        let reads_fast = reads > writes;
        let (t_fast, share0) = if reads_fast {
            (z0 * nf / reads, f.read_frac)
        } else {
            (z0 * nf / writes, 1.0 - f.read_frac)
        };
        (share0 < 1.0).then_some(Kinds {
            z0,
            nf,
            share0,
            t_fast,
            reads_fast,
        })
    }

    /// The fast kind's share of `w`'s requests.
    fn share(&self, w: &Workload) -> f64 {
        if self.reads_fast {
            w.read_frac
        } else {
            1.0 - w.read_frac
        }
    }

    /// A fast request of `z` bytes: the end's time scaled by its size (a
    /// copy).
    fn fast(&self, z: f64) -> f64 {
        self.t_fast * z / self.z0
    }

    /// The slow kind's time in a curve's time per request, `tp` the
    /// curve's throughput at size `z`.
    fn slow(&self, tp: f64, z: f64) -> f64 {
        (z * self.nf / tp - self.share0 * self.fast(z)) / (1.0 - self.share0)
    }

    /// For `n` generators, what the processNum curve's ratio at the focal
    /// point says beyond the two stations' bound (see
    /// [`Predictor::queued_where_served_apart`]).
    fn queued(&self, r: &RegionModel, n: u32, cores: f64, cpu: Option<CpuDemand>) -> Queued {
        let [_, _, seq, procs] = &r.curves;
        let s0 = r.focal.seq_frac;
        let target = procs.at(f64::from(n)).0 / procs.at(1.0).0;
        let fast = self.share0 * self.fast(self.z0);
        let time = |s: f64| fast + (1.0 - self.share0) * self.slow(seq.at(s).0, self.z0);
        let dc = cpu.map_or(fast, |c| c.at(self.z0).min(time(s0)));
        let dd = |s: f64| (time(s) - dc).max(0.0);
        let one = dc + dd(s0);
        // Throughput of n generators at seqFrac s, the device busy `more`
        // longer a request, over one's at s0.
        let gain = |s: f64, more: f64| crate::mva::bound(n as usize, dc, cores, dd(s) + more) * one;
        let (at0, at_s0) = (gain(0.0, 0.0), gain(s0, 0.0));
        let q = |keep: f64, rest: f64, device: f64| Queued { keep, rest, device };
        if at_s0 <= target || s0 <= 0.0 {
            return q(1.0, target / at_s0, 0.0);
        }
        // Falls in `x` from `lo` to `hi`: the `x` where it reaches the target.
        let solve = |f: &dyn Fn(f64) -> f64, mut lo: f64, mut hi: f64| {
            for _ in 0..50 {
                let mid = 0.5 * (lo + hi);
                if f(mid) > target {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            lo
        };
        if at0 >= target {
            let more = solve(&|m| gain(0.0, m), 0.0, 10.0 * one * f64::from(n));
            return q(0.0, 1.0, more / (1.0 - self.share0));
        }
        // gain rises with s: solve in 1 - s.
        let s = s0 - solve(&|x| gain(s0 - x, 0.0), 0.0, s0);
        q(s / s0, target / gain(s, 0.0), 0.0)
    }
}

/// [`Kinds::queued`]: what `n` generators keep of their seqFrac, the
/// ratio of the processNum curve's gain beyond the stations' bound
/// (at least 1), and the device time a slow request takes beyond its
/// time with one generator at seqFrac 0, seconds.
#[derive(Clone, Copy, Debug)]
struct Queued {
    keep: f64,
    rest: f64,
    device: f64,
}

/// The point of curve `idx` whose workload has the least `key` (the
/// readFrac curve's all writes, the processNum curve's most generators).
fn point_where_least<'a>(
    p: &'a Profile,
    idx: &[usize],
    key: impl Fn(&Workload) -> f64,
) -> Option<&'a ProfilePoint> {
    let k = |i: usize| key(&p.points[i].workload);
    let i = *idx.iter().min_by(|&&a, &&b| k(a).total_cmp(&k(b)))?;
    Some(&p.points[i])
}

/// The device's busy fraction at [`point_where_least`], if `p` recorded
/// it.
fn busy_where_least(p: &Profile, idx: &[usize], key: impl Fn(&Workload) -> f64) -> Option<f64> {
    point_where_least(p, idx, key)?.device_busy_frac
}

/// The CPU cores kept busy per generator at [`point_where_least`], if `p`
/// recorded its CPU time.
fn cpu_where_least(p: &Profile, idx: &[usize], key: impl Fn(&Workload) -> f64) -> Option<f64> {
    let pt = point_where_least(p, idx, key)?;
    pt.cpu_cores_busy
        .map(|c| c / f64::from(pt.workload.process_num))
}

/// A region's focal workload, the median of its measurements and the
/// machine's level through its curves ([`Profile::focal_levels`]).
type FocalRef<'a> = (&'a Workload, f64, &'a [(f64, f64)]);

/// The curve of `param` through points `idx` of `p`; in a region, with
/// its focal point's throughput the median of its measurements and
/// each other point brought to that median's level (`focal`: the focal
/// workload, that median and the focal point's level through the
/// curves; see [`drift`]).
fn curve_of(p: &Profile, param: Param, idx: &[usize], focal: Option<FocalRef>) -> Curve {
    Curve::new(
        param,
        idx.iter()
            .map(|&i| (param.of(&p.points[i].workload), leveled(p, i, focal)))
            .collect(),
    )
}

/// A region's sizeMean curve, its points `idx`, and every other point of
/// `p` on its line (the focal workload `f` but for its size) at a size
/// beyond either end of it, the first measured at each size. The focal
/// sizeMean search measures sizes at the focal uniqueBytes and processNum
/// (its last round's) up to 8 MiB, while the curve grows only while a
/// doubling gains 1.05x: on this machine the middle region's curve of
/// docs/runs/2026-11-27h stops at 2 MiB (17.2 GB/s), where its search
/// measured 15.7 GB/s at 4 MiB (docs/PREDICTION.md, "The model").
/// Points inside the curve's span are left out: measured at another time
/// than the curve's own, they add the machine's drift to its shape.
fn beyond_the_ends(p: &Profile, f: &Workload, idx: &[usize]) -> Vec<usize> {
    let size = |i: usize| p.points[i].workload.size_mean.0;
    let sizes = || idx.iter().map(|&i| size(i));
    let (lo, hi) = (sizes().min().unwrap_or(0), sizes().max().unwrap_or(0));
    let mut out = idx.to_vec();
    for (i, pt) in p.points.iter().enumerate() {
        let z = size(i);
        let on_line = Workload {
            size_mean: f.size_mean,
            ..pt.workload.clone()
        } == *f;
        if on_line && (z < lo || z > hi) && !out.iter().any(|&j| size(j) == z) {
            out.push(i);
        }
    }
    out
}

/// Point `i`'s throughput brought to its region's focal level `focal`
/// ([`drift`]); the focal point's own measurement is the focal
/// throughput.
fn leveled(p: &Profile, i: usize, focal: Option<FocalRef>) -> f64 {
    let tp = p.points[i].throughput_bytes_per_sec;
    match focal {
        Some((f, x, _)) if *f == p.points[i].workload => x,
        Some((_, x, levels)) => tp * x / drift(levels, i as f64).unwrap_or(x),
        None => tp,
    }
}

/// The machine's level at position `at` in the order of measurement: the
/// focal point's measurements `levels` ([`Profile::focal_levels`]),
/// interpolated in the logarithm between the two around it, the nearest
/// end's outside them; `None` without repeats. The focal point is a
/// reference measured through its region's curves, and a point measured
/// while the machine ran 15% slower is brought back by that much: every
/// curve divides by the focal throughput, so a curve measured in a slower
/// phase of the machine than its focal point's median counts the phase
/// as the parameter's effect, once for every parameter a workload
/// differs in (docs/PERFORMANCE.md, the eighteenth run: the middle
/// region's focal point at 15.6, 15.0 and 12.3 GB/s within twenty
/// minutes, the curves measured between the last two near 13). On a
/// simulator the repeats equal the point and nothing moves.
fn drift(levels: &[(f64, f64)], at: f64) -> Option<f64> {
    let [first, .., last] = levels else {
        return None;
    };
    if at <= first.0 {
        return Some(first.1);
    }
    if at >= last.0 {
        return Some(last.1);
    }
    let w = levels.windows(2).find(|w| at <= w[1].0)?;
    let ((a, ta), (b, tb)) = (w[0], w[1]);
    let f = if b > a { (at - a) / (b - a) } else { 1.0 };
    Some((ta.ln() + f * (tb.ln() - ta.ln())).exp())
}

/// The largest cache the write probe found in `p`, bytes; 0 without one.
fn write_cache(p: &Profile) -> f64 {
    p.caches
        .iter()
        .filter(|c| c.probe == Probe::Writes)
        .map(|c| c.size_bytes as f64)
        .fold(0.0, f64::max)
}

/// What the CPUs could deliver at point `i`'s cost in CPU time per byte,
/// all of the profile's CPUs busy: its throughput scaled by the CPUs over
/// those it kept busy (the bottleneck law), never below what it measured;
/// its throughput where it has no CPU time (profiles before version 6).
/// On sim:raid0, with one generator at the cache region's focal point,
/// every curve measured at most 3.1 GB/s with one CPU busy, while four
/// generators copy 5.8 GB/s on both.
fn capacity(p: &Profile, i: usize) -> f64 {
    let pt = &p.points[i];
    let tp = pt.throughput_bytes_per_sec;
    match pt.cpu_cores_busy {
        Some(busy) if busy > 0.0 => tp * (p.system.cpus as f64 / busy).max(1.0),
        _ => tp,
    }
}

/// The processNum curve's points `idx` as (generators, throughput, CPUs
/// busy), by generators; empty unless every one recorded its CPU time.
fn busy_curve(p: &Profile, idx: &[usize]) -> Vec<(f64, f64, f64)> {
    let mut out: Vec<(f64, f64, f64)> = Vec::new();
    for &i in idx {
        let pt = &p.points[i];
        let Some(b) = pt.cpu_cores_busy else {
            return Vec::new();
        };
        let n = f64::from(pt.workload.process_num);
        out.push((n, pt.throughput_bytes_per_sec, b));
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

/// The least-squares line through `points`: the mean of x, the mean of y
/// and the slope; `None` with fewer than two distinct x.
fn least_squares(points: &[(f64, f64)]) -> Option<(f64, f64, f64)> {
    let n = points.len() as f64;
    let (mx, my) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), &(x, y)| (a + x / n, b + y / n));
    let sxx: f64 = points.iter().map(|&(x, _)| (x - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|&(x, y)| (x - mx) * (y - my)).sum();
    (points.len() >= 2 && sxx > 0.0).then(|| (mx, my, sxy / sxx))
}

/// The largest cache found by the read probe; else the largest of any.
pub(crate) fn read_cache(p: &Profile) -> Option<f64> {
    willy::doc::profile::read_cache_size(&p.caches)
        .or_else(|| p.cache_sizes_bytes.iter().copied().max())
        .map(|b| b as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use willy::doc::profile::{sample, Curves};

    /// A profile of one region measured in the scaler's order (the focal
    /// point, the sizeMean and processNum curves, the focal point again,
    /// the readFrac, seqFrac and uniqueBytes curves, the focal point
    /// again) on a machine whose parameters multiply, while the machine
    /// runs `slow(j)` times its speed at the `j`-th measurement.
    fn measured_while(slow: impl Fn(f64) -> f64) -> (Profile, impl Fn(&Workload) -> f64) {
        let truth = |w: &Workload| {
            let z = w.size_mean.0 as f64;
            let u = w.unique_bytes.0 as f64 / f64::from(1u32 << 30);
            1e9 * z / (z + 65536.0)
                * (1.0 + w.read_frac)
                * (1.0 + 0.5 * w.seq_frac)
                * f64::from(w.process_num).sqrt()
                / (1.0 + u)
        };
        let f = Workload::of(256 << 20, 64 << 10, 0.5, 0.5, 2);
        let mut p = sample();
        p.points.clear();
        p.ranges.unique_bytes = [16 << 20, 4 << 30];
        p.ranges.process_num = [1, 16];
        let add = |p: &mut Profile, w: Workload| {
            let j = p.points.len();
            p.points.push(ProfilePoint {
                throughput_bytes_per_sec: truth(&w) * slow(j as f64),
                workload: w,
                ci95_rel: Some(0.01),
                duration_secs: 1.0,
                background: None,
                cpu_cores_busy: None,
                device_busy_frac: None,
                steady_bytes_per_sec: None,
                generators_bytes_per_sec: vec![],
            });
            j
        };
        let with = |g: &dyn Fn(&mut Workload)| {
            let mut w = f.clone();
            g(&mut w);
            w
        };
        let i0 = add(&mut p, f.clone());
        // A curve of `n` values, the `at`-th the focal point's.
        let sweep = |p: &mut Profile, n: usize, at: usize, set: &dyn Fn(&mut Workload, usize)| {
            (0..n)
                .map(|k| {
                    if k == at {
                        i0
                    } else {
                        add(p, with(&|w| set(w, k)))
                    }
                })
                .collect::<Vec<_>>()
        };
        let size_mean = sweep(&mut p, 9, 4, &|w, k| w.size_mean.0 = 4096 << k);
        let process_num = sweep(&mut p, 5, 1, &|w, k| w.process_num = 1 << k);
        let first = truth(&f) * slow(p.points.len() as f64 - 0.5);
        let read_frac = sweep(&mut p, 5, 2, &|w, k| w.read_frac = k as f64 / 4.0);
        let seq_frac = sweep(&mut p, 5, 2, &|w, k| w.seq_frac = k as f64 / 4.0);
        let unique_bytes = sweep(&mut p, 9, 4, &|w, k| w.unique_bytes.0 = (16 << 20) << k);
        let c = Curves {
            unique_bytes,
            size_mean,
            read_frac,
            seq_frac,
            process_num,
        };
        let second = truth(&f) * slow(p.points.len() as f64 - 0.5);
        p.unique_bytes_curve = c.unique_bytes.clone();
        p.regions[0].from_unique_bytes = 16 << 20;
        p.regions[0].to_unique_bytes = 4 << 30;
        p.regions[0].focal = f;
        p.regions[0].curves = c;
        p.regions[0].focal_repeats_bytes_per_sec = vec![first, second];
        (p, truth)
    }

    #[test]
    fn curves_are_brought_to_the_focal_points_level() {
        // The machine slows by 1% with every measurement (18% over the
        // curves): each point brought to the level of the focal point's
        // median (its first repeat's), where the product is exact.
        let slow = |j: f64| 0.99f64.powf(j);
        let (p, truth) = measured_while(slow);
        let level = slow(p.points.len() as f64 - 0.5 - 16.0);
        assert_eq!(p.focal_levels(0).len(), 3);
        let m = Predictor::new(&p).unwrap();
        for w in [
            Workload::of(64 << 20, 16 << 10, 0.25, 0.75, 8),
            Workload::of(1 << 30, 1 << 20, 1.0, 0.0, 1),
            Workload::of(32 << 20, 4 << 10, 0.0, 1.0, 16),
        ] {
            let x = m.predict(&w).predicted_throughput_bytes_per_sec;
            let want = truth(&w) * level;
            assert!(
                (x / want - 1.0).abs() < 1e-9,
                "{w:?}: {x:e} against {want:e}"
            );
        }
        // On a still machine nothing moves; without the repeats the
        // points stay as measured, and the same workloads are more than
        // 5% off.
        let (still, truth) = measured_while(|_| 1.0);
        let m = Predictor::new(&still).unwrap();
        let w = Workload::of(64 << 20, 16 << 10, 0.25, 0.75, 8);
        let x = m.predict(&w).predicted_throughput_bytes_per_sec;
        assert!((x / truth(&w) - 1.0).abs() < 1e-9);
        let (mut bare, truth) = measured_while(slow);
        bare.regions[0].focal_repeats_bytes_per_sec.clear();
        let m = Predictor::new(&bare).unwrap();
        for w in [
            Workload::of(64 << 20, 16 << 10, 0.25, 0.75, 8),
            Workload::of(32 << 20, 4 << 10, 0.0, 1.0, 16),
        ] {
            let x = m.predict(&w).predicted_throughput_bytes_per_sec;
            assert!((x / truth(&w) - 1.0).abs() > 0.05, "{w:?}");
        }
    }

    #[test]
    fn a_size_measured_beyond_the_curves_end_extends_it() {
        // The sizeMean curve stops at 256 KiB; the focal search measured
        // 1 MiB on its line, and 4 MiB with four generators off it (at
        // ten times the truth). A workload of 1 MiB requests is predicted
        // from the point on the line, exactly; without it, from the
        // curve's end, 15% under. One of 4 MiB stays at the 1 MiB end.
        let (mut p, truth) = measured_while(|_| 1.0);
        let sizes = &p.regions[0].curves.size_mean;
        let beyond: Vec<usize> = (sizes.iter().copied())
            .filter(|&i| p.points[i].workload.size_mean.0 > 256 << 10)
            .collect();
        (p.regions[0].curves.size_mean).retain(|i| !beyond.contains(i));
        let mut off = p.points[beyond[beyond.len() - 1]].clone();
        off.workload.process_num = 4;
        off.workload.size_mean.0 = 4 << 20;
        off.throughput_bytes_per_sec = 10.0 * truth(&off.workload);
        p.points.push(off);
        let w = Workload::of(256 << 20, 1 << 20, 0.5, 0.5, 2);
        let at = |p: &Profile, w: &Workload| {
            let m = Predictor::new(p).unwrap();
            m.predict(w).predicted_throughput_bytes_per_sec
        };
        let x = |p: &Profile| at(p, &w) / truth(&w);
        assert!((x(&p) - 1.0).abs() < 1e-9, "{}", x(&p));
        let big = Workload::of(256 << 20, 4 << 20, 0.5, 0.5, 2);
        assert!((at(&p, &big) / truth(&w) - 1.0).abs() < 1e-9);
        let mut short = p.clone();
        short.points.truncate(short.points.len() - 1);
        for &i in &beyond {
            short.points[i].workload.process_num = 8;
        }
        assert!(x(&short) < 0.9, "{}", x(&short));
    }

    #[test]
    fn a_sizes_gain_changes_with_the_generators_as_measured_at_one() {
        // Larger requests gain less from more generators: the log of the
        // throughput has a term -0.1 ln(z / 64 KiB) ln(n / 2). The focal
        // search measured sizes at one generator; the region is the middle
        // one of three. 1 MiB requests with four generators are then
        // predicted within 2% (the focal size's throughput at one
        // generator interpolated between 32 and 128 KiB), and 21% over
        // without the sizes at one generator; 4 KiB with one generator as
        // measured, within the same 2%. In the first region nothing
        // changes.
        let (mut p, truth) = measured_while(|_| 1.0);
        let inter = |w: &Workload| {
            let z = (w.size_mean.0 as f64 / 65536.0).ln();
            (-0.1 * z * (f64::from(w.process_num) / 2.0).ln()).exp()
        };
        let r = p.regions[0].clone();
        let bounds = [
            (16 << 20, 128 << 20),
            (128 << 20, 1 << 30),
            (1 << 30, 4 << 30),
        ];
        // Appendix B's choice goes by the focal uniqueBytes: the others'
        // move into their spans (their curves stay the middle one's).
        let focals = [32 << 20, 256 << 20, 2 << 30];
        for (j, (b, u)) in bounds.into_iter().zip(focals).enumerate() {
            p.regions.resize(j + 1, r.clone());
            (p.regions[j].from_unique_bytes, p.regions[j].to_unique_bytes) = b;
            p.regions[j].focal.unique_bytes.0 = u;
        }
        // The sizes at one generator, at the middle and the first
        // region's focal uniqueBytes.
        for (u, z) in [32 << 20, 256 << 20]
            .into_iter()
            .flat_map(|u| [4096u64, 32 << 10, 128 << 10, 1 << 20].map(|z| (u, z)))
        {
            let mut q = p.points[0].clone();
            q.workload = Workload::of(u, z, 0.5, 0.5, 1);
            p.points.push(q);
        }
        for q in &mut p.points {
            q.throughput_bytes_per_sec = truth(&q.workload) * inter(&q.workload);
        }
        let x = |p: &Profile, w: &Workload, on: bool| {
            let m = Predictor::new(p).unwrap();
            let m = if on { m.sizes_by_generators() } else { m };
            m.predict(w).predicted_throughput_bytes_per_sec / (truth(w) * inter(w))
        };
        let big = Workload::of(256 << 20, 1 << 20, 0.5, 0.5, 4);
        assert!(
            (x(&p, &big, true) - 1.0).abs() < 0.02,
            "{}",
            x(&p, &big, true)
        );
        assert!(x(&p, &big, false) > 1.15, "{}", x(&p, &big, false));
        let one = Workload::of(256 << 20, 4096, 0.5, 0.5, 1);
        assert!(
            (x(&p, &one, true) - 1.0).abs() < 0.02,
            "{}",
            x(&p, &one, true)
        );
        assert!(
            (x(&p, &one, false) - 1.0).abs() > 0.1,
            "{}",
            x(&p, &one, false)
        );
        let first = Workload::of(32 << 20, 1 << 20, 0.5, 0.5, 4);
        assert_eq!(x(&p, &first, true), x(&p, &first, false));
    }

    #[test]
    fn a_reads_gain_from_the_generators_follows_its_readfrac() {
        // Reads gain less from more generators than writes: the log of the
        // throughput has a term -0.2 (r - 0.5) ln(n / 2), the focal point
        // at two generators and half reads. With all reads and all writes
        // measured at the processNum curve's sixteen generators, every
        // readFrac at two to sixteen generators is predicted exactly;
        // without them writes at eight generators are 13% under and reads
        // 15% over. With fewer generators than the focal point's, and in
        // the last region, nothing changes.
        let (mut p, truth) = measured_while(|_| 1.0);
        let inter = |w: &Workload| {
            (-0.2 * (w.read_frac - 0.5) * (f64::from(w.process_num) / 2.0).ln()).exp()
        };
        let mut last = p.regions[0].clone();
        p.regions[0].to_unique_bytes = 1 << 30;
        (last.from_unique_bytes, last.to_unique_bytes) = (1 << 30, 4 << 30);
        last.focal.unique_bytes.0 = 2 << 30;
        p.regions.push(last);
        for r in [1.0, 0.0] {
            let mut q = p.points[0].clone();
            q.workload = Workload::of(256 << 20, 64 << 10, r, 0.5, 16);
            p.points.push(q);
        }
        for q in &mut p.points {
            q.throughput_bytes_per_sec = truth(&q.workload) * inter(&q.workload);
        }
        let x = |w: &Workload, on: bool| {
            let m = Predictor::new(&p).unwrap();
            let m = if on { m.reads_by_generators() } else { m };
            m.predict(w).predicted_throughput_bytes_per_sec / (truth(w) * inter(w))
        };
        for (r, n) in [(0.0, 8), (1.0, 8), (0.2, 4), (0.9, 16), (0.0, 2)] {
            let w = Workload::of(256 << 20, 32 << 10, r, 0.3, n);
            assert!((x(&w, true) - 1.0).abs() < 1e-9, "{r} {n}: {}", x(&w, true));
        }
        let writes = Workload::of(256 << 20, 32 << 10, 0.0, 0.3, 8);
        let reads = Workload::of(256 << 20, 32 << 10, 1.0, 0.3, 8);
        assert!(x(&writes, false) < 0.88, "{}", x(&writes, false));
        assert!(x(&reads, false) > 1.14, "{}", x(&reads, false));
        for w in [
            Workload::of(256 << 20, 32 << 10, 0.0, 0.3, 1),
            Workload::of(2 << 30, 32 << 10, 0.0, 0.3, 8),
        ] {
            assert_eq!(x(&w, true), x(&w, false));
        }
    }

    proptest! {
        /// The level is one of the measurements at their positions and
        /// never leaves the range of the two around a position.
        #[test]
        fn the_level_lies_between_the_measurements_around_it(
            a in 1e6f64..1e10,
            b in 1e6f64..1e10,
            c in 1e6f64..1e10,
            p1 in 1.0f64..100.0,
            p2 in 0.0f64..100.0,
            at in -10.0f64..300.0,
        ) {
            let levels = [(0.0, a), (p1, b), (p1 + p2, c)];
            let x = drift(&levels, at).unwrap();
            for (pos, t) in levels {
                if (at - pos).abs() < 1e-12 {
                    prop_assert!((x / t - 1.0).abs() < 1e-9);
                }
            }
            let (lo, hi) = if at <= p1 { (a, b) } else { (b, c) };
            prop_assert!(x >= lo.min(hi) * (1.0 - 1e-9) && x <= lo.max(hi) * (1.0 + 1e-9));
            prop_assert!(drift(&levels[..1], at).is_none());
        }
    }

    proptest! {
        /// Between two points of a processNum curve where the CPUs fill
        /// first: it meets both points, never keeps more CPUs busy than
        /// the later one, nor than each generator as busy as at the
        /// earlier, and never falls below the throughput per busy CPU of
        /// both ends times the CPUs busy at the earlier one.
        #[test]
        fn cpus_fill_between_the_points(
            na in 1u32..8,
            more in 1u32..16,
            xa in 1e6f64..1e10,
            xb in 1e6f64..1e10,
            ba in 0.05f64..1.0,
            grow in 0.01f64..1.0,
            at in 0.0f64..=1.0,
        ) {
            let (na, nb) = (f64::from(na), f64::from(na + more));
            let ba = ba * na;
            // CPUs busy at `b`: from `ba` up to what `nb` generators as
            // busy as at `a` keep busy.
            let bb = ba + grow * (ba * nb / na - ba);
            let pts = [(na, xa, ba), (nb, xb, bb)];
            let n = na + at * (nb - na);
            let close = |x: f64, y: f64| (x / y - 1.0).abs() < 1e-6;
            // CPUs that do not fill at `b`, or were full at `a`: the
            // curve as it is.
            prop_assert!(Predictor::filled(&pts, n, bb * 1.001).is_none());
            prop_assert!(Predictor::filled(&pts, n, ba).is_none());
            match Predictor::filled(&pts, n, bb) {
                None => prop_assert!(n == na || n == nb),
                Some(x) => {
                    prop_assert!(n > na && n < nb);
                    let near_a = Predictor::filled(&pts, na * (1.0 + 1e-12), bb).unwrap();
                    let near_b = Predictor::filled(&pts, nb * (1.0 - 1e-12), bb).unwrap();
                    prop_assert!(close(near_a, xa) && close(near_b, xb), "{near_a} {near_b}");
                    let per = (xa / ba).min(xb / bb);
                    prop_assert!(x >= per * ba * (1.0 - 1e-9), "{x}");
                    let most = (xa / ba).max(xb / bb) * bb.min(ba * n / na);
                    prop_assert!(x <= most * (1.0 + 1e-9), "{x} > {most}");
                }
            }
        }

        /// Mean value analysis of the CPUs and the device: one generator
        /// gains nothing; more gain at most their number, at most what the
        /// busier station allows (the bottleneck law), and never less with
        /// one more.
        #[test]
        fn overlap_gain_is_bounded(
            dc in 0.0f64..1.0,
            dd in 1e-6f64..1.0,
            n in 1u32..64,
            cores in 1u32..8,
        ) {
            let c = f64::from(cores);
            let g = overlap_gain(dc, dd, n, c);
            prop_assert!((overlap_gain(dc, dd, 1, c) - 1.0).abs() < 1e-12);
            prop_assert!(g >= 1.0 - 1e-12 && g <= f64::from(n) + 1e-9);
            let bound = (dc + dd) / (dc / c).max(dd);
            prop_assert!(g <= bound * (1.0 + 1e-9), "{g} > {bound}");
            prop_assert!(overlap_gain(dc, dd, n + 1, c) >= g - 1e-12);
            // Without CPU time there is nothing to overlap.
            prop_assert!((overlap_gain(0.0, dd, n, c) - 1.0).abs() < 1e-12);
        }

        /// The line through a curve's time per byte is found again when
        /// time is a line in seqFrac, and the curve shows seeks exactly
        /// when random requests take at least 1.25 times as long.
        #[test]
        fn seeks_are_read_off_the_time_line(
            t0 in 1e-9f64..1e-6,
            rel in -0.9f64..9.0,
            n in 2usize..12,
        ) {
            let t = |x: f64| t0 * (1.0 + rel * x);
            let pts = (0..n).map(|i| {
                let x = i as f64 / (n - 1) as f64;
                (x, 1.0 / t(x))
            });
            let c = Curve::new(Param::SeqFrac, pts.collect());
            let (at0, slope) = c.time_line();
            prop_assert!((at0 - t0).abs() <= 1e-9 * t0);
            prop_assert!((slope - t0 * rel).abs() <= 1e-9 * t0 * (1.0 + rel.abs()));
            let ratio = 1.0 / (1.0 + rel);
            if (ratio - SEQUENTIAL_WORTH).abs() > 1e-6 {
                prop_assert_eq!(c.saves_seeks(), ratio >= SEQUENTIAL_WORTH);
            }
        }

        /// The fit recovers a line through its points, and never gives a
        /// negative coefficient.
        #[test]
        fn cpu_demand_fits_a_line(
            a in 0.0f64..1e-3,
            b in 0.0f64..1e-7,
            noise in proptest::collection::vec(-1.0f64..1.0, 5),
        ) {
            let sizes = [4096.0, 16384.0, 65536.0, 262144.0, 1048576.0];
            let exact: Vec<(f64, f64)> = sizes.iter().map(|&z| (z, a + b * z)).collect();
            let d = CpuDemand::fit(&exact, 2.0).unwrap();
            prop_assert!((d.fixed - a).abs() <= 1e-9 + 1e-6 * a);
            prop_assert!((d.per_byte - b).abs() <= 1e-15 + 1e-6 * b);
            let noisy: Vec<(f64, f64)> = exact
                .iter()
                .zip(&noise)
                .map(|(&(z, y), e)| (z, (y + e * 1e-3).max(0.0)))
                .collect();
            if let Some(d) = CpuDemand::fit(&noisy, 2.0) {
                prop_assert!(d.fixed >= 0.0 && d.per_byte >= 0.0);
            }
            prop_assert!(CpuDemand::fit(&exact[..1], 2.0).is_none());
        }
    }
}
