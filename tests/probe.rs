//! `willy probe` as a user runs it (issue 15): the contract's fields, the
//! figures and the page, bad input. The measurements themselves are tested
//! in crates/willy/tests/probe.rs; the virtual disk in device.rs.

use crate::util::*;
use serde_json::Value;

#[test]
fn the_lachesis_disk_probed_drawn_and_reported() {
    let d = Dir::new();
    let json = d.join("atlas.json");
    let out = run_ok(
        willy()
            .args(["probe", "--target", "sim:atlas10k3", "--json"])
            .arg(&json),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("6.000 ms a revolution"), "{text}");
    assert!(text.contains("tracks of 343 KiB"), "{text}");
    let p: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    // The contract.
    for k in ["a_ms", "b_ms", "c_ms", "d_ms", "break_fraction"] {
        assert!(p["seek_curve"][k].is_number(), "seek_curve.{k}");
    }
    let tracks = p["boundaries"]["track_bytes"].as_array().unwrap();
    assert_eq!(tracks.len(), 8);
    assert_eq!(tracks[0], 686 * 512);
    assert!(p["efficient_size_bytes"].as_u64().unwrap() >= 351_232);
    // Every probe says what it cost.
    let costs = p["costs"].as_array().unwrap();
    assert_eq!(costs.len(), 5);
    assert!(costs.iter().all(|c| c["requests"].as_u64().unwrap() > 0));

    run_ok(
        willy()
            .arg("plot")
            .arg(&json)
            .arg("-o")
            .arg(d.join("plots")),
    );
    let eff = std::fs::read_to_string(d.join("plots/probe-efficiency.svg")).unwrap();
    assert!(
        eff.matches("<polyline").count() >= 2,
        "aligned and unaligned curves"
    );
    assert!(eff.contains("track 343 KiB"), "the boundary marked");
    let seek = std::fs::read_to_string(d.join("plots/probe-seek.svg")).unwrap();
    assert!(seek.contains("Barve"), "the fit drawn");
    run_ok(
        willy()
            .arg("report")
            .arg(&json)
            .arg("-o")
            .arg(d.join("p.html")),
    );
    let html = std::fs::read_to_string(d.join("p.html")).unwrap();
    assert!(
        html.contains("<svg") && html.contains("Zones"),
        "figures and zones"
    );

    // --only: what was asked and what it needs, nothing else.
    let out = willy()
        .args([
            "probe",
            "--target",
            "sim:raid0",
            "--only",
            "boundaries",
            "--json",
            "-",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let p: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(p["boundaries"]["stripe_unit_bytes"], 65536);
    assert!(p.get("seek_curve").is_none() && p.get("efficiency").is_none());
}

#[test]
fn bad_probe_input_is_one_line_and_no_file() {
    let d = Dir::new();
    let json = d.join("p.json");
    for (args, says) in [
        (vec!["--target", "sim:nope"], "unknown simulator preset"),
        (
            vec!["--target", "sim:hdd", "--only", "speed"],
            "no such probe",
        ),
        (vec!["--target", "/nonexistent/dev"], "No such file"),
    ] {
        let out = willy()
            .arg("probe")
            .args(&args)
            .arg("--json")
            .arg(&json)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{err}");
        assert!(!json.exists());
    }
}

/// `--scale --probe`: the probe in the profile, its track (in whole
/// blocks) and efficient size on the sizeMean curve, marked in the figure
/// and said in the report.
#[test]
fn scale_with_probe_puts_the_boundary_and_efficient_size_on_the_size_curve() {
    let d = Dir::new();
    let profile = d.join("p.json");
    run_ok(
        willy()
            .args([
                "run",
                "--scale",
                "--probe",
                "--target",
                "sim:atlas10k3",
                "--profile",
            ])
            .arg(&profile),
    );
    let p: Value = serde_json::from_str(&std::fs::read_to_string(&profile).unwrap()).unwrap();
    assert_eq!(p["schema_version"], 9);
    // Every point keeps each generator's throughput (version 9).
    for pt in p["points"].as_array().unwrap() {
        let n = pt["workload"]["processNum"].as_u64().unwrap() as usize;
        generators_adding_up(pt, "throughput_bytes_per_sec", n);
    }
    assert_eq!(p["probe"]["boundaries"]["track_bytes"][0], 351_232);
    let efficient = p["probe"]["efficient_size_bytes"].as_u64().unwrap();
    let sizes: Vec<u64> = p["regions"][0]["curves"]["sizeMean"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            p["points"][i.as_u64().unwrap() as usize]["workload"]["sizeMean"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert!(
        sizes.contains(&(351_232 / 4096 * 4096)),
        "the track in whole blocks: {sizes:?}"
    );
    assert!(
        sizes.contains(&(efficient / 4096 * 4096)),
        "the efficient size: {sizes:?}"
    );
    assert_eq!(d.entries(".").len(), 1, "no checkpoint or probe file left");
    run_ok(
        willy()
            .arg("plot")
            .arg(&profile)
            .arg("-o")
            .arg(d.join("plots")),
    );
    let svg = std::fs::read_to_string(d.join("plots/region-0.svg")).unwrap();
    assert!(
        svg.contains("track 343 KiB") && svg.contains("efficient"),
        "marks"
    );
    run_ok(
        willy()
            .arg("report")
            .arg(&profile)
            .arg("-o")
            .arg(d.join("r.html")),
    );
    let html = std::fs::read_to_string(d.join("r.html")).unwrap();
    assert!(html.contains("Probed first"));
}
