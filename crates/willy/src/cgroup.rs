//! A memory cgroup that gives the file cache a chosen size (`--cache-limit`).
//!
//! Page cache is charged to the memory cgroup of the process that first
//! touches a page, and a cgroup's limit makes the kernel reclaim its cache.
//! So running the generators in a cgroup limited to `L` bytes gives the
//! workload a file cache of about `L` (less willy's own memory), and the
//! disk region is reached with working sets of a few times `L` instead of a
//! few times the machine's memory.
//!
//! Safety rules: the cgroup is created *beneath willy's own cgroup* (read
//! from `/proc/self/cgroup`), never anywhere else, named `willy-<pid>`, and
//! removed when the value is dropped (its processes are first moved back to
//! the parent). cgroup v1 (the `memory` controller) is supported; on cgroup
//! v2 alone willy says so and stops, since v2 would first need willy to move
//! itself into a leaf of its own cgroup.

use crate::Error;
use std::path::{Path, PathBuf};

/// A memory-limited cgroup beneath willy's own.
#[derive(Debug)]
pub struct MemoryCgroup {
    dir: PathBuf,
    parent: PathBuf,
    /// Made by this process (removed on drop), not joined.
    owned: bool,
}

/// willy's own memory cgroup directory (cgroup v1).
pub fn own_memory_cgroup() -> Result<PathBuf, Error> {
    let cg = std::fs::read_to_string("/proc/self/cgroup")
        .map_err(|e| Error::Usage(format!("cannot read /proc/self/cgroup: {e}")))?;
    let rel = cg.lines().find_map(|l| {
        let mut f = l.splitn(3, ':');
        let (_, ctrls, path) = (f.next()?, f.next()?, f.next()?);
        ctrls
            .split(',')
            .any(|c| c == "memory")
            .then(|| path.to_string())
    });
    let Some(rel) = rel else {
        return Err(Error::Usage(
            "--cache-limit needs the cgroup v1 memory controller; this system has only cgroup v2, which willy does not support yet"
                .into(),
        ));
    };
    let mount = memory_mount()?;
    Ok(mount.join(rel.trim_start_matches('/')))
}

/// Where the v1 memory controller is mounted.
fn memory_mount() -> Result<PathBuf, Error> {
    let info = std::fs::read_to_string("/proc/self/mountinfo")
        .map_err(|e| Error::Usage(format!("cannot read /proc/self/mountinfo: {e}")))?;
    info.lines()
        .find_map(|l| {
            let (left, right) = l.split_once(" - ")?;
            let mut r = right.split(' ');
            let (fstype, _src, opts) = (r.next()?, r.next()?, r.next()?);
            let at = left.split(' ').nth(4)?;
            (fstype == "cgroup" && opts.split(',').any(|o| o == "memory"))
                .then(|| PathBuf::from(at))
        })
        .ok_or_else(|| {
            Error::Usage("--cache-limit: no cgroup v1 memory controller is mounted".into())
        })
}

fn write(path: &Path, value: &str) -> std::io::Result<()> {
    std::fs::write(path, value)
}

/// The smallest `--cache-limit` willy runs in: the process itself is in
/// the cgroup, and below a few MiB the kernel's OOM killer ended it
/// silently (exit 137, its data files left behind: 2 MiB and less on this
/// machine; 4 MiB ran).
pub const MIN_LIMIT: u64 = 16 << 20;

impl MemoryCgroup {
    /// Creates `willy-<pid>` beneath willy's own memory cgroup, limited to
    /// `limit` bytes.
    pub fn create(limit: u64) -> Result<MemoryCgroup, Error> {
        if limit < MIN_LIMIT {
            return Err(Error::Usage(format!(
                "--cache-limit {} is too small to run in: willy itself needs memory inside the cgroup; pass --cache-limit {} or more",
                crate::units::Bytes(limit).to_string().replace(' ', ""),
                crate::units::Bytes(MIN_LIMIT).to_string().replace(' ', "")
            )));
        }
        let parent = own_memory_cgroup()?;
        remove_stale(&parent);
        let dir = parent.join(format!("willy-{}", std::process::id()));
        std::fs::create_dir(&dir).map_err(|e| {
            Error::Usage(format!(
                "--cache-limit: cannot create a memory cgroup in {}: {e} (run as root, or drop --cache-limit)",
                parent.display()
            ))
        })?;
        let cg = MemoryCgroup {
            dir,
            parent,
            owned: true,
        };
        write(&cg.dir.join("memory.limit_in_bytes"), &limit.to_string()).map_err(|e| {
            Error::Usage(format!(
                "--cache-limit: cannot set the memory limit of {}: {e}",
                cg.dir.display()
            ))
        })?;
        Ok(cg)
    }

    /// A cgroup another process made (the first rank on this host, in a run
    /// on several ranks), to [`add`](Self::add) this one to. On drop this
    /// process moves back to the parent; the maker removes the cgroup.
    pub fn join(dir: &Path) -> Result<MemoryCgroup, Error> {
        let parent = dir
            .parent()
            .map(Path::to_path_buf)
            .ok_or_else(|| Error::Usage(format!("{} is not a memory cgroup", dir.display())))?;
        if !dir.join("cgroup.procs").exists() {
            return Err(Error::Usage(format!(
                "the memory cgroup {} is not there (is every rank of this host in the same cgroup namespace?)",
                dir.display()
            )));
        }
        Ok(MemoryCgroup {
            dir: dir.to_path_buf(),
            parent,
            owned: false,
        })
    }

    /// The cgroup's directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Moves process `pid` (all its threads) into the cgroup.
    pub fn add(&self, pid: u32) -> Result<(), Error> {
        write(&self.dir.join("cgroup.procs"), &pid.to_string()).map_err(|e| {
            Error::io(
                format!("moving process {pid} into {}", self.dir.display()),
                e,
            )
        })
    }

    /// A counter of the cgroup's v1 memory controller, in bytes.
    pub fn counter(&self, name: &str) -> Option<u64> {
        std::fs::read_to_string(self.dir.join(name))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// Page cache charged to the cgroup (`cache` in memory.stat), bytes.
    pub fn cache_bytes(&self) -> Option<u64> {
        let stat = std::fs::read_to_string(self.dir.join("memory.stat")).ok()?;
        stat.lines()
            .find_map(|l| l.strip_prefix("cache ")?.trim().parse().ok())
    }
}

/// Removes the `willy-<pid>` cgroups in `parent` of willy runs that no
/// longer exist and hold no process (a run killed with SIGKILL, or by the
/// OOM killer, cannot remove its own): they are willy's, and empty.
fn remove_stale(parent: &Path) {
    let Ok(rd) = std::fs::read_dir(parent) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name();
        let pid = name.to_str().and_then(|n| n.strip_prefix("willy-"));
        let Some(pid) = pid.and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        let gone = !Path::new("/proc").join(pid.to_string()).exists();
        let procs = std::fs::read_to_string(e.path().join("cgroup.procs")).unwrap_or_default();
        if gone && procs.trim().is_empty() {
            let _ = std::fs::remove_dir(e.path());
        }
    }
}

impl Drop for MemoryCgroup {
    fn drop(&mut self) {
        if !self.owned {
            let _ = write(
                &self.parent.join("cgroup.procs"),
                &std::process::id().to_string(),
            );
            return;
        }
        // A cgroup with processes cannot be removed: move them back first.
        for _ in 0..50 {
            let procs = std::fs::read_to_string(self.dir.join("cgroup.procs")).unwrap_or_default();
            for pid in procs.split_whitespace() {
                let _ = write(&self.parent.join("cgroup.procs"), pid);
            }
            if std::fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::process::{Command, Stdio};

    fn root() -> bool {
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        if !root {
            eprintln!("skipped: creating cgroups needs root");
        }
        root && own_memory_cgroup().is_ok()
    }

    /// A child that writes and reads 160 MiB inside a 32 MiB cgroup never
    /// holds much more than 32 MiB there, and its page cache is charged there.
    #[test]
    fn limits_the_page_cache_beneath_our_own_cgroup_and_cleans_up() {
        if !root() {
            return;
        }
        let own = own_memory_cgroup().unwrap();
        let cg = MemoryCgroup::create(32 << 20).unwrap();
        let dir = cg.path().to_path_buf();
        assert!(
            dir.starts_with(&own) && dir != own,
            "{} is not beneath {}",
            dir.display(),
            own.display()
        );
        assert_eq!(cg.counter("memory.limit_in_bytes"), Some(32 << 20));
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("data");
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "read go; dd if=/dev/zero of={f} bs=1M count=160 2>/dev/null; cat {f} > /dev/null",
                f = file.display()
            ))
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        cg.add(child.id()).unwrap();
        child.stdin.take().unwrap().write_all(b"go\n").unwrap();
        assert!(child.wait().unwrap().success());
        // The kernel may force a charge past the limit by a few pages
        // (allocations that must not fail), so the peak is allowed 1 MiB
        // of slack; without the limit it would be 160 MiB.
        let max = cg.counter("memory.max_usage_in_bytes").unwrap();
        assert!(
            max <= 33 << 20,
            "peak {max} bytes more than 1 MiB above the 32 MiB limit"
        );
        assert!(
            cg.cache_bytes().unwrap() > 8 << 20,
            "no page cache was charged to the cgroup"
        );
        drop(cg);
        assert!(!dir.exists(), "{} was not removed", dir.display());
    }
}
