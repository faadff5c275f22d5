//! Command-line flags. Parsing only: checking happens in the libraries.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::time::Duration;
use willy::engine::EngineKind;
use willy::units::{Bytes, Think};

/// willy: a self-scaling I/O benchmark after Peter Chen (1992).
#[derive(Parser, Debug)]
#[command(name = "willy", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Measure one workload on a directory (default ./willy-data) or a raw device.
    Run(Box<RunArgs>),
    /// Predict workloads' throughput from a profile (`willy run --scale`).
    Predict(PredictArgs),
    /// Measure random workloads and compare them with their predictions.
    Validate(Box<ValidateArgs>),
    /// Compare two profiles on standard or given workloads.
    Compare(CompareArgs),
    /// Draw a profile's figures (and a validation's or comparison's) as SVG.
    Plot(PlotArgs),
    /// Write a one-page HTML report of a profile, figures inline.
    Report(ReportArgs),
    /// The simulated storage systems (`--target sim:NAME`).
    Sim {
        #[command(subcommand)]
        command: SimCommand,
    },
    /// Print the JSON Schema of willy's documents.
    Schema {
        /// Which document.
        #[arg(value_enum, default_value = "run")]
        document: SchemaDoc,
    },
}

#[derive(Args, Debug)]
pub struct PredictArgs {
    /// Workloads: one JSON object, an array of them, or JSON Lines.
    pub workloads: PathBuf,
    /// The profile to predict from.
    #[arg(long, default_value = "willy-profile.json")]
    pub profile: PathBuf,
    /// Also write the predictions as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BaselineArg {
    /// Multidimensional interpolation on an orthogonal sample (Chen 5.4).
    Orthogonal,
}

#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// The profile whose predictions are checked.
    #[arg(long, default_value = "willy-profile.json")]
    pub profile: PathBuf,
    /// Random workloads to measure (each is measured twice).
    #[arg(long, default_value_t = 100)]
    pub samples: usize,
    /// Where to measure [default: the profile's target].
    #[arg(long, short)]
    pub target: Option<PathBuf>,
    /// Write every point and the statistics as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Seed of the random workloads and of the generators.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also measure a baseline and report its error beside the model's
    /// (simulated targets only).
    #[arg(long, value_enum)]
    pub baseline: Option<BaselineArg>,
    /// Values per parameter of the orthogonal sample [default: at least 3
    /// each, raised one parameter at a time until the grid has at least as
    /// many points as the profile].
    #[arg(long)]
    pub levels: Option<usize>,
    /// I/O engine.
    #[arg(long, short, value_enum, default_value = "uring")]
    pub engine: EngineArg,
    /// Memory cgroup limit for real targets [default: the profile's].
    #[arg(long)]
    pub cache_limit: Option<Bytes>,
    /// Shortest measurement of one workload (capped by --max-time).
    #[arg(long, value_parser = humantime::parse_duration, default_value = "5s")]
    pub min_time: Duration,
    /// Longest measurement of one workload [default: 20s; 600s on sim:].
    #[arg(long, value_parser = humantime::parse_duration)]
    pub max_time: Option<Duration>,
    /// Measurement interval (batch means works on these).
    #[arg(long, value_parser = humantime::parse_duration, default_value = "250ms")]
    pub interval: Duration,
    /// Longest warm start of one workload [default: 20s; unbounded on sim:].
    #[arg(long, value_parser = humantime::parse_duration)]
    pub warmup_max: Option<Duration>,
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// First profile (the numerator of the ratios).
    pub a: PathBuf,
    /// Second profile.
    pub b: PathBuf,
    /// Workloads to compare on (as for `predict`) instead of Chen's
    /// Table 5.2 set.
    #[arg(long)]
    pub workloads: Option<PathBuf>,
    /// Also write the comparison as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct PlotArgs {
    /// The profile (`willy run --scale`).
    #[arg(default_value = "willy-profile.json")]
    pub profile: PathBuf,
    /// Directory for the SVG files (created if missing).
    #[arg(long, short, default_value = "willy-plots")]
    pub out: PathBuf,
    /// Also draw this `willy validate --json` result.
    #[arg(long)]
    pub validation: Option<PathBuf>,
    /// Also draw this `willy compare --json` result.
    #[arg(long)]
    pub comparison: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// The profile (`willy run --scale`).
    #[arg(default_value = "willy-profile.json")]
    pub profile: PathBuf,
    /// Include this `willy validate --json` result.
    #[arg(long)]
    pub validation: Option<PathBuf>,
    /// The HTML file to write.
    #[arg(long, short, default_value = "willy-report.html")]
    pub output: PathBuf,
}

#[derive(Subcommand, Debug)]
pub enum SimCommand {
    /// List the built-in presets.
    Presets {
        /// Print a JSON array of {name, description, cache_sizes_bytes}.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SchemaDoc {
    /// The document `willy run --json` writes.
    Run,
    /// The profile `willy run --scale` writes.
    Profile,
    /// The document `willy validate --json` writes.
    Validation,
    /// The document `willy predict --json` writes.
    Predictions,
    /// The document `willy compare --json` writes.
    Comparison,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum EngineArg {
    /// One OS thread per generator, pread/pwrite.
    Psync,
    /// One io_uring (io-uring crate), processNum requests in flight.
    Uring,
    /// The same through the tokio-uring runtime.
    TokioUring,
}

impl From<EngineArg> for EngineKind {
    fn from(e: EngineArg) -> EngineKind {
        match e {
            EngineArg::Psync => EngineKind::Psync,
            EngineArg::Uring => EngineKind::Uring,
            EngineArg::TokioUring => EngineKind::TokioUring,
        }
    }
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// Workload file (JSON). Flags below override its fields. Without it,
    /// the default workload is used (see README).
    #[arg(long, short)]
    pub workload: Option<PathBuf>,
    /// A directory to create files in, a raw block device, or a simulated
    /// system: sim:PRESET or sim:config.json. [default: ./willy-data]
    #[arg(long, short)]
    pub target: Option<PathBuf>,
    /// I/O engine.
    #[arg(long, short, value_enum, default_value = "uring")]
    pub engine: EngineArg,
    /// Use O_DIRECT on files (raw devices always do).
    #[arg(long)]
    pub direct: bool,
    /// Write the result as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Seed of the generators.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Permit writes to a raw device (refused anyway if it is in use or holds data).
    #[arg(long)]
    pub allow_device_writes: bool,

    /// Working-set size over all generators, e.g. 1GiB.
    #[arg(long, help_heading = "Workload")]
    pub unique_bytes: Option<Bytes>,
    /// Mean request size, e.g. 16KiB.
    #[arg(long, help_heading = "Workload")]
    pub size_mean: Option<Bytes>,
    /// Fraction of reads, 0 to 1.
    #[arg(long, allow_negative_numbers = true, help_heading = "Workload")]
    pub read_frac: Option<f64>,
    /// Fraction of sequential requests, 0 to 1.
    #[arg(long, allow_negative_numbers = true, help_heading = "Workload")]
    pub seq_frac: Option<f64>,
    /// Number of closed-loop generators.
    #[arg(long, help_heading = "Workload")]
    pub process_num: Option<u32>,
    /// Think time between a completion and the next request, e.g. 1ms.
    #[arg(long, help_heading = "Workload")]
    pub cpu_think: Option<Think>,
    /// Block size: alignment and unit of request sizes [default: 4KiB].
    #[arg(long, help_heading = "Workload")]
    pub block_size: Option<Bytes>,

    /// Target relative half-width of the 95% confidence interval.
    #[arg(long, default_value_t = 0.05, help_heading = "Stopping rule")]
    pub ci: f64,
    /// Shortest measurement.
    #[arg(long, default_value = "5s", value_parser = humantime::parse_duration, help_heading = "Stopping rule")]
    pub min_time: Duration,
    /// Longest measurement [default: 60s; 600s of virtual time on sim: targets,
    /// where time is cheap]
    #[arg(long, value_parser = humantime::parse_duration, help_heading = "Stopping rule")]
    pub max_time: Option<Duration>,
    /// Measurement interval (batch means works on these).
    #[arg(long, default_value = "250ms", value_parser = humantime::parse_duration, help_heading = "Stopping rule")]
    pub interval: Duration,
    /// Shortest warm start.
    #[arg(long, default_value = "1s", value_parser = humantime::parse_duration, help_heading = "Stopping rule")]
    pub warmup_min: Duration,
    /// Longest warm start, which otherwise runs until uniqueBytes have moved
    /// [default: 60s; 600s of virtual time on sim: targets]
    #[arg(long, value_parser = humantime::parse_duration, help_heading = "Stopping rule")]
    pub warmup_max: Option<Duration>,

    /// Run the self-scaling benchmark instead of one workload (on a
    /// directory or a sim: target; not yet on raw devices): find the
    /// performance regions, their focal points and the curves around them,
    /// and write a profile.
    #[arg(long, help_heading = "Self-scaling")]
    pub scale: bool,
    /// Where --scale writes the profile; every measured point is saved at
    /// once in PROFILE.ckpt beside it.
    #[arg(
        long,
        default_value = "willy-profile.json",
        help_heading = "Self-scaling"
    )]
    pub profile: PathBuf,
    /// Continue an interrupted --scale run from its checkpoint, measuring no
    /// finished point again.
    #[arg(long, requires = "scale", help_heading = "Self-scaling")]
    pub resume: bool,
    /// Time for the whole --scale run on a real target (e.g. 15m, 8h): the
    /// plan divides it between the points. Ignored on sim: targets.
    #[arg(long, default_value = "15m", value_parser = humantime::parse_duration, help_heading = "Self-scaling")]
    pub budget: Duration,
    /// How --scale chooses focal points: in the middle of each region
    /// (Chen's section 4.5), or one global knee at 75% of the maximum
    /// (section 4.4).
    #[arg(
        long,
        value_enum,
        default_value = "middle",
        help_heading = "Self-scaling"
    )]
    pub focus: FocusArg,
    /// Run inside a memory cgroup of this size (beneath willy's own, removed
    /// afterwards), so that the file cache is about this big, e.g. 1GiB.
    #[arg(long)]
    pub cache_limit: Option<Bytes>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FocusArg {
    /// One focal vector in the middle of each performance region.
    Middle,
    /// One global knee: each parameter at its hardest value that still
    /// reaches 75% of the maximum, iterated until stable.
    Knee,
}
