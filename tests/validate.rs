//! `willy validate` on real files: every (workload, pass) is saved the
//! moment it is measured (the passes: `drift`, each region's focal point;
//! `workload`; `repeat`), and a run killed with SIGKILL and resumed with
//! `--resume` measures none of them twice.

use crate::util::*;
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::process::Stdio;

/// Short measurements of small random workloads (the checked-in
/// sim:sparc1990 profile's ranges: up to about 84 MiB) on files.
fn validate_cmd(d: &Dir, resume: bool) -> std::process::Command {
    let mut c = willy();
    c.args(["validate", "--samples", "3", "--target"])
        .arg(d.join("data"))
        .arg("--profile")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/docs/figures/sim-sparc1990/profile.json"
        ))
        .arg("--json")
        .arg(d.join("v.json"))
        .args([
            "--min-time",
            "300ms",
            "--max-time",
            "1s",
            "--interval",
            "50ms",
        ])
        .args(["--warmup-max", "300ms"]);
    if resume {
        c.arg("--resume");
    }
    c
}

/// (pass, index, how) of a progress line such as
/// `willy: repeat 2/3: uniqueBytes ...: 1.2 GiB/s (resumed)`.
fn parse(line: &str) -> Option<(String, usize, String)> {
    let rest = line.strip_prefix("willy: ")?;
    let (pass, rest) = rest.split_once(' ')?;
    let (i, _) = rest.split_once('/')?;
    let how = line.rsplit_once('(')?.1.trim_end_matches(')').to_string();
    Some((pass.to_string(), i.parse().ok()?, how))
}

#[test]
fn validate_killed_and_resumed_measures_no_workload_twice() {
    let d = Dir::new();
    std::fs::create_dir(d.join("data")).unwrap();
    let mut child = validate_cmd(&d, false)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = BTreeSet::new();
    for l in BufReader::new(child.stderr.take().unwrap()).lines() {
        let l = l.unwrap();
        if let Some((pass, i, how)) = parse(&l) {
            assert_eq!(how, "measured", "{l}");
            first.insert((pass, i));
            // Each region's focal point (2), the 3 workloads, a repeat.
            if first.len() == 6 {
                break;
            }
        }
    }
    // Past the first pass: the repeat pass has begun.
    assert!(first.contains(&("repeat".into(), 1)), "{first:?}");
    child.kill().unwrap(); // SIGKILL: no clean-up, no last word
    child.wait().unwrap();
    let ckpt = d.join("v.json.ckpt");
    let saved = std::fs::read_to_string(&ckpt).unwrap().lines().count();
    assert!(saved >= 6, "{saved} records");
    assert!(!d.join("v.json").exists());

    assert_usage_error(&validate_cmd(&d, false).output().unwrap(), "--resume");
    let o = run_ok(&mut validate_cmd(&d, true));
    let lines: Vec<(String, usize, String)> = stderr(&o).lines().filter_map(parse).collect();
    let pairs: BTreeSet<(String, usize)> = lines.iter().map(|(p, i, _)| (p.clone(), *i)).collect();
    assert_eq!(lines.len(), 8, "each (workload, pass) once: {lines:?}");
    assert_eq!(pairs.len(), 8, "{lines:?}");
    for (pass, i, how) in &lines {
        let was = first.contains(&(pass.clone(), *i));
        // What the killed run reported is resumed, never measured again.
        assert!(!was || how == "resumed", "{pass} {i} measured twice");
    }
    let resumed = lines.iter().filter(|l| l.2 == "resumed").count();
    assert_eq!(resumed, saved, "{lines:?}");
    assert!(!ckpt.exists(), "the checkpoint outlived the result");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("v.json")).unwrap()).unwrap();
    assert_eq!(v["points"].as_array().unwrap().len(), 3);
    assert_eq!(
        v["drift"].as_array().unwrap().len(),
        2,
        "the profile's regions"
    );
    assert_eq!(v["engine"], "uring", "the profile's engine");
    assert_eq!(v["direct"], false, "the profile's O_DIRECT setting");
}

/// The workloads are measured as the profile's points were: its engine and
/// its O_DIRECT setting, unless `--engine` says otherwise (with a note).
#[test]
fn validate_measures_with_the_profiles_engine_and_direct_setting() {
    let d = Dir::new();
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/figures/sim-sparc1990/profile.json"
    ))
    .unwrap()
    .replace("\"engine\": \"uring\"", "\"engine\": \"psync\"")
    .replace("\"direct\": false", "\"direct\": true");
    let p = d.write("p.json", &text);
    let run = |extra: &[&str]| {
        let out = d.join("v.json");
        let o = run_ok(
            willy()
                .args(["validate", "--samples", "2", "--profile"])
                .arg(&p)
                .arg("--json")
                .arg(&out)
                .args(["--max-time", "20s"])
                .args(extra),
        );
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        (v, stderr(&o))
    };
    let (v, err) = run(&[]);
    assert_eq!(v["engine"], "psync");
    assert_eq!(v["direct"], true);
    assert!(!err.contains("note"), "{err}");
    let (v, err) = run(&["--engine", "uring"]);
    assert_eq!(v["engine"], "uring");
    assert!(
        err.contains("measuring with the uring engine; the profile was measured with psync"),
        "{err}"
    );
}

/// On real files each workload is measured as long as the profile
/// measured its points (their median duration to twice that), said on
/// stderr and kept in the document; `--max-time` overrides one end.
#[test]
fn validate_on_files_measures_as_long_as_the_profiles_points() {
    let d = Dir::new();
    std::fs::create_dir(d.join("data")).unwrap();
    let mut profile: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/docs/figures/sim-sparc1990/profile.json"
        ))
        .unwrap(),
    )
    .unwrap();
    for p in profile["points"].as_array_mut().unwrap() {
        p["duration_secs"] = 0.6.into();
    }
    let p = d.write("p.json", &profile.to_string());
    let run = |extra: &[&str]| {
        let out = d.join("v.json");
        let o = run_ok(
            willy()
                .args(["validate", "--samples", "1", "--target"])
                .arg(d.join("data"))
                .arg("--profile")
                .arg(&p)
                .arg("--json")
                .arg(&out)
                .args(["--interval", "50ms", "--warmup-max", "300ms"])
                .args(extra),
        );
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        (v, stderr(&o))
    };
    let (v, err) = run(&[]);
    assert_eq!(v["min_time_secs"], 0.6);
    assert_eq!(v["max_time_secs"], 1.2);
    assert!(
        err.contains("measuring each workload for 600ms to 1s 200ms, as long as the profile measured its points"),
        "{err}"
    );
    let (v, _) = run(&["--max-time", "800ms"]);
    assert_eq!(v["min_time_secs"], 0.6);
    assert_eq!(v["max_time_secs"], 0.8);
}
