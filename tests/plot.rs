//! `willy plot` and `willy report`: every SVG parses, and has one line and
//! one point per measured point of every curve it draws.

use crate::util::*;
use std::collections::HashMap;

/// (polylines, circles) per colour, e.g. "#1F77B4".
fn marks(svg: &str) -> HashMap<String, (usize, usize)> {
    let doc = roxmltree::Document::parse(svg).expect("the SVG parses as XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let mut out: HashMap<String, (usize, usize)> = HashMap::new();
    for n in doc.descendants() {
        match n.tag_name().name() {
            "polyline" => {
                out.entry(n.attribute("stroke").unwrap_or("").into())
                    .or_default()
                    .0 += 1
            }
            "circle" => {
                out.entry(n.attribute("fill").unwrap_or("").into())
                    .or_default()
                    .1 += 1
            }
            _ => {}
        }
    }
    out
}

fn json(p: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

const PARAMS: [(&str, &str); 4] = [
    ("sizeMean", "#1F77B4"),
    ("readFrac", "#D62728"),
    ("seqFrac", "#2CA02C"),
    ("processNum", "#9467BD"),
];
const REGIONS: [&str; 3] = ["#FF7F0E", "#17BECF", "#8C564B"];

#[test]
fn every_figure_has_its_series_and_points() {
    let p = profile("split-cache");
    let prof = json(&p);
    let d = Dir::new();
    let v = d.join("v.json");
    run_ok(
        willy()
            .args(["validate", "--samples", "30", "--profile"])
            .arg(&p)
            .arg("--json")
            .arg(&v),
    );
    let c = d.join("c.json");
    run_ok(willy().arg("compare").arg(&p).arg(&p).arg("--json").arg(&c));
    let out = d.join("plots");
    run_ok(
        willy()
            .arg("plot")
            .arg(&p)
            .arg("--out")
            .arg(&out)
            .arg("--validation")
            .arg(&v)
            .arg("--comparison")
            .arg(&c),
    );
    let regions = prof["regions"].as_array().unwrap();
    assert_eq!(regions.len(), 3);
    let read = |name: &str| std::fs::read_to_string(out.join(format!("{name}.svg"))).unwrap();
    let len = |r: &serde_json::Value, c: &str| r["curves"][c].as_array().unwrap().len();
    for (k, r) in regions.iter().enumerate() {
        let m = marks(&read(&format!("region-{k}")));
        for (param, colour) in PARAMS {
            assert_eq!(
                m.get(colour).copied().unwrap_or_default(),
                (1, len(r, param)),
                "region {k} {param}"
            );
        }
    }
    for (param, _) in PARAMS {
        let m = marks(&read(&format!("overlay-{param}")));
        for (k, r) in regions.iter().enumerate() {
            assert_eq!(
                m.get(REGIONS[k]).copied().unwrap_or_default(),
                (1, len(r, param)),
                "overlay {param} region {k}"
            );
        }
    }
    // The focal sweep (and its slope, a second line), and both probes.
    let m = marks(&read("unique-bytes"));
    let sweep = prof["unique_bytes_curve"].as_array().unwrap().len();
    assert_eq!(m["#333333"], (2, sweep));
    assert!(m["#006699"].1 >= 20 && m["#CC4400"].1 >= 20, "{m:?}");
    // Validation: one circle per workload; comparison: five bars.
    assert_eq!(marks(&read("validation-scatter"))["#1F77B4"].1, 30);
    assert_eq!(marks(&read("validation-cdf"))["#1F77B4"].0, 1);
    let by = marks(&read("validation-by-param"));
    let per_param: usize = ["#333333", "#1F77B4", "#D62728", "#2CA02C", "#9467BD"]
        .iter()
        .map(|c| by[*c].1)
        .sum();
    assert_eq!(per_param, 5 * 30);
    let cmp_text = read("compare");
    let cmp = roxmltree::Document::parse(&cmp_text).unwrap();
    let bars = cmp
        .descendants()
        .filter(|n| n.tag_name().name() == "rect" && n.attribute("fill") == Some("#1F77B4"))
        .count();
    assert_eq!(bars, 5);
}

#[test]
fn the_report_is_one_self_contained_file() {
    let p = profile("sparc1990");
    let d = Dir::new();
    let html = d.join("r.html");
    let o = run_ok(willy().arg("report").arg(&p).arg("-o").arg(&html));
    assert!(
        stdout(&o).contains("The effective cache is about"),
        "{}",
        stdout(&o)
    );
    let text = std::fs::read_to_string(&html).unwrap();
    let figures = text.matches("<svg ").count();
    let regions = json(&p)["regions"].as_array().unwrap().len();
    assert_eq!(figures, 1 + regions + 4, "uniqueBytes, families, overlays");
    assert!(
        !text.contains("src=") && !text.contains("href="),
        "external resources"
    );
    assert!(text.contains("<h2>Every measured point</h2>"));
    // Bad input: not a profile.
    let bad = d.write("bad.json", "{}");
    assert_usage_error(
        &willy().arg("report").arg(&bad).output().unwrap(),
        "not a willy profile",
    );
}

#[test]
fn csv_has_one_row_per_point_with_its_numbers() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (doc, col) in [
        ("docs/runs/2026-11-22/512m.json", "throughput_bytes_per_sec"),
        (
            "docs/figures/real-1g/validation.json",
            "measured_bytes_per_sec",
        ),
    ] {
        let path = root.join(doc);
        let v = json(&path);
        let o = run_ok(willy().arg("csv").arg(&path));
        let text = stdout(&o);
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        let points = v["points"].as_array().unwrap();
        assert_eq!(rows.len(), points.len(), "{doc}");
        let at = header.iter().position(|h| *h == col).unwrap();
        let ub = header.iter().position(|h| *h == "uniqueBytes").unwrap();
        for (r, p) in rows.iter().zip(points) {
            let want = p[col].as_f64().unwrap();
            assert_eq!(r[at].parse::<f64>().unwrap(), want, "{doc}");
            let u = p["workload"]["uniqueBytes"].as_u64().unwrap();
            assert_eq!(r[ub].parse::<u64>().unwrap(), u, "{doc}");
        }
    }
    let d = Dir::new();
    let out = d.join("p.csv");
    run_ok(
        willy()
            .arg("csv")
            .arg(root.join("docs/runs/2026-11-22/512m.json"))
            .arg("-o")
            .arg(&out),
    );
    assert!(std::fs::read_to_string(&out).unwrap().starts_with("point,"));
    let o = willy()
        .arg("csv")
        .arg(root.join("docs/schema/run.schema.json"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}
