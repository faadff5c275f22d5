//! What `willy bus-model --json` writes: Barve et al.'s model of `D` disks
//! sharing a bus (eqs. 1-5) for each disk count and block size, with the
//! simulated bus's measurement beside it where one was made.
//!
//! Times are milliseconds (`_ms`), rates decimal MB/s (`_mb_per_s`) or
//! bytes per second (`_bytes_per_sec`), sizes bytes.

use super::{DocError, Document};
use serde::{Deserialize, Serialize};

/// The bus document's version.
pub const BUS_SCHEMA_VERSION: u32 = 1;

/// The disk's seek curve (Barve's eq. 7): `a + b sqrt(d)` up to `e`
/// cylinders, `c + d_ms d` beyond, over `max_cyl` cylinders.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BusSeek {
    /// Short seeks' constant, ms.
    pub a_ms: f64,
    /// Short seeks' square-root coefficient, ms.
    pub b_ms: f64,
    /// Long seeks' constant, ms.
    pub c_ms: f64,
    /// Long seeks' slope, ms per cylinder.
    pub d_ms: f64,
    /// The break, cylinders.
    pub e_cylinders: f64,
    /// Cylinders.
    pub max_cylinders: f64,
}

/// What the model was given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BusParameters {
    /// The seek curve.
    pub seek: BusSeek,
    /// Per request: host, command and disk controller (Barve's
    /// `Overhead`), ms.
    pub overhead_ms: f64,
    /// One revolution, ms.
    pub revolution_ms: f64,
    /// The rate off the surface within a track (`bandwidth_rot`), MB/s.
    pub rot_mb_per_s: f64,
    /// The bus's rate (`bandwidth_bus`), MB/s.
    pub bus_mb_per_s: f64,
    /// Average bytes per track.
    pub track_bytes: f64,
    /// Average bytes per cylinder.
    pub cylinder_bytes: f64,
    /// Head switch, ms.
    pub track_switch_ms: f64,
    /// Cylinder switch, ms.
    pub cylinder_switch_ms: f64,
    /// The fence, 0 to 255.
    pub fence: u32,
}

/// One disk count and block size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BusPoint {
    /// Disks on the bus, one random-read stream each.
    pub disks: u32,
    /// Block size, bytes.
    pub block_bytes: u64,
    /// The equation that gave the read duration (1 to 4).
    pub equation: u32,
    /// The model's average read duration, ms.
    pub model_read_duration_ms: f64,
    /// `D B / ReadDuration`, bytes per second.
    pub model_throughput_bytes_per_sec: f64,
    /// The simulated bus's throughput, all disks, bytes per second
    /// (with `--measure`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_throughput_bytes_per_sec: Option<f64>,
    /// Its read duration, `D B / throughput`, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_read_duration_ms: Option<f64>,
    /// Measured over modelled read duration, less one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<f64>,
    /// The simulated bus with Barve's pipelining (`--pipeline`), bytes
    /// per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipelined_throughput_bytes_per_sec: Option<f64>,
    /// The fraction of completions that kept round order (two disks or
    /// more).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds_kept: Option<f64>,
}

/// The document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BusDoc {
    /// Always `"willy-bus"`.
    pub kind: String,
    /// [`BUS_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The willy that wrote it.
    pub willy_version: String,
    /// Where the parameters came from: `sim:NAME`, a probe document, or
    /// `given`.
    pub source: String,
    /// The simulated bus's arbitration, where points were measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arbitration: Option<String>,
    /// The model's parameters.
    pub parameters: BusParameters,
    /// Every disk count and block size, disks first.
    pub points: Vec<BusPoint>,
}

impl Document for BusDoc {
    const KIND: &'static str = "willy-bus";
    const WHAT: &'static str = "bus document";
    const VERSIONS: &'static [u32] = &[1];
    const REDO: &'static str = "rerun `willy bus-model`";

    fn check(&self) -> Result<(), DocError> {
        let bad = |msg: &str| DocError::Invalid {
            what: Self::WHAT,
            msg: msg.into(),
        };
        if self.points.is_empty() {
            return Err(bad("no points"));
        }
        if self.points.iter().any(|p| {
            p.disks == 0
                || p.block_bytes == 0
                || p.model_read_duration_ms.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
        }) {
            return Err(bad(
                "every point needs disks, a block size and a positive read duration",
            ));
        }
        Ok(())
    }
}

impl BusDoc {
    /// Parses and checks a bus document.
    pub fn from_json(text: &str) -> Result<BusDoc, DocError> {
        super::read(text)
    }
}

/// The JSON Schema of [`BusDoc`], pretty-printed.
pub fn schema() -> String {
    super::schema_of::<BusDoc>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_is_checked_in() {
        crate::doc::assert_schema_current("bus.schema.json", &schema());
    }

    #[test]
    fn another_version_or_no_points_are_refused() {
        let e = BusDoc::from_json(r#"{"kind":"willy-bus","schema_version":9}"#);
        assert!(
            matches!(e, Err(DocError::Version { found: 9, .. })),
            "{e:?}"
        );
        let e = BusDoc::from_json(
            r#"{"kind":"willy-bus","schema_version":1,"willy_version":"0","source":"given",
            "parameters":{"seek":{"a_ms":1,"b_ms":0.1,"c_ms":3,"d_ms":0.002,"e_cylinders":1000,"max_cylinders":6000},
            "overhead_ms":0.5,"revolution_ms":6,"rot_mb_per_s":14,"bus_mb_per_s":20,"track_bytes":87040,
            "cylinder_bytes":696320,"track_switch_ms":0.6,"cylinder_switch_ms":0.8,"fence":0},"points":[]}"#,
        );
        assert!(matches!(e, Err(DocError::Invalid { .. })), "{e:?}");
    }
}
