//! Where a run does its I/O: files willy creates in a directory, or a raw
//! block device; and the checks that keep other people's data safe.
//!
//! - **Directory** (the default is `./willy-data`, created if missing): one
//!   file per generator, named `willy-<pid>-<n>.dat`, created with `O_EXCL`
//!   (willy never opens a file it did not create), fully written and synced
//!   before anything is measured, and removed when the run ends, fails or is
//!   interrupted. Free space is checked before any file is created.
//! - **Block device**: `O_DIRECT` (through the page cache only where
//!   `TargetSpec::buffered_device` asks, as `willy anomalies` does for
//!   its buffered samples); generator `n` uses the region
//!   `[n * R, (n + 1) * R)` with `R = uniqueBytes / processNum`. Reads are
//!   allowed. Writes need `allow_device_writes` and are refused when the
//!   device, one of its partitions or a holder is mounted or in use, or when
//!   the device or a partition holds a filesystem, partition table or other
//!   signature. The device is then opened with `O_EXCL`, which the kernel
//!   refuses while anything has it mounted or claimed.

use crate::workload::Workload;
use crate::Error;
use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The default target directory.
pub const DEFAULT_DIR: &str = "willy-data";

/// Data files in `dir` left by a willy run that no longer exists
/// (`willy-<pid>-...dat` of a PID without a `/proc` entry): a run killed
/// with SIGKILL or by the OOM killer cannot clean up. willy never removes
/// them itself (it writes only to files it created); it reports them.
/// Sorted; empty where `dir` is not a readable directory.
pub fn leftovers(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = rd
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let pid: u32 = name
                .strip_prefix("willy-")?
                .strip_suffix(".dat")?
                .split('-')
                .next()?
                .parse()
                .ok()?;
            let gone = !Path::new("/proc").join(pid.to_string()).exists();
            gone.then(|| e.path())
        })
        .collect();
    out.sort();
    out
}

/// What to open.
#[derive(Clone, Debug)]
pub struct TargetSpec {
    /// A directory, a block device, or `None` for [`DEFAULT_DIR`].
    pub path: Option<PathBuf>,
    /// Use O_DIRECT on files (devices use it unless `buffered_device`).
    pub direct: bool,
    /// Open a raw device through the page cache (without O_DIRECT) when
    /// `direct` is off; its cached pages are dropped when it is opened,
    /// so each opening starts cold, as new files do.
    pub buffered_device: bool,
    /// Permit writes to a raw device (still refused if it is in use).
    pub allow_device_writes: bool,
    /// Fill files with `--verify` headers ([`crate::verify`]).
    pub verify: Option<crate::verify::Level>,
    /// One rank of a run on several ([`crate::cluster`]): its files are
    /// named `willy-<pid>-r<rank>-...dat` (in a shared directory, PIDs of
    /// different hosts can collide; ranks cannot) and are unlinked as soon
    /// as they are created, so that a rank killed with SIGKILL leaves
    /// nothing behind.
    pub rank: Option<usize>,
}

/// An opened target, ready for I/O. Dropping it closes the files and removes
/// every file willy created.
#[derive(Debug)]
pub struct Target {
    files: Vec<File>,
    bases: Vec<u64>,
    created: Vec<PathBuf>,
    created_dir: Option<PathBuf>,
    /// What the target is, for reports.
    pub kind: TargetKind,
    /// The path given (or the default directory).
    pub path: PathBuf,
    /// Whether I/O uses O_DIRECT.
    pub direct: bool,
    /// Whether the fill stamps `--verify` headers.
    verify: Option<crate::verify::Level>,
    /// One rank of several (`TargetSpec::rank`): the files were unlinked
    /// once created, and `created` names them for messages only.
    rank: Option<usize>,
}

/// A directory of files or a raw device.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum TargetKind {
    /// Files willy created in a directory.
    Files,
    /// A raw block device.
    Device,
    /// A simulated system (`sim:PRESET`): no real I/O, virtual time.
    Simulated,
}

/// Which of several workloads run together a target is opened for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Part {
    /// The workload's index (0 for a workload run alone).
    pub index: usize,
    /// On a raw device, where its regions start, bytes.
    pub offset: u64,
}

/// Progress while files are being written: (bytes written, bytes in all).
/// Returning `false` stops the filling (Ctrl-C): the files are removed.
pub type FillProgress<'a> = &'a mut dyn FnMut(u64, u64) -> bool;

impl Target {
    /// Checks and opens the target for `w`. Files are created and filled;
    /// `progress` hears about the filling.
    pub fn open(spec: &TargetSpec, w: &Workload, progress: FillProgress) -> Result<Target, Error> {
        Target::open_part(spec, w, Part::default(), progress)
    }

    /// Opens the target for workload `part.index` of several run together:
    /// its files are named apart from the others' (`willy-<pid>-<k>-<n>.dat`
    /// for k > 0), and on a device its regions start at `part.offset`.
    pub fn open_part(
        spec: &TargetSpec,
        w: &Workload,
        part: Part,
        progress: FillProgress,
    ) -> Result<Target, Error> {
        match &spec.path {
            None => {
                let dir = PathBuf::from(DEFAULT_DIR);
                let created_dir = if dir.exists() {
                    None
                } else {
                    std::fs::create_dir(&dir)
                        .map_err(|e| Error::io(format!("cannot create {}", dir.display()), e))?;
                    Some(dir.clone())
                };
                let mut t = Target::empty(TargetKind::Files, dir.clone(), spec.direct);
                t.created_dir = created_dir;
                t.verify = spec.verify;
                t.rank = spec.rank;
                t.fill_dir(&dir, w, part, progress)?;
                Ok(t)
            }
            Some(p) => {
                let meta = std::fs::metadata(p).map_err(|e| {
                    Error::Usage(format!("target {} cannot be used: {}", p.display(), e))
                })?;
                if meta.is_dir() {
                    let mut t = Target::empty(TargetKind::Files, p.clone(), spec.direct);
                    t.verify = spec.verify;
                    t.rank = spec.rank;
                    t.fill_dir(p, w, part, progress)?;
                    Ok(t)
                } else if meta.file_type().is_block_device() {
                    let direct = spec.direct || !spec.buffered_device;
                    Target::open_device(p, meta.rdev(), w, part.offset, spec, direct)
                } else {
                    Err(Error::Usage(format!(
                        "target {} is neither a directory nor a block device (willy only writes to files it creates)",
                        p.display()
                    )))
                }
            }
        }
    }

    /// No files: a rank of several that runs none of a workload's
    /// generators.
    pub fn idle(spec: &TargetSpec) -> Target {
        let path = spec
            .path
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_DIR));
        Target::empty(TargetKind::Files, path, spec.direct)
    }

    fn empty(kind: TargetKind, path: PathBuf, direct: bool) -> Target {
        Target {
            files: vec![],
            bases: vec![],
            created: vec![],
            created_dir: None,
            kind,
            path,
            direct,
            verify: None,
            rank: None,
        }
    }

    /// Descriptor and base offset of generator `n`'s file or region.
    pub fn file_of(&self, n: usize) -> (RawFd, u64) {
        (self.files[n].as_raw_fd(), self.bases[n])
    }

    /// Read-ahead on (`POSIX_FADV_NORMAL`) or off (`POSIX_FADV_RANDOM`)
    /// for every file or device of the target.
    pub fn advise_readahead(&self, on: bool) -> Result<(), Error> {
        let advice = if on {
            libc::POSIX_FADV_NORMAL
        } else {
            libc::POSIX_FADV_RANDOM
        };
        for (n, f) in self.files.iter().enumerate() {
            // SAFETY: a valid descriptor of a file this target holds open.
            let rc = unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, advice) };
            if rc != 0 {
                return Err(Error::io(
                    format!("posix_fadvise on {}", self.name_of(n)),
                    std::io::Error::from_raw_os_error(rc),
                ));
            }
        }
        Ok(())
    }

    /// Writes willy's own dirty pages of these files back to the disk
    /// (`fdatasync`), so that one measurement's writes are not billed to
    /// the next. A raw device written with O_DIRECT has nothing to write
    /// back; a buffered one is synced once (its regions share one cache).
    pub fn write_back(&self) -> Result<(), Error> {
        let files = match self.kind {
            TargetKind::Files => &self.files[..],
            TargetKind::Device if !self.direct => &self.files[..self.files.len().min(1)],
            _ => return Ok(()),
        };
        for (n, f) in files.iter().enumerate() {
            f.sync_data()
                .map_err(|e| Error::io(format!("writing back {}", self.name_of(n)), e))?;
        }
        Ok(())
    }

    /// The files (or the device's regions), one per generator, for fio.
    pub fn fio_layout(&self) -> crate::fio::Layout {
        match self.kind {
            TargetKind::Device => crate::fio::Layout::Device(self.path.clone(), self.bases.clone()),
            _ => crate::fio::Layout::Files(self.created.clone()),
        }
    }

    /// The path of generator `n`'s file, or the device's, for messages.
    pub fn name_of(&self, n: usize) -> String {
        match self.created.get(n) {
            Some(p) if self.kind == TargetKind::Files => p.display().to_string(),
            _ => self.path.display().to_string(),
        }
    }

    fn fill_dir(
        &mut self,
        dir: &Path,
        w: &Workload,
        part: Part,
        progress: FillProgress,
    ) -> Result<(), Error> {
        check_writable_dir(dir)?;
        let need = w.total_bytes();
        let free = free_bytes(dir)?;
        // Keep a margin for metadata and for whoever else uses the disk.
        let margin = (need / 50).max(64 << 20);
        if let Some(free) = free.filter(|&f| f < need + margin) {
            return Err(Error::Usage(format!(
                "not enough free space in {}: the workload needs {} (+{} margin), {} is free",
                dir.display(),
                crate::units::Bytes(need),
                crate::units::Bytes(margin),
                crate::units::Bytes(free)
            )));
        }
        let pid = std::process::id();
        let rank = self.rank.map(|r| format!("r{r}-")).unwrap_or_default();
        for n in 0..w.process_num {
            let path = match part.index {
                0 => dir.join(format!("willy-{pid}-{rank}{n}.dat")),
                k => dir.join(format!("willy-{pid}-{rank}{k}-{n}.dat")),
            };
            let mut opts = OpenOptions::new();
            opts.read(true).write(true).create_new(true);
            if self.direct {
                opts.custom_flags(libc::O_DIRECT);
            }
            let f = match opts.open(&path) {
                Ok(f) => f,
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) && self.direct => {
                    // Some filesystems refuse O_DIRECT at open (ramfs, some FUSE).
                    let _ = std::fs::remove_file(&path);
                    return Err(Error::Usage(format!(
                        "O_DIRECT is not supported by the filesystem of {}: drop --direct",
                        dir.display()
                    )));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    return Err(Error::Usage(format!(
                        "{} already exists; willy only writes to files it creates",
                        path.display()
                    )))
                }
                Err(e)
                    if matches!(
                        e.raw_os_error(),
                        Some(
                            libc::EACCES | libc::EPERM | libc::EROFS | libc::ENOENT | libc::ENOTDIR
                        )
                    ) =>
                {
                    return Err(Error::Usage(format!(
                        "target {} cannot be written: {e}",
                        dir.display()
                    )))
                }
                Err(e) => return Err(Error::io(format!("cannot create {}", path.display()), e)),
            };
            if self.rank.is_some() {
                std::fs::remove_file(&path)
                    .map_err(|e| Error::io(format!("unlinking {}", path.display()), e))?;
            }
            self.created.push(path);
            self.files.push(f);
            self.bases.push(0);
        }
        self.fill(w, progress)
    }

    /// Writes every file in full, then syncs, so that the measurement starts
    /// with allocated, clean files.
    fn fill(&mut self, w: &Workload, progress: FillProgress) -> Result<(), Error> {
        let per = w.bytes_per_generator();
        let total = per * self.files.len() as u64;
        // Whole blocks per chunk, so that `--verify` stamps every block.
        let chunk = (1u64 << 20).max(w.block_size.0).min(per) as usize;
        let mut buf = crate::engine::AlignedBuf::new(chunk, 0x5eed);
        let mut done = 0u64;
        for (n, f) in self.files.iter().enumerate() {
            let mut off = 0u64;
            while off < per {
                let len = chunk.min((per - off) as usize);
                if let Some(level) = self.verify {
                    let b = &mut buf.as_mut_slice()[..len];
                    crate::verify::stamp_fill(b, off, w.block_size.0, level);
                }
                let r = f.write_all_at(&buf.as_slice()[..len], off);
                if let Err(e) = r {
                    if e.raw_os_error() == Some(libc::EINVAL) && self.direct {
                        return Err(Error::Usage(format!(
                            "O_DIRECT is not supported by the filesystem of {}: drop --direct",
                            self.path.display()
                        )));
                    }
                    return Err(Error::io(
                        format!("writing {}", self.created[n].display()),
                        e,
                    ));
                }
                off += len as u64;
                done += len as u64;
                if !progress(done, total) {
                    return Err(Error::Interrupted);
                }
            }
            f.sync_all()
                .map_err(|e| Error::io(format!("syncing {}", self.created[n].display()), e))?;
        }
        Ok(())
    }

    fn open_device(
        p: &Path,
        rdev: u64,
        w: &Workload,
        offset: u64,
        spec: &TargetSpec,
        direct: bool,
    ) -> Result<Target, Error> {
        let writes = w.read_frac < 1.0;
        if writes && !spec.allow_device_writes {
            return Err(Error::Usage(format!(
                "the workload writes (readFrac {} < 1) to raw device {}; pass --allow-device-writes to permit it (all data on it may be destroyed)",
                w.read_frac,
                p.display()
            )));
        }
        if writes {
            if let Some(why) = device_in_use(p, rdev) {
                return Err(Error::Usage(format!(
                    "refusing to write to {}: {why}",
                    p.display()
                )));
            }
        }
        let mut opts = OpenOptions::new();
        opts.read(true).write(writes).custom_flags(
            if direct { libc::O_DIRECT } else { 0 } | if writes { libc::O_EXCL } else { 0 },
        );
        let f = opts.open(p).map_err(|e| match e.raw_os_error() {
            Some(libc::EBUSY) => Error::Usage(format!(
                "refusing to write to {}: the device is busy (mounted or claimed)",
                p.display()
            )),
            Some(libc::EACCES) | Some(libc::EPERM) => {
                Error::Usage(format!("target {} cannot be opened: {e}", p.display()))
            }
            _ => Error::io(format!("opening {}", p.display()), e),
        })?;
        let size = device_size(&f)
            .map_err(|e| Error::io(format!("reading the size of {}", p.display()), e))?;
        let need = offset + w.total_bytes();
        if size < need {
            return Err(Error::Usage(format!(
                "device {} holds {} but uniqueBytes needs {}",
                p.display(),
                crate::units::Bytes(size),
                crate::units::Bytes(need)
            )));
        }
        if !direct {
            // Start cold: pages an earlier opening cached go (clean ones;
            // what it wrote was written back before it closed).
            // SAFETY: a valid descriptor of the device just opened.
            unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        }
        let per = w.bytes_per_generator();
        let mut t = Target::empty(TargetKind::Device, p.to_path_buf(), direct);
        for n in 0..w.process_num {
            let f = f
                .try_clone()
                .map_err(|e| Error::io("duplicating the device descriptor", e))?;
            t.files.push(f);
            t.bases.push(offset + u64::from(n) * per);
        }
        Ok(t)
    }

    /// Removes the files willy created (also done on drop).
    pub fn cleanup(&mut self) {
        self.files.clear();
        for p in self.created.drain(..) {
            if self.rank.is_none() {
                let _ = std::fs::remove_file(&p);
            }
        }
        if let Some(d) = self.created_dir.take() {
            let _ = std::fs::remove_dir(&d); // only if empty
        }
    }
}

impl Drop for Target {
    fn drop(&mut self) {
        self.cleanup();
    }
}

fn check_writable_dir(dir: &Path) -> Result<(), Error> {
    let c = CString::new(dir.as_os_str().as_encoded_bytes())
        .map_err(|_| Error::Usage("target path contains a NUL byte".into()))?;
    // SAFETY: c is a valid C string.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } != 0 {
        return Err(Error::Usage(format!(
            "target {} cannot be written: {}",
            dir.display(),
            std::io::Error::last_os_error()
        )));
    }
    // access() ignores read-only mounts for root: ask statvfs.
    let st = statvfs(dir)?;
    if st.f_flag & libc::ST_RDONLY != 0 {
        return Err(Error::Usage(format!(
            "target {} cannot be written: read-only filesystem",
            dir.display()
        )));
    }
    Ok(())
}

fn statvfs(dir: &Path) -> Result<libc::statvfs, Error> {
    let c = CString::new(dir.as_os_str().as_encoded_bytes())
        .map_err(|_| Error::Usage("target path contains a NUL byte".into()))?;
    // SAFETY: zeroed statvfs is a valid out-parameter; c is a valid C string.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return Err(Error::io(
            format!("statvfs {}", dir.display()),
            std::io::Error::last_os_error(),
        ));
    }
    Ok(st)
}

/// Bytes available to an unprivileged user in the filesystem of `dir`, or
/// `None` for a filesystem without a size (ramfs reports zero blocks).
pub fn free_bytes(dir: &Path) -> Result<Option<u64>, Error> {
    let st = statvfs(dir)?;
    Ok((st.f_blocks > 0).then_some(st.f_bavail * st.f_frsize))
}

/// The size of the block device at `p`, bytes, and its device number;
/// `None` if `p` is not a block device.
pub fn block_device(p: &Path) -> Result<Option<(u64, u64)>, Error> {
    let meta = std::fs::metadata(p)
        .map_err(|e| Error::Usage(format!("target {} cannot be used: {e}", p.display())))?;
    if !meta.file_type().is_block_device() {
        return Ok(None);
    }
    let f = File::open(p).map_err(|e| Error::io(format!("opening {}", p.display()), e))?;
    let size = device_size(&f)
        .map_err(|e| Error::io(format!("reading the size of {}", p.display()), e))?;
    Ok(Some((size, meta.rdev())))
}

fn device_size(f: &File) -> std::io::Result<u64> {
    // BLKGETSIZE64 = _IOR(0x12, 114, size_t)
    const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
    let mut size: u64 = 0;
    // SAFETY: the ioctl writes one u64.
    if unsafe { libc::ioctl(f.as_raw_fd(), BLKGETSIZE64, &mut size) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(size)
}

/// Why a device must not be written, or `None` if nothing claims it.
/// Looks at the device, its partitions and its holders: mounts, swap,
/// device-mapper or md holders, and on-disk signatures.
pub fn device_in_use(p: &Path, rdev: u64) -> Option<String> {
    let name = sysfs_name(rdev)?;
    let mut devs = vec![(name.clone(), rdev)];
    if let Ok(rd) = std::fs::read_dir(format!("/sys/class/block/{name}")) {
        for e in rd.flatten() {
            let sub = e.path();
            if sub.join("partition").exists() {
                if let Some(dev) = read_dev(&sub.join("dev")) {
                    devs.push((e.file_name().to_string_lossy().into_owned(), dev));
                }
            }
        }
    }
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let swaps = std::fs::read_to_string("/proc/swaps").unwrap_or_default();
    for (n, dev) in &devs {
        let mm = format!("{}:{}", libc::major(*dev), libc::minor(*dev));
        if let Some(line) = mountinfo
            .lines()
            .find(|l| l.split(' ').nth(2) == Some(mm.as_str()))
        {
            let at = line.split(' ').nth(4).unwrap_or("?");
            return Some(format!("/dev/{n} is mounted at {at}"));
        }
        if swaps
            .lines()
            .skip(1)
            .any(|l| l.split_whitespace().next() == Some(&format!("/dev/{n}")))
        {
            return Some(format!("/dev/{n} is in use as swap"));
        }
        let holders = std::fs::read_dir(format!("/sys/class/block/{n}/holders"))
            .map(|d| d.count())
            .unwrap_or(0);
        if holders > 0 {
            return Some(format!(
                "/dev/{n} is held by another device (device-mapper, md, ...)"
            ));
        }
        let path = if *n == name {
            p.to_path_buf()
        } else {
            PathBuf::from(format!("/dev/{n}"))
        };
        if let Some(sig) = signature(&path) {
            return Some(format!("{} holds {sig}", path.display()));
        }
    }
    None
}

fn sysfs_name(rdev: u64) -> Option<String> {
    let link = std::fs::read_link(format!(
        "/sys/dev/block/{}:{}",
        libc::major(rdev),
        libc::minor(rdev)
    ))
    .ok()?;
    Some(link.file_name()?.to_string_lossy().into_owned())
}

fn read_dev(p: &Path) -> Option<u64> {
    let s = std::fs::read_to_string(p).ok()?;
    let (a, b) = s.trim().split_once(':')?;
    Some(libc::makedev(a.parse().ok()?, b.parse().ok()?))
}

/// Known on-disk signatures: (offset, magic, what).
const SIGNATURES: &[(usize, &[u8], &str)] = &[
    (1080, &[0x53, 0xEF], "an ext2/3/4 filesystem"),
    (0, b"XFSB", "an XFS filesystem"),
    (65600, b"_BHRfS_M", "a btrfs filesystem"),
    (4086, b"SWAPSPACE2", "a swap area"),
    (4086, b"SWAP-SPACE", "a swap area"),
    (512, b"EFI PART", "a GPT partition table"),
    (512, b"LABELONE", "an LVM physical volume"),
    (0, b"LUKS\xba\xbe", "a LUKS volume"),
    (3, b"NTFS    ", "an NTFS filesystem"),
    (0, b"hsqs", "a squashfs filesystem"),
    (1024, &[0x10, 0x20, 0xF5, 0xF2], "an F2FS filesystem"),
    (32769, b"CD001", "an ISO 9660 filesystem"),
    (
        510,
        &[0x55, 0xAA],
        "a DOS partition table or FAT boot sector",
    ),
];

/// The first signature found on `dev`, by willy's own table and, where the
/// `blkid` program exists, by libblkid's full probe.
pub fn signature(dev: &Path) -> Option<String> {
    let mut head = vec![0u8; 72 << 10];
    if let Ok(f) = File::open(dev) {
        let n = read_up_to(&f, &mut head);
        for (off, magic, what) in SIGNATURES {
            if off + magic.len() <= n && &head[*off..off + magic.len()] == *magic {
                return Some((*what).to_string());
            }
        }
    }
    let out = std::process::Command::new("blkid")
        .args(["-p", "-o", "value", "-s", "TYPE"])
        .arg(dev)
        .output()
        .ok()?;
    let ty = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (!ty.is_empty()).then(|| format!("a {ty} signature (blkid)"))
}

fn read_up_to(f: &File, buf: &mut [u8]) -> usize {
    let mut n = 0;
    while n < buf.len() {
        match std::os::unix::fs::FileExt::read_at(f, &mut buf[n..], n as u64) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    n
}

/// Writes `text` to `path` atomically: a temporary file beside it, synced,
/// then renamed, so a crash leaves the old file or the new one, never half.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile_in(dir, path)?;
    tmp.1.write_all(text.as_bytes())?;
    tmp.1.sync_all()?;
    std::fs::rename(&tmp.0, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp.0);
    })
}

fn tempfile_in(dir: &Path, target: &Path) -> std::io::Result<(PathBuf, File)> {
    let stem = target
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let p = dir.join(format!(".{stem}.{}.tmp", std::process::id()));
    let f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&p)?;
    Ok((p, f))
}
