//! Barve et al.'s analytic model of several disks sharing one bus
//! (../shared/seeds/004, section 4): the expected minimum seek over `D`
//! disks (eqs. 6-11) and the average read duration for one disk and for
//! `D` disks served in rounds, with the fence at 0 or above (eqs. 1-5).
//!
//! Separate from the simulator on purpose: the tests compare the two.
//! Units: ms, cylinders, bytes, MB/s (10^6 bytes a second).

use willy::doc::bus::{BusDoc, BusParameters, BusPoint, BusSeek};
use willy::doc::probe::Probe;
use willy::sim::config::StorageConfig;
use willy::sim::SimConfig;

/// Barve's seek curve (eq. 7): `a + b sqrt(dis)` for `0 < dis <= e`,
/// `c + d dis` beyond, over `max_cyl` cylinders.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Seek {
    /// Short seeks' constant, ms.
    pub a: f64,
    /// Short seeks' sqrt coefficient, ms.
    pub b: f64,
    /// Long seeks' constant, ms.
    pub c: f64,
    /// Long seeks' slope, ms per cylinder.
    pub d: f64,
    /// The break, cylinders.
    pub e: f64,
    /// Cylinders.
    pub max_cyl: f64,
}

impl Seek {
    /// A simulated disk's curve.
    pub fn of(disk: &willy::sim::config::DiskConfig) -> Seek {
        Seek {
            a: disk.seek_a_ms,
            b: disk.seek_b_ms,
            c: disk.seek_c_ms,
            d: disk.seek_e_ms,
            e: disk.seek_break_cyl as f64,
            max_cyl: disk.cylinders as f64,
        }
    }

    /// The seek time over `dis` cylinders (eq. 7).
    pub fn time(&self, dis: f64) -> f64 {
        if dis <= 0.0 {
            0.0
        } else if dis <= self.e {
            self.a + self.b * dis.sqrt()
        } else {
            self.c + self.d * dis
        }
    }

    /// The fewest cylinders whose seek takes at least `t` ms (Barve's
    /// `cylinder[t]`, for a curve that need not be continuous at `e`).
    fn cylinders(&self, t: f64) -> f64 {
        if t <= self.a {
            0.0
        } else if t <= self.a + self.b * self.e.sqrt() {
            ((t - self.a) / self.b).powi(2)
        } else {
            ((t - self.c) / self.d).max(self.e)
        }
    }

    /// `E[MST_D]`, the expected least seek of `D` disks each sent a random
    /// request, by numeric integration of eq. 10:
    /// `int_0^inf (1 - cylinder[z] / MaxCyl)^(2D) dz` (Simpson's rule).
    pub fn min_seek_numeric(&self, disks: u32) -> f64 {
        let top = self.time(self.max_cyl);
        let f = |z: f64| {
            let x = (1.0 - self.cylinders(z) / self.max_cyl).max(0.0);
            x.powi(2 * disks as i32)
        };
        let n = 200_000;
        let h = top / n as f64;
        let inner: f64 = (1..n)
            .map(|i| f(i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 })
            .sum();
        h / 3.0 * (f(0.0) + inner + f(top))
    }

    /// `E[MST_D]` in closed form, eq. 11:
    /// `a + b sqrt(MaxCyl) sum_i C(2D, i) (-1)^i sqrt(e/MaxCyl)^(2i+1) / (2i+1)
    ///  + d MaxCyl / (2D+1) (1 - e/MaxCyl)^(2D+1)`.
    /// Exact when the curve is continuous at `e`.
    pub fn min_seek_closed(&self, disks: u32) -> f64 {
        let n = 2 * disks;
        let r = (self.e / self.max_cyl).sqrt();
        let mut sum = 0.0;
        let mut binom = 1.0;
        for i in 0..=n {
            if i > 0 {
                binom *= f64::from(n - i + 1) / f64::from(i);
            }
            let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
            sum += binom * sign * r.powi(2 * i as i32 + 1) / f64::from(2 * i + 1);
        }
        self.a
            + self.b * self.max_cyl.sqrt() * sum
            + self.d * self.max_cyl / f64::from(n + 1)
                * (1.0 - self.e / self.max_cyl).powi(n as i32 + 1)
    }
}

/// What Barve's read-duration model (eqs. 1-5) needs of a disk and its
/// bus.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BusModel {
    /// The disk's seek curve.
    pub seek: Seek,
    /// Per request: the host's cost, the command on the bus and the
    /// disk's controller (Barve's `Overhead`), ms.
    pub overhead_ms: f64,
    /// One revolution, ms (the mean rotational latency is half of it).
    pub revolution_ms: f64,
    /// The rate off the surface within a track, MB/s (`bandwidth_rot`).
    pub rot_mb_per_s: f64,
    /// The bus's rate, MB/s (`bandwidth_bus`).
    pub bus_mb_per_s: f64,
    /// Average bytes per track and per cylinder.
    pub track_bytes: f64,
    /// ... per cylinder.
    pub cylinder_bytes: f64,
    /// Track (head) switch and cylinder switch, ms.
    pub track_switch_ms: f64,
    /// ... cylinder switch.
    pub cylinder_switch_ms: f64,
    /// The fence, 0 to 255.
    pub fence: u32,
}

/// Which of Barve's equations gave a read duration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Equation {
    /// One disk, fence 0 (eq. 1).
    One,
    /// One disk, a fence above 0 (eq. 2).
    Two,
    /// Several disks in rounds, fence 0 (eq. 3).
    Three,
    /// Several disks in rounds, a fence above 0 (eq. 4).
    Four,
}

impl BusModel {
    /// The model of a simulated bus of independent disks (storage kind
    /// `bus`): its disk's seek curve and geometry (the first zone's
    /// tracks, the average over zones), its bus, and the overhead of the
    /// host (`cpu.request_overhead_ms`), the command and the disk.
    pub fn of_sim(sim: &SimConfig) -> Option<BusModel> {
        let StorageConfig::Bus {
            disk,
            bus_mb_per_s,
            fence,
            command_ms,
            ..
        } = &sim.storage
        else {
            return None;
        };
        let g = disk.geometry.as_ref()?;
        let cylinders = g.cylinders() as f64;
        let cylinder_bytes = g.capacity() as f64 / cylinders;
        let track_bytes = cylinder_bytes / f64::from(g.heads);
        let revolution_ms = disk.revolution_ms();
        Some(BusModel {
            seek: Seek::of(disk),
            overhead_ms: sim.cpu.request_overhead_ms + command_ms + disk.overhead_ms,
            revolution_ms,
            rot_mb_per_s: track_bytes / revolution_ms / 1e3,
            bus_mb_per_s: *bus_mb_per_s,
            track_bytes,
            cylinder_bytes,
            track_switch_ms: g.head_switch_ms,
            cylinder_switch_ms: g.cylinder_switch_ms,
            fence: *fence,
        })
    }

    /// Barve's `TrackCylinderSwitchTime` for `block` bytes, ms.
    fn switches_ms(&self, block: f64) -> f64 {
        let tracks = block / self.track_bytes;
        let cylinders = block / self.cylinder_bytes;
        self.track_switch_ms * (tracks - cylinders) + self.cylinder_switch_ms * cylinders
    }

    /// `MPT(D)`, eq. 5: the expected least seek of `D` disks (eq. 11) and
    /// half a revolution.
    pub fn min_positioning_ms(&self, disks: u32) -> f64 {
        self.seek.min_seek_closed(disks) + self.revolution_ms / 2.0
    }

    /// The average read duration of `disks` disks, one random read of
    /// `block` bytes at a time each, ms, and the equation that gave it.
    pub fn read_duration_ms(&self, disks: u32, block: u64) -> (f64, Equation) {
        let b = block as f64;
        let ms = |bytes: f64, mb_per_s: f64| bytes / mb_per_s / 1e3;
        let (rot, bus) = (self.rot_mb_per_s, self.bus_mb_per_s);
        let bc = b * f64::from(self.fence) / 256.0;
        if disks <= 1 {
            let base = self.overhead_ms
                + self.seek.min_seek_closed(1)
                + self.revolution_ms / 2.0
                + self.switches_ms(b);
            if self.fence == 0 {
                (base + ms(b, rot), Equation::One)
            } else {
                let rest = ms(b, bus).max(ms(b - bc, rot));
                (base + ms(bc, rot) + rest, Equation::Two)
            }
        } else {
            let d = f64::from(disks);
            let base = self.overhead_ms + self.min_positioning_ms(disks);
            if self.fence == 0 {
                let bt = b.min(self.track_bytes / 2.0);
                (base + ms(bt, rot) + ms(d * b - bt, bus), Equation::Three)
            } else {
                (base + ms(bc, rot) + ms(d * b, bus), Equation::Four)
            }
        }
    }

    /// The throughput the read duration gives, bytes per second:
    /// `D B / ReadDuration`.
    pub fn throughput(&self, disks: u32, block: u64) -> f64 {
        let (rd, _) = self.read_duration_ms(disks, block);
        f64::from(disks.max(1)) * block as f64 / (rd / 1e3)
    }
}

impl BusModel {
    /// The parameters as the bus document writes them.
    pub fn parameters(&self) -> BusParameters {
        BusParameters {
            seek: BusSeek {
                a_ms: self.seek.a,
                b_ms: self.seek.b,
                c_ms: self.seek.c,
                d_ms: self.seek.d,
                e_cylinders: self.seek.e,
                max_cylinders: self.seek.max_cyl,
            },
            overhead_ms: self.overhead_ms,
            revolution_ms: self.revolution_ms,
            rot_mb_per_s: self.rot_mb_per_s,
            bus_mb_per_s: self.bus_mb_per_s,
            track_bytes: self.track_bytes,
            cylinder_bytes: self.cylinder_bytes,
            track_switch_ms: self.track_switch_ms,
            cylinder_switch_ms: self.cylinder_switch_ms,
            fence: self.fence,
        }
    }

    /// The model of parameters given by hand (the document's
    /// `parameters`), checked.
    pub fn from_parameters(p: &BusParameters) -> Result<BusModel, String> {
        let s = &p.seek;
        let positive = [
            (p.revolution_ms, "revolution_ms"),
            (p.rot_mb_per_s, "rot_mb_per_s"),
            (p.bus_mb_per_s, "bus_mb_per_s"),
            (p.track_bytes, "track_bytes"),
            (p.cylinder_bytes, "cylinder_bytes"),
            (s.e_cylinders, "seek.e_cylinders"),
            (s.max_cylinders, "seek.max_cylinders"),
        ];
        if let Some((_, k)) = positive.iter().find(|(v, _)| !(*v > 0.0 && v.is_finite())) {
            return Err(format!("{k} must be positive"));
        }
        let non_negative = [
            (p.overhead_ms, "overhead_ms"),
            (p.track_switch_ms, "track_switch_ms"),
            (p.cylinder_switch_ms, "cylinder_switch_ms"),
            (s.a_ms, "seek.a_ms"),
            (s.b_ms, "seek.b_ms"),
            (s.c_ms, "seek.c_ms"),
            (s.d_ms, "seek.d_ms"),
        ];
        if let Some((_, k)) = non_negative
            .iter()
            .find(|(v, _)| !(*v >= 0.0 && v.is_finite()))
        {
            return Err(format!("{k} must not be negative"));
        }
        if p.fence > 255 || s.e_cylinders > s.max_cylinders {
            return Err(
                "fence is 0 to 255, and seek.e_cylinders at most seek.max_cylinders".into(),
            );
        }
        Ok(BusModel {
            seek: Seek {
                a: s.a_ms,
                b: s.b_ms,
                c: s.c_ms,
                d: s.d_ms,
                e: s.e_cylinders,
                max_cyl: s.max_cylinders,
            },
            overhead_ms: p.overhead_ms,
            revolution_ms: p.revolution_ms,
            rot_mb_per_s: p.rot_mb_per_s,
            bus_mb_per_s: p.bus_mb_per_s,
            track_bytes: p.track_bytes,
            cylinder_bytes: p.cylinder_bytes,
            track_switch_ms: p.track_switch_ms,
            cylinder_switch_ms: p.cylinder_switch_ms,
            fence: p.fence,
        })
    }

    /// The model of a disk `willy probe` measured: its seek curve
    /// (distances as fractions of the device, so `MaxCyl` is 1), its
    /// revolution and its first zone's track; what a probe cannot see
    /// (the bus, the overhead, the switch time, the fence) is given.
    /// Every track switch counts as a head switch.
    pub fn of_probe(p: &Probe, given: &ProbeGiven) -> Result<BusModel, String> {
        let s = p.seek_curve.as_ref().filter(|s| !s.none_found).ok_or(
            "the probe found no seek curve (run willy probe with the seek probe on a disk)",
        )?;
        let rev = p
            .rotation
            .as_ref()
            .and_then(|r| r.revolution_ms)
            .ok_or("the probe found no rotation")?;
        let track = p
            .boundaries
            .as_ref()
            .and_then(|b| b.track_bytes.as_ref())
            .and_then(|t| t.first().copied())
            .ok_or("the probe found no tracks")? as f64;
        BusModel::from_parameters(&BusParameters {
            seek: BusSeek {
                a_ms: s.a_ms,
                b_ms: s.b_ms,
                c_ms: s.c_ms,
                d_ms: s.d_ms,
                e_cylinders: s.break_fraction,
                max_cylinders: 1.0,
            },
            overhead_ms: given.overhead_ms,
            revolution_ms: rev,
            rot_mb_per_s: track / rev / 1e3,
            bus_mb_per_s: given.bus_mb_per_s,
            track_bytes: track,
            cylinder_bytes: track,
            track_switch_ms: given.switch_ms,
            cylinder_switch_ms: given.switch_ms,
            fence: given.fence,
        })
    }
}

/// What a probe does not measure, given for [`BusModel::of_probe`].
#[derive(Clone, Copy, Debug)]
pub struct ProbeGiven {
    /// The bus's rate, MB/s.
    pub bus_mb_per_s: f64,
    /// Per-request overhead, ms.
    pub overhead_ms: f64,
    /// Track switch, ms.
    pub switch_ms: f64,
    /// The fence, 0 to 255.
    pub fence: u32,
}

/// Runs `disks` random-read generators, one per disk of `sim` (a bus of
/// independent disks, given `disks` disks), each over its whole disk in
/// `block`-byte reads, for `secs` of virtual time after a warm start of a
/// tenth of it; returns their total throughput (bytes per second) and the
/// rounds kept. With `pipeline`, Barve's pipelining (section 5).
pub fn simulate(
    sim: &SimConfig,
    (disks, block): (u32, u64),
    secs: f64,
    seed: u64,
    pipeline: bool,
) -> Result<(f64, Option<f64>), willy::Error> {
    use std::time::Duration;
    let disk = sim.capacity() / u64::from(disks);
    let w = willy::workload::Workload {
        unique_bytes: willy::units::Bytes(disk / block * block),
        size_mean: willy::units::Bytes(block),
        read_frac: 1.0,
        seq_frac: 0.0,
        process_num: 1,
        cpu_think: Default::default(),
        block_size: willy::units::Bytes(block),
    };
    let ws = vec![w; disks as usize];
    let offsets: Vec<u64> = (0..u64::from(disks)).map(|k| k * disk).collect();
    let all: Vec<usize> = (0..disks as usize).collect();
    let cfg = willy::run::RunConfig {
        seed,
        min_duration: Duration::from_secs_f64(secs),
        max_duration: Duration::from_secs_f64(secs),
        warmup_min: Duration::from_secs_f64(secs / 10.0),
        warmup_max: Duration::from_secs_f64(secs / 10.0),
        interval: Duration::from_secs_f64(secs / 20.0),
        pipeline,
        ..willy::run::RunConfig::default()
    };
    let (ms, _) = willy::run::run_sim_placed(&ws, &offsets, &all, &cfg, sim, true)?;
    let total = ms.iter().map(|m| m.throughput_bytes_per_sec).sum();
    Ok((total, willy::multi::rounds(&ms)))
}

/// The bus document: the model at every disk count and block size, and
/// with `measure` (a simulated bus, its virtual seconds per point, and
/// whether to run it pipelined too) the simulated bus beside it.
pub fn document(
    source: &str,
    model: &BusModel,
    disks: &[u32],
    sizes: &[u64],
    measure: Option<(&SimConfig, f64, bool)>,
) -> Result<BusDoc, willy::Error> {
    let mut points = Vec::new();
    let mut arbitration = None;
    for &b in sizes {
        for &d in disks {
            let (rd, eq) = model.read_duration_ms(d, b);
            let mut p = BusPoint {
                disks: d,
                block_bytes: b,
                equation: eq as u32 + 1,
                model_read_duration_ms: rd,
                model_throughput_bytes_per_sec: model.throughput(d, b),
                measured_throughput_bytes_per_sec: None,
                measured_read_duration_ms: None,
                error: None,
                rounds_kept: None,
                pipelined_throughput_bytes_per_sec: None,
            };
            if let Some((sim, secs, piped)) = measure {
                let mut sim = sim.clone();
                if let StorageConfig::Bus {
                    disks: n,
                    arbitration: a,
                    ..
                } = &mut sim.storage
                {
                    *n = d;
                    arbitration = serde_json::to_value(*a)
                        .ok()
                        .and_then(|v| v.as_str().map(String::from));
                }
                let (t, kept) = simulate(&sim, (d, b), secs, 1, false)?;
                let mrd = f64::from(d) * b as f64 / t * 1e3;
                p.measured_throughput_bytes_per_sec = Some(t);
                p.measured_read_duration_ms = Some(mrd);
                p.error = Some(mrd / rd - 1.0);
                p.rounds_kept = kept;
                if piped {
                    p.pipelined_throughput_bytes_per_sec =
                        Some(simulate(&sim, (d, b), secs, 1, true)?.0);
                }
            }
            points.push(p);
        }
    }
    Ok(BusDoc {
        kind: "willy-bus".into(),
        schema_version: willy::doc::bus::BUS_SCHEMA_VERSION,
        willy_version: env!("CARGO_PKG_VERSION").into(),
        source: source.into(),
        arbitration,
        parameters: model.parameters(),
        points,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 16, Must show 1: eq. 11 against eq. 10 for sim:hdd's seek
    /// parameters at D = 1, 2 and 4: 6.892 against 6.845 ms, 5.002 against
    /// 4.957, 3.712 against 3.672 (0.7%, 0.9%, 1.1%). hdd's curve is not
    /// quite continuous at its break (2.600 ms from below, 2.550 from
    /// above), which is what separates them.
    #[test]
    fn eq_11_agrees_with_eq_10_on_sim_hdd() {
        let sim = willy::sim::SimConfig::load("hdd").unwrap();
        let willy::sim::config::StorageConfig::Disk { disk } = &sim.storage else {
            panic!("one disk")
        };
        let s = Seek::of(disk);
        for d in [1, 2, 4] {
            let (closed, numeric) = (s.min_seek_closed(d), s.min_seek_numeric(d));
            assert!(
                (closed / numeric - 1.0).abs() < 0.015,
                "D = {d}: eq. 11 {closed:.4} ms, eq. 10 {numeric:.4} ms"
            );
        }
        // One disk: the mean seek over random pairs of cylinders.
        let mean = disk.mean_seek_ms();
        assert!((s.min_seek_numeric(1) / mean - 1.0).abs() < 0.01);
        // More disks, a shorter least seek.
        assert!(s.min_seek_closed(4) < s.min_seek_closed(2));
    }

    proptest::proptest! {
        /// On a curve continuous at its break, eq. 11 is exact.
        #[test]
        fn eq_11_is_eq_10_on_a_continuous_curve(
            a in 0.2f64..3.0, b in 0.01f64..0.5, e_frac in 0.01f64..0.5, d_ms in 1e-5f64..1e-3, disks in 1u32..8,
        ) {
            let max_cyl = 50_000.0;
            let e = e_frac * max_cyl;
            let c = a + b * e.sqrt() - d_ms * e;
            let s = Seek { a, b, c, d: d_ms, e, max_cyl };
            let (x, y) = (s.min_seek_closed(disks), s.min_seek_numeric(disks));
            proptest::prop_assert!((x / y - 1.0).abs() < 1e-3, "{x} vs {y}");
        }
    }
}
