//! Helpers for the integration tests: a fresh temporary directory per test
//! and a builder for `willy` command lines.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Flags that keep a run short: tests check behaviour, not speed.
pub const QUICK: &[&str] = &[
    "--min-time",
    "500ms",
    "--max-time",
    "1s",
    "--interval",
    "50ms",
    "--warmup-min",
    "100ms",
    "--warmup-max",
    "300ms",
];

pub fn willy() -> Command {
    Command::new(env!("CARGO_BIN_EXE_willy"))
}

pub struct Dir {
    pub tmp: tempfile::TempDir,
}

impl Dir {
    pub fn new() -> Dir {
        Dir {
            tmp: tempfile::tempdir().expect("tempdir"),
        }
    }

    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    pub fn join(&self, p: &str) -> PathBuf {
        self.tmp.path().join(p)
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.join(name);
        std::fs::write(&p, text).expect("write test file");
        p
    }

    /// Names of the entries in `sub` (or the directory itself).
    pub fn entries(&self, sub: &str) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(self.join(sub))
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Runs `c`, asserting that it succeeds; its output.
pub fn run_ok(c: &mut Command) -> Output {
    let o = c.output().expect("willy runs");
    assert!(o.status.success(), "{}", stderr(&o));
    o
}

/// Asserts a bad-input failure: exit code 2 and exactly one line on stderr
/// containing `needle`, and no panic.
pub fn assert_usage_error(o: &Output, needle: &str) {
    let err = stderr(o);
    assert_eq!(
        o.status.code(),
        Some(2),
        "exit code for {needle:?}; stderr: {err}"
    );
    assert!(!err.contains("panicked"), "panic: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "want one line, got: {err}"
    );
    assert!(err.contains(needle), "want {needle:?} in: {err}");
}

pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Runs a shell command, panicking with its output if it fails.
pub fn sh(cmd: &str) -> String {
    let o = Command::new("sh").arg("-c").arg(cmd).output().expect("sh");
    assert!(
        o.status.success(),
        "`{cmd}` failed: {}{}",
        stdout(&o),
        stderr(&o)
    );
    stdout(&o).trim().to_string()
}

/// The stopping rule for the GiB-scale presets (hdd, ssd, raid0), whose
/// cache region runs at GB/s: at least 1 s and at most 20 s of virtual
/// time a point, so that a --scale takes seconds, not minutes.
pub const GIB_PRESET: &[&str] = &[
    "--min-time",
    "1s",
    "--max-time",
    "20s",
    "--interval",
    "50ms",
];

/// Run flags for `preset`: [`GIB_PRESET`] for the GiB-scale ones.
pub fn preset_flags(preset: &str) -> &'static [&'static str] {
    if ["hdd", "ssd", "raid0"].contains(&preset) {
        GIB_PRESET
    } else {
        &[]
    }
}

/// A profile of `preset`, made once per test binary. Two tests that need
/// the same preset wait for one scale; different presets scale side by
/// side.
pub fn profile(preset: &str) -> std::path::PathBuf {
    type Locks = std::collections::HashMap<String, std::sync::Arc<std::sync::Mutex<()>>>;
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    static LOCKS: std::sync::Mutex<Option<Locks>> = std::sync::Mutex::new(None);
    let dir = DIR.get_or_init(|| tempfile::tempdir().unwrap());
    let lock = LOCKS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(Default::default)
        .entry(preset.to_string())
        .or_default()
        .clone();
    let _g = lock.lock().unwrap_or_else(|e| e.into_inner());
    let p = dir.path().join(format!("{preset}.json"));
    if !p.exists() {
        let o = willy()
            .args(["run", "--scale", "--target", &format!("sim:{preset}")])
            .args(preset_flags(preset))
            .arg("--profile")
            .arg(&p)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
    }
    p
}

/// Runs `c` with `--json out` and [`QUICK`], which must succeed, and reads
/// the result.
pub fn quick_json(c: &mut Command, out: &Path) -> serde_json::Value {
    run_ok(c.arg("--json").arg(out).args(QUICK));
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

/// A run document's `generators_bytes_per_sec` (or a validated point's,
/// whose total is `measured_bytes_per_sec`): `n` of them, adding up to the
/// document's `total` field.
pub fn generators_adding_up(v: &serde_json::Value, total: &str, n: usize) -> Vec<f64> {
    let each: Vec<f64> = v["generators_bytes_per_sec"]
        .as_array()
        .unwrap_or_else(|| panic!("no generators_bytes_per_sec in {v}"))
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(each.len(), n, "{each:?}");
    let total = v[total].as_f64().unwrap();
    let sum: f64 = each.iter().sum();
    assert!((sum / total - 1.0).abs() < 1e-9, "{each:?} vs {total}");
    each
}

/// A run document's `generators_bytes_per_sec`: `n` of them, adding up to
/// its `throughput_bytes_per_sec`.
pub fn generators_bytes_per_sec(v: &serde_json::Value, n: usize) -> Vec<f64> {
    generators_adding_up(v, "throughput_bytes_per_sec", n)
}
