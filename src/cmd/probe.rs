//! `willy probe`: a device's seek curve, rotation, access-delay boundaries
//! and efficient request sizes (Lachesis; Barve et al.). Reads only.

use super::{check_json_path, write_file};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};
use willy::doc::probe::{Probe, ProbeCost, PROBES};
use willy::probe::device::{Device, RealDevice, SimDevice};
use willy::probe::{ProbeOptions, Progress};
use willy::sim::SimConfig;
use willy::units::{human_bytes, Bytes};
use willy::Error;

#[derive(Args, Debug)]
pub struct ProbeArgs {
    /// What to probe: `sim:NAME`, a block device (read with O_DIRECT), an
    /// existing file, or a directory (willy writes a file there first,
    /// --file-size, and removes it after).
    #[arg(long)]
    target: PathBuf,
    /// Only these probes (comma-separated): rotation, seek, boundaries,
    /// media-rate, efficiency. What they need of the others runs too.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Write the results here (the probe document).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Seed of the random positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Reads per seek distance.
    #[arg(long, default_value_t = ProbeOptions::default().seek_samples)]
    seek_samples: usize,
    /// Track boundaries to sample on a disk that turns.
    #[arg(long, default_value_t = ProbeOptions::default().boundary_samples)]
    boundary_samples: usize,
    /// Random reads per request size and alignment (efficiency).
    #[arg(long, default_value_t = ProbeOptions::default().efficiency_samples)]
    efficiency_samples: usize,
    /// The file written in a directory target.
    #[arg(long, default_value = "1GiB")]
    file_size: Bytes,
}

/// Progress on stderr: the probe running, and each one's cost when done.
struct Shown {
    bar: Option<ProgressBar>,
    started: Instant,
}

impl Progress for Shown {
    fn start(&mut self, probe: &str) {
        self.started = Instant::now();
        match &self.bar {
            Some(b) => b.set_message(format!("{probe} ...")),
            None => errln!("willy: probe {probe} ..."),
        }
    }

    fn done(&mut self, c: &ProbeCost) {
        let line = format!(
            "willy: probe {}: {} reads, {:.1} s on the device's clock, {:.1} s here",
            c.probe,
            c.requests,
            c.seconds,
            self.started.elapsed().as_secs_f64()
        );
        match &self.bar {
            Some(b) => b.println(line),
            None => errln!("{line}"),
        }
    }
}

/// A file willy wrote in a directory target, removed on drop.
struct OwnFile(PathBuf);

impl Drop for OwnFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

pub fn cmd_probe(args: ProbeArgs, interrupt: Arc<AtomicBool>) -> anyhow::Result<()> {
    if let Some(j) = &args.json {
        check_json_path(j)?;
    }
    let opts = ProbeOptions {
        only: if args.only.is_empty() {
            PROBES.iter().map(|s| s.to_string()).collect()
        } else {
            args.only.clone()
        },
        seed: args.seed,
        seek_samples: args.seek_samples,
        boundary_samples: args.boundary_samples,
        efficiency_samples: args.efficiency_samples,
        ..ProbeOptions::default()
    };
    for (flag, n) in [
        ("--seek-samples", args.seek_samples),
        ("--boundary-samples", args.boundary_samples),
        ("--efficiency-samples", args.efficiency_samples),
    ] {
        if n == 0 {
            return Err(Error::Usage(format!("{flag} must be at least 1")).into());
        }
    }
    for o in &opts.only {
        if !PROBES.contains(&o.as_str()) {
            return Err(Error::Usage(format!(
                "--only {o:?}: no such probe; probes: {}",
                PROBES.join(", ")
            ))
            .into());
        }
    }
    let target = args.target.to_string_lossy().into_owned();
    let (mut dev, warnings, _own) = open(&args, &interrupt)?;
    for w in &warnings {
        errln!("willy: warning: {w}");
    }
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = ProgressBar::new_spinner();
        b.set_style(ProgressStyle::with_template("{spinner} {elapsed} {msg}").expect("template"));
        b.enable_steady_tick(Duration::from_millis(200));
        b
    });
    let mut shown = Shown {
        bar,
        started: Instant::now(),
    };
    let result = willy::probe::probe(dev.as_mut(), &target, &opts, &mut shown);
    if let Some(b) = &shown.bar {
        b.finish_and_clear();
    }
    let mut doc = result?;
    doc.warnings = warnings;
    // The summary goes to stderr when the document goes to stdout; the
    // document is written even where the summary could not be printed.
    let printed = if args.json.as_deref().is_some_and(super::is_stdout) {
        err!("{}", summary(&doc));
        Ok(())
    } else {
        out!("{}", summary(&doc))
    };
    if let Some(j) = &args.json {
        let text = serde_json::to_string_pretty(&doc)? + "\n";
        if super::is_stdout(j) {
            out!("{text}")?;
        } else {
            write_file(j, &text)?;
        }
    }
    Ok(printed?)
}

/// The device to probe, warnings about it, and the file willy wrote for
/// it (removed when dropped).
#[allow(clippy::type_complexity)]
fn open(
    args: &ProbeArgs,
    interrupt: &Arc<AtomicBool>,
) -> anyhow::Result<(Box<dyn Device>, Vec<String>, Option<OwnFile>)> {
    let target = args.target.to_string_lossy().into_owned();
    let mut warnings = Vec::new();
    let mut own = None;
    let dev: Box<dyn Device> = match target.strip_prefix("sim:") {
        Some(name) => Box::new(SimDevice::new(&SimConfig::load(name)?, args.seed)),
        None => {
            let p = &args.target;
            let meta = std::fs::metadata(p)
                .map_err(|e| Error::Usage(format!("--target {}: {e}", p.display())))?;
            if let Some((_, rdev)) = willy::target::block_device(p)? {
                if let Some(why) = willy::target::device_in_use(p, rdev) {
                    warnings.push(format!(
                        "{why}: the probe only reads, but others' I/O there disturbs its timings"
                    ));
                }
            } else {
                warnings.push(
                    "a file, not a device: the file system's layout (extents, block size) blurs what the probe finds"
                        .into(),
                );
            }
            let path = if meta.is_dir() {
                let f = p.join(format!("willy-{}-probe.dat", std::process::id()));
                own = Some(OwnFile(f.clone()));
                write_probe_file(&f, args.file_size.0, interrupt)?;
                f
            } else {
                p.clone()
            };
            Box::new(RealDevice::open(&path, interrupt.clone())?)
        }
    };
    Ok((dev, warnings, own))
}

/// Writes `size` bytes of willy's own data to a new file `f`, synced.
fn write_probe_file(f: &Path, size: u64, interrupt: &AtomicBool) -> Result<(), Error> {
    use std::io::Write;
    if size < 64 << 20 {
        return Err(Error::Usage("--file-size must be at least 64MiB".into()));
    }
    if let Some(free) = willy::target::free_bytes(f.parent().unwrap_or(Path::new(".")))? {
        if free < size + (size / 10) {
            return Err(Error::Usage(format!(
                "--file-size {}: the directory has {} free",
                human_bytes(size as f64),
                human_bytes(free as f64)
            )));
        }
    }
    errln!(
        "willy: writing {} to {} to probe ...",
        human_bytes(size as f64),
        f.display()
    );
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(f)
        .map_err(|e| Error::io(format!("creating {}", f.display()), e))?;
    let buf = willy::engine::AlignedBuf::new(1 << 20, 7);
    let mut left = size;
    while left > 0 {
        if interrupt.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        let n = left.min(1 << 20) as usize;
        file.write_all(&buf.as_slice()[..n])
            .map_err(|e| Error::io(format!("writing {}", f.display()), e))?;
        left -= n as u64;
    }
    file.sync_all()
        .map_err(|e| Error::io(format!("syncing {}", f.display()), e))?;
    // Drop what the page cache kept: the probe reads with O_DIRECT anyway.
    // SAFETY: fadvise on an open descriptor.
    unsafe {
        libc::posix_fadvise(
            std::os::fd::AsRawFd::as_raw_fd(&file),
            0,
            0,
            libc::POSIX_FADV_DONTNEED,
        )
    };
    Ok(())
}

/// What was found, for a terminal.
pub fn summary(p: &Probe) -> String {
    let mut s = String::new();
    let clock = if p.simulated { "virtual" } else { "real" };
    s += &format!(
        "{}: {} in {}-byte sectors\n",
        p.target,
        human_bytes(p.capacity_bytes as f64),
        p.sector_bytes
    );
    if let Some(r) = &p.rotation {
        s += &match (r.revolution_ms, r.rpm) {
            (Some(rev), Some(rpm)) => format!(
                "rotation     {rev:.3} ms a revolution (+- {:.3}), {rpm:.0} rpm, by {}\n",
                r.revolution_ci95_ms.unwrap_or(f64::NAN),
                r.method.as_deref().unwrap_or("?")
            ),
            _ => format!(
                "rotation     none found: re-reading a block takes {:.3} ms\n",
                r.reread_ms
            ),
        };
    }
    if let Some(c) = p.seek_curve.as_ref().filter(|c| c.none_found) {
        let most = c
            .points
            .iter()
            .map(|q| q.seek_ms)
            .fold(f64::NEG_INFINITY, f64::max);
        s += &format!("seek         none found: no distance costs over {most:.3} ms more than distance zero ({:.3} ms)\n", c.zero_ms);
    } else if let Some(c) = &p.seek_curve {
        s += &format!(
            "seek         {:.3} + {:.3} sqrt(x) ms below x = {:.4}, {:.3} + {:.3} x above (x: distance / capacity; fit rms {:.1}%)\n",
            c.a_ms,
            c.b_ms,
            c.break_fraction,
            c.c_ms,
            c.d_ms,
            100.0 * c.rms_rel_residual
        );
    }
    if let Some(b) = &p.boundaries {
        s += &format!("boundaries   {}\n", b.summary);
    }
    if let Some(m) = p.media_mb_per_s {
        s += &format!("media rate   {m:.1} MB/s\n");
    }
    if let Some(e) = &p.efficiency {
        s += &format!(
            "efficiency   streaming {:.3}; aligned to a {} ({}): {}\n",
            e.streaming,
            e.alignment,
            human_bytes(e.alignment_bytes as f64),
            e.points
                .iter()
                .map(|q| format!(
                    "{} {:.2}/{:.2}",
                    human_bytes(q.size_bytes as f64),
                    q.aligned,
                    q.unaligned
                ))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let size = |b: Option<u64>| b.map_or("none measured".into(), |b| human_bytes(b as f64));
        s += &format!(
            "efficient    {} aligned, {} unaligned reach 90% of streaming\n",
            size(e.efficient_size_bytes),
            size(e.efficient_size_unaligned_bytes)
        );
    }
    let reads: u64 = p.costs.iter().map(|c| c.requests).sum();
    let secs: f64 = p.costs.iter().map(|c| c.seconds).sum();
    s += &format!("took         {reads} reads, {secs:.1} s ({clock} time)\n");
    s
}

/// `willy probe` with its defaults on `target` (for `willy run --scale
/// --probe`): the document, its warnings in it and said on stderr.
pub(crate) fn probe_target(
    target: &Path,
    seed: u64,
    interrupt: &Arc<AtomicBool>,
) -> anyhow::Result<Probe> {
    let d = ProbeOptions::default();
    let args = ProbeArgs {
        target: target.to_path_buf(),
        only: Vec::new(),
        json: None,
        seed,
        seek_samples: d.seek_samples,
        boundary_samples: d.boundary_samples,
        efficiency_samples: d.efficiency_samples,
        file_size: Bytes(1 << 30),
    };
    let (mut dev, warnings, _own) = open(&args, interrupt)?;
    for w in &warnings {
        errln!("willy: warning: {w}");
    }
    let opts = ProbeOptions {
        seed,
        ..ProbeOptions::default()
    };
    let mut shown = Shown {
        bar: None,
        started: Instant::now(),
    };
    let label = target.to_string_lossy();
    let mut doc = willy::probe::probe(dev.as_mut(), &label, &opts, &mut shown)?;
    doc.warnings = warnings;
    err!("{}", summary(&doc));
    Ok(doc)
}
