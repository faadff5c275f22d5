//! The human-readable result table.

use std::fmt::Write;
use willy::report::{DirectionStats, RunReport, RunTarget};
use willy::units::human_bytes;

fn rate(bps: f64) -> String {
    format!("{}/s", human_bytes(bps.round()))
}

fn lat(v: f64) -> String {
    if v >= 1000.0 {
        format!("{:.2} ms", v / 1000.0)
    } else {
        format!("{v:.1} us")
    }
}

/// The result as a table for a terminal.
pub fn table(report: &RunReport) -> String {
    let r = &report.measurement;
    let mut s = header(report);
    let _ = writeln!(
        s,
        "{:<8} {:>14} {:>12} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "", "throughput", "IOPS", "lat p50", "p90", "p99", "p99.9", "max"
    );
    let row = |s: &mut String, name: &str, d: &DirectionStats| {
        let (p50, p90, p99, p999, max) = match &d.latency_us {
            Some(l) => (lat(l.p50), lat(l.p90), lat(l.p99), lat(l.p999), lat(l.max)),
            None => Default::default(),
        };
        let _ = writeln!(
            s,
            "{name:<8} {:>14} {:>12.0} {p50:>10} {p90:>10} {p99:>10} {p999:>10} {max:>10}",
            rate(d.throughput_bytes_per_sec),
            d.iops
        );
    };
    row(&mut s, "read", &r.reads);
    row(&mut s, "write", &r.writes);
    let _ = writeln!(
        s,
        "{:<8} {:>14} {:>12.0}",
        "total",
        rate(r.throughput_bytes_per_sec),
        r.iops
    );
    if let Some(line) = generators(&r.generators_bytes_per_sec) {
        let _ = writeln!(s, "{line}");
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "moved {} in {} requests; willy used {:.2} s user + {:.2} s system CPU ({:.2} cores busy)",
        human_bytes(r.bytes_transferred as f64),
        r.requests,
        r.cpu.user_secs,
        r.cpu.system_secs,
        r.cpu.cores_busy
    );
    s
}

/// How the throughput divides between the generators, where there are
/// several: the slowest's, the median and the fastest's (generators whose
/// shares stay cached run apart from the others).
fn generators(each: &[f64]) -> Option<String> {
    if each.len() < 2 {
        return None;
    }
    let mut v = each.to_vec();
    v.sort_by(f64::total_cmp);
    let median = willy::stats::median(&v);
    Some(format!(
        "{:<8} {:>14}              median of {} generators; slowest {}, fastest {}",
        "per gen.",
        rate(median),
        v.len(),
        rate(v[0]),
        rate(v[v.len() - 1])
    ))
}

/// The workload, the target and how the measurement went.
fn header(report: &RunReport) -> String {
    let r = &report.measurement;
    let w = &report.workload;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "workload   uniqueBytes {}  sizeMean {}  readFrac {}  seqFrac {}  processNum {}  blockSize {}{}",
        w.unique_bytes,
        w.size_mean,
        w.read_frac,
        w.seq_frac,
        w.process_num,
        w.block_size,
        if w.cpu_think.0.is_zero() { String::new() } else { format!("  cpuThink {:?}", w.cpu_think.0) }
    );
    let (path, kind, direct) = match (&report.target, report.targets.as_deref()) {
        (RunTarget::One(t), _) => (t.path.clone(), t.kind, t.direct),
        (RunTarget::Several(joined), Some([first, ..])) => {
            (joined.replace(',', ", "), first.kind, first.direct)
        }
        (RunTarget::Several(joined), _) => {
            (joined.clone(), willy::target::TargetKind::Files, false)
        }
    };
    let _ = writeln!(
        s,
        "target     {} ({}{}{}), engine {}",
        path,
        match kind {
            willy::target::TargetKind::Files => "files",
            willy::target::TargetKind::Device => "raw device",
            willy::target::TargetKind::Simulated => "simulated",
        },
        if direct { ", O_DIRECT" } else { "" },
        report
            .system
            .filesystem
            .as_deref()
            .map(|f| format!(", {f}"))
            .unwrap_or_default(),
        report.engine.name()
    );
    let ci = r
        .ci95_rel
        .map(|c| format!("±{:.1}%", c * 100.0))
        .unwrap_or_else(|| "n/a".into());
    let _ = writeln!(
        s,
        "measured   {:.2} s{} after a {:.2} s warm start{}; 95% CI {ci} (target ±{:.1}%{})",
        r.duration_secs,
        if report.simulated { " (virtual)" } else { "" },
        r.warmup.secs,
        if r.warmup.complete {
            ""
        } else {
            " (cut short by its time limit)"
        },
        r.stopping.target_ci95_rel * 100.0,
        if r.stopping.target_met {
            ", met"
        } else if r.stopping.stalled {
            ", NOT met: STALLED"
        } else {
            ", NOT met: maximum duration reached"
        }
    );
    s.push_str(&stall(r));
    s.push_str(&transient(r));
    s.push_str(&extras(report));
    let _ = writeln!(s);
    s
}

/// The lines of what was asked for or seen besides the measurement: fio's
/// comparison, a disturbed machine, the blocks verified.
fn extras(report: &RunReport) -> String {
    let r = &report.measurement;
    let mut s = String::new();
    if let Some(f) = &report.compare_fio {
        let _ = writeln!(
            s,
            "fio        {} on the same files right after: willy/fio = {:.3}",
            rate(f.fio_throughput_bytes_per_sec),
            f.ratio
        );
    }
    if let Some(b) = r.background.filter(|b| b.disturbed) {
        let _ = writeln!(
            s,
            "DISTURBED  other work kept {:.1} cores busy besides willy ({:.0}% of CPU time stolen, load {:.1}): the throughput may be the machine's load, not its storage",
            b.other_cores_busy,
            b.steal_frac * 100.0,
            b.load1
        );
    }
    for t in report.targets.iter().flatten() {
        let _ = writeln!(
            s,
            "on {:<24} {:>14} {:>10.0} IOPS  (processNum {}, uniqueBytes {}, measured {:.2} s)",
            t.target,
            rate(t.throughput_bytes_per_sec),
            t.iops,
            t.workload.process_num,
            t.workload.unique_bytes,
            t.duration_secs
        );
    }
    if let Some(k) = report.rounds_kept {
        let _ = writeln!(
            s,
            "rounds     {:.1}% of completions kept round order (Barve's window of {} completions; docs/BUS.md)",
            k * 100.0,
            report.targets.as_ref().map_or(0, Vec::len)
        );
    }
    if let Some(n) = r.verified_blocks {
        let _ = writeln!(
            s,
            "verified   {n} blocks read back (warm start and measurement), every one as written"
        );
    }
    s
}

/// The line that says a measurement began before its steady state (the
/// rest's throughput further from the whole's than the stopping rule's
/// target), or nothing.
fn transient(r: &willy::report::Measurement) -> String {
    let st = &r.stopping;
    let (d, n) = (st.transient_intervals as f64, st.intervals as f64);
    let Some(steady) = st.steady_throughput_bytes_per_sec else {
        return String::new();
    };
    let whole = r.throughput_bytes_per_sec;
    if d == 0.0 || d >= n || whole <= 0.0 || (steady / whole - 1.0).abs() <= st.target_ci95_rel {
        return String::new();
    }
    let before = (whole * n - steady * (n - d)) / d;
    format!(
        "transient  the first {:.2} s ran at {}, the {:.2} s after at {} (MSER-5): the throughput above averages both; a longer warm start (--warmup-min) measures the steady state alone\n",
        d * st.interval_secs,
        rate(before.max(0.0)),
        (n - d) * st.interval_secs,
        rate(steady)
    )
}

/// The line that says a measurement stalled, or nothing.
fn stall(r: &willy::report::Measurement) -> String {
    if !r.stopping.stalled {
        return String::new();
    }
    let empty = r
        .stopping
        .interval_throughput
        .iter()
        .filter(|&&x| x == 0.0)
        .count();
    let longest = [&r.reads, &r.writes]
        .iter()
        .filter_map(|d| d.latency_us.as_ref().map(|l| l.max))
        .fold(0.0, f64::max);
    format!(
        "stalled    {empty} of {} intervals moved nothing (the longest request that completed took {}): the throughput above is not a measurement\n",
        r.stopping.intervals,
        lat(longest)
    )
}
