//! The profile format and predicted performance (Chen 1992, chapter 5).
//!
//! So far: [`profile`], the versioned document a self-scaling run writes and
//! prediction reads. Prediction itself is issue 5.
#![deny(missing_docs)]

pub mod profile;

pub use willy;
