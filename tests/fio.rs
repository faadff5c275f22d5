//! fio interoperability: `willy fio-job` and `willy run --compare-fio`.
//! The tests that run fio are skipped, saying so, where fio is absent.

use crate::util::*;

fn have_fio() -> bool {
    let ok = std::process::Command::new("fio")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: fio is not installed (Debian: apt-get install fio)");
    }
    ok
}

#[test]
fn fio_job_prints_a_job_file_fio_accepts() {
    let d = Dir::new();
    let w = d.write(
        "w.json",
        r#"[{"name":"oltp","uniqueBytes":"64MiB","sizeMean":"8KiB","readFrac":0.7,"seqFrac":0.1,"processNum":2},
            {"uniqueBytes":"16MiB","sizeMean":"1MiB","readFrac":1,"seqFrac":1,"processNum":1,"cpuThink":"1ms"}]"#,
    );
    let o = run_ok(
        willy()
            .arg("fio-job")
            .arg(&w)
            .arg("--directory")
            .arg(d.path()),
    );
    let job = stdout(&o);
    for line in [
        "[oltp]",
        "numjobs=2",
        "rwmixread=70",
        "percentage_random=90",
        "thinktime=1000",
        "stonewall",
    ] {
        assert!(job.lines().any(|l| l == line), "{line} missing:\n{job}");
    }
    assert!(job.contains("fio cannot express"), "{job}");
    let o = willy()
        .args(["fio-job", "/nonexistent.json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    if !have_fio() {
        return;
    }
    let p = d.write("j.fio", &job);
    let o = std::process::Command::new("fio")
        .arg("--parse-only")
        .arg(&p)
        .output()
        .unwrap();
    assert!(o.status.success(), "fio refused the job: {}", stderr(&o));
}

#[test]
fn compare_fio_runs_fio_and_reports_a_ratio() {
    if !have_fio() {
        return;
    }
    let d = Dir::new();
    let o = run_ok(
        willy()
            .args([
                "run",
                "--compare-fio",
                "--unique-bytes",
                "16MiB",
                "--read-frac",
                "1",
            ])
            .args(["--json", "-", "--target"])
            .arg(d.path())
            .args(QUICK),
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let ratio = v["compare_fio"]["ratio"].as_f64().unwrap();
    assert!(ratio.is_finite() && ratio > 0.0, "{ratio}");
    assert!(
        v["compare_fio"]["fio_throughput_bytes_per_sec"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    assert!(stderr(&o).contains("willy/fio = "), "{}", stderr(&o));
    assert!(d.entries("").is_empty(), "left: {:?}", d.entries(""));
}
