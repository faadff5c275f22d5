//! `willy bus-model`: Barve et al.'s model of `D` disks sharing a bus
//! (eqs. 1-5) for several disk counts and block sizes, from a simulated
//! bus's preset, from a `willy probe` document, or from parameters given
//! in a file; with `--measure`, the simulated bus beside it.

use super::{check_json_path, table_and_json};
use clap::Args;
use std::fmt::Write;
use std::path::PathBuf;
use willy::doc::bus::{BusDoc, BusParameters};
use willy::sim::SimConfig;
use willy::units::{human_bytes, Bytes};
use willy::Error;
use willy_predict::bus::{BusModel, ProbeGiven};

#[derive(Args, Debug)]
pub struct BusModelArgs {
    /// A simulated bus of independent disks: sim:NAME (e.g.
    /// sim:cheetah-bus). Its disks, bus and overheads are the model's
    /// parameters.
    #[arg(long, conflicts_with_all = ["probe", "params"])]
    target: Option<String>,
    /// A `willy probe --json` document of one disk: its seek curve,
    /// revolution and track size. Give the bus with --bus-mb-per-s and the
    /// overhead with --overhead-ms.
    #[arg(long, conflicts_with = "params")]
    probe: Option<PathBuf>,
    /// The parameters by hand: a JSON file with the fields of a bus
    /// document's `parameters` (`willy schema bus`).
    #[arg(long)]
    params: Option<PathBuf>,
    /// With --probe: the bus's rate, MB/s.
    #[arg(long)]
    bus_mb_per_s: Option<f64>,
    /// With --probe: per-request overhead (host, command, controller), ms.
    #[arg(long)]
    overhead_ms: Option<f64>,
    /// With --probe: a track switch, ms.
    #[arg(long, default_value_t = 0.6)]
    switch_ms: f64,
    /// With --probe: the fence, 0 to 255.
    #[arg(long, default_value_t = 0)]
    fence: u32,
    /// Disk counts (comma-separated).
    #[arg(long, value_delimiter = ',', default_values_t = [1u32, 2, 3, 4])]
    disks: Vec<u32>,
    /// Block sizes (comma-separated).
    #[arg(long, value_delimiter = ',', default_values = ["16KiB", "32KiB", "64KiB", "128KiB"])]
    sizes: Vec<Bytes>,
    /// Also run the simulated bus (--target only): one random-read
    /// generator per disk, for --seconds of virtual time each.
    #[arg(long)]
    measure: bool,
    /// With --measure: run the simulated bus with Barve's pipelining too,
    /// and give both.
    #[arg(long, requires = "measure")]
    pipeline: bool,
    /// Virtual seconds per measured point.
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// Write the bus document here (`-`: standard output).
    #[arg(long)]
    json: Option<PathBuf>,
}

/// The model and where it came from, and the simulated bus if any.
fn model_of(args: &BusModelArgs) -> Result<(BusModel, String, Option<SimConfig>), Error> {
    if let Some(t) = &args.target {
        let name = t.strip_prefix("sim:").ok_or_else(|| {
            Error::Usage(format!(
                "--target {t}: bus-model models a simulated bus (sim:NAME); for a real disk, probe it and pass --probe"
            ))
        })?;
        let sim = SimConfig::load(name)?;
        let m = BusModel::of_sim(&sim).ok_or_else(|| {
            Error::Usage(format!(
                "--target {t}: not a bus of independent disks (storage kind \"bus\"; e.g. sim:cheetah-bus)"
            ))
        })?;
        return Ok((m, t.clone(), Some(sim)));
    }
    if let Some(p) = &args.probe {
        let doc = super::plot::read_doc(p, willy::doc::probe::Probe::from_json)?;
        let (Some(bus), Some(over)) = (args.bus_mb_per_s, args.overhead_ms) else {
            return Err(Error::Usage(
                "--probe needs --bus-mb-per-s and --overhead-ms: a probe does not see the bus"
                    .into(),
            ));
        };
        let given = ProbeGiven {
            bus_mb_per_s: bus,
            overhead_ms: over,
            switch_ms: args.switch_ms,
            fence: args.fence,
        };
        let m = BusModel::of_probe(&doc, &given)
            .map_err(|e| Error::Usage(format!("{}: {e}", p.display())))?;
        return Ok((m, p.display().to_string(), None));
    }
    if let Some(p) = &args.params {
        let text = std::fs::read_to_string(p)
            .map_err(|e| Error::Usage(format!("cannot read {}: {e}", p.display())))?;
        let params: BusParameters = serde_json::from_str(&text)
            .map_err(|e| Error::Usage(format!("{}: {e}", p.display())))?;
        let m = BusModel::from_parameters(&params)
            .map_err(|e| Error::Usage(format!("{}: {e}", p.display())))?;
        return Ok((m, "given".into(), None));
    }
    Err(Error::Usage(
        "say what to model: --target sim:cheetah-bus, --probe probe.json, or --params params.json"
            .into(),
    ))
}

pub fn cmd_bus_model(args: BusModelArgs) -> anyhow::Result<()> {
    if args.disks.iter().any(|&d| d == 0 || d > 64) || args.disks.is_empty() {
        return Err(Error::Usage("--disks: 1 to 64 disks".into()).into());
    }
    if args.sizes.iter().any(|b| b.0 < 512) || args.sizes.is_empty() {
        return Err(Error::Usage("--sizes: at least one sector (512 bytes) each".into()).into());
    }
    if !(args.seconds > 0.0 && args.seconds <= 3600.0) {
        return Err(Error::Usage("--seconds: more than 0, at most 3600".into()).into());
    }
    if let Some(p) = &args.json {
        check_json_path(p)?;
    }
    let (model, source, sim) = model_of(&args)?;
    if args.measure && sim.is_none() {
        return Err(Error::Usage(
            "--measure runs the simulated bus: give --target sim:NAME".into(),
        )
        .into());
    }
    let sizes: Vec<u64> = args.sizes.iter().map(|b| b.0).collect();
    let measure = sim
        .as_ref()
        .filter(|_| args.measure)
        .map(|s| (s, args.seconds, args.pipeline));
    let doc = willy_predict::bus::document(&source, &model, &args.disks, &sizes, measure)?;
    table_and_json(args.json.as_deref(), &table(&doc), || {
        Ok(serde_json::to_string_pretty(&doc)? + "\n")
    })
}

/// The document as a table.
fn table(d: &BusDoc) -> String {
    let p = &d.parameters;
    let mut s = format!(
        "Barve et al.'s model of {}: overhead {:.2} ms, revolution {:.2} ms, {:.1} MB/s off the surface, bus {:.1} MB/s, tracks of {}, fence {}\n\n",
        d.source,
        p.overhead_ms,
        p.revolution_ms,
        p.rot_mb_per_s,
        p.bus_mb_per_s,
        human_bytes(p.track_bytes),
        p.fence
    );
    let _ = writeln!(
        s,
        "{:>8} {:>5} {:>4} {:>12} {:>12} {:>12} {:>12} {:>8} {:>8}",
        "block", "disks", "eq.", "model ms", "model MB/s", "sim ms", "sim MB/s", "error", "rounds"
    );
    let piped = d
        .points
        .iter()
        .any(|q| q.pipelined_throughput_bytes_per_sec.is_some());
    for q in &d.points {
        let opt = |v: Option<f64>, f: &dyn Fn(f64) -> String| v.map_or("-".into(), f);
        let _ = writeln!(
            s,
            "{:>8} {:>5} {:>4} {:>12.2} {:>12.2} {:>12} {:>12} {:>8} {:>8}",
            human_bytes(q.block_bytes as f64),
            q.disks,
            q.equation,
            q.model_read_duration_ms,
            q.model_throughput_bytes_per_sec / 1e6,
            opt(q.measured_read_duration_ms, &|v| format!("{v:.2}")),
            opt(q.measured_throughput_bytes_per_sec, &|v| format!(
                "{:.2}",
                v / 1e6
            )),
            opt(q.error, &|v| format!("{:+.1}%", v * 100.0)),
            opt(q.rounds_kept, &|v| format!("{:.0}%", v * 100.0)),
        );
    }
    if piped {
        let _ = writeln!(s, "\nwith --pipeline (host cost of each asynchronous read: the preset's cpu.async_read_overhead_ms):");
        for q in &d.points {
            if let Some(p) = q.pipelined_throughput_bytes_per_sec {
                let naive = q.measured_throughput_bytes_per_sec.unwrap_or(f64::NAN);
                let _ = writeln!(
                    s,
                    "{:>8} {:>5} disks: {:.2} MB/s naive, {:.2} MB/s pipelined ({:+.1}%)",
                    human_bytes(q.block_bytes as f64),
                    q.disks,
                    naive / 1e6,
                    p / 1e6,
                    (p / naive - 1.0) * 100.0
                );
            }
        }
    }
    s
}
