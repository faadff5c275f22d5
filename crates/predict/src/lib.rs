//! The profile format and predicted performance (Chen 1992, chapter 5).
//!
//! Not built yet: see issue 5. The crate exists so that the dependency
//! direction `willy <- predict <- scale <- binary` is fixed from the start.
#![deny(missing_docs)]

pub use willy;
