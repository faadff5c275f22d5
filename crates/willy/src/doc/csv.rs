//! CSV exports of a profile's and a validation's points, for spreadsheets
//! (`willy csv`). One header row, one row per point; byte sizes in bytes,
//! throughput in bytes per second, times in seconds, think time in
//! microseconds. Fields never contain commas, except `extrapolated`, which
//! is quoted.

use super::profile::Profile;
use super::validation::ValidationReport;
use crate::workload::Workload;
use std::fmt::Write;

const WORKLOAD: &str = "uniqueBytes,sizeMean,readFrac,seqFrac,processNum,cpuThink_us,blockSize";

fn workload(w: &Workload) -> String {
    format!(
        "{},{},{},{},{},{},{}",
        w.unique_bytes.0,
        w.size_mean.0,
        w.read_frac,
        w.seq_frac,
        w.process_num,
        w.cpu_think.0.as_micros(),
        w.block_size.0
    )
}

fn opt(x: Option<f64>) -> String {
    x.map(|v| v.to_string()).unwrap_or_default()
}

/// The profile's measured points: one row each, in the profile's order
/// (`point` is the index the regions' curves refer to).
pub fn profile_csv(p: &Profile) -> String {
    let mut s = format!("point,{WORKLOAD},throughput_bytes_per_sec,ci95_rel,duration_secs\n");
    for (i, pt) in p.points.iter().enumerate() {
        let _ = writeln!(
            s,
            "{i},{},{},{},{}",
            workload(&pt.workload),
            pt.throughput_bytes_per_sec,
            opt(pt.ci95_rel),
            pt.duration_secs
        );
    }
    s
}

/// The validation's workloads: measured, repeated and predicted
/// throughput, and the errors.
pub fn validation_csv(v: &ValidationReport) -> String {
    let mut s = format!(
        "point,{WORKLOAD},measured_bytes_per_sec,repeat_bytes_per_sec,predicted_bytes_per_sec,error,repeat_error,baseline_predicted_bytes_per_sec,region,near_border,extrapolated\n"
    );
    for (i, pt) in v.points.iter().enumerate() {
        let _ = writeln!(
            s,
            "{i},{},{},{},{},{},{},{},{},{},\"{}\"",
            workload(&pt.workload),
            pt.measured_bytes_per_sec,
            pt.repeat_bytes_per_sec,
            pt.predicted_bytes_per_sec,
            pt.error,
            pt.repeat_error,
            opt(pt.baseline_predicted_bytes_per_sec),
            pt.region,
            pt.near_border,
            pt.extrapolated.join(";")
        );
    }
    s
}
