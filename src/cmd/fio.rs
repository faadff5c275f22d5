//! `willy fio-job`: the nearest fio job file for workloads, and
//! `willy run --compare-fio`'s fio run.

use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;
use willy::engine::EngineKind;
use willy::fio::{JobOptions, Layout};
use willy::Error;

#[derive(Args, Debug)]
pub struct FioJobArgs {
    /// Workloads (JSON: one object, an array or JSON Lines); each becomes
    /// a group of jobs, run one after another (`stonewall`).
    pub workloads: PathBuf,
    /// The directory fio is to create its files in.
    #[arg(long, default_value = "./willy-data")]
    pub directory: PathBuf,
    /// The engine willy would use: psync, uring or tokio-uring (fio's
    /// psync or io_uring).
    #[arg(long, short, value_parser = super::engine_parser(), default_value = "psync")]
    pub engine: EngineKind,
    /// O_DIRECT.
    #[arg(long)]
    pub direct: bool,
    /// fio's ramp_time (willy's warm start).
    #[arg(long, default_value = "5s", value_parser = humantime::parse_duration)]
    pub ramp: Duration,
    /// fio's runtime (willy's measurement).
    #[arg(long, default_value = "60s", value_parser = super::positive_duration)]
    pub runtime: Duration,
}

pub fn cmd_fio_job(args: FioJobArgs) -> anyhow::Result<()> {
    let ws = super::read_workloads(&args.workloads)?;
    let opts = JobOptions {
        layout: Layout::Directory(args.directory.clone()),
        engine: args.engine,
        direct: args.direct,
        ramp_secs: args.ramp.as_secs(),
        runtime_secs: args.runtime.as_secs().max(1),
    };
    let mut out = String::new();
    for (i, (name, w)) in ws.iter().enumerate() {
        let mut job = willy::fio::job_file(name, w, &opts);
        if i > 0 {
            // Later workloads: only their own jobs, after the ones before.
            job = job.replacen("\n[global]\n", "\n[global]\nstonewall\n", 1);
        }
        out.push_str(&job);
        out.push('\n');
    }
    Ok(super::bytes_to_stdout(out.as_bytes())?)
}

/// Runs fio on `job` (its text); fio's throughput, bytes/s.
pub fn run_fio(job: &str) -> Result<f64, Error> {
    let mut child = Command::new("fio")
        .args(["--output-format=json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            Error::Usage(format!(
                "--compare-fio needs fio ({e}); install it (Debian: apt-get install fio)"
            ))
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(job.as_bytes())
            .map_err(|e| Error::io("giving fio its job", e))?;
    }
    let o = child
        .wait_with_output()
        .map_err(|e| Error::io("running fio", e))?;
    if !o.status.success() {
        let err = String::from_utf8_lossy(&o.stderr);
        return Err(Error::Usage(format!(
            "fio failed ({}): {}",
            o.status,
            err.lines().next().unwrap_or("")
        )));
    }
    willy::fio::throughput(&String::from_utf8_lossy(&o.stdout))
}
