//! `willy run` on files in a temporary directory: every engine, buffered and
//! O_DIRECT, read-only, write-only and mixed.

use crate::util::*;
use serde_json::Value;

const WORKLOAD: &str =
    r#"{"uniqueBytes":"8MiB","sizeMean":"16KiB","readFrac":0.5,"seqFrac":0.3,"processNum":4}"#;

fn run_json(engine: &str, direct: bool, read_frac: f64) -> Value {
    let d = Dir::new();
    let w = d.write("w.json", WORKLOAD);
    std::fs::create_dir(d.join("data")).unwrap();
    let out = d.join("out.json");
    let mut cmd = willy();
    cmd.arg("run")
        .arg("--workload")
        .arg(&w)
        .arg("--target")
        .arg(d.join("data"));
    cmd.args(["--engine", engine, "--read-frac", &read_frac.to_string()])
        .arg("--json")
        .arg(&out)
        .args(QUICK);
    if direct {
        cmd.arg("--direct");
    }
    let o = cmd.output().unwrap();
    assert!(
        o.status.success(),
        "{engine} direct={direct} read={read_frac}: {}",
        stderr(&o)
    );
    assert!(
        stdout(&o).contains("throughput"),
        "no table: {}",
        stdout(&o)
    );
    assert!(
        d.entries("data").is_empty(),
        "files left behind: {:?}",
        d.entries("data")
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    check(&v, engine, direct, read_frac);
    v
}

fn f(v: &Value, path: &str) -> f64 {
    v.pointer(path)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("{path} missing in {v}"))
}

fn check(v: &Value, engine: &str, direct: bool, read_frac: f64) {
    assert_eq!(v["kind"], "willy-run");
    assert_eq!(v["schema_version"], 8);
    assert_eq!(v["engine"], engine);
    assert_eq!(v["simulated"], false);
    assert_eq!(v["target"]["kind"], "files");
    assert_eq!(v["target"]["direct"], direct);
    assert_eq!(f(v, "/workload/readFrac"), read_frac);
    assert_eq!(f(v, "/workload/uniqueBytes"), (8 << 20) as f64);

    let (reads, writes) = (f(v, "/reads/requests"), f(v, "/writes/requests"));
    assert_eq!(
        reads > 0.0,
        read_frac > 0.0,
        "reads {reads} for readFrac {read_frac}"
    );
    assert_eq!(
        writes > 0.0,
        read_frac < 1.0,
        "writes {writes} for readFrac {read_frac}"
    );
    let total = reads + writes;
    assert!(total >= 200.0, "only {total} requests measured");
    assert_eq!(f(v, "/requests"), total);
    if read_frac == 0.5 {
        let obs = reads / total;
        assert!(
            (0.4..=0.6).contains(&obs),
            "read fraction {obs} over {total} requests"
        );
    }
    let bytes = f(v, "/bytes_transferred");
    assert_eq!(bytes, f(v, "/reads/bytes") + f(v, "/writes/bytes"));
    let mean_size = bytes / total;
    assert!(
        (mean_size / 16384.0 - 1.0).abs() < 0.15,
        "mean request {mean_size} B, want 16 KiB"
    );
    let dur = f(v, "/duration_secs");
    assert!((0.5..=1.01).contains(&dur), "duration {dur}");
    assert!((f(v, "/throughput_bytes_per_sec") * dur / bytes - 1.0).abs() < 1e-9);
    assert!((f(v, "/iops") * dur / total - 1.0).abs() < 1e-9);
    let each = generators_bytes_per_sec(v, 4);
    assert!(
        each.iter().all(|&x| x > 0.0),
        "every generator moved: {each:?}"
    );
    assert!(v["ci95_rel"].is_number(), "ci95_rel: {}", v["ci95_rel"]);
    for dir in ["reads", "writes"] {
        let l = &v[dir]["latency_us"];
        if v[dir]["requests"].as_f64().unwrap() > 0.0 {
            let p: Vec<f64> = ["p50", "p90", "p99", "p999", "max"]
                .iter()
                .map(|k| l[k].as_f64().unwrap())
                .collect();
            assert!(
                p[0] > 0.0 && p.windows(2).all(|w| w[0] <= w[1]),
                "{dir} latency not ordered: {p:?}"
            );
        } else {
            assert!(l.is_null());
        }
    }
    assert!(f(v, "/cpu/user_secs") + f(v, "/cpu/system_secs") > 0.0);
    assert!(f(v, "/system/memory_bytes") > 0.0);
    assert!(v["system"]["kernel"]
        .as_str()
        .is_some_and(|k| !k.is_empty()));
    assert!(v["system"]["filesystem"].is_string());
    assert!(f(v, "/warmup/bytes") > 0.0);
    let series = v["stopping"]["interval_throughput"].as_array().unwrap();
    assert_eq!(series.len() as f64, f(v, "/stopping/intervals"));
}

fn each_mix(engine: &str, direct: bool) {
    for read_frac in [1.0, 0.0, 0.5] {
        run_json(engine, direct, read_frac);
    }
}

#[test]
fn psync_buffered() {
    each_mix("psync", false);
}

#[test]
fn psync_direct() {
    each_mix("psync", true);
}

#[test]
fn uring_buffered() {
    each_mix("uring", false);
}

#[test]
fn uring_direct() {
    each_mix("uring", true);
}

#[test]
fn tokio_uring_buffered_and_direct() {
    run_json("tokio-uring", false, 0.5);
    run_json("tokio-uring", true, 0.5);
}

#[test]
fn flags_override_the_workload_file() {
    let d = Dir::new();
    let w = d.write("w.json", WORKLOAD);
    let out = d.join("o.json");
    let mut c = willy();
    c.args(["run", "--workload"])
        .arg(&w)
        .arg("--target")
        .arg(d.path())
        .args(["--size-mean", "8KiB", "--process-num", "2", "--seed", "7"]);
    let v = quick_json(&mut c, &out);
    assert_eq!(v["workload"]["sizeMean"], 8192);
    assert_eq!(v["workload"]["processNum"], 2);
    assert_eq!(v["workload"]["readFrac"], 0.5);
    assert_eq!(v["seed"], 7);
}

#[test]
fn default_target_is_created_and_removed() {
    let d = Dir::new();
    let o = willy()
        .current_dir(d.path())
        .args([
            "run",
            "--unique-bytes",
            "4MiB",
            "--size-mean",
            "4KiB",
            "--process-num",
            "1",
        ])
        .args(QUICK)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("willy-data"), "{}", stdout(&o));
    assert!(d.entries("").is_empty(), "left behind: {:?}", d.entries(""));
}

#[test]
fn ctrl_c_stops_cleanly_and_removes_the_files() {
    stops_cleanly_on(libc::SIGINT);
}

/// `kill` (SIGTERM), or a closed terminal (SIGHUP), cleans up as Ctrl-C
/// does (it left the data files behind).
#[test]
fn sigterm_stops_cleanly_and_removes_the_files() {
    stops_cleanly_on(libc::SIGTERM);
}

#[test]
fn sighup_stops_cleanly_and_removes_the_files() {
    stops_cleanly_on(libc::SIGHUP);
}

/// Sends `signal` to a running `willy run`: it exits 128 + the signal's
/// number (130, 143, 129), says which, and leaves nothing behind.
fn stops_cleanly_on(signal: i32) {
    let d = Dir::new();
    std::fs::create_dir(d.join("data")).unwrap();
    let out = d.join("o.json");
    let child = willy()
        .args([
            "run",
            "--unique-bytes",
            "16MiB",
            "--size-mean",
            "4KiB",
            "--process-num",
            "2",
            "--target",
        ])
        .arg(d.join("data"))
        .args(["--min-time", "60s", "--max-time", "120s", "--json"])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the files exist and the run is under way.
    let t = std::time::Instant::now();
    while d.entries("data").len() < 2 && t.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert_eq!(d.entries("data").len(), 2, "files not created");
    // SAFETY: kill has no memory-safety preconditions.
    unsafe { libc::kill(child.id() as i32, signal) };
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(128 + signal), "{}", stderr(&o));
    assert!(stderr(&o).contains("interrupted (SIG"), "{}", stderr(&o));
    assert!(
        d.entries("data").is_empty(),
        "left behind: {:?}",
        d.entries("data")
    );
    assert!(
        !out.exists(),
        "a JSON result was written for an interrupted run"
    );
}

#[test]
fn example_workloads_are_valid() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().is_dir() {
            continue; // examples/sim: simulated systems, below
        }
        let text = std::fs::read_to_string(e.path()).unwrap();
        willy::workload::Workload::from_json(&text)
            .unwrap_or_else(|err| panic!("{}: {err}", e.path().display()));
        n += 1;
    }
    assert!(n >= 2, "examples/ holds {n} workloads");
    let sims = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/sim");
    for e in std::fs::read_dir(sims).unwrap().flatten() {
        willy::sim::SimConfig::load(&e.path().display().to_string())
            .unwrap_or_else(|err| panic!("{}: {err}", e.path().display()));
    }
}

#[test]
fn think_time_bounds_a_closed_loop() {
    // One generator that thinks 10 ms after each completion cannot exceed
    // 100 requests per second, however fast the storage; two cannot exceed 200.
    for (engine, n) in [("psync", 2u32), ("uring", 2), ("uring", 1)] {
        let d = Dir::new();
        let out = d.join("o.json");
        let mut c = willy();
        c.args([
            "run",
            "--unique-bytes",
            "4MiB",
            "--size-mean",
            "4KiB",
            "--cpu-think",
            "10ms",
            "--target",
        ])
        .arg(d.path())
        .args(["--engine", engine, "--process-num", &n.to_string()]);
        let v = quick_json(&mut c, &out);
        let iops = f(&v, "/iops");
        let bound = 100.0 * f64::from(n);
        assert!(
            iops <= bound * 1.05,
            "{engine} x{n}: {iops} IOPS with 10 ms think time"
        );
        assert!(
            iops >= bound * 0.5,
            "{engine} x{n}: {iops} IOPS, far below the think-time bound"
        );
        assert_eq!(v["workload"]["cpuThink"], 0.01);
    }
}

/// A data file of a run that no longer exists (a SIGKILL, the OOM killer)
/// is reported with the command that removes it, and left alone: willy
/// writes and removes only files it created.
#[test]
fn files_left_by_a_killed_run_are_reported_not_touched() {
    let d = Dir::new();
    std::fs::create_dir(d.join("data")).unwrap();
    // Above the kernel's largest PID (4194304), so never a live process.
    let old = d.join("data/willy-9999999-0.dat");
    std::fs::write(&old, vec![0u8; 4096]).unwrap();
    // A live process's (PID 1's) file is no leftover.
    let live = d.join("data/willy-1-0.dat");
    std::fs::write(&live, b"").unwrap();
    let o = willy()
        .args(["run", "--unique-bytes", "1MiB", "--target"])
        .arg(d.join("data"))
        .args(QUICK)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("left in"), "{err}");
    assert!(err.contains(&format!("rm {}", old.display())), "{err}");
    assert!(!err.contains("willy-1-0.dat"), "{err}");
    assert!(old.exists(), "willy removed a file it did not create");
    assert_eq!(d.entries("data"), ["willy-1-0.dat", "willy-9999999-0.dat"]);
}
