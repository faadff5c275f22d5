//! The self-scaling benchmark (Chen 1992, section 4.5): in progress, see
//! issue 4. What is here so far:
//! - [`budget`]: the time budget (point shares, overhead, what the time
//!   left affords), with an injected clock;
//! - [`checkpoint`]: every measured point saved at once, for `--resume`;
//! - [`curve`]: drops and regions of the uniqueBytes curve;
//! - [`infer`]: cache sizes from drops, through the generator's own LRU
//!   stack distances;
//! - [`sweep`]: the uniqueBytes sweep, refined where the curve drops;
//! - [`scaler`]: regions, focal vectors and the four curves per region.
#![deny(missing_docs)]

pub mod budget;
pub mod checkpoint;
pub mod curve;
pub mod infer;
pub mod scaler;
pub mod sweep;
