//! What the rest of the machine was doing while willy measured: from
//! `/proc/stat` (CPU time, and time stolen by a hypervisor),
//! `/proc/loadavg` and `/proc/diskstats`, sampled before and after a
//! measurement, with willy's own CPU time (`getrusage`) taken out.
//!
//! A measurement is **disturbed** when other processes kept at least
//! [`BUSY_CORES`] cores busy on average, or the hypervisor stole at least
//! [`STEAL_FRAC`] of the CPU time: its throughput may be low because of
//! them, not because of the storage.

use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Cores kept busy by other processes from which a measurement counts as
/// disturbed.
pub const BUSY_CORES: f64 = 0.5;

/// The fraction of CPU time stolen from which a measurement counts as
/// disturbed.
pub const STEAL_FRAC: f64 = 0.05;

/// The machine's background over one measurement (warm start included).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Background {
    /// Cores busy on average with other work than willy's (all CPU time
    /// but idle, iowait and steal, less willy's own).
    pub other_cores_busy: f64,
    /// Fraction of all CPU time the hypervisor stole.
    pub steal_frac: f64,
    /// The 1-minute load average at the end.
    pub load1: f64,
    /// Bytes read and written on the machine's disks (whole devices, not
    /// partitions), willy's own included, per second.
    pub disk_bytes_per_sec: f64,
    /// True when [`BUSY_CORES`] or [`STEAL_FRAC`] was reached.
    pub disturbed: bool,
}

impl Background {
    /// The same, with `cores` more of the busy cores counted as willy's
    /// own (the other ranks on this host of a run on several ranks).
    pub fn less_cores(self, cores: f64) -> Background {
        let other = (self.other_cores_busy - cores).max(0.0);
        Background {
            other_cores_busy: other,
            disturbed: other >= BUSY_CORES || self.steal_frac >= STEAL_FRAC,
            ..self
        }
    }
}

/// One reading of the counters.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    at: Instant,
    /// (busy, steal, all) in clock ticks.
    cpu: Option<(u64, u64, u64)>,
    own_secs: f64,
    disk_sectors: Option<u64>,
}

impl Sample {
    /// Reads the counters now.
    pub fn now() -> Sample {
        Sample {
            at: Instant::now(),
            cpu: std::fs::read_to_string("/proc/stat")
                .ok()
                .and_then(|s| cpu_ticks(&s)),
            own_secs: own_cpu_secs(),
            disk_sectors: std::fs::read_to_string("/proc/diskstats")
                .ok()
                .map(|s| disk_sectors(&s)),
        }
    }

    /// The background between this reading and a later one; `None` where
    /// /proc cannot be read (not Linux, or no /proc).
    pub fn until(&self, end: &Sample) -> Option<Background> {
        let (b0, s0, a0) = self.cpu?;
        let (b1, s1, a1) = end.cpu?;
        let secs = end.at.duration_since(self.at).as_secs_f64();
        let all = a1.saturating_sub(a0) as f64;
        if secs <= 0.0 || all <= 0.0 {
            return None;
        }
        let busy_secs = b1.saturating_sub(b0) as f64 / user_hz();
        let own = (end.own_secs - self.own_secs).max(0.0);
        let other = ((busy_secs - own) / secs).max(0.0);
        let steal = s1.saturating_sub(s0) as f64 / all;
        let disk = match (self.disk_sectors, end.disk_sectors) {
            (Some(d0), Some(d1)) => d1.saturating_sub(d0) as f64 * 512.0 / secs,
            _ => 0.0,
        };
        Some(Background {
            other_cores_busy: other,
            steal_frac: steal,
            load1: load1().unwrap_or(0.0),
            disk_bytes_per_sec: disk,
            disturbed: other >= BUSY_CORES || steal >= STEAL_FRAC,
        })
    }
}

/// `/proc/stat`'s ticks per second (USER_HZ).
fn user_hz() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if hz > 0 {
        hz as f64
    } else {
        100.0
    }
}

/// (busy, steal, all) ticks from `/proc/stat`'s first line: user nice
/// system idle iowait irq softirq steal (guest time is inside user).
pub fn cpu_ticks(stat: &str) -> Option<(u64, u64, u64)> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .take(8)
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    if v.len() < 8 {
        return None;
    }
    let all: u64 = v.iter().sum();
    let idle = v[3] + v[4];
    let steal = v[7];
    Some((all - idle - steal, steal, all))
}

/// Sectors read and written on whole disks in `/proc/diskstats` (a device
/// whose name ends in a digit after a letter, such as `sda1` or `vda2`,
/// is a partition, except `nvme0n1`-like names and `loop`/`ram`, which are
/// skipped).
pub fn disk_sectors(stats: &str) -> u64 {
    stats
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let name = *f.get(2)?;
            if name.starts_with("loop") || name.starts_with("ram") || is_partition(name) {
                return None;
            }
            let read: u64 = f.get(5)?.parse().ok()?;
            let written: u64 = f.get(9)?.parse().ok()?;
            Some(read + written)
        })
        .sum()
}

/// Milliseconds a block device has had requests in flight (`io_ticks`),
/// from its `stat` file's text: the 10th field.
pub fn io_ticks_ms(stat: &str) -> Option<u64> {
    stat.split_whitespace().nth(9)?.parse().ok()
}

/// [`io_ticks_ms`] of block device `dev` (a `st_rdev` or `st_dev`) now,
/// from `/sys/dev/block/MAJOR:MINOR/stat`.
pub fn io_ticks_now(dev: u64) -> Option<u64> {
    let stat = format!(
        "/sys/dev/block/{}:{}/stat",
        libc::major(dev),
        libc::minor(dev)
    );
    io_ticks_ms(&std::fs::read_to_string(stat).ok()?)
}

fn is_partition(name: &str) -> bool {
    if name.starts_with("nvme") || name.starts_with("mmcblk") {
        return name.contains('p')
            && name
                .rsplit('p')
                .next()
                .is_some_and(|t| t.chars().all(|c| c.is_ascii_digit()));
    }
    name.ends_with(|c: char| c.is_ascii_digit())
        && !name.starts_with("dm-")
        && !name.starts_with("md")
}

fn load1() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn own_cpu_secs() -> f64 {
    let (user, system) = crate::run::cpu_times();
    user + system
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_stat_and_diskstats_are_read() {
        let stat = "cpu  100 5 50 800 20 1 2 30 0 0\ncpu0 50 2 25 400 10 0 1 15 0 0\n";
        assert_eq!(cpu_ticks(stat), Some((158, 30, 1008)));
        assert_eq!(cpu_ticks("cpu 1 2\n"), None);
        let disks = "\
 253       0 vda 100 0 2000 0 50 0 3000 0 0 0 0
 253       1 vda1 90 0 1900 0 40 0 2900 0 0 0 0
   7       0 loop0 5 0 80 0 0 0 0 0 0 0 0
 259       0 nvme0n1 10 0 200 0 5 0 300 0 0 0 0
 259       1 nvme0n1p1 9 0 100 0 4 0 200 0 0 0 0
   9       0 md0 1 0 8 0 1 0 8 0 0 0 0
";
        assert_eq!(disk_sectors(disks), 2000 + 3000 + 200 + 300 + 8 + 8);
        let stat = "     100        0     2000        7       50        0     3000        9        0     1234     1250\n";
        assert_eq!(io_ticks_ms(stat), Some(1234));
        assert_eq!(io_ticks_ms("1 2 3"), None);
    }

    #[test]
    fn a_busy_loop_beside_willy_is_seen() {
        let before = Sample::now();
        // Another process's work: a spin in a child process (a thread of
        // ours would count as willy's own).
        let mut child = std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1500));
        let _ = child.kill();
        let _ = child.wait();
        let b = before.until(&Sample::now()).expect("/proc is readable");
        assert!(b.other_cores_busy > 0.5, "{b:?}");
        assert!(b.disturbed, "{b:?}");
    }
}
