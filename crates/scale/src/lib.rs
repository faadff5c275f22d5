//! The self-scaling benchmark (Chen 1992, section 4.5):
//! - [`budget`]: the time budget (point shares, overhead, what the time
//!   left affords), with an injected clock;
//! - [`checkpoint`]: every measured point saved at once, for `--resume`
//!   (in willy, shared with `validate`);
//! - [`curve`]: drops and regions of the uniqueBytes curve;
//! - [`infer`]: cache sizes from drops, through the generator's own LRU
//!   stack distances;
//! - [`sweep`]: the uniqueBytes sweep, refined where the curve drops;
//! - [`plan`]: how far to scale on a simulated system or on files;
//! - [`scaler`]: regions, focal vectors and the four curves per region.
#![deny(missing_docs)]

pub mod budget;
pub use willy::checkpoint;
pub mod curve;
pub mod infer;
pub mod plan;
pub mod scaler;
pub mod sweep;
