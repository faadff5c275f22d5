//! Raw block devices, on loop devices over temporary files (root only, as in
//! CI). Reads are allowed; writes need a flag and are refused on a device
//! that holds a filesystem or is mounted, which is then left unchanged.

use crate::util::*;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::Stdio;

struct Loop {
    dev: String,
    _dir: Dir,
    mount: Option<PathBuf>,
}

impl Loop {
    /// A loop device over a new 32 MiB file of zeros.
    fn new() -> Loop {
        Loop::of_size(32 << 20)
    }

    /// A loop device over a new file of `bytes` zeros.
    fn of_size(bytes: u64) -> Loop {
        let dir = Dir::new();
        let img = dir.join("disk.img");
        std::fs::File::create(&img).unwrap().set_len(bytes).unwrap();
        let dev = sh(&format!("losetup -f --show {}", img.display()));
        Loop {
            dev,
            _dir: dir,
            mount: None,
        }
    }

    /// A loop device with `--direct-io=on` over a new file of `bytes`
    /// written with zeros (allocated, so reads reach the disk and not the
    /// page cache), as `willy probe` wants it.
    fn direct_io(bytes: u64) -> Loop {
        let dir = Dir::new();
        let img = dir.join("disk.img");
        sh(&format!(
            "dd if=/dev/zero of={} bs=1M count={} oflag=direct status=none",
            img.display(),
            bytes >> 20
        ));
        let dev = sh(&format!(
            "losetup --direct-io=on -f --show {}",
            img.display()
        ));
        Loop {
            dev,
            _dir: dir,
            mount: None,
        }
    }

    fn mkfs_ext4(&self) {
        sh(&format!(
            "mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 {}",
            self.dev
        ));
    }

    fn mount(&mut self) {
        let at = self._dir.join("mnt");
        std::fs::create_dir(&at).unwrap();
        sh(&format!("mount {} {}", self.dev, at.display()));
        self.mount = Some(at);
    }

    /// Checksum of the whole device, read with O_DIRECT past any cache.
    fn checksum(&self) -> String {
        sh(&format!(
            "dd if={} iflag=direct bs=1M status=none | sha256sum",
            self.dev
        ))
    }

    fn run(&self, read_frac: &str, extra: &[&str]) -> std::process::Output {
        willy()
            .args([
                "run",
                "--target",
                &self.dev,
                "--unique-bytes",
                "16MiB",
                "--size-mean",
                "8KiB",
            ])
            .args([
                "--process-num",
                "2",
                "--seq-frac",
                "0.2",
                "--read-frac",
                read_frac,
            ])
            .args(extra)
            .args(QUICK)
            .output()
            .unwrap()
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        if let Some(m) = &self.mount {
            let _ = std::process::Command::new("umount").arg(m).status();
        }
        let _ = std::process::Command::new("losetup")
            .args(["-d", &self.dev])
            .status();
    }
}

fn root() -> bool {
    if !is_root() {
        eprintln!("skipped: loop devices need root");
    }
    is_root()
}

/// Issue 16, Must show 4: two loop devices at once, reads only; the
/// totals are the targets' sums, with the rounds kept; both unchanged.
#[test]
fn two_raw_devices_at_once() {
    if !root() {
        return;
    }
    let (a, b) = (Loop::new(), Loop::new());
    let before = (a.checksum(), b.checksum());
    let d = Dir::new();
    let out = d.join("o.json");
    let o = willy()
        .args([
            "run",
            "--target",
            &a.dev,
            "--target",
            &b.dev,
            "--unique-bytes",
            "32MiB",
        ])
        .args([
            "--process-num",
            "2",
            "--read-frac",
            "1",
            "--json",
            out.to_str().unwrap(),
        ])
        .args(QUICK)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["target"], format!("{},{}", a.dev, b.dev));
    let ts = v["targets"].as_array().unwrap();
    assert_eq!(ts[0]["kind"], "device");
    let sum: f64 = ts
        .iter()
        .map(|t| t["throughput_bytes_per_sec"].as_f64().unwrap())
        .sum();
    let total = v["throughput_bytes_per_sec"].as_f64().unwrap();
    assert!((total / sum - 1.0).abs() < 1e-9, "{total} vs {sum}");
    assert!((0.0..=1.0).contains(&v["rounds_kept"].as_f64().unwrap()));
    assert_eq!((a.checksum(), b.checksum()), before);
}

#[test]
fn reads_a_raw_device_without_a_flag_and_changes_nothing() {
    if !root() {
        return;
    }
    let lo = Loop::new();
    let before = lo.checksum();
    let d = Dir::new();
    let out = d.join("o.json");
    let o = lo.run("1", &["--json", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["target"]["kind"], "device");
    assert_eq!(v["target"]["direct"], true);
    assert!(v["reads"]["requests"].as_u64().unwrap() > 100);
    assert_eq!(v["writes"]["requests"], 0);
    assert_eq!(lo.checksum(), before);
}

#[test]
fn writes_to_a_raw_device_need_the_flag() {
    if !root() {
        return;
    }
    let lo = Loop::new();
    let before = lo.checksum();
    assert_usage_error(&lo.run("0.5", &[]), "pass --allow-device-writes");
    assert_eq!(lo.checksum(), before);
}

#[test]
fn writes_a_blank_raw_device_with_the_flag() {
    if !root() {
        return;
    }
    let lo = Loop::new();
    let before = lo.checksum();
    for engine in ["psync", "uring"] {
        let d = Dir::new();
        let out = d.join("o.json");
        let o = lo.run(
            "0.5",
            &[
                "--allow-device-writes",
                "--engine",
                engine,
                "--json",
                out.to_str().unwrap(),
            ],
        );
        assert!(o.status.success(), "{engine}: {}", stderr(&o));
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert!(
            v["writes"]["requests"].as_u64().unwrap() > 50,
            "{engine}: {}",
            v["writes"]
        );
        assert!(
            v["reads"]["requests"].as_u64().unwrap() > 50,
            "{engine}: {}",
            v["reads"]
        );
    }
    assert_ne!(lo.checksum(), before, "the writes did not reach the device");
}

#[test]
fn refuses_to_write_a_device_holding_ext4() {
    if !root() {
        return;
    }
    let lo = Loop::new();
    lo.mkfs_ext4();
    let before = lo.checksum();
    assert_usage_error(
        &lo.run("0.5", &["--allow-device-writes"]),
        "holds an ext2/3/4 filesystem",
    );
    assert_eq!(lo.checksum(), before, "the filesystem was changed");
}

#[test]
fn refuses_to_write_a_mounted_device() {
    if !root() {
        return;
    }
    let mut lo = Loop::new();
    lo.mkfs_ext4();
    lo.mount();
    let before = lo.checksum();
    assert_usage_error(&lo.run("0", &["--allow-device-writes"]), "is mounted at");
    assert_eq!(lo.checksum(), before, "the mounted filesystem was changed");
}

/// Starts `willy run --scale` on `dir` (profile `p`), waits for point `n`,
/// interrupts it, and returns the lines it printed.
fn scale_until_point(
    dir: &std::path::Path,
    p: &std::path::Path,
    n: usize,
    resume: bool,
) -> Vec<String> {
    let mut c = willy();
    c.args(["run", "--scale", "--budget", "20m", "--target"])
        .arg(dir)
        .arg("--profile")
        .arg(p)
        .args(QUICK);
    if resume {
        c.arg("--resume");
    }
    let mut child = c
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = Vec::new();
    let want = format!("willy: point {n} (");
    while let Some(Ok(l)) = lines.next() {
        let done = l.starts_with(&want);
        seen.push(l);
        if done {
            break;
        }
    }
    // SAFETY: kill has no memory-safety preconditions.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    assert_eq!(
        child.wait().unwrap().code(),
        Some(130),
        "{}",
        seen.join("\n")
    );
    seen
}

/// The grid of a --scale run on files follows the free space; a resume
/// after the free space has changed keeps the interrupted run's grid and
/// measures none of its points again.
#[test]
fn a_resume_after_free_space_changed_measures_nothing_again() {
    if !root() {
        return;
    }
    let mut lo = Loop::of_size(160 << 20);
    lo.mkfs_ext4();
    lo.mount();
    let data = lo.mount.clone().unwrap().join("data");
    std::fs::create_dir(&data).unwrap();
    let d = Dir::new();
    let p = d.join("prof.json");
    let first = scale_until_point(&data, &p, 4, false);
    let points = |lines: &[String]| -> Vec<String> {
        lines
            .iter()
            .filter(|l| l.starts_with("willy: point "))
            .cloned()
            .collect()
    };
    assert_eq!(points(&first).len(), 4, "{}", first.join("\n"));
    // Someone else takes 24 MiB of the 140 MiB free: a new plan would
    // sweep to a different top, so a different grid.
    let ballast = lo.mount.clone().unwrap().join("ballast");
    sh(&format!(
        "dd if=/dev/zero of={} bs=1M count=24 status=none",
        ballast.display()
    ));
    let second = scale_until_point(&data, &p, 5, true);
    let text = second.join("\n");
    assert!(
        text.contains("resuming the interrupted run's sweeps to"),
        "{text}"
    );
    let again = points(&second);
    for (a, b) in points(&first).iter().zip(&again) {
        let w = |l: &str| l.split(": ").nth(1).unwrap_or("").to_string();
        assert_eq!(w(a), w(b), "a different grid:\n{text}");
        assert!(b.ends_with("(resumed)"), "measured again: {b}");
    }
    assert!(again[4].ends_with("(measured)"), "{text}");
    assert!(
        std::fs::read_dir(&data).unwrap().next().is_none(),
        "files left"
    );
}

impl Loop {
    /// Its queue in sysfs: (scheduler in use, read_ahead_kb).
    fn queue(&self) -> (String, String) {
        let q = format!("/sys/block/{}/queue", self.dev.trim_start_matches("/dev/"));
        let s = std::fs::read_to_string(format!("{q}/scheduler")).unwrap();
        let cur = s
            .split_whitespace()
            .find(|w| w.starts_with('['))
            .unwrap()
            .trim_matches(|c| c == '[' || c == ']')
            .to_string();
        let ra = std::fs::read_to_string(format!("{q}/read_ahead_kb")).unwrap();
        (cur, ra.trim().to_string())
    }

    fn set_queue(&self, scheduler: &str, read_ahead_kb: &str) {
        let q = format!("/sys/block/{}/queue", self.dev.trim_start_matches("/dev/"));
        std::fs::write(format!("{q}/scheduler"), scheduler).unwrap();
        std::fs::write(format!("{q}/read_ahead_kb"), read_ahead_kb).unwrap();
    }

    /// `willy anomalies` on the device, buffered (the sparc1990 profile's
    /// ranges: up to 84 MiB; its engine, uring, without O_DIRECT), with
    /// read-ahead switched through read_ahead_kb and the schedulers
    /// varied.
    fn anomalies(&self, samples: &str, json: &std::path::Path) -> std::process::Command {
        let profile = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/docs/figures/sim-sparc1990/profile.json"
        );
        let mut c = willy();
        c.args(["anomalies", "--target", &self.dev, "--expect", "profile"])
            .args(["--profile", profile, "--samples", samples])
            .args(["--allow-device-writes", "--vary-scheduler", "--json"])
            .arg(json)
            .args(["--min-time", "300ms", "--max-time", "1s"])
            .args(["--interval", "50ms", "--warmup-max", "300ms"]);
        c
    }
}

/// The device's schedulers and read-ahead are sampled, each sample runs
/// with its own, and the device's own settings come back: at the end of
/// a run, and, after a run killed with SIGKILL, at the start of the next.
#[test]
fn anomalies_vary_a_raw_devices_queue_and_put_it_back() {
    if !root() {
        return;
    }
    let lo = Loop::of_size(96 << 20);
    lo.set_queue("none", "1024");
    let own = lo.queue();
    let d = Dir::new();
    let first = d.join("first.json");
    run_ok(&mut lo.anomalies("2", &first));
    assert_eq!(lo.queue(), own, "put back at the end");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&first).unwrap()).unwrap();
    assert_eq!(v["readahead_via"], "read_ahead_kb");
    let dims: Vec<&str> = v["dimensions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert!(
        dims.contains(&"scheduler") && dims.contains(&"readahead"),
        "{dims:?}"
    );
    let second = &v["samples"][1];
    let want = (
        second["scheduler"].as_str().unwrap().to_string(),
        if second["readahead"] == true {
            "1024"
        } else {
            "0"
        }
        .to_string(),
    );

    // The same seed draws the same first samples: kill the run while it
    // measures the second, whose settings the queue must hold then.
    let killed = d.join("killed.json");
    let mut child = lo
        .anomalies("3", &killed)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = BufReader::new(child.stderr.take().unwrap());
    for line in err.lines() {
        if line.unwrap().contains("sample 1/3") {
            break;
        }
    }
    std::thread::sleep(std::time::Duration::from_millis(150));
    let during = lo.queue();
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(during, want, "the second sample's settings, while it ran");
    let state = d.join("killed.json.ckpt.queue");
    assert!(
        state.exists(),
        "the settings were recorded before they changed"
    );

    let o = run_ok(lo.anomalies("3", &killed).arg("--resume"));
    assert!(
        stderr(&o).contains("put back the read_ahead_kb (1024) and scheduler (none)"),
        "{}",
        stderr(&o)
    );
    assert_eq!(lo.queue(), own, "put back");
    assert!(!state.exists());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&killed).unwrap()).unwrap();
    assert_eq!(v["samples"].as_array().unwrap().len(), 3);
}

#[test]
fn anomalies_refuse_to_change_the_queue_of_a_mounted_device() {
    if !root() {
        return;
    }
    let mut lo = Loop::of_size(96 << 20);
    lo.mkfs_ext4();
    lo.mount();
    let own = lo.queue();
    let d = Dir::new();
    assert_usage_error(
        &lo.anomalies("2", &d.join("a.json")).output().unwrap(),
        "refusing to change the queue settings",
    );
    assert_eq!(lo.queue(), own);
}

/// Issue 15: the virtual disk under a loop device has no tracks, does not
/// turn and shows no power-of-two boundary; the probe only reads.
#[test]
fn probe_finds_no_track_boundary_on_the_virtual_disk() {
    if !root() {
        return;
    }
    let lo = Loop::direct_io(256 << 20);
    let before = lo.checksum();
    let dir = Dir::new();
    let json = dir.join("probe.json");
    let out = run_ok(
        willy()
            .args([
                "probe",
                "--target",
                &lo.dev,
                "--only",
                "seek,boundaries",
                "--json",
            ])
            .arg(&json),
    );
    let p: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(p["kind"], "willy-probe");
    assert_eq!(p["rotation"]["found"], false, "{}", p["rotation"]);
    assert_eq!(p["boundaries"]["none_found"], true, "{}", p["boundaries"]);
    assert!(p["boundaries"].get("track_bytes").is_none());
    assert!(p["boundaries"].get("stripe_unit_bytes").is_none());
    assert_eq!(p["seek_curve"]["none_found"], true, "{}", p["seek_curve"]);
    for k in ["a_ms", "b_ms", "c_ms", "d_ms", "break_fraction"] {
        assert!(p["seek_curve"][k].is_number(), "{k}");
    }
    let costs = p["costs"].as_array().unwrap();
    assert!(costs.iter().all(|c| c["requests"].as_u64().unwrap() > 0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("none found"), "{text}");
    assert_eq!(lo.checksum(), before, "the probe changed the device");
}

/// A directory target: willy writes its own file there, warns that a file
/// system blurs the results, and removes the file after.
#[test]
fn probe_of_a_directory_writes_and_removes_its_own_file() {
    let dir = Dir::new();
    let out = run_ok(
        willy()
            .args([
                "probe",
                "--only",
                "rotation",
                "--file-size",
                "64MiB",
                "--target",
            ])
            .arg(dir.path()),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("a file, not a device"), "{err}");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "a file was left"
    );
}
