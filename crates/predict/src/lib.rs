//! The profile format and predicted performance (Chen 1992, chapter 5).
//!
//! - [`profile`]: the versioned document a self-scaling run writes (it
//!   lives in `willy::doc`, below this crate and willy-scale);
//! - [`predict`]: throughput of any workload as a product of
//!   single-parameter functions (section 5.2, Appendix B);
//! - [`validate`]: random workloads, error statistics and the orthogonal
//!   baseline (sections 5.3-5.4);
//! - [`compare`]: two profiles on the same workloads (section 5.5);
//! - [`plot`]: the figures, as SVG; [`report`]: the one-page HTML report.
#![deny(missing_docs)]

pub mod compare;
pub mod plot;
pub mod predict;
pub use willy::doc::profile;
pub mod report;
pub mod validate;

pub use willy;
