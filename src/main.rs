//! The `willy` binary: flags, configuration, progress and output. The work
//! is done by the `willy`, `willy-predict` and `willy-scale` crates; each
//! subcommand is one file in `cmd/`.
//!
//! Exit codes: 0 success (also where standard output's reader went
//! away: `cmd::ReaderGone`), 1 a failure while running, 2 bad input (flags,
//! workload, target), 3 `--verify` found data that is not what willy
//! wrote, 130 interrupted by Ctrl-C (SIGINT), 143 by SIGTERM,
//! 129 by SIGHUP.

/// `eprint!` that drops what standard error cannot take instead of
/// panicking: progress and notes are for a reader, and a run goes on
/// without one (`willy run --scale 2>&1 | head`), its results in its files.
macro_rules! err {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr().lock(), $($arg)*);
    }};
}

/// [`err!`] with a newline, as `eprintln!`.
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

mod cmd;
#[cfg(feature = "mpi")]
mod mpi;
mod output;
mod progress;

use clap::{CommandFactory, Parser};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use willy::Error;

/// willy: a self-scaling I/O benchmark after Peter Chen (1992).
#[derive(Parser, Debug)]
#[command(name = "willy", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: cmd::Command,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind::*;
            if matches!(
                e.kind(),
                DisplayHelp | DisplayVersion | DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            // One line: clap's message (its lines joined), without its
            // usage block.
            let text = e.render().to_string();
            let msg: Vec<&str> = text
                .lines()
                .take_while(|l| !l.trim().is_empty() && !l.starts_with("Usage:"))
                .map(str::trim)
                .collect();
            errln!(
                "{}",
                if msg.is_empty() {
                    "error: bad arguments".into()
                } else {
                    msg.join(" ")
                }
            );
            return ExitCode::from(2);
        }
    };
    // Ctrl-C, `kill` and a closed terminal all stop the run and clean up;
    // the exit code says which (128 + the signal's number).
    let interrupt = Arc::new(AtomicBool::new(false));
    let signal = Arc::new(AtomicUsize::new(0));
    for sig in [SIGINT, SIGTERM, SIGHUP] {
        let _ = signal_hook::flag::register_usize(sig, signal.clone(), sig as usize);
        let _ = signal_hook::flag::register(sig, interrupt.clone());
    }
    match cli.command.run(interrupt, Cli::command()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if cmd::reader_gone(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let lib = e.downcast_ref::<Error>();
            if matches!(lib, Some(Error::Interrupted)) {
                let sig = match signal.load(Ordering::SeqCst) {
                    0 => SIGINT,
                    s => s as i32,
                };
                let name = match sig {
                    SIGTERM => "SIGTERM",
                    SIGHUP => "SIGHUP",
                    _ => "SIGINT",
                };
                errln!("willy: interrupted ({name}); the files willy created were removed");
                return ExitCode::from(128 + sig as u8);
            }
            errln!("willy: {}", one_line(&e));
            if matches!(lib, Some(Error::Corrupt(_))) {
                ExitCode::from(3)
            } else if lib.is_some_and(Error::is_usage) {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// The error and its causes on one line, each cause once: an error whose
/// message already ends with its cause's (willy's I/O errors say what the
/// OS said) does not repeat it.
fn one_line(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.is_empty() {
            out = text;
        } else if !out.ends_with(&text) {
            out = format!("{out}: {text}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn a_cause_already_in_the_message_is_not_repeated() {
        let os = std::io::Error::from(std::io::ErrorKind::NotFound);
        let e = anyhow::Error::from(willy::Error::io("cannot create /proc/x", os));
        let line = one_line(&e);
        assert_eq!(line.matches("not found").count(), 1, "{line}");
        let e = e.context("writing the profile");
        let line = one_line(&e);
        assert!(
            line.starts_with("writing the profile: cannot create /proc/x: "),
            "{line}"
        );
        assert_eq!(line.matches("not found").count(), 1, "{line}");
    }
}
