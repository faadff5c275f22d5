//! `willy interfere` as a user runs it: on small real files (the contract's
//! fields, both measurements made, nothing left behind), on a simulated
//! system, and its bad input.

use crate::util::*;
use serde_json::Value;

const SEQ: &str =
    r#"{"uniqueBytes":"8MiB","sizeMean":"64KiB","readFrac":1,"seqFrac":1,"processNum":1}"#;
const RANDOM: &str = r#"{"uniqueBytes":"8MiB","sizeMean":"4KiB","readFrac":1,"seqFrac":0,"processNum":2,"share":0.75}"#;

fn workload_f(v: &Value, k: usize, field: &str) -> f64 {
    v["workloads"][k][field]
        .as_f64()
        .unwrap_or_else(|| panic!("workloads[{k}].{field} missing: {v}"))
}

#[test]
fn files_are_measured_alone_and_together() {
    let d = Dir::new();
    let a = d.write("seq.json", SEQ);
    let b = d.write("random.json", RANDOM);
    std::fs::create_dir(d.join("data")).unwrap();
    let out = d.join("i.json");
    let o = run_ok(
        willy()
            .args(["interfere", "--workload"])
            .arg(&a)
            .arg("--workload")
            .arg(&b)
            .arg("--target")
            .arg(d.join("data"))
            .arg("--json")
            .arg(&out)
            .args(QUICK),
    );
    assert!(d.entries("data").is_empty(), "{:?}", d.entries("data"));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["kind"], "willy-interference");
    assert!(v["contended"].is_boolean(), "{v}");
    assert_eq!(v["workloads"].as_array().unwrap().len(), 2);
    assert_eq!(v["workloads"][0]["name"], "seq.json");
    assert!((workload_f(&v, 0, "share") - 0.25).abs() < 1e-12);
    assert!((workload_f(&v, 1, "share") - 0.75).abs() < 1e-12);
    for k in 0..2 {
        let (alone, shared) = (
            workload_f(&v, k, "alone_bytes_per_sec"),
            workload_f(&v, k, "shared_bytes_per_sec"),
        );
        assert!(alone > 0.0 && shared > 0.0, "{v}");
        // Two separate measurements, each of its own requests.
        let w = &v["workloads"][k];
        assert!(w["alone"]["requests"].as_u64().unwrap() > 0);
        assert!(w["shared"]["requests"].as_u64().unwrap() > 0);
        assert_ne!(w["alone"]["requests"], w["shared"]["requests"], "{w}");
        let r = workload_f(&v, k, "r_value");
        let share = workload_f(&v, k, "share");
        assert!(
            (r - shared / (share * alone)).abs() < 1e-9 * r.max(1.0),
            "{w}"
        );
    }
    let table = stdout(&o);
    assert!(
        table.contains("seq.json") && table.contains("random.json"),
        "{table}"
    );
    if v["contended"] == false {
        assert!(table.contains("not contended"), "{table}");
    }
    // It draws, and reports.
    run_ok(willy().arg("plot").arg(&out).arg("-o").arg(d.join("plots")));
    assert_eq!(d.entries("plots"), vec!["interference.svg"]);
    run_ok(
        willy()
            .arg("report")
            .arg(&out)
            .arg("-o")
            .arg(d.join("r.html")),
    );
    let html = std::fs::read_to_string(d.join("r.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("random.json"));
}

/// Each workload in its own process and, as root, its own memory cgroup:
/// both measured, the cgroups and files gone afterwards.
#[test]
fn processes_run_each_workload_in_its_own_cgroup() {
    let d = Dir::new();
    let limit = if is_root() {
        r#","cacheLimit":"96MiB"}"#
    } else {
        "}"
    };
    let a = d.write("seq.json", &SEQ.replace('}', limit));
    let b = d.write("random.json", &RANDOM.replace('}', limit));
    std::fs::create_dir(d.join("data")).unwrap();
    let out = d.join("i.json");
    let before = willy_cgroups();
    let mut c = willy();
    c.args(["interfere", "--processes", "-w"])
        .arg(&a)
        .arg("-w")
        .arg(&b)
        .arg("--target")
        .arg(d.join("data"))
        .arg("--json")
        .arg(&out)
        .args(QUICK);
    if !is_root() {
        c.arg("--direct"); // nothing to partition without cgroups
    }
    run_ok(&mut c);
    assert!(d.entries("data").is_empty(), "{:?}", d.entries("data"));
    assert_eq!(willy_cgroups(), before, "a cgroup was left");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["processes"], true);
    for k in 0..2 {
        assert!(workload_f(&v, k, "alone_bytes_per_sec") > 0.0, "{v}");
        assert!(workload_f(&v, k, "shared_bytes_per_sec") > 0.0, "{v}");
        if is_root() {
            assert_eq!(v["workloads"][k]["cache_limit_bytes"], 96u64 << 20);
        }
    }
}

/// willy's memory cgroups beside this test's own.
fn willy_cgroups() -> Vec<String> {
    let Ok(own) = willy::cgroup::own_memory_cgroup() else {
        return vec![];
    };
    std::fs::read_dir(own)
        .map(|it| {
            it.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("willy-"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn two_streams_on_a_simulated_disk_lose_most_of_their_efficiency() {
    let d = Dir::new();
    let a = d.write("a.json", SEQ.replace("8MiB", "4GiB").as_str());
    let b = d.write(
        "b.json",
        SEQ.replace("8MiB", "4GiB")
            .replace("\"processNum\":1", "\"processNum\":1,\"offset\":\"2TB\"")
            .as_str(),
    );
    let out = d.join("i.json");
    let o = run_ok(
        willy()
            .args(["interfere", "-w"])
            .arg(&a)
            .arg("-w")
            .arg(&b)
            .args(["--target", "sim:hdd", "--max-time", "20s", "--json"])
            .arg(&out),
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["contended"], true, "{}", stdout(&o));
    assert_eq!(v["bottleneck"], "storage");
    assert_eq!(v["workloads"][1]["offset"], 2_000_000_000_000u64);
    for k in 0..2 {
        assert!(workload_f(&v, k, "r_value") < 0.2, "{v}");
    }
}

#[test]
fn bad_interference_input_is_refused() {
    let d = Dir::new();
    let a = d.write("a.json", SEQ);
    let big = d.write("big.json", r#"{"uniqueBytes":"8MiB","sizeMean":"64KiB","readFrac":1,"seqFrac":1,"processNum":1,"share":0.9}"#);
    let o = willy()
        .args(["interfere", "-w"])
        .arg(&a)
        .args(["--target", "sim:hdd"])
        .output()
        .unwrap();
    assert_usage_error(&o, "two or more workloads");
    let o = willy()
        .args(["interfere", "-w"])
        .arg(&big)
        .arg("-w")
        .arg(&big)
        .args(["--target", "sim:hdd"])
        .output()
        .unwrap();
    assert_usage_error(&o, "shares add up to 1.800");
    let limited = d.write(
        "limited.json",
        &SEQ.replace('}', r#","cacheLimit":"64MiB"}"#),
    );
    let o = willy()
        .args(["interfere", "-w"])
        .arg(&limited)
        .arg("-w")
        .arg(&a)
        .arg("--target")
        .arg(d.path())
        .output()
        .unwrap();
    assert_usage_error(&o, "cacheLimit needs --processes");
    let o = willy()
        .args(["interfere", "--processes", "-w"])
        .arg(&a)
        .arg("-w")
        .arg(&a)
        .args(["--target", "sim:hdd"])
        .output()
        .unwrap();
    assert_usage_error(&o, "--processes runs workloads as processes");
    let o = willy()
        .args(["interfere", "--amortization", "0.9", "--target"])
        .arg(d.path())
        .output()
        .unwrap();
    assert_usage_error(&o, "needs its probe: run `willy probe");
    let o = willy()
        .args(["interfere", "--amortization", "0.9", "--target", "sim:hdd"])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(stdout(&o).contains("20000513 bytes"), "{}", stdout(&o));
}
