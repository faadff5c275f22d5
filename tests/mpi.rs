//! `mpirun -np 4 willy run --mpi` on one machine (issue 19): the per-rank
//! results sum to the total, the start skew is reported, no file is left,
//! and a killed rank fails the run, named. Needs `--features mpi` and
//! OpenMPI's `mpirun` (`.ci/run` installs both).

#![cfg_attr(not(feature = "mpi"), allow(dead_code, unused_imports))]

use crate::util::*;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Without the feature, `--mpi` says how to get it, in one line.
#[cfg(not(feature = "mpi"))]
#[test]
fn mpi_needs_the_feature() {
    let o = willy()
        .args(["run", "--mpi", "--target", "sim:hdd"])
        .output()
        .unwrap();
    assert_usage_error(&o, "--features mpi");
}

fn mpirun(ranks: usize) -> Command {
    let mut c = Command::new("mpirun");
    c.args(["--oversubscribe", "--allow-run-as-root", "-np"])
        .arg(ranks.to_string())
        .arg(env!("CARGO_BIN_EXE_willy"));
    c
}

#[cfg(feature = "mpi")]
#[test]
fn mpi_ranks_sum_to_the_total_and_leave_no_files() {
    let d = Dir::new();
    std::fs::create_dir(d.join("data")).unwrap();
    let out = d.join("run.json");
    let o = mpirun(4)
        .args(["run", "--mpi", "--target"])
        .arg(d.join("data"))
        .args(["--unique-bytes", "32MiB", "--process-num", "6"])
        .args(["--read-frac", "0.5", "--seq-frac", "0.2"])
        .args(QUICK)
        .arg("--json")
        .arg(&out)
        .output()
        .expect("mpirun runs");
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let total = v["throughput_bytes_per_sec"].as_f64().unwrap();
    assert!(total > 0.0);
    let ranks = v["ranks"].as_array().expect("ranks");
    assert_eq!(ranks.len(), 4);
    let sum: f64 = ranks
        .iter()
        .map(|r| r["throughput_bytes_per_sec"].as_f64().unwrap())
        .sum();
    assert!(
        (sum / total - 1.0).abs() < 1e-9,
        "ranks {sum} vs total {total}"
    );
    let gens: Vec<u64> = ranks
        .iter()
        .map(|r| r["generators"].as_u64().unwrap())
        .collect();
    assert_eq!(gens, [2, 2, 1, 1], "6 generators over 4 ranks");
    for (k, r) in ranks.iter().enumerate() {
        assert_eq!(r["rank"].as_u64(), Some(k as u64));
        assert!(r["host"].as_str().is_some_and(|h| !h.is_empty()));
    }
    assert!(v["start_skew_secs"].as_f64().is_some_and(|s| s >= 0.0));
    let nodes = v["nodes"].as_array().expect("nodes");
    assert_eq!(nodes.len(), 1, "one machine");
    let node = nodes[0]["throughput_bytes_per_sec"].as_f64().unwrap();
    assert!((node / total - 1.0).abs() < 1e-9);
    assert_eq!(v["workload"]["processNum"], 6);
    assert_eq!(d.entries("data"), Vec::<String>::new(), "files left");
}

/// The willy process of rank `rank` started by `mpirun` (pid `parent`).
fn rank_pid(parent: u32, rank: usize) -> Option<u32> {
    let want = format!("OMPI_COMM_WORLD_RANK={rank}");
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let ppid: u32 = stat
            .rsplit(')')
            .next()?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()?;
        let env = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
        let mine = ppid == parent && env.split(|&b| b == 0).any(|v| v == want.as_bytes());
        mine.then_some(pid)
    })
}

#[cfg(feature = "mpi")]
#[test]
fn mpi_a_killed_rank_fails_the_run_named_and_leaves_no_files() {
    let d = Dir::new();
    std::fs::create_dir(d.join("data")).unwrap();
    let child = mpirun(4)
        .args(["run", "--mpi", "--target"])
        .arg(d.join("data"))
        .args([
            "--unique-bytes",
            "32MiB",
            "--process-num",
            "4",
            "--read-frac",
            "0.5",
        ])
        .args([
            "--min-time",
            "60s",
            "--max-time",
            "90s",
            "--interval",
            "100ms",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpirun runs");
    let t0 = Instant::now();
    let victim = loop {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "rank 2 never started"
        );
        if let Some(p) = rank_pid(child.id(), 2) {
            break p;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    // Into the measurement (the files are written and unlinked by then).
    std::thread::sleep(Duration::from_secs(2));
    // SAFETY: kill has no memory preconditions.
    assert_eq!(unsafe { libc::kill(victim as i32, libc::SIGKILL) }, 0);
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert!(!o.status.success(), "mpirun exited 0: {err}");
    assert!(
        err.contains("willy: rank 2 on "),
        "willy does not name rank 2: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(d.entries("data"), Vec::<String>::new(), "files left");
}
