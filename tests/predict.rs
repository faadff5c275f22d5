//! `willy predict`, `willy validate` and `willy compare` on profiles of
//! simulated presets.

use crate::util::*;

fn json(p: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Chen's bound: median error at most 10% over 100 random workloads on
/// sparc1990, split-cache and raid0; write-through measures 11.6% (a
/// regression bound of 15% here, see docs/PREDICTION.md), and on all four
/// the product model beats interpolation on an orthogonal sample that
/// measured at least as many points as the profile.
fn validate_meets_the_bound_and_beats_the_orthogonal_baseline(preset: &str, bound: f64) {
    let flags = preset_flags(preset);
    let d = Dir::new();
    let out = d.join("v.json");
    let o = willy()
        .args([
            "validate",
            "--samples",
            "100",
            "--baseline",
            "orthogonal",
            "--profile",
        ])
        .arg(profile(preset))
        .args(flags)
        .arg("--json")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{preset}: {}", stderr(&o));
    assert!(stdout(&o).contains("median error"), "{}", stdout(&o));
    let v = json(&out);
    let median = v["median_abs_error"].as_f64().unwrap();
    let base = &v["baseline"];
    let base_median = base["median_abs_error"].as_f64().unwrap();
    eprintln!("{preset}: model {median:.3}, orthogonal {base_median:.3}");
    assert!(median <= bound, "{preset}: median error {median}");
    assert!(
        median < base_median,
        "{preset}: model {median} vs orthogonal {base_median}"
    );
    assert!(
        v["profile_points"].as_u64().unwrap() <= base["points"].as_u64().unwrap(),
        "{preset}: the baseline must not have fewer points"
    );
    assert_eq!(v["points"].as_array().unwrap().len(), 100);
    let ci = v["median_abs_error_ci90"].as_array().unwrap();
    let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
    assert!(lo <= median && median <= hi, "{preset}: CI {lo}..{hi}");
    // The repeatability pass is a separate measurement (the next seed):
    // the stated error is the median of the points' own, the two passes
    // differ, and on a simulator they differ by little.
    let points = v["points"].as_array().unwrap();
    let mut rel: Vec<f64> = points
        .iter()
        .map(|p| {
            let (m, r) = (
                p["measured_bytes_per_sec"].as_f64().unwrap(),
                p["repeat_bytes_per_sec"].as_f64().unwrap(),
            );
            (r - m).abs() / m
        })
        .collect();
    rel.sort_by(f64::total_cmp);
    let want = (rel[49] + rel[50]) / 2.0;
    let rep = v["repeatability_error"].as_f64().unwrap();
    assert!(
        (rep - want).abs() <= 1e-12 * want.max(1.0),
        "{rep} vs {want}"
    );
    assert!(
        rel.iter().any(|&e| e > 0.0),
        "{preset}: the repeat pass measured nothing new"
    );
    assert!(rep < 0.2, "{preset}: repeatability {rep}");
    assert_eq!(v["error_by_param"].as_array().unwrap().len(), 5);
}

#[test]
fn validate_sparc1990() {
    validate_meets_the_bound_and_beats_the_orthogonal_baseline("sparc1990", 0.10);
}

#[test]
fn validate_split_cache() {
    validate_meets_the_bound_and_beats_the_orthogonal_baseline("split-cache", 0.10);
}

#[test]
fn validate_raid0() {
    validate_meets_the_bound_and_beats_the_orthogonal_baseline("raid0", 0.10);
}

#[test]
fn validate_write_through() {
    validate_meets_the_bound_and_beats_the_orthogonal_baseline("write-through", 0.15);
}

/// At a region's focal vector the product model returns what was measured
/// there; one object, an array and JSON Lines are all read.
#[test]
fn predict_reproduces_the_focal_points_and_reads_every_format() {
    let p = profile("sparc1990");
    let prof = json(&p);
    let d = Dir::new();
    for (k, region) in prof["regions"].as_array().unwrap().iter().enumerate() {
        let focal = &region["focal"];
        let measured = prof["points"]
            .as_array()
            .unwrap()
            .iter()
            .find(|pt| &pt["workload"] == focal)
            .unwrap()["throughput_bytes_per_sec"]
            .as_f64()
            .unwrap();
        let w = d.write("w.json", &focal.to_string());
        let out = d.join("out.json");
        run_ok(
            willy()
                .args(["predict"])
                .arg(&w)
                .arg("--profile")
                .arg(&p)
                .arg("--json")
                .arg(&out),
        );
        let v = json(&out);
        let got = v["predictions"][0]["predicted_throughput_bytes_per_sec"]
            .as_f64()
            .unwrap();
        assert!(
            (got / measured - 1.0).abs() < 1e-9,
            "region {k}: predicted {got}, measured {measured}"
        );
        assert_eq!(v["predictions"][0]["region"].as_u64(), Some(k as u64));
    }
    let a = r#"{"name":"small","uniqueBytes":"2MiB","sizeMean":"8KiB","readFrac":1,"seqFrac":0,"processNum":1}"#;
    let b =
        r#"{"uniqueBytes":"60MiB","sizeMean":"64KiB","readFrac":0.2,"seqFrac":0.9,"processNum":2}"#;
    for text in [format!("[{a},{b}]"), format!("{a}\n{b}\n")] {
        let w = d.write("many.json", &text);
        let o = run_ok(willy().arg("predict").arg(&w).arg("--profile").arg(&p));
        let out = stdout(&o);
        assert!(out.contains("small") && out.contains("#2"), "{out}");
    }
}

#[test]
fn predict_refuses_bad_profiles_and_workloads() {
    let good = profile("sparc1990");
    let d = Dir::new();
    let w = d.write(
        "w.json",
        r#"{"uniqueBytes":"2MiB","sizeMean":"8KiB","readFrac":1,"seqFrac":0,"processNum":1}"#,
    );
    let run = |prof: &std::path::Path, w: &std::path::Path| {
        willy()
            .arg("predict")
            .arg(w)
            .arg("--profile")
            .arg(prof)
            .output()
            .unwrap()
    };
    assert_usage_error(
        &run(&d.join("none.json"), &w),
        "run `willy run --scale` first",
    );
    let mut v = json(&good);
    v["schema_version"] = 99.into();
    let bad = d.write("v99.json", &v.to_string());
    assert_usage_error(&run(&bad, &w), "schema version 99 is not supported");
    let mut v = json(&good);
    v["regions"] = serde_json::json!([]);
    let bad = d.write("noregions.json", &v.to_string());
    assert_usage_error(&run(&bad, &w), "no regions");
    let bad = d.write("garbage.json", "{not json");
    assert_usage_error(&run(&bad, &w), "malformed profile");
    for (text, needle) in [
        (
            r#"{"uniqueBytes":"2MiB","sizeMean":"8KiB","readFrac":2,"seqFrac":0,"processNum":1}"#,
            "readFrac",
        ),
        (
            r#"{"uniqueBytes":"2MiB","sizeMean":"8KiB","seqFrac":0,"processNum":1}"#,
            "missing workload parameter `readFrac`",
        ),
        (
            r#"{"uniqueBytes":"2TiB","sizeMean":"8KiB","readFrac":1,"seqFrac":0,"processNum":1}"#,
            "outside the profile's range",
        ),
        ("[]", "no workloads"),
    ] {
        let bw = d.write("bad.json", text);
        assert_usage_error(&run(&good, &bw), needle);
    }
}

#[test]
fn compare_gives_ratios_on_table_5_2() {
    let (a, b) = (profile("sparc1990"), profile("write-through"));
    let d = Dir::new();
    let out = d.join("c.json");
    run_ok(
        willy()
            .arg("compare")
            .arg(&a)
            .arg(&a)
            .arg("--json")
            .arg(&out),
    );
    let v = json(&out);
    let rows = v["workloads"].as_array().unwrap();
    assert_eq!(rows.len(), 5);
    assert!(rows
        .iter()
        .all(|r| (r["ratio"].as_f64().unwrap() - 1.0).abs() < 1e-12));
    let o = run_ok(willy().arg("compare").arg(&a).arg(&b));
    let text = stdout(&o);
    for name in [
        "workstation",
        "large_utility",
        "scientific_write",
        "scientific_read",
        "database",
    ] {
        assert!(text.contains(name), "{text}");
    }
    // Each ratio is the quotient of the two profiles' own predictions.
    let o = willy()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .arg("--json")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success());
    let v = json(&out);
    for r in v["workloads"].as_array().unwrap() {
        let w = d.write("w.json", &r["workload"].to_string());
        let mut tp = Vec::new();
        for p in [&a, &b] {
            let pj = d.join("p.json");
            run_ok(
                willy()
                    .arg("predict")
                    .arg(&w)
                    .arg("--profile")
                    .arg(p)
                    .arg("--json")
                    .arg(&pj),
            );
            tp.push(
                json(&pj)["predictions"][0]["predicted_throughput_bytes_per_sec"]
                    .as_f64()
                    .unwrap(),
            );
        }
        let ratio = r["ratio"].as_f64().unwrap();
        assert!(
            (ratio / (tp[0] / tp[1]) - 1.0).abs() < 1e-9,
            "{}",
            r["name"]
        );
    }
}
