//! What machine a measurement was taken on: enough for a reader to judge
//! whether two results are comparable.

use serde::{Deserialize, Serialize};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// System information recorded with every result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SystemInfo {
    /// Host name.
    pub hostname: String,
    /// Kernel release (`uname -r`).
    pub kernel: String,
    /// Online CPUs.
    pub cpus: usize,
    /// Physical memory in bytes (`MemTotal`).
    pub memory_bytes: u64,
    /// Filesystem type of the target directory (e.g. `ext4`); `null` for a
    /// raw device.
    pub filesystem: Option<String>,
    /// The block device under the target (whole disk), e.g. `vda`.
    pub device: Option<String>,
    /// Its model string, where the kernel shows one.
    pub device_model: Option<String>,
    /// Whether the kernel calls it rotational.
    pub rotational: Option<bool>,
    /// The largest CPU cache of CPU 0 (usually L3), bytes, where the kernel
    /// shows it. A "cache" found near or below it may be the CPU's rather
    /// than the file cache.
    #[serde(default)]
    pub cpu_cache_bytes: Option<u64>,
    /// willy's version.
    pub willy_version: String,
}

impl SystemInfo {
    /// Collects what is visible for a target at `path` (directory or device).
    pub fn collect(path: &Path) -> SystemInfo {
        let is_dev = std::fs::metadata(path)
            .is_ok_and(|m| std::os::unix::fs::FileTypeExt::is_block_device(&m.file_type()));
        let disk = block_device_of(path).and_then(whole_disk);
        let read = |rel: &str| {
            disk.as_ref()
                .and_then(|d| std::fs::read_to_string(format!("/sys/block/{d}/{rel}")).ok())
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        };
        let model = read("device/model").or_else(|| read("device/vendor").map(|v| vendor_name(&v)));
        SystemInfo {
            hostname: uname_field(|u| &u.nodename),
            kernel: uname_field(|u| &u.release),
            cpus: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            memory_bytes: mem_total(),
            filesystem: if is_dev { None } else { fs_type(path) },
            rotational: read("queue/rotational").map(|r| r == "1"),
            cpu_cache_bytes: cpu_cache(Path::new("/sys/devices/system/cpu/cpu0/cache")),
            device_model: model,
            device: disk,
            willy_version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}

impl SystemInfo {
    /// The description of a simulated system: its preset name as the
    /// device model, its cache capacity as memory.
    pub fn simulated(sim: &crate::sim::SimConfig) -> SystemInfo {
        SystemInfo {
            hostname: "simulator".into(),
            kernel: format!("willy simulator {}", env!("CARGO_PKG_VERSION")),
            cpus: sim.cpu.cpus as usize,
            memory_bytes: sim.cache.as_ref().map(|c| c.capacity.0).unwrap_or(0),
            filesystem: None,
            device: Some(format!("sim:{}", sim.name)),
            device_model: Some(sim.description.clone()),
            rotational: Some(!matches!(
                sim.storage,
                crate::sim::config::StorageConfig::Ssd { .. }
            )),
            cpu_cache_bytes: None,
            willy_version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}

fn vendor_name(v: &str) -> String {
    match v {
        "0x1af4" => "virtio (0x1af4)".to_string(),
        other => other.to_string(),
    }
}

fn uname_field(f: impl Fn(&libc::utsname) -> &[libc::c_char; 65]) -> String {
    // SAFETY: utsname is plain data; uname fills it.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut u) } != 0 {
        return "unknown".into();
    }
    let field = f(&u);
    let bytes: Vec<u8> = field
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The largest data or unified cache under `dir` (sysfs `index*/size`,
/// e.g. "32768K").
fn cpu_cache(dir: &Path) -> Option<u64> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("index"))
        .filter(|e| {
            std::fs::read_to_string(e.path().join("type")).is_ok_and(|t| t.trim() != "Instruction")
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("size")).ok())
        .filter_map(|s| parse_cache_size(s.trim()))
        .max()
}

/// "32768K" -> 33554432; "2M" -> 2097152; a plain number is bytes.
fn parse_cache_size(s: &str) -> Option<u64> {
    let (num, mult) = match s.as_bytes().last()? {
        b'K' => (&s[..s.len() - 1], 1 << 10),
        b'M' => (&s[..s.len() - 1], 1 << 20),
        b'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>().ok()?.checked_mul(mult)
}

fn mem_total() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

/// The block device `path` is, or the one its file system lives on.
pub fn block_device_of(path: &Path) -> Option<u64> {
    let m = std::fs::metadata(path).ok()?;
    Some(
        if std::os::unix::fs::FileTypeExt::is_block_device(&m.file_type()) {
            m.rdev()
        } else {
            m.dev()
        },
    )
}

/// The whole disk holding device `dev` (a partition's parent), by name.
pub fn whole_disk(dev: u64) -> Option<String> {
    let link = std::fs::read_link(format!(
        "/sys/dev/block/{}:{}",
        libc::major(dev),
        libc::minor(dev)
    ))
    .ok()?;
    let name = link.file_name()?.to_string_lossy().into_owned();
    let sys = Path::new("/sys/class/block").join(&name);
    if sys.join("partition").exists() {
        let parent = std::fs::canonicalize(&sys)
            .ok()?
            .parent()?
            .file_name()?
            .to_string_lossy()
            .into_owned();
        Some(parent)
    } else {
        Some(name)
    }
}

/// Filesystem type of the mount holding `path`, from /proc/self/mountinfo
/// (the longest mount point that is a prefix of the canonical path).
fn fs_type(path: &Path) -> Option<String> {
    let canon = std::fs::canonicalize(path).ok()?;
    let info = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mut best: Option<(usize, String)> = None;
    for line in info.lines() {
        let mut parts = line.split(" - ");
        let left: Vec<&str> = parts.next()?.split(' ').collect();
        let right: Vec<&str> = parts.next().unwrap_or("").split(' ').collect();
        let mount = left.get(4)?.replace("\\040", " ");
        if canon.starts_with(&mount) && best.as_ref().is_none_or(|(l, _)| mount.len() >= *l) {
            best = Some((mount.len(), right.first()?.to_string()));
        }
    }
    best.map(|(_, t)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collects_the_basics_for_a_directory() {
        let s = SystemInfo::collect(Path::new("."));
        assert!(!s.kernel.is_empty());
        assert!(s.memory_bytes > 0);
        assert!(s.cpus >= 1);
        assert!(s.filesystem.is_some());
    }

    #[test]
    fn the_largest_data_cache_is_found() {
        assert_eq!(parse_cache_size("32768K"), Some(32 << 20));
        assert_eq!(parse_cache_size("2M"), Some(2 << 20));
        assert_eq!(parse_cache_size("512"), Some(512));
        assert_eq!(parse_cache_size("big"), None);
        assert_eq!(parse_cache_size(""), None);
        // A sysfs-like tree: the 64 MiB instruction cache does not count.
        let dir = tempfile::tempdir().unwrap();
        for (i, ty, size) in [
            (0, "Data", "32K"),
            (1, "Instruction", "65536K"),
            (2, "Unified", "1024K"),
            (3, "Unified", "16384K"),
        ] {
            let d = dir.path().join(format!("index{i}"));
            std::fs::create_dir(&d).unwrap();
            std::fs::write(d.join("type"), format!("{ty}\n")).unwrap();
            std::fs::write(d.join("size"), format!("{size}\n")).unwrap();
        }
        std::fs::write(dir.path().join("uevent"), "").unwrap();
        assert_eq!(cpu_cache(dir.path()), Some(16 << 20));
        assert_eq!(cpu_cache(&dir.path().join("missing")), None);
    }
}
