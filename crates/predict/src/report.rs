//! The one-page report: findings in sentences, the figures inline and the
//! raw numbers, in one HTML file with no external resources.

use crate::plot::Figure;
use crate::predict::Param;
use crate::profile::Profile;
use crate::validate::ValidationReport;
use willy::units::Bytes;

/// A curve's (value, throughput) pairs, by value.
fn curve(p: &Profile, param: Param, idx: &[usize]) -> Vec<(f64, f64)> {
    let mut v: Vec<(f64, f64)> = idx
        .iter()
        .map(|&i| {
            (
                param.of(&p.points[i].workload),
                p.points[i].throughput_bytes_per_sec,
            )
        })
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v
}

fn mbs(t: f64) -> String {
    format!("{:.1} MB/s", t / 1e6)
}

/// The CPU's largest cache, if a cache of `size` bytes is no larger: such
/// a drop may come from the CPU's caches (memory copies slowing as the
/// working set leaves L2 or L3) rather than from a file cache.
pub fn within_cpu_cache(p: &Profile, size: u64) -> Option<u64> {
    p.system.cpu_cache_bytes.filter(|&l| size <= l)
}

/// What a reader should take away, in plain sentences.
pub fn findings(p: &Profile) -> Vec<String> {
    let mut out: Vec<String> = disturbed(p).into_iter().collect();
    out.extend(cache_findings(p));
    out.extend(probe_finding(p));
    for (k, r) in p.regions.iter().enumerate() {
        out.push(region_finding(p, k, r));
    }
    out
}

/// What `--probe` found, in a sentence, or nothing.
fn probe_finding(p: &Profile) -> Option<String> {
    use willy::units::human_bytes;
    let q = p.probe.as_ref()?;
    let mut parts = Vec::new();
    if let Some(r) = q.rotation.as_ref().and_then(|r| r.rpm) {
        parts.push(format!("it turns at {r:.0} rpm"));
    }
    if let Some(b) = &q.boundaries {
        parts.push(format!("boundaries: {}", b.summary));
    }
    if let Some(e) = q.efficient_size_bytes {
        parts.push(format!(
            "requests of {} or more reach 90% of streaming efficiency",
            human_bytes(e as f64)
        ));
    }
    Some(format!(
        "Probed first (willy probe, {} reads): {}. The sizeMean curves include these sizes (in whole blocks) and mark them.",
        q.costs.iter().map(|c| c.requests).sum::<u64>(),
        parts.join("; ")
    ))
}

/// A warning when points were measured while other work kept the machine
/// busy (willy::background), or nothing.
pub fn disturbed(p: &Profile) -> Option<String> {
    let busy: Vec<_> = p
        .points
        .iter()
        .filter_map(|pt| pt.background)
        .filter(|b| b.disturbed)
        .collect();
    if busy.is_empty() {
        return None;
    }
    let cores = busy.iter().map(|b| b.other_cores_busy).fold(0.0, f64::max);
    let steal = busy.iter().map(|b| b.steal_frac).fold(0.0, f64::max);
    Some(format!(
        "The run was disturbed: {} of {} points were measured while other work kept the machine busy (up to {cores:.1} cores busy besides willy, up to {:.0}% of CPU time stolen). Their throughput may be the machine's load, not its storage: measure again on a quiet machine.",
        busy.len(),
        p.points.len(),
        steal * 100.0
    ))
}

/// A sentence per cache found (or one saying none was).
fn cache_findings(p: &Profile) -> Vec<String> {
    let mut out = Vec::new();
    let [lo, hi] = p.ranges.unique_bytes;
    if p.caches.is_empty() {
        out.push(match p.cache_sizes_bytes.as_slice() {
            [] => format!(
                "No cache was found: throughput does not drop between uniqueBytes {} and {}.",
                Bytes(lo),
                Bytes(hi)
            ),
            [c] => format!("The effective cache is about {}.", Bytes(*c)),
            cs => format!(
                "There are {} effective cache levels, about {}.",
                cs.len(),
                cs.iter()
                    .map(|&c| Bytes(c).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
    } else {
        for c in &p.caches {
            let cpu = within_cpu_cache(p, c.size_bytes).map(|l| {
                format!(
                    " It is no larger than the CPU's largest cache ({}), so it may be the CPU's caches rather than a file cache.",
                    Bytes(l)
                )
            });
            let what = if c.probe == crate::profile::Probe::Reads {
                format!(
                    "The effective cache is about {}: random reads start to miss at uniqueBytes {}.",
                    Bytes(c.size_bytes),
                    Bytes(c.onset_unique_bytes)
                )
            } else {
                format!(
                    "Random writes slow down by half at uniqueBytes {} (a write cache or write-back limit of about {}).",
                    Bytes(c.centre_unique_bytes),
                    Bytes(c.size_bytes)
                )
            };
            out.push(what + &interval(c) + &cpu.unwrap_or_default() + &poor_fit(c));
        }
    }
    out
}

/// " The sweep's points place it between A and B." where known.
pub fn interval(c: &crate::profile::CacheFound) -> String {
    c.size_interval_bytes
        .map(|[lo, hi]| {
            format!(
                " The sweep's points place it between {} and {}.",
                Bytes(lo),
                Bytes(hi)
            )
        })
        .unwrap_or_default()
}

/// The self-check's warning, where it failed.
pub fn poor_fit(c: &crate::profile::CacheFound) -> String {
    if !c.poor_fit {
        return String::new();
    }
    format!(
        " Poor fit: the fall does not look like that of an LRU cache of this size (its points imply caches up to {:.1}x away), so take the size as a rough guide, not a measurement.",
        c.fit_factor.unwrap_or(f64::NAN)
    )
}

/// What region `k`'s curves say.
fn region_finding(p: &Profile, k: usize, r: &crate::profile::ProfileRegion) -> String {
    {
        let mut s = format!(
            "Region {k} (uniqueBytes {} to {}):",
            Bytes(r.from_unique_bytes),
            Bytes(r.to_unique_bytes)
        );
        let sizes = curve(p, Param::SizeMean, &r.curves.size_mean);
        if let Some(peak) = sizes.iter().map(|s| s.1).reduce(f64::max) {
            if let Some(first) = sizes.iter().find(|s| s.1 >= 0.9 * peak) {
                s += &format!(
                    " requests of {} or more reach 90% of the peak {};",
                    Bytes(first.0 as u64),
                    mbs(peak)
                );
            }
        }
        let reads = curve(p, Param::ReadFrac, &r.curves.read_frac);
        if let (Some(w), Some(rd)) = (reads.first(), reads.last()) {
            let ratio = rd.1 / w.1;
            s += &if ratio > 1.1 {
                format!(" reads run {ratio:.1}x as fast as writes;")
            } else if ratio < 1.0 / 1.1 {
                format!(" writes run {:.1}x as fast as reads;", 1.0 / ratio)
            } else {
                " reads and writes run at about the same speed (within 10%);".to_string()
            };
        }
        let seq = curve(p, Param::SeqFrac, &r.curves.seq_frac);
        if let (Some(a), Some(b)) = (seq.first(), seq.last()) {
            s += &format!(
                " sequential access runs {:.1}x as fast as random;",
                b.1 / a.1
            );
        }
        let procs = curve(p, Param::ProcessNum, &r.curves.process_num);
        if let (Some(one), Some(peak)) = (
            procs.first(),
            procs
                .iter()
                .copied()
                .reduce(|a, b| if b.1 > a.1 { b } else { a }),
        ) {
            s += &if peak.1 > 1.1 * one.1 {
                format!(
                    " concurrency helps: {} processes give {:.1}x one process's throughput.",
                    peak.0,
                    peak.1 / one.1
                )
            } else {
                " more processes do not help (less than 10%).".to_string()
            };
        }
        s
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The report as one self-contained HTML document.
pub fn html(p: &Profile, figures: &[Figure], validation: Option<&ValidationReport>) -> String {
    let mut h = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>willy report</title>\n<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}figure{margin:1.5em 0}figcaption{font-size:90%;color:#555}svg{max-width:100%;height:auto}</style></head><body>\n",
    );
    h += "<h1>willy: self-scaling I/O benchmark report</h1>\n<h2>System</h2>\n<table>\n";
    h += &system_rows(p);
    h += "</table>\n<h2>Findings</h2>\n<ul>\n";
    for f in findings(p) {
        h += &format!("<li>{}</li>\n", esc(&f));
    }
    if let Some(v) = validation {
        h += &format!(
            "<li>Predictions from this profile: median error {:.1}% (90% CI {:.1}% to {:.1}%) over {} random workloads; measuring the same workloads again differs by {:.1}% (median).</li>\n",
            v.median_abs_error * 100.0,
            v.median_abs_error_ci90[0] * 100.0,
            v.median_abs_error_ci90[1] * 100.0,
            v.points.len(),
            v.repeatability_error * 100.0
        );
        if let Some(regions) = region_findings(v) {
            h += &format!("<li>By region: {}.</li>\n", esc(&regions));
        }
        if let Some(drift) = v.drift_summary() {
            h += &format!(
                "<li>Since the profile, each region's focal point measured again moved by: {}.</li>\n",
                esc(&drift)
            );
        }
    }
    h += "</ul>\n<h2>Figures</h2>\n";
    for f in figures {
        // The SVG goes in as it is: plotters writes no XML declaration.
        h += &format!(
            "<figure id=\"{}\">{}<figcaption>{}</figcaption></figure>\n",
            esc(&f.name),
            f.svg,
            esc(&f.title)
        );
    }
    h += &tables(p);
    h += "</body></html>\n";
    h
}

/// Each region's workloads, every model's median error there and, from
/// validation version 9, how much they differ measured again: a disk
/// region's noise is often several times the whole validation's. `None`
/// without regions (before version 3).
fn region_findings(v: &ValidationReport) -> Option<String> {
    let pct = |x: f64| format!("{:.1}%", x * 100.0);
    let parts: Vec<String> = v
        .regions
        .iter()
        .map(|r| {
            let numbers: Vec<String> = r
                .median_abs_error_by_model
                .iter()
                .map(|(name, &e)| format!("{name} {}", pct(e)))
                .chain(
                    r.repeatability_error
                        .map(|x| format!("repeatability {}", pct(x))),
                )
                .collect();
            let s = if r.workloads == 1 { "" } else { "s" };
            format!(
                "region {}, {} workload{s}: {}",
                r.region,
                r.workloads,
                numbers.join(", ")
            )
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The system table's rows.
fn system_rows(p: &Profile) -> String {
    let sys = &p.system;
    let mut h = String::new();
    let mut row =
        |k: &str, v: String| h += &format!("<tr><th>{}</th><td>{}</td></tr>\n", esc(k), esc(&v));
    row("target", p.target.clone());
    row("simulated", p.simulated.to_string());
    row("host", sys.hostname.clone());
    row("kernel", sys.kernel.clone());
    row("CPUs", sys.cpus.to_string());
    row("memory", Bytes(sys.memory_bytes).to_string());
    row(
        "cache limit (cgroup)",
        p.cache_limit_bytes
            .map_or("none".into(), |b| Bytes(b).to_string()),
    );
    row(
        "filesystem",
        sys.filesystem.clone().unwrap_or_else(|| "-".into()),
    );
    row(
        "device",
        format!(
            "{} {}",
            sys.device.clone().unwrap_or_else(|| "-".into()),
            sys.device_model.clone().unwrap_or_default()
        ),
    );
    row("engine", p.engine.name().to_string());
    row("willy", sys.willy_version.clone());
    row("points measured", p.points.len().to_string());
    h
}

/// The regions and every measured point.
fn tables(p: &Profile) -> String {
    let mut h = String::new();
    h += "<h2>Regions</h2>\n<table><tr><th>region</th><th>uniqueBytes from</th><th>to</th><th>focal vector</th></tr>\n";
    for (k, r) in p.regions.iter().enumerate() {
        h += &format!(
            "<tr><td>{k}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            Bytes(r.from_unique_bytes),
            Bytes(r.to_unique_bytes),
            esc(&format!("{:#}", r.focal))
        );
    }
    h += "</table>\n<h2>Every measured point</h2>\n<table><tr><th>#</th><th>uniqueBytes</th><th>sizeMean</th><th>readFrac</th><th>seqFrac</th><th>processNum</th><th>MB/s</th><th>95% CI</th><th>seconds</th></tr>\n";
    for (i, pt) in p.points.iter().enumerate() {
        let w = &pt.workload;
        h += &format!(
            "<tr><td>{i}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{}</td><td>{:.1}</td></tr>\n",
            w.unique_bytes,
            w.size_mean,
            w.read_frac,
            w.seq_frac,
            w.process_num,
            pt.throughput_bytes_per_sec / 1e6,
            pt.ci95_rel.map_or("-".into(), |c| format!("±{:.1}%", c * 100.0)),
            pt.duration_secs
        );
    }
    h += "</table>\n";
    h
}

/// The report of a `willy interfere --json` document: one HTML page with
/// its figure and its table.
pub fn interference_html(d: &willy::doc::interference::Interference, fig: &Figure) -> String {
    let mut h = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>willy interference report</title>\n<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}svg{max-width:100%;height:auto}</style></head><body>\n",
    );
    h += &format!(
        "<h1>willy: interference on {}</h1>\n<p>Each workload measured alone, then all together, with the same stopping rule (engine {}, {}). R = shared / (share &times; alone): the fraction of its stand-alone throughput a workload keeps within its share (Argon, FAST'07). ",
        esc(&d.target),
        d.engine.name(),
        if d.direct { "O_DIRECT" } else { "through the page cache" }
    );
    let pct = |x: Option<f64>| x.map_or("unknown".into(), |b| format!("{:.0}%", b * 100.0));
    h += &if d.contended {
        format!(
            "The shared run was <b>contended</b>: {} saturated (storage busy {}, CPUs {}).</p>\n",
            esc(d.bottleneck.as_deref().unwrap_or("?")),
            pct(d.storage_busy),
            pct(d.cpu_busy)
        )
    } else {
        format!(
            "The shared run was <b>not contended</b> (storage busy {}, CPUs {}): the R-values say nothing of interference.</p>\n",
            pct(d.storage_busy),
            pct(d.cpu_busy)
        )
    };
    h += &format!(
        "<figure>{}<figcaption>{}</figcaption></figure>\n",
        fig.svg,
        esc(&fig.title)
    );
    h += "<table><tr><th>workload</th><th>uniqueBytes</th><th>sizeMean</th><th>readFrac</th><th>seqFrac</th><th>processNum</th><th>share</th><th>alone MB/s</th><th>shared MB/s</th><th>R</th><th>R 95% CI</th></tr>\n";
    for w in &d.workloads {
        let x = &w.workload;
        h += &format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.3}</td><td>{:.2}</td><td>{:.2}</td><td>{:.3}</td><td>{}</td></tr>\n",
            esc(&w.name),
            x.unique_bytes,
            x.size_mean,
            x.read_frac,
            x.seq_frac,
            x.process_num,
            w.share,
            w.alone_bytes_per_sec / 1e6,
            w.shared_bytes_per_sec / 1e6,
            w.r_value,
            w.r_value_ci95
                .map_or("-".into(), |[lo, hi]| format!("{lo:.3} to {hi:.3}"))
        );
    }
    h += "</table>\n</body></html>\n";
    h
}

/// The report of a `willy anomalies --json` document: its figure, its
/// clusters as sentences, and the anomalous samples.
pub fn anomalies_html(d: &willy::doc::anomalies::Anomalies, fig: &Figure) -> String {
    let mut h = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>willy anomalies report</title>\n<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}svg{max-width:100%;height:auto}</style></head><body>\n",
    );
    let bad: Vec<&willy::doc::anomalies::Sample> =
        d.samples.iter().filter(|s| s.anomalous).collect();
    h += &format!(
        "<h1>willy: anomalies on {}</h1>\n<p>{} random samples, each compared with the {}; {} ({:.1}%) fell at least {:.0}% below it and are anomalous. Clusters: Shen et al.'s hyper-rectangles (FAST'05), each holding at least {:.0}% anomalies; a dimension a cluster spans whole is left out of its description.</p>\n",
        esc(&d.target),
        d.samples.len(),
        if d.expect == "model" { "layered model of the device (prefetching, scheduling, disk)" } else { "profile's prediction" },
        bad.len(),
        d.anomalous_fraction * 100.0,
        d.threshold * 100.0,
        d.eps * 100.0
    );
    h += "<ol>\n";
    for c in &d.clusters {
        h += &format!("<li>{}</li>\n", esc(&c.description));
    }
    h += "</ol>\n";
    if d.clusters.is_empty() {
        h += "<p>No cluster: no region of the space holds enough anomalies to point at a cause.</p>\n";
    }
    h += &format!(
        "<figure>{}<figcaption>{}</figcaption></figure>\n",
        fig.svg,
        esc(&fig.title)
    );
    if let Some(via) = &d.readahead_via {
        h += &format!("<p>Read-ahead was switched off through {}.</p>\n", esc(via));
    }
    let sched = d.samples.iter().any(|s| s.scheduler.is_some());
    h += &format!(
        "<h2>Anomalous samples</h2>\n<table><tr><th>uniqueBytes</th><th>sizeMean</th><th>readFrac</th><th>seqFrac</th><th>processNum</th><th>direct</th><th>read-ahead</th>{}<th>expected MB/s</th><th>measured MB/s</th><th>shortfall</th></tr>\n",
        if sched { "<th>scheduler</th>" } else { "" }
    );
    for s in bad {
        let w = &s.workload;
        let sc = match (&s.scheduler, sched) {
            (Some(q), _) => format!("<td>{}</td>", esc(q)),
            (None, true) => "<td></td>".into(),
            (None, false) => String::new(),
        };
        h += &format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{sc}<td>{:.2}</td><td>{:.2}</td><td>{:.0}%</td></tr>\n",
            w.unique_bytes,
            w.size_mean,
            w.read_frac,
            w.seq_frac,
            w.process_num,
            if s.direct { "on" } else { "off" },
            if s.readahead { "on" } else { "off" },
            s.expected_bytes_per_sec / 1e6,
            s.measured_bytes_per_sec / 1e6,
            s.shortfall * 100.0
        );
    }
    h += "</table>\n</body></html>\n";
    h
}

/// A one-page HTML report of a bus document: the parameters, the figure
/// and every point, modelled and measured.
pub fn bus_html(d: &willy::doc::bus::BusDoc, f: &Figure) -> String {
    use willy::units::human_bytes;
    let mut h = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>willy bus report</title>\n<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}th{background:#f4f4f4}svg{max-width:100%;height:auto}</style></head><body>\n",
    );
    let p = &d.parameters;
    h += &format!(
        "<h1>willy: disks on one bus, {}</h1>\n<p>Barve et al.'s model (eqs. 1-5): overhead {:.2} ms, revolution {:.2} ms, {:.1} MB/s off the surface, bus {:.1} MB/s, tracks of {}, fence {}{}.</p>\n",
        esc(&d.source),
        p.overhead_ms,
        p.revolution_ms,
        p.rot_mb_per_s,
        p.bus_mb_per_s,
        human_bytes(p.track_bytes),
        p.fence,
        d.arbitration
            .as_deref()
            .map(|a| format!("; the simulated bus with {a} arbitration"))
            .unwrap_or_default()
    );
    h += &f.svg;
    h += "\n<table><tr><th>block</th><th>disks</th><th>eq.</th><th>model ms</th><th>model MB/s</th><th>simulated ms</th><th>simulated MB/s</th><th>error</th><th>rounds kept</th></tr>\n";
    let opt = |v: Option<f64>, f: &dyn Fn(f64) -> String| v.map_or("-".into(), f);
    for q in &d.points {
        h += &format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{:.2}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            human_bytes(q.block_bytes as f64),
            q.disks,
            q.equation,
            q.model_read_duration_ms,
            q.model_throughput_bytes_per_sec / 1e6,
            opt(q.measured_read_duration_ms, &|v| format!("{v:.2}")),
            opt(q.measured_throughput_bytes_per_sec, &|v| format!("{:.2}", v / 1e6)),
            opt(q.error, &|v| format!("{:+.1}%", v * 100.0)),
            opt(q.rounds_kept, &|v| format!("{:.0}%", v * 100.0)),
        );
    }
    h += "</table>\n</body></html>\n";
    h
}

/// A one-page HTML report of a probe document: what was found, its figures
/// and the measured points.
pub fn probe_html(p: &willy::doc::probe::Probe, figs: &[Figure]) -> String {
    use willy::units::human_bytes;
    let mut h = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>willy probe report</title>\n<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}svg{max-width:100%;height:auto}</style></head><body>\n",
    );
    h += &format!(
        "<h1>willy: probe of {}</h1>\n<p>{} in {}-byte sectors; {} reads over {:.1} s of {} time. Lachesis (Schindler et al.) and Barve et al.: efficiency is the share of a read's time spent moving data at the media rate.</p>\n<ul>\n",
        esc(&p.target),
        human_bytes(p.capacity_bytes as f64),
        p.sector_bytes,
        p.costs.iter().map(|c| c.requests).sum::<u64>(),
        p.costs.iter().map(|c| c.seconds).sum::<f64>(),
        if p.simulated { "virtual" } else { "real" }
    );
    for w in &p.warnings {
        h += &format!("<li><b>warning</b>: {}</li>\n", esc(w));
    }
    if let Some(r) = &p.rotation {
        h += &match r.revolution_ms {
            Some(rev) => format!(
                "<li>rotation: {rev:.3} ms a revolution (+- {:.3}), {:.0} rpm</li>\n",
                r.revolution_ci95_ms.unwrap_or(f64::NAN),
                r.rpm.unwrap_or(f64::NAN)
            ),
            None => format!(
                "<li>rotation: none found (re-reading a block takes {:.3} ms)</li>\n",
                r.reread_ms
            ),
        };
    }
    if let Some(b) = &p.boundaries {
        h += &format!("<li>boundaries: {}</li>\n", esc(&b.summary));
    }
    if let Some(m) = p.media_mb_per_s {
        h += &format!("<li>media rate: {m:.1} MB/s</li>\n");
    }
    if let Some(e) = &p.efficiency {
        let size =
            |b: Option<u64>| b.map_or("none measured".to_string(), |b| human_bytes(b as f64));
        h += &format!(
            "<li>efficient size (90% of streaming, {:.3}): {} aligned to a {}, {} unaligned</li>\n",
            e.streaming,
            size(e.efficient_size_bytes),
            esc(&e.alignment),
            size(e.efficient_size_unaligned_bytes)
        );
    }
    h += "</ul>\n";
    for f in figs {
        h += &format!(
            "<figure>{}<figcaption>{}</figcaption></figure>\n",
            f.svg,
            esc(&f.title)
        );
    }
    h += &probe_tables(p);
    h += "</body></html>\n";
    h
}

/// The probe's efficiency points and zones as tables.
fn probe_tables(p: &willy::doc::probe::Probe) -> String {
    use willy::units::human_bytes;
    let mut h = String::new();
    if let Some(e) = &p.efficiency {
        h += "<h2>Efficiency</h2>\n<table><tr><th>size</th><th>aligned</th><th>+-</th><th>unaligned</th><th>+-</th></tr>\n";
        for q in &e.points {
            h += &format!(
                "<tr><td>{}</td><td>{:.3}</td><td>{:.3}</td><td>{:.3}</td><td>{:.3}</td></tr>\n",
                human_bytes(q.size_bytes as f64),
                q.aligned,
                q.aligned_ci95,
                q.unaligned,
                q.unaligned_ci95
            );
        }
        h += "</table>\n";
    }
    if let Some(b) = &p.boundaries {
        if !b.zones.is_empty() {
            h += "<h2>Zones</h2>\n<table><tr><th>from</th><th>to</th><th>track</th><th>samples</th></tr>\n";
            for z in &b.zones {
                h += &format!(
                    "<tr><td>{}</td><td>{}</td><td>{} ({} bytes)</td><td>{}</td></tr>\n",
                    human_bytes(z.start_bytes as f64),
                    human_bytes(z.end_bytes as f64),
                    human_bytes(z.track_bytes as f64),
                    z.track_bytes,
                    z.samples
                );
            }
            h += "</table>\n";
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::CacheFound;

    /// A validation's drift (version 4) is a finding of the report; one
    /// without it (as before version 4) says nothing of it.
    #[test]
    fn the_drift_since_the_profile_is_a_finding() {
        let p = crate::profile::sample();
        let w = p.regions[0].focal.clone();
        let point = crate::validate::ValidatedPoint {
            workload: w.clone(),
            measured_bytes_per_sec: 100.0,
            measured_steady_bytes_per_sec: None,
            generators_bytes_per_sec: vec![],
            repeat_bytes_per_sec: 101.0,
            predicted_bytes_per_sec: 110.0,
            error: 0.1,
            error_by_model: Default::default(),
            repeat_error: 0.01,
            baseline_predicted_bytes_per_sec: None,
            region: 0,
            extrapolated: vec![],
            near_border: false,
        };
        let setup = crate::validate::Setup {
            profile: "p.json".into(),
            profile_points: p.points.len(),
            target: "sim:hdd".into(),
            engine: willy::engine::EngineKind::Psync,
            direct: false,
            seed: 1,
            measured_secs: [5.0, 20.0],
            ci: 0.05,
            model: "chen".into(),
        };
        let mut v = crate::validate::report(setup, vec![point], None, vec![]);
        let h = html(&p, &[], Some(&v));
        assert!(!h.contains("moved by"));
        // Each region's errors and repeatability (version 9).
        assert!(
            h.contains("By region: region 0, 1 workload: repeatability 1.0%."),
            "{h}"
        );
        v.regions[0].median_abs_error_by_model = [("chen".to_string(), 0.1)].into();
        v.regions[0].repeatability_error = None;
        let h = html(&p, &[], Some(&v));
        assert!(
            h.contains("By region: region 0, 1 workload: chen 10.0%."),
            "{h}"
        );
        v.drift = vec![willy::doc::validation::DriftPoint {
            region: 1,
            workload: w,
            profile_bytes_per_sec: 100.0,
            measured_bytes_per_sec: 80.0,
            change: -0.2,
        }];
        let h = html(&p, &[], Some(&v));
        assert!(
            h.contains("measured again moved by: region 1 -20.0%."),
            "{h}"
        );
    }

    #[test]
    fn a_cache_within_the_cpu_cache_is_flagged() {
        let mut p = crate::profile::sample();
        p.system.cpu_cache_bytes = Some(32 << 20);
        let cache = |size: u64, probe: crate::profile::Probe| CacheFound {
            size_bytes: size,
            size_interval_bytes: None,
            fit_factor: None,
            poor_fit: false,
            probe,
            onset_unique_bytes: size,
            centre_unique_bytes: 2 * size,
        };
        p.caches = vec![
            cache(8 << 20, crate::profile::Probe::Reads),
            cache(900 << 20, crate::profile::Probe::Reads),
        ];
        p.cache_sizes_bytes = vec![8 << 20, 900 << 20];
        let f = findings(&p);
        assert!(f[0].contains("may be the CPU's caches"), "{}", f[0]);
        assert!(f[0].contains("32 MiB"), "{}", f[0]);
        assert!(!f[1].contains("CPU"), "{}", f[1]);
        assert!(
            !f[1].contains("Poor fit") && !f[1].contains("between"),
            "{}",
            f[1]
        );
        // Its interval, and the self-check's warning where it failed.
        p.caches[1].size_interval_bytes = Some([850 << 20, 1000 << 20]);
        p.caches[1].fit_factor = Some(2.5);
        p.caches[1].poor_fit = true;
        let f = findings(&p);
        assert!(f[1].contains("between 850 MiB and 1000 MiB"), "{}", f[1]);
        assert!(
            f[1].contains("Poor fit") && f[1].contains("2.5x"),
            "{}",
            f[1]
        );
        // Unknown CPU cache: no such remark.
        p.system.cpu_cache_bytes = None;
        assert!(findings(&p).iter().all(|s| !s.contains("CPU")));
    }
}
