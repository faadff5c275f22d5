//! fio interoperability: the nearest fio job file for a workload, and
//! fio's JSON output read back, for `willy fio-job` and
//! `willy run --compare-fio`.
//!
//! The translation, generator by generator (one fio job each, one request
//! in flight, as Willy's closed loop):
//! - uniqueBytes / processNum -> `size` per job, each job on its own file;
//! - readFrac -> `rw=randrw` with `rwmixread`;
//! - seqFrac -> `percentage_random = 100 (1 - seqFrac)`: fio's non-random
//!   requests continue where the job's last one ended, as Willy's do;
//! - sizeMean -> `bssplit`, Willy's size distribution `1 + Binomial(2m - 2,
//!   1/2)` blocks at fio's 1% granularity, or `bs` for one-block requests;
//! - cpuThink -> `thinktime`.
//!
//! What fio cannot express is said in the job file's comments: above all
//! Willy's LRU-stack locality (random requests revisit about the most
//! recently used half of each file, where fio's are uniform over it).

use crate::engine::EngineKind;
use crate::units::Bytes;
use crate::workload::Workload;
use crate::Error;
use statrs::distribution::{Binomial, Discrete};
use std::fmt::Write as _;
use std::path::PathBuf;

/// fio's limit on `bssplit` entries (BSSPLIT_MAX in fio's options.h).
const BSSPLIT_MAX: usize = 64;

/// Where fio's jobs do their I/O.
#[derive(Clone, Debug)]
pub enum Layout {
    /// New files in this directory, one per job (fio names them).
    Directory(PathBuf),
    /// These existing files, one per job (willy's own, for --compare-fio).
    Files(Vec<PathBuf>),
    /// A raw device, each job in its region from these byte offsets.
    Device(PathBuf, Vec<u64>),
}

/// How fio is to run the workload.
#[derive(Clone, Debug)]
pub struct JobOptions {
    /// Where the I/O goes.
    pub layout: Layout,
    /// The engine willy used (fio's nearest: psync or io_uring).
    pub engine: EngineKind,
    /// O_DIRECT.
    pub direct: bool,
    /// fio's `ramp_time`, seconds (willy's warm start).
    pub ramp_secs: u64,
    /// fio's `runtime`, seconds (willy's measurement).
    pub runtime_secs: u64,
}

/// The fio job file nearest to workload `w` (named `name`), with comments
/// that say what differs.
pub fn job_file(name: &str, w: &Workload, o: &JobOptions) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "; fio job nearest to willy workload {name}:");
    let _ = writeln!(
        s,
        ";   uniqueBytes {}  sizeMean {}  readFrac {}  seqFrac {}  processNum {}  blockSize {}",
        w.unique_bytes, w.size_mean, w.read_frac, w.seq_frac, w.process_num, w.block_size
    );
    for line in differences(w) {
        let _ = writeln!(s, "; {line}");
    }
    s.push_str("\n[global]\n");
    let engine = match o.engine {
        EngineKind::Psync => "psync",
        EngineKind::Uring | EngineKind::TokioUring => "io_uring",
    };
    let _ = writeln!(
        s,
        "ioengine={engine}\niodepth=1\ndirect={}",
        u8::from(o.direct)
    );
    let _ = writeln!(s, "rw=randrw\nrwmixread={}", pct(w.read_frac));
    let _ = writeln!(s, "percentage_random={}", pct(1.0 - w.seq_frac));
    let _ = writeln!(s, "{}", sizes(w));
    let _ = writeln!(
        s,
        "blockalign={}\nsize={}",
        w.block_size.0,
        w.bytes_per_generator()
    );
    if !w.cpu_think.0.is_zero() {
        let _ = writeln!(s, "thinktime={}", w.cpu_think.0.as_micros());
    }
    let _ = writeln!(
        s,
        "time_based=1\nramp_time={}\nruntime={}\ngroup_reporting=1",
        o.ramp_secs, o.runtime_secs
    );
    match &o.layout {
        Layout::Directory(d) => {
            let _ = writeln!(
                s,
                "directory={}\n\n[{}]\nnumjobs={}",
                d.display(),
                section(name),
                w.process_num
            );
        }
        Layout::Files(files) => {
            for (n, f) in files.iter().enumerate() {
                let _ = write!(s, "\n[{}-{n}]\nfilename={}\n", section(name), f.display());
            }
        }
        Layout::Device(dev, bases) => {
            let _ = writeln!(s, "filename={}", dev.display());
            for (n, base) in bases.iter().enumerate() {
                let _ = write!(s, "\n[{}-{n}]\noffset={base}\n", section(name));
            }
        }
    }
    s
}

fn pct(f: f64) -> u32 {
    (f * 100.0).round() as u32
}

/// A job section's name: fio's sections are bracketed words.
fn section(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "willy".into()
    } else {
        s
    }
}

/// `bs=` or `bssplit=`: Willy's request sizes at fio's 1% granularity.
fn sizes(w: &Workload) -> String {
    let bs = w.block_size.0;
    let trials = w.size_trials();
    if trials == 0 {
        return format!("bs={bs}");
    }
    let b = Binomial::new(0.5, trials).expect("p = 0.5 is valid");
    let max = w.blocks_per_generator();
    // Whole percentages that add up to 100, by largest remainder.
    let exact: Vec<f64> = (0..=trials).map(|k| b.pmf(k) * 100.0).collect();
    let mut whole: Vec<u32> = exact.iter().map(|p| p.floor() as u32).collect();
    let mut by_rest: Vec<usize> = (0..exact.len()).collect();
    by_rest
        .sort_by(|&i, &j| (exact[j] - exact[j].floor()).total_cmp(&(exact[i] - exact[i].floor())));
    let short = 100u32.saturating_sub(whole.iter().sum());
    for &i in by_rest.iter().take(short as usize) {
        whole[i] += 1;
    }
    let split: Vec<(u64, u32)> = (0..=trials)
        .map(|k| ((1 + k).min(max) * bs, whole[k as usize]))
        .filter(|&(_, p)| p > 0)
        .collect();
    if split.is_empty() || split.len() > BSSPLIT_MAX {
        return format!("bs={}", w.size_mean.0 / bs * bs);
    }
    let parts: Vec<String> = split.iter().map(|(s, p)| format!("{s}/{p}")).collect();
    format!("bssplit={}", parts.join(":"))
}

/// What the job file cannot say, one comment line each.
fn differences(w: &Workload) -> Vec<String> {
    let mut d = vec![
        "fio cannot express:".to_string(),
        "- locality: willy's random requests draw a depth in each generator's LRU stack".into(),
        "  (Binomial(U-1, 1/2)), revisiting about the most recently used half of the file;".into(),
        "  fio's are uniform over the file. Cache hit ratios differ near the cache size.".into(),
        "- the warm start: willy's moves uniqueBytes (ramp_time here is a time), and willy".into(),
        "  stops at a 95% confidence interval, fio after runtime.".into(),
    ];
    if w.size_trials() > 0 {
        d.push(format!(
            "- sizes: bssplit rounds willy's Binomial sizes (mean {}) to whole percents.",
            Bytes(w.size_mean.0)
        ));
    }
    d
}

/// Throughput (bytes/s, both directions) from fio's `--output-format=json`
/// with group reporting.
pub fn throughput(json: &str) -> Result<f64, Error> {
    let bad = |m: &str| Error::Usage(format!("cannot read fio's JSON output: {m}"));
    // fio may print notes before the JSON document.
    let start = json.find('{').ok_or_else(|| bad("no JSON object"))?;
    let v: serde_json::Value =
        serde_json::from_str(&json[start..]).map_err(|e| bad(&e.to_string()))?;
    let jobs = v["jobs"].as_array().ok_or_else(|| bad("no jobs"))?;
    let mut total = 0.0;
    for j in jobs {
        for dir in ["read", "write"] {
            total += j[dir]["bw_bytes"].as_f64().unwrap_or(0.0);
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::WorkloadPatch;

    fn w(json: &str) -> Workload {
        WorkloadPatch::from_json(json).unwrap().build().unwrap()
    }

    fn opts() -> JobOptions {
        JobOptions {
            layout: Layout::Directory("/tmp/x".into()),
            engine: EngineKind::Uring,
            direct: true,
            ramp_secs: 2,
            runtime_secs: 10,
        }
    }

    #[test]
    fn a_workload_becomes_its_nearest_job() {
        let j = job_file(
            "hot",
            &w(
                r#"{"uniqueBytes":"64MiB","sizeMean":"16KiB","readFrac":0.7,"seqFrac":0.25,"processNum":4}"#,
            ),
            &opts(),
        );
        for line in [
            "ioengine=io_uring",
            "direct=1",
            "rwmixread=70",
            "percentage_random=75",
            "size=16777216",
            "numjobs=4",
            "directory=/tmp/x",
            "[hot]",
        ] {
            assert!(j.lines().any(|l| l == line), "{line} missing:\n{j}");
        }
        assert!(j.contains("; - locality"), "{j}");
        // 16 KiB = 4 blocks: 1 + Binomial(6, 1/2) blocks, mean 4 blocks.
        let split = j.lines().find_map(|l| l.strip_prefix("bssplit=")).unwrap();
        let parts: Vec<(f64, f64)> = split
            .split(':')
            .map(|p| {
                let (s, q) = p.split_once('/').unwrap();
                (s.parse().unwrap(), q.parse().unwrap())
            })
            .collect();
        assert_eq!(parts.iter().map(|p| p.1).sum::<f64>(), 100.0);
        let mean = parts.iter().map(|p| p.0 * p.1).sum::<f64>() / 100.0;
        assert!((mean / 16384.0 - 1.0).abs() < 0.02, "mean {mean}");
    }

    #[test]
    fn one_block_requests_and_large_ones() {
        let one = job_file(
            "a",
            &w(
                r#"{"uniqueBytes":"8MiB","sizeMean":"4KiB","readFrac":1,"seqFrac":0,"processNum":1}"#,
            ),
            &opts(),
        );
        assert!(one.lines().any(|l| l == "bs=4096"), "{one}");
        let big = job_file(
            "b",
            &w(
                r#"{"uniqueBytes":"1GiB","sizeMean":"4MiB","readFrac":0,"seqFrac":1,"processNum":1}"#,
            ),
            &opts(),
        );
        let split = big.lines().find_map(|l| l.strip_prefix("bssplit="));
        let bs = big.lines().find_map(|l| l.strip_prefix("bs="));
        assert!(split.is_some_and(|s| s.split(':').count() <= BSSPLIT_MAX) || bs.is_some());
    }

    #[test]
    fn fio_json_throughput_adds_both_directions() {
        let out = r#"note: both iodepth >= 1 and synchronous I/O engine are selected
{"fio version":"fio-3.33","jobs":[{"read":{"bw_bytes":1000},"write":{"bw_bytes":500}}]}"#;
        assert_eq!(throughput(out).unwrap(), 1500.0);
        assert!(throughput("fio: bad option").is_err());
    }
}
