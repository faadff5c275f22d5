//! `willy run --scale` on simulated targets: the profile, and resuming after
//! a kill -9 without measuring any finished point again.

use crate::util::*;
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use willy_predict::profile::Profile;

fn scale_cmd(profile: &std::path::Path, extra: &[&str]) -> std::process::Command {
    let mut c = willy();
    c.args([
        "run",
        "--scale",
        "--target",
        "sim:write-through",
        "--profile",
    ])
    .arg(profile)
    .args(extra);
    c
}

#[test]
fn writes_a_valid_profile_that_finds_the_cache() {
    let d = Dir::new();
    let p = d.join("prof.json");
    let o = scale_cmd(&p, &[]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let prof = Profile::from_json(&std::fs::read_to_string(&p).unwrap()).unwrap();
    assert!(prof.simulated);
    assert_eq!(prof.regions.len(), 2);
    assert_eq!(prof.cache_sizes_bytes.len(), 1);
    let c = prof.cache_sizes_bytes[0] as f64 / (64u64 << 20) as f64;
    assert!((c - 1.0).abs() <= 0.10, "inferred {c} of 64 MiB");
    assert!(
        !d.join("prof.json.ckpt").exists(),
        "the checkpoint was not removed after success"
    );
}

/// Beyond sim:sparc1990's cache, sixteen generators keep some shares
/// cached, but only after a minute or so: the profile's point says where
/// its steady state began (docs/MEASUREMENT.md, "Transients"); points that
/// were steady from the start record nothing.
#[test]
fn a_point_that_settles_late_records_its_steady_state() {
    let d = Dir::new();
    let p = d.join("sparc.json");
    let o = willy()
        .args(["run", "--scale", "--target", "sim:sparc1990", "--profile"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let prof = Profile::from_json(&std::fs::read_to_string(&p).unwrap()).unwrap();
    let curve = &prof.regions.last().unwrap().curves.process_num;
    let most = curve.iter().map(|&i| &prof.points[i]);
    let most = most.max_by_key(|p| p.workload.process_num).unwrap();
    assert_eq!(most.workload.process_num, 16);
    let steady = most.steady_bytes_per_sec.expect("a transient");
    let whole = most.throughput_bytes_per_sec;
    assert!(steady > 1.1 * whole, "{steady} against {whole}");
    assert!(prof.points.iter().any(|p| p.steady_bytes_per_sec.is_none()));
}

#[test]
fn resume_after_kill_9_measures_nothing_twice_and_gives_the_same_profile() {
    let d = Dir::new();
    // An uninterrupted run, for reference.
    let whole = d.join("whole.json");
    assert!(scale_cmd(&whole, &[]).output().unwrap().status.success());
    // A run killed with SIGKILL after some points.
    let p = d.join("prof.json");
    let mut child = scale_cmd(&p, &[])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    while let Some(Ok(l)) = lines.next() {
        if l.contains("point 30 (") {
            break;
        }
    }
    // SAFETY: kill has no memory-safety preconditions.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    let _ = child.wait();
    assert!(!p.exists(), "a killed run left a profile");
    assert!(
        d.join("prof.json.ckpt").exists(),
        "no checkpoint after the kill"
    );
    // Without --resume the checkpoint is not silently reused.
    assert_usage_error(&scale_cmd(&p, &[]).output().unwrap(), "pass --resume");
    // Resume.
    let o = scale_cmd(&p, &["--resume"]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let resumed = err.lines().filter(|l| l.ends_with("(resumed)")).count();
    assert!(resumed >= 30, "only {resumed} points resumed");
    // Every resumed point comes before every newly measured one.
    let lines: Vec<&str> = err.lines().collect();
    let first_new = lines
        .iter()
        .position(|l| l.ends_with("(measured)"))
        .unwrap_or(usize::MAX);
    let last_resumed = lines
        .iter()
        .rposition(|l| l.ends_with("(resumed)"))
        .unwrap();
    assert!(
        last_resumed < first_new,
        "a point was measured before all saved ones were resumed"
    );
    assert!(
        stdout(&o).contains(&format!("{resumed} resumed")),
        "{}",
        stdout(&o)
    );
    // Same seed, deterministic simulator: the same profile, byte for byte.
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        std::fs::read_to_string(&whole).unwrap()
    );
}

#[test]
fn scale_refuses_what_it_cannot_do() {
    let d = Dir::new();
    let p = d.join("prof.json");
    assert_usage_error(
        &scale_cmd(&p, &["--resume"]).output().unwrap(),
        "no checkpoint",
    );
    assert_usage_error(
        &scale_cmd(&p, &["--cache-limit", "64MiB"]).output().unwrap(),
        "--cache-limit applies to real targets",
    );
    let f = d.write("plain-file", "x");
    let o = willy()
        .args(["run", "--scale", "--target"])
        .arg(&f)
        .arg("--profile")
        .arg(&p)
        .output()
        .unwrap();
    assert_usage_error(&o, "not a directory");
    assert!(!d.join("prof.json.ckpt").exists());
}

/// On real files: the plan is stated before the first point, every point
/// is checkpointed, and Ctrl-C leaves no data file (and, as root with
/// --cache-limit, no cgroup) behind.
#[test]
fn scale_on_files_states_its_plan_and_cleans_up_after_ctrl_c() {
    scale_stops_cleanly_on(libc::SIGINT);
}

/// `kill` and a closed terminal stop --scale as Ctrl-C does, with their
/// own exit codes.
#[test]
fn scale_on_files_cleans_up_after_sigterm_and_sighup() {
    scale_stops_cleanly_on(libc::SIGTERM);
    scale_stops_cleanly_on(libc::SIGHUP);
}

fn scale_stops_cleanly_on(signal: i32) {
    let d = Dir::new();
    std::fs::create_dir(d.join("data")).unwrap();
    let p = d.join("prof.json");
    let mut c = willy();
    c.args(["run", "--scale", "--budget", "20m", "--target"])
        .arg(d.join("data"))
        .arg("--profile")
        .arg(&p)
        .args(QUICK);
    let cgroup = is_root() && willy::cgroup::own_memory_cgroup().is_ok();
    if cgroup {
        c.args(["--cache-limit", "256MiB"]);
    }
    let mut child = c
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = Vec::new();
    while let Some(Ok(l)) = lines.next() {
        let done = l.contains("point 2 (");
        seen.push(l);
        if done {
            break;
        }
    }
    let text = seen.join("\n");
    assert!(text.contains("plan: about"), "{text}");
    assert!(text.contains("thresholds:"), "{text}");
    assert!(
        text.contains("point 2 (uniqueBytes probe: random reads)"),
        "{text}"
    );
    let mine = willy::cgroup::own_memory_cgroup()
        .ok()
        .map(|o| o.join(format!("willy-{}", child.id())));
    let ours = || mine.as_ref().is_some_and(|m| m.exists());
    assert_eq!(ours(), cgroup, "cgroup present while running");
    // SAFETY: kill has no memory-safety preconditions.
    unsafe { libc::kill(child.id() as i32, signal) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(128 + signal));
    assert!(
        d.entries("data").is_empty(),
        "left behind: {:?}",
        d.entries("data")
    );
    assert!(!ours(), "the cgroup was not removed");
    assert!(!p.exists(), "an interrupted run wrote a profile");
    let ckpt = std::fs::read_to_string(d.join("prof.json.ckpt")).unwrap();
    assert!(ckpt.lines().count() >= 2, "{ckpt}");
}

/// A budget too short for the sweeps that find the regions is refused
/// before anything is written, with the smallest budget that would do.
#[test]
fn a_budget_too_short_for_the_sweeps_is_refused_up_front() {
    let d = Dir::new();
    std::fs::create_dir(d.join("data")).unwrap();
    let o = willy()
        .args(["run", "--scale", "--budget", "2m", "--target"])
        .arg(d.join("data"))
        .arg("--profile")
        .arg(d.join("p.json"))
        .output()
        .unwrap();
    assert_usage_error(&o, "--budget 2m cannot hold this plan");
    let err = stderr(&o);
    let least = err
        .split("pass --budget ")
        .nth(1)
        .and_then(|s| s.split(' ').next());
    let least = humantime::parse_duration(least.unwrap()).unwrap();
    assert!(least > std::time::Duration::from_secs(120), "{err}");
    assert!(d.entries("data").is_empty());
    assert!(!d.join("p.json.ckpt").exists(), "a checkpoint was made");
}
