//! The self-scaling benchmark (Chen 1992, section 4.5).
//!
//! Not built yet: see issue 4. The crate exists so that the dependency
//! direction `willy <- predict <- scale <- binary` is fixed from the start.
#![deny(missing_docs)]

pub use willy_predict;
