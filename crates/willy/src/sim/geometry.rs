//! A disk's layout on its platters (issue 15, after Lachesis and DiskSim):
//! zones of tracks with their own sectors per track, head and cylinder
//! switches with the track skew that hides them from a sequential transfer,
//! and optional zero-latency access.
//!
//! With a geometry the platters turn with the clock: at time `t` the heads
//! are over angle `(t mod revolution) / revolution` (in revolutions), and
//! sector `s` of track `T` passes under them from angle `start(T) + s / spt`
//! to `start(T) + (s + 1) / spt`. Rotational latency is then the distance
//! from where the head lands to the first sector wanted, not a random draw,
//! and a transfer goes sector by sector, switching heads (or cylinders) at
//! every track boundary it crosses.
//!
//! Logical sectors are laid out from the outermost zone inwards, track by
//! track, every head of a cylinder before the next cylinder.

use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// The geometry part of a disk's configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Geometry {
    /// Bytes per sector (the logical block).
    #[serde(default = "default_sector")]
    pub sector_size: Bytes,
    /// Recording surfaces: tracks per cylinder.
    pub heads: u32,
    /// Zones from the outer edge inwards.
    pub zones: Vec<Zone>,
    /// Switching to another head of the same cylinder, ms.
    pub head_switch_ms: f64,
    /// Moving to the next cylinder during a sequential transfer, ms.
    pub cylinder_switch_ms: f64,
    /// Skew between the tracks of a cylinder, sectors; default: the head
    /// switch time in sectors of the zone, rounded up, so that a sequential
    /// transfer finds the next track's first sector just after the switch.
    #[serde(default)]
    pub track_skew_sectors: Option<u32>,
    /// Skew between the last track of a cylinder and the next cylinder's
    /// first, sectors; default: the cylinder switch time, rounded up.
    #[serde(default)]
    pub cylinder_skew_sectors: Option<u32>,
    /// Zero-latency access: a request whose sectors on a track are under
    /// the head when it arrives reads them in the order they pass, so a
    /// whole track takes one revolution wherever the head lands.
    #[serde(default)]
    pub zero_latency: bool,
}

fn default_sector() -> Bytes {
    Bytes(512)
}

/// A band of cylinders with the same number of sectors per track.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Zone {
    /// Cylinders in the zone.
    pub cylinders: u64,
    /// Sectors on each of its tracks.
    pub sectors_per_track: u32,
}

impl Geometry {
    /// Cylinders over all zones.
    pub fn cylinders(&self) -> u64 {
        self.zones.iter().map(|z| z.cylinders).sum()
    }

    /// Bytes over all zones.
    pub fn capacity(&self) -> u64 {
        self.zones
            .iter()
            .map(|z| z.cylinders * u64::from(self.heads) * u64::from(z.sectors_per_track))
            .sum::<u64>()
            * self.sector_size.0
    }

    /// The media rate of zone `z` at `rpm`, MB/s: a track per revolution.
    pub fn zone_mb_per_s(&self, z: usize, rpm: f64) -> f64 {
        let track = f64::from(self.zones[z].sectors_per_track) * self.sector_size.0 as f64;
        track * rpm / 60.0 / 1e6
    }

    /// Checks the geometry against the rest of the disk's description.
    pub fn validate(
        &self,
        capacity: u64,
        cylinders: u64,
        rpm: f64,
        media: f64,
    ) -> Result<(), String> {
        if self.heads == 0 || self.zones.is_empty() || self.sector_size.0 == 0 {
            return Err("disk.geometry needs heads, zones and a sector_size".into());
        }
        if self
            .zones
            .iter()
            .any(|z| z.cylinders == 0 || z.sectors_per_track == 0)
        {
            return Err("every zone needs cylinders and sectors_per_track".into());
        }
        for (v, k) in [
            (self.head_switch_ms, "head_switch_ms"),
            (self.cylinder_switch_ms, "cylinder_switch_ms"),
        ] {
            if !(v >= 0.0 && v.is_finite()) {
                return Err(format!("disk.geometry.{k} must not be negative"));
            }
        }
        if cylinders != self.cylinders() || capacity != self.capacity() {
            return Err(format!(
                "disk.cylinders and disk.capacity must match the zones: {} cylinders, {} bytes",
                self.cylinders(),
                self.capacity()
            ));
        }
        let outer = self.zone_mb_per_s(0, rpm);
        if (media / outer - 1.0).abs() > 0.01 {
            return Err(format!(
                "disk.media_mb_per_s must be the outer zone's rate, {outer:.3} MB/s"
            ));
        }
        Ok(())
    }
}

/// Where a sector lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// Track number over the whole disk, from the outer edge.
    pub track: u64,
    /// Sector within the track.
    pub sector: u32,
    /// Sectors on that track.
    pub spt: u32,
}

#[derive(Clone, Debug)]
struct ZoneLayout {
    first_lbn: u64,
    first_track: u64,
    tracks: u64,
    spt: u32,
    track_skew: u32,
    cylinder_skew: u32,
    /// Angle of sector 0 of the zone's first track, revolutions.
    base: f64,
}

/// A geometry ready for timing: where each sector is and when it passes.
#[derive(Clone, Debug)]
pub struct Layout {
    zones: Vec<ZoneLayout>,
    heads: u64,
    sector: u64,
    rev_ns: f64,
    head_switch_ns: f64,
    cylinder_switch_ns: f64,
    zero_latency: bool,
}

/// Sectors needed to cover `ns` at `spt` sectors per revolution.
fn skew_for(ns: f64, rev_ns: f64, spt: u32) -> u32 {
    (ns / rev_ns * f64::from(spt) - 1e-9).ceil().max(0.0) as u32
}

impl Layout {
    /// Lays out `g` for a disk turning at `rpm`.
    pub fn new(g: &Geometry, rpm: f64) -> Layout {
        let rev_ns = 60e9 / rpm;
        let (hs, cs) = (g.head_switch_ms * 1e6, g.cylinder_switch_ms * 1e6);
        let heads = u64::from(g.heads);
        let (mut lbn, mut track, mut angle) = (0u64, 0u64, 0.0f64);
        let mut zones = Vec::new();
        for z in &g.zones {
            let spt = z.sectors_per_track;
            let track_skew = g
                .track_skew_sectors
                .unwrap_or_else(|| skew_for(hs, rev_ns, spt));
            let cylinder_skew = g
                .cylinder_skew_sectors
                .unwrap_or_else(|| skew_for(cs, rev_ns, spt));
            if track > 0 {
                angle = (angle + f64::from(cylinder_skew) / f64::from(spt)).fract();
            }
            let tracks = z.cylinders * heads;
            let zl = ZoneLayout {
                first_lbn: lbn,
                first_track: track,
                tracks,
                spt,
                track_skew,
                cylinder_skew,
                base: angle,
            };
            angle = zl.start(tracks - 1, heads);
            lbn += tracks * u64::from(spt);
            track += tracks;
            zones.push(zl);
        }
        Layout {
            zones,
            heads,
            sector: g.sector_size.0,
            rev_ns,
            head_switch_ns: hs,
            cylinder_switch_ns: cs,
            zero_latency: g.zero_latency,
        }
    }

    /// Bytes per sector.
    pub fn sector_size(&self) -> u64 {
        self.sector
    }

    fn zone_of_lbn(&self, lbn: u64) -> &ZoneLayout {
        let i = self.zones.partition_point(|z| z.first_lbn <= lbn);
        &self.zones[i.saturating_sub(1)]
    }

    fn zone_of_track(&self, track: u64) -> &ZoneLayout {
        let i = self.zones.partition_point(|z| z.first_track <= track);
        &self.zones[i.saturating_sub(1)]
    }

    /// Where logical sector `lbn` lies (past the end: the last track).
    pub fn place(&self, lbn: u64) -> Place {
        let z = self.zone_of_lbn(lbn);
        let k = ((lbn - z.first_lbn) / u64::from(z.spt)).min(z.tracks - 1);
        Place {
            track: z.first_track + k,
            sector: ((lbn - z.first_lbn) - k * u64::from(z.spt)) as u32,
            spt: z.spt,
        }
    }

    /// The first logical sector of every track boundary: sector 0 of
    /// track `track`.
    pub fn track_start(&self, track: u64) -> u64 {
        let z = self.zone_of_track(track);
        z.first_lbn + (track - z.first_track) * u64::from(z.spt)
    }

    /// The cylinder of a track.
    pub fn cylinder(&self, track: u64) -> u64 {
        track / self.heads
    }

    /// Angle of sector 0 of `track`, revolutions in [0, 1).
    fn start(&self, track: u64) -> f64 {
        let z = self.zone_of_track(track);
        z.start(track - z.first_track, self.heads)
    }

    /// Time to get from `from` to `to`, a neighbouring track, in a
    /// sequential transfer: a head switch, or a cylinder switch when `to`
    /// is on the next cylinder.
    fn switch_ns(&self, from: u64, to: u64) -> f64 {
        if self.cylinder(from) == self.cylinder(to) {
            self.head_switch_ns
        } else {
            self.cylinder_switch_ns
        }
    }

    /// Moves `n` sectors from `lbn` on, the heads arriving over the first
    /// track at time `t` (ns): waits for each track's sectors to come round
    /// (or, with zero-latency access, reads them as they pass), switching
    /// tracks at every boundary. With `streaming`, the heads are already
    /// over the first sector (a transfer that goes on without a break).
    /// Returns the time the last sector has passed.
    pub fn transfer(&self, lbn: u64, n: u64, t: f64, streaming: bool) -> f64 {
        let mut end = t;
        self.segments(lbn, n, t, streaming, |_, e, _| end = e);
        end
    }

    /// [`transfer`](Self::transfer) track by track: calls `seg(start, end,
    /// sectors)` for each track's part, the times its first sector starts
    /// and its last sector ends passing under the head (with zero-latency
    /// access, the span of the part's own sectors before its end).
    pub fn segments(
        &self,
        lbn: u64,
        n: u64,
        t: f64,
        streaming: bool,
        mut seg: impl FnMut(f64, f64, u64),
    ) {
        let (mut t, mut lbn, mut left) = (t, lbn, n);
        let mut prev: Option<u64> = None;
        while left > 0 {
            let p = self.place(lbn);
            let spt = f64::from(p.spt);
            let k = left.min(u64::from(p.spt - p.sector));
            if let Some(q) = prev {
                t += self.switch_ns(q, p.track);
            }
            let wait = if prev.is_none() && streaming {
                0.0
            } else {
                // Where the head is on this track, in sectors [0, spt).
                let turns = (t / self.rev_ns).fract();
                let pos = (turns - self.start(p.track)).rem_euclid(1.0) * spt;
                // Rounding must not turn "just arrived" into "just missed".
                let pos = if (pos - pos.round()).abs() < 1e-6 {
                    pos.round() % spt
                } else {
                    pos
                };
                self.wait_sectors(pos, p.sector, k as u32, p.spt)
            };
            let start = t + wait * self.rev_ns / spt;
            t = start + k as f64 * self.rev_ns / spt;
            seg(start, t, k);
            left -= k;
            lbn += k;
            prev = Some(p.track);
        }
    }

    /// Sectors to wait, the head at `pos`, before `k` sectors from `s0`
    /// have passed beyond their own `k`: the rotational latency. With
    /// zero-latency access and the head over the range (or a whole track
    /// wanted), reading starts at the next sector boundary and takes a
    /// revolution.
    fn wait_sectors(&self, pos: f64, s0: u32, k: u32, spt: u32) -> f64 {
        let spt_f = f64::from(spt);
        let to_start = (f64::from(s0) - pos).rem_euclid(spt_f);
        if !self.zero_latency {
            return to_start;
        }
        let next = pos.ceil();
        let boundary = (next - pos) % spt_f;
        let c = (next as u32) % spt;
        if k == spt {
            // Any landing: a revolution from the next boundary.
            return boundary + spt_f - f64::from(k);
        }
        let inside = c > s0 && c < s0 + k;
        if inside {
            // From c to the range's end, round to s0, up to c: a revolution.
            boundary + spt_f - f64::from(k)
        } else {
            to_start
        }
    }

    /// One revolution, ns.
    pub fn revolution_ns(&self) -> f64 {
        self.rev_ns
    }
}

impl ZoneLayout {
    /// Angle of sector 0 of the zone's `k`-th track.
    fn start(&self, k: u64, heads: u64) -> f64 {
        // Of the k switches since the zone's first track, `cyl` were to the
        // next cylinder and the rest to the next head.
        let cyl = k / heads;
        let head_switches = k - cyl;
        let skew = (head_switches % u64::from(self.spt)) * u64::from(self.track_skew)
            + (cyl % u64::from(self.spt)) * u64::from(self.cylinder_skew);
        (self.base + (skew % u64::from(self.spt)) as f64 / f64::from(self.spt)).fract()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small(zero_latency: bool) -> Geometry {
        Geometry {
            sector_size: Bytes(512),
            heads: 2,
            zones: vec![
                Zone {
                    cylinders: 3,
                    sectors_per_track: 100,
                },
                Zone {
                    cylinders: 2,
                    sectors_per_track: 60,
                },
            ],
            head_switch_ms: 0.6,
            cylinder_switch_ms: 0.9,
            track_skew_sectors: None,
            cylinder_skew_sectors: None,
            zero_latency,
        }
    }

    #[test]
    fn sectors_are_laid_out_zone_by_zone_track_by_track() {
        let l = Layout::new(&small(false), 6000.0); // 10 ms a revolution
        assert_eq!(small(false).capacity(), (3 * 2 * 100 + 2 * 2 * 60) * 512);
        assert_eq!(
            l.place(0),
            Place {
                track: 0,
                sector: 0,
                spt: 100
            }
        );
        assert_eq!(
            l.place(599),
            Place {
                track: 5,
                sector: 99,
                spt: 100
            }
        );
        assert_eq!(
            l.place(600),
            Place {
                track: 6,
                sector: 0,
                spt: 60
            }
        );
        assert_eq!(
            l.place(661),
            Place {
                track: 7,
                sector: 1,
                spt: 60
            }
        );
        assert_eq!(l.track_start(7), 660);
        assert_eq!(l.cylinder(7), 3);
        // Skews: 0.6 ms of 10 ms over 100 sectors = 6 sectors; 0.9 ms = 9.
        assert_eq!((l.zones[0].track_skew, l.zones[0].cylinder_skew), (6, 9));
        assert_eq!((l.zones[1].track_skew, l.zones[1].cylinder_skew), (4, 6));
        assert!((l.start(1) - 0.06).abs() < 1e-12);
        assert!((l.start(2) - 0.15).abs() < 1e-12);
    }

    #[test]
    fn a_sequential_transfer_loses_only_the_skew_at_each_boundary() {
        let l = Layout::new(&small(false), 6000.0);
        // Six tracks of the outer zone, streaming from sector 0 of track 0:
        // 6 revolutions of data, 3 head switches (skew 6 sectors = 0.6 ms)
        // and 2 cylinder switches (9 sectors = 0.9 ms).
        let t = l.transfer(0, 600, 0.0, true);
        let want = 6.0 * 10e6 + 3.0 * 0.6e6 + 2.0 * 0.9e6;
        assert!((t - want).abs() < 1.0, "{t} vs {want}");
    }

    #[test]
    fn rotational_latency_is_the_distance_to_the_first_sector() {
        let l = Layout::new(&small(false), 6000.0);
        // At time 0 the head is over sector 0 of track 0; sector 50 is half
        // a revolution away, and 10 sectors take 1 ms.
        let t = l.transfer(50, 10, 0.0, false);
        assert!((t - 6e6).abs() < 1.0, "{t}");
        // Arriving just past sector 50: nearly a whole revolution more.
        let t = l.transfer(50, 10, 5.05e6, false);
        assert!((t - (15e6 + 1e6)).abs() < 1.0, "{t}");
    }

    #[test]
    fn zero_latency_reads_a_track_in_one_revolution_wherever_it_lands() {
        let zl = Layout::new(&small(true), 6000.0);
        let plain = Layout::new(&small(false), 6000.0);
        for arrive in [0.0, 1.3e6, 5.0e6, 9.9e6] {
            let t = zl.transfer(0, 100, arrive, false);
            let boundary = (arrive / 0.1e6).ceil() * 0.1e6 - arrive;
            assert!((t - arrive - boundary - 10e6).abs() < 1.0, "{arrive}: {t}");
        }
        // Landing in the middle of a partial range: a revolution; without
        // zero latency: round to its first sector, then the range.
        let (a, b) = (
            zl.transfer(20, 40, 3.0e6, false),
            plain.transfer(20, 40, 3.0e6, false),
        );
        assert!((a - 13e6).abs() < 1.0, "{a}");
        assert!((b - (12e6 + 4e6)).abs() < 1.0, "{b}");
        // Landing before it: the same for both.
        let (a, b) = (
            zl.transfer(20, 40, 1.0e6, false),
            plain.transfer(20, 40, 1.0e6, false),
        );
        assert!((a - 6e6).abs() < 1.0 && (b - 6e6).abs() < 1.0, "{a} {b}");
    }
}
