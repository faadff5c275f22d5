//! What `willy probe --json` writes: a device's own characteristics, found
//! by timing single reads (Lachesis, Schindler et al.; Barve et al.).
//!
//! Times are milliseconds (`_ms`), rates decimal MB/s (`_mb_per_s`, 10^6
//! bytes a second), sizes and offsets bytes. Every figure that is measured
//! carries its uncertainty: a 95% half-width (`_ci95`) or a standard error.

use super::{DocError, Document};
use serde::{Deserialize, Serialize};

/// The probe document's version.
pub const PROBE_SCHEMA_VERSION: u32 = 1;

/// The sub-probes, in the order they run.
pub const PROBES: &[&str] = &["rotation", "seek", "boundaries", "media-rate", "efficiency"];

/// What one sub-probe cost.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProbeCost {
    /// The sub-probe.
    pub probe: String,
    /// Reads it made.
    pub requests: u64,
    /// Time it took on the device's clock, s (virtual on a simulator).
    pub seconds: f64,
}

/// The rotation probe: one block read again and again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Rotation {
    /// Whether the device turns: re-reading one block takes at least 2 ms
    /// (a disk turns at most at about 20,000 rpm, 3 ms a revolution).
    pub found: bool,
    /// The median time between two reads of the same block, ms.
    pub reread_ms: f64,
    /// One revolution, ms (absent when none was found).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revolution_ms: Option<f64>,
    /// Its uncertainty, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revolution_ci95_ms: Option<f64>,
    /// Revolutions per minute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rpm: Option<f64>,
    /// `"period"`: re-reads complete exactly a revolution apart (the
    /// platters' position follows the clock); `"range"`: the latency is
    /// spread over a revolution (the range of the re-read times).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
}

/// One measured seek distance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SeekPoint {
    /// The distance as a fraction of the device's bytes.
    pub fraction: f64,
    /// The distance, bytes.
    pub distance_bytes: u64,
    /// The seek time, ms: the least response at this distance less the
    /// least at distance zero, the rotational latency taken out.
    pub seek_ms: f64,
    /// Its uncertainty (95%), ms.
    pub seek_ci95_ms: f64,
    /// Reads at this distance.
    pub samples: usize,
    /// The fitted curve there, ms.
    pub fitted_ms: f64,
}

/// Barve's seek curve, `a + b sqrt(x)` below `break_fraction` and
/// `c + d x` from it on, `x` the distance as a fraction of the device
/// (on a disk without zones, of the full stroke).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SeekCurve {
    /// Short seeks' constant, ms.
    pub a_ms: f64,
    /// Short seeks' sqrt coefficient, ms.
    pub b_ms: f64,
    /// Long seeks' constant, ms.
    pub c_ms: f64,
    /// Long seeks' linear coefficient, ms.
    pub d_ms: f64,
    /// Where the two pieces meet, as a fraction of the device.
    pub break_fraction: f64,
    /// Standard errors of a, b, c and d, ms.
    pub stderr_ms: [f64; 4],
    /// The fit's root mean square relative residual.
    pub rms_rel_residual: f64,
    /// True when no distance costs more than its uncertainty (and 0.05 ms)
    /// over distance zero: the device does not seek.
    #[serde(default)]
    pub none_found: bool,
    /// The least response at distance zero (overhead and transfer), ms.
    pub zero_ms: f64,
    /// The measured distances.
    pub points: Vec<SeekPoint>,
}

/// One power-of-two boundary tried: reads that straddle its multiples
/// against reads of the same size inside a unit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StraddleTest {
    /// The unit tried, bytes.
    pub unit_bytes: u64,
    /// The reads' size, bytes.
    pub read_bytes: u64,
    /// Median response of the straddling reads, ms.
    pub straddle_ms: f64,
    /// Median response of the reads inside a unit, ms.
    pub inside_ms: f64,
    /// Their difference's 95% half-width, ms.
    pub penalty_ci95_ms: f64,
    /// Mann-Whitney z: how far the straddling reads' times rank above the
    /// others' (4 or more, with a penalty of 3%, makes a boundary).
    pub z: f64,
}

/// A zone: a band of the device with one track size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ZoneFound {
    /// Where the zone starts, bytes (halfway between the samples that
    /// tell it from the zone before).
    pub start_bytes: u64,
    /// Where it ends, bytes (likewise).
    pub end_bytes: u64,
    /// Its tracks, bytes.
    pub track_bytes: u64,
    /// Sampled boundaries that fell in it.
    pub samples: usize,
}

/// Access-delay boundaries (Lachesis section 3.3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Boundaries {
    /// An array's stripe unit, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stripe_unit_bytes: Option<u64>,
    /// The smallest power of two (under 8 KiB) whose straddling costs more:
    /// the alignment of the device's or the file system's blocks. Not an
    /// access-delay boundary; reported beside whichever was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alignment_penalty_bytes: Option<u64>,
    /// A disk's track size, one per zone, outer zone first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub track_bytes: Option<Vec<u64>>,
    /// True when neither was found.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub none_found: bool,
    /// The zones, when tracks were found.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zones: Vec<ZoneFound>,
    /// Each sampled track boundary: [where the search started, the first
    /// sector of the next track found], bytes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sampled: Vec<[u64; 2]>,
    /// The power-of-two boundaries tried (stripe units and alignment).
    pub straddle: Vec<StraddleTest>,
    /// What was found, in a sentence.
    pub summary: String,
}

/// Efficiency at one request size (Lachesis Fig. 3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EfficiencyPoint {
    /// Request size, bytes.
    pub size_bytes: u64,
    /// Efficiency of random reads aligned to the boundary: the share of
    /// their time spent moving data at the media rate.
    pub aligned: f64,
    /// Its 95% half-width.
    pub aligned_ci95: f64,
    /// The same for reads at any sector.
    pub unaligned: f64,
    /// Its 95% half-width.
    pub unaligned_ci95: f64,
}

/// The efficiency probe.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Efficiency {
    /// The span the random reads lie in, bytes: [from, to).
    pub span_bytes: [u64; 2],
    /// Mean seek across it, ms, where the seek curve is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_mean_seek_ms: Option<f64>,
    /// What "aligned" aligns to, bytes: a track, a stripe unit, or 4 KiB.
    pub alignment_bytes: u64,
    /// What it is: `"track"`, `"stripe unit"` or `"4 KiB"`.
    pub alignment: String,
    /// The media rate efficiency is measured against, MB/s: a track per
    /// revolution where tracks were found, else the best rate any reads
    /// reached (long sequential ones, or random ones of one size).
    pub media_mb_per_s: f64,
    /// Efficiency of long sequential reads (the marginal cost of more).
    pub streaming: f64,
    /// Its 95% half-width.
    pub streaming_ci95: f64,
    /// By request size.
    pub points: Vec<EfficiencyPoint>,
    /// The smallest aligned size whose efficiency reaches 90% of
    /// streaming, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub efficient_size_bytes: Option<u64>,
    /// The same for unaligned reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub efficient_size_unaligned_bytes: Option<u64>,
    /// The smallest unaligned size that is as efficient as an aligned read
    /// of one alignment unit (Lachesis' point B against point A), bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unaligned_matching_bytes: Option<u64>,
}

/// What `willy probe --json` writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Probe {
    /// Always `"willy-probe"`.
    pub kind: String,
    /// [`PROBE_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The willy that wrote it.
    pub willy_version: String,
    /// The target as given.
    pub target: String,
    /// Bytes the target holds.
    pub capacity_bytes: u64,
    /// The smallest read, bytes.
    pub sector_bytes: u64,
    /// True on a simulated system (times are virtual).
    pub simulated: bool,
    /// The seed of the random positions.
    pub seed: u64,
    /// Each sub-probe's reads and time.
    pub costs: Vec<ProbeCost>,
    /// Warnings (a file target, a device in use).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The rotation probe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<Rotation>,
    /// The seek probe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seek_curve: Option<SeekCurve>,
    /// The boundaries probe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boundaries: Option<Boundaries>,
    /// The media rate, MB/s: the outer zone's track per revolution on a
    /// disk whose tracks were found; otherwise the streaming rate of long
    /// reads, or, when the efficiency probe ran, the best rate any of its
    /// reads reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_mb_per_s: Option<f64>,
    /// The efficiency probe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub efficiency: Option<Efficiency>,
    /// The smallest request size whose efficiency reaches 90% of
    /// streaming (aligned to the boundary found), bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub efficient_size_bytes: Option<u64>,
}

impl Document for Probe {
    const KIND: &'static str = "willy-probe";
    const WHAT: &'static str = "probe document";
    const VERSIONS: &'static [u32] = &[1];
    const REDO: &'static str = "rerun `willy probe`";

    fn check(&self) -> Result<(), DocError> {
        let bad = |msg: &str| DocError::Invalid {
            what: Self::WHAT,
            msg: msg.into(),
        };
        if let Some(s) = &self.seek_curve {
            if !(s.break_fraction > 0.0 && s.break_fraction <= 1.0) {
                return Err(bad("seek_curve.break_fraction must be in (0, 1]"));
            }
        }
        if let Some(b) = &self.boundaries {
            let n = usize::from(b.stripe_unit_bytes.is_some())
                + usize::from(b.track_bytes.is_some())
                + usize::from(b.none_found);
            if n != 1 {
                return Err(bad(
                    "boundaries must hold exactly one of stripe_unit_bytes, track_bytes, none_found",
                ));
            }
        }
        Ok(())
    }
}

impl Probe {
    /// Parses and checks a probe document.
    pub fn from_json(text: &str) -> Result<Probe, DocError> {
        super::read(text)
    }
}

/// The JSON Schema of [`Probe`], pretty-printed.
pub fn schema() -> String {
    super::schema_of::<Probe>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_is_checked_in() {
        crate::doc::assert_schema_current("probe.schema.json", &schema());
    }

    #[test]
    fn another_version_or_two_kinds_of_boundary_are_refused() {
        let e = Probe::from_json(r#"{"kind":"willy-probe","schema_version":9}"#);
        assert!(
            matches!(e, Err(DocError::Version { found: 9, .. })),
            "{e:?}"
        );
        let mut p = Probe {
            kind: "willy-probe".into(),
            schema_version: 1,
            willy_version: "0".into(),
            target: "sim:hdd".into(),
            capacity_bytes: 1 << 30,
            sector_bytes: 512,
            simulated: true,
            seed: 1,
            costs: vec![],
            warnings: vec![],
            rotation: None,
            seek_curve: None,
            boundaries: Some(Boundaries {
                stripe_unit_bytes: Some(65536),
                alignment_penalty_bytes: None,
                track_bytes: None,
                none_found: false,
                zones: vec![],
                sampled: vec![],
                straddle: vec![],
                summary: String::new(),
            }),
            media_mb_per_s: None,
            efficiency: None,
            efficient_size_bytes: None,
        };
        let text = serde_json::to_string(&p).unwrap();
        assert_eq!(Probe::from_json(&text).unwrap(), p);
        p.boundaries.as_mut().unwrap().none_found = true;
        let text = serde_json::to_string(&p).unwrap();
        assert!(matches!(
            Probe::from_json(&text),
            Err(DocError::Invalid { .. })
        ));
    }
}
