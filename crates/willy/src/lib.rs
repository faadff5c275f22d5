//! Willy: Peter Chen's closed-loop I/O workload generator, willy's I/O
//! engines, and the measurement around them.
//!
//! - [`workload`]: the five-parameter workload and its validation;
//! - [`analysis`]: the generator's own LRU stack distances (hit ratio for any cache size);
//! - [`generator`]: the request stream of one generator (no I/O);
//! - [`engine`]: the one trait every I/O engine implements, and the engines;
//! - [`target`]: the files or raw device a run writes to, and its safety checks;
//! - [`testbed`]: measures workloads, one or several at once, on a simulated
//!   system, files or a device (the one place a target is dispatched);
//! - [`cgroup`]: a memory cgroup beneath willy's own, to size the file cache;
//! - [`run`]: the core loop that times every request and the stopping rule;
//! - [`checkpoint`]: every measurement saved at once, for `--resume`;
//! - [`cluster`]: one run on several ranks (MPI): shares, coordination, totals;
//! - [`interfere`]: workloads alone and together, and their R-values (Argon);
//! - [`probe`]: a device's seek curve, rotation, boundaries and efficient
//!   request sizes, from timed single reads (`willy probe`);
//! - [`stats`]: batch means and confidence intervals;
//! - [`report`]: the versioned result document of one run;
//! - [`doc`]: the other documents (profile, validation, predictions, comparison,
//!   interference).
//!
//! ```
//! use willy::{generator::Generator, workload::Workload};
//! let w = Workload::from_json(r#"{"uniqueBytes":"8MiB","sizeMean":"8KiB",
//!     "readFrac":0.5,"seqFrac":0.2,"processNum":1}"#).unwrap();
//! let mut g = Generator::new(&w, 0, 42);
//! let r = g.next_request();
//! assert!(r.len >= 4096 && r.offset + r.len <= 8 << 20);
//! ```
#![deny(missing_docs)]

pub mod analysis;
pub mod background;
pub mod cgroup;
pub mod checkpoint;
pub mod cluster;
pub mod doc;
pub mod engine;
pub mod fio;
pub mod generator;
pub mod interfere;
pub mod lru;
pub mod multi;
pub mod probe;
pub mod queue;
pub mod report;
pub mod rounds;
pub mod run;
pub mod sim;
pub mod stats;
pub mod sysinfo;
pub mod target;
pub mod testbed;
pub mod units;
pub mod verify;
pub mod workload;

/// Errors from the willy library. `Usage` errors are the user's input (the
/// binary exits 2); the rest are failures while running (exit 1).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A workload that cannot be parsed or is out of range.
    #[error("bad workload: {0}")]
    BadWorkload(String),
    /// Any other bad input: target, flags, environment.
    #[error("{0}")]
    Usage(String),
    /// An I/O failure while running, with what was being done.
    #[error("{context}: {source}")]
    Io {
        /// What willy was doing.
        context: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// Another rank of a run on several ranks failed or stopped answering
    /// (the message names it).
    #[error("{0}")]
    Peer(String),
    /// The run was interrupted (Ctrl-C).
    #[error("interrupted")]
    Interrupted,
    /// `--verify` read back a block that is not what willy wrote.
    #[error("data verification failed: {0}")]
    Corrupt(String),
}

impl Error {
    /// True if the error is the user's input rather than a failure.
    pub fn is_usage(&self) -> bool {
        matches!(self, Error::BadWorkload(_) | Error::Usage(_))
    }

    /// An I/O error with context.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Error {
        Error::Io {
            context: context.into(),
            source,
        }
    }
}
