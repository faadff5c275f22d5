//! Standard output and error that cannot be written. Where standard
//! output's reader went away (`willy predict W | head`), a command stops
//! printing, still writes its files and exits quietly with success, as
//! ripgrep does; any other error writing it is a one-line error. Without
//! standard error a run goes on. Never a panic.

use crate::util::*;
use std::process::{Command, Output, Stdio};

/// The checked-in sim:sparc1990 profile.
fn sparc_profile() -> String {
    format!(
        "{}/docs/figures/sim-sparc1990/profile.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Runs `c` with standard output a pipe whose reader is already gone.
fn reader_gone(c: &mut Command) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    c.stdout(writer).stderr(Stdio::piped()).output().unwrap()
}

#[test]
fn predict_ends_quietly_and_writes_its_json() {
    let d = Dir::new();
    let w = d.write(
        "w.json",
        r#"[{"uniqueBytes":"8MiB","sizeMean":"16KiB","readFrac":0.5,"seqFrac":0.3,"processNum":4},
            {"uniqueBytes":"64MiB","sizeMean":"4KiB","readFrac":1,"seqFrac":0,"processNum":1}]"#,
    );
    let json = d.join("p.json");
    let o = reader_gone(
        willy()
            .args(["predict", "--profile", &sparc_profile()])
            .arg(&w)
            .arg("--json")
            .arg(&json),
    );
    assert!(o.status.success(), "{:?}: {}", o.status, stderr(&o));
    assert_eq!(stderr(&o), "", "nothing said, no panic");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["predictions"].as_array().unwrap().len(), 2);
}

#[test]
fn plot_writes_every_figure() {
    let d = Dir::new();
    let listed = run_ok(
        willy()
            .args(["plot", &sparc_profile(), "--out"])
            .arg(d.join("all")),
    );
    let n = stdout(&listed).lines().count();
    assert!(n >= 5, "{}", stdout(&listed));
    let o = reader_gone(
        willy()
            .args(["plot", &sparc_profile(), "--out"])
            .arg(d.join("closed")),
    );
    assert!(o.status.success(), "{:?}: {}", o.status, stderr(&o));
    assert_eq!(stderr(&o), "");
    assert_eq!(d.entries("closed").len(), n, "{:?}", d.entries("closed"));
}

#[test]
fn a_full_device_is_a_one_line_error() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let o = willy()
        .args(["sim", "presets"])
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("No space left on device"), "{e}");
}

#[test]
fn a_scale_goes_on_without_standard_error() {
    let d = Dir::new();
    let p = d.join("p.json");
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = willy()
        .args(["run", "--scale", "--target", "sim:raw-disk", "--profile"])
        .arg(&p)
        .stderr(writer)
        .output()
        .unwrap();
    assert!(o.status.success(), "{:?}", o.status);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    assert!(!v["regions"].as_array().unwrap().is_empty(), "{v}");
}
