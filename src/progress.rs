//! Progress on stderr: a bar on a terminal, plain lines otherwise.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};
use willy::run::Snapshot;
use willy::units::human_bytes;

pub struct Progress {
    bar: Option<ProgressBar>,
    last_line: Option<Instant>,
    stage: &'static str,
    quiet: bool,
}

impl Progress {
    /// No progress at all (the ranks but the first of an `--mpi` run).
    pub fn quiet() -> Progress {
        Progress {
            bar: None,
            last_line: None,
            stage: "",
            quiet: true,
        }
    }

    pub fn new() -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let b = ProgressBar::new(100);
            b.set_style(
                ProgressStyle::with_template("{prefix:>10} [{bar:30}] {msg}")
                    .expect("template")
                    .progress_chars("=> "),
            );
            b.enable_steady_tick(Duration::from_millis(200));
            b
        });
        Progress {
            bar,
            last_line: None,
            stage: "",
            quiet: false,
        }
    }

    fn show(&mut self, stage: &'static str, frac: f64, msg: String) {
        if self.quiet {
            return;
        }
        match &self.bar {
            Some(b) => {
                b.set_prefix(stage);
                b.set_position((frac.clamp(0.0, 1.0) * 100.0) as u64);
                b.set_message(msg);
            }
            None => {
                // Plain lines: one at each stage change, then every 5 s.
                let due = self
                    .last_line
                    .is_none_or(|t| t.elapsed() >= Duration::from_secs(5));
                if stage != self.stage || due {
                    errln!("willy: {stage}: {msg}");
                    self.last_line = Some(Instant::now());
                }
            }
        }
        self.stage = stage;
    }

    pub fn filling(&mut self, done: u64, total: u64) {
        let msg = format!(
            "writing the files: {} of {}",
            human_bytes(done as f64),
            human_bytes(total as f64)
        );
        self.show("create", done as f64 / total.max(1) as f64, msg);
    }

    pub fn running(&mut self, s: &Snapshot) {
        if !s.measuring {
            let frac = (s.warmup_bytes as f64 / s.warmup_target_bytes.max(1) as f64)
                .max(s.phase_secs / s.warmup_max_secs);
            let msg = format!(
                "{:.1} s, moved {} of {}",
                s.phase_secs,
                human_bytes(s.warmup_bytes as f64),
                human_bytes(s.warmup_target_bytes as f64)
            );
            self.show("warm-up", frac, msg);
        } else {
            let ci = if s.ci_rel.is_finite() {
                format!("±{:.1}%", s.ci_rel * 100.0)
            } else {
                "n/a".into()
            };
            let msg = format!(
                "{:.1} s, {}/s, CI {ci} (target ±{:.1}%)",
                s.phase_secs,
                human_bytes(s.throughput.round()),
                s.target_ci_rel * 100.0
            );
            self.show("measure", s.phase_secs / s.max_secs, msg);
        }
    }

    pub fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}
