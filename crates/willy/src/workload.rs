//! Chen's five-parameter workload (Chen 1992, section 3.4).
//!
//! JSON keys are exactly Chen's names: `uniqueBytes`, `sizeMean`, `readFrac`,
//! `seqFrac`, `processNum`, plus the optional `cpuThink` (default 0) and
//! `blockSize` (default 4 KiB). Unknown keys are rejected.

use crate::units::{Bytes, Think};
use crate::Error;
use serde::{Deserialize, Serialize};

/// Default block size: 4 KiB.
pub const DEFAULT_BLOCK_SIZE: u64 = 4096;
/// The largest `processNum` willy accepts.
pub const MAX_PROCESS_NUM: u32 = 4096;
/// The most blocks one generator's file may hold (its LRU stack's limit).
pub const MAX_BLOCKS_PER_GENERATOR: u64 = (1 << 30) - 1;
/// Memory the generators' LRU stacks take per block, in bytes (an upper
/// bound; see `lru.rs`).
pub const STACK_BYTES_PER_BLOCK: u64 = 17;

/// One workload: what a set of closed-loop generators does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Workload {
    /// Total working-set size over all generators, in bytes.
    pub unique_bytes: Bytes,
    /// Mean request size, in bytes.
    pub size_mean: Bytes,
    /// Fraction of requests that are reads, 0..=1.
    pub read_frac: f64,
    /// Fraction of requests that start where the previous one ended, 0..=1.
    pub seq_frac: f64,
    /// Number of closed-loop generators running at once.
    pub process_num: u32,
    /// Time each generator waits after a completion before the next request.
    #[serde(default)]
    pub cpu_think: Think,
    /// Block size: the unit of alignment and of request sizes, in bytes.
    #[serde(default = "default_block_size")]
    pub block_size: Bytes,
}

fn default_block_size() -> Bytes {
    Bytes(DEFAULT_BLOCK_SIZE)
}

/// A partial workload: every field optional. Used for flag overrides and to
/// merge a file with flags before validation.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WorkloadPatch {
    /// See [`Workload::unique_bytes`].
    pub unique_bytes: Option<Bytes>,
    /// See [`Workload::size_mean`].
    pub size_mean: Option<Bytes>,
    /// See [`Workload::read_frac`].
    pub read_frac: Option<f64>,
    /// See [`Workload::seq_frac`].
    pub seq_frac: Option<f64>,
    /// See [`Workload::process_num`].
    pub process_num: Option<u32>,
    /// See [`Workload::cpu_think`].
    pub cpu_think: Option<Think>,
    /// See [`Workload::block_size`].
    pub block_size: Option<Bytes>,
}

impl WorkloadPatch {
    /// Parses a workload file's text. Errors name the line and column.
    pub fn from_json(text: &str) -> Result<WorkloadPatch, Error> {
        serde_json::from_str(text).map_err(|e| {
            Error::BadWorkload(format!(
                "{} (line {}, column {})",
                strip_position(&e),
                e.line(),
                e.column()
            ))
        })
    }

    /// Fields set in `over` replace those in `self`.
    pub fn overlay(self, over: WorkloadPatch) -> WorkloadPatch {
        WorkloadPatch {
            unique_bytes: over.unique_bytes.or(self.unique_bytes),
            size_mean: over.size_mean.or(self.size_mean),
            read_frac: over.read_frac.or(self.read_frac),
            seq_frac: over.seq_frac.or(self.seq_frac),
            process_num: over.process_num.or(self.process_num),
            cpu_think: over.cpu_think.or(self.cpu_think),
            block_size: over.block_size.or(self.block_size),
        }
    }

    /// Checks that every required field is present and in range.
    pub fn build(self) -> Result<Workload, Error> {
        let missing = |k: &str| Error::BadWorkload(format!("missing workload parameter `{k}`"));
        let w = Workload {
            unique_bytes: self.unique_bytes.ok_or_else(|| missing("uniqueBytes"))?,
            size_mean: self.size_mean.ok_or_else(|| missing("sizeMean"))?,
            read_frac: self.read_frac.ok_or_else(|| missing("readFrac"))?,
            seq_frac: self.seq_frac.ok_or_else(|| missing("seqFrac"))?,
            process_num: self.process_num.ok_or_else(|| missing("processNum"))?,
            cpu_think: self.cpu_think.unwrap_or_default(),
            block_size: self.block_size.unwrap_or_else(default_block_size),
        };
        w.validate()?;
        Ok(w)
    }
}

/// serde_json appends " at line L column C" to its messages; we print the
/// position ourselves in a fixed form.
fn strip_position(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// The five parameters on one line: `uniqueBytes 8 MiB sizeMean 16 KiB
/// readFrac 0.5 seqFrac 0.5 processNum 1`; the alternate form (`{:#}`)
/// separates them with commas, for titles.
impl std::fmt::Display for Workload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sep = if f.alternate() { ", " } else { " " };
        write!(
            f,
            "uniqueBytes {}{sep}sizeMean {}{sep}readFrac {}{sep}seqFrac {}{sep}processNum {}",
            self.unique_bytes, self.size_mean, self.read_frac, self.seq_frac, self.process_num
        )
    }
}

impl Workload {
    /// The workload of Chen's five parameters, in 4 KiB blocks without
    /// think time (not validated: see [`Workload::validate`]).
    pub fn of(
        unique_bytes: u64,
        size_mean: u64,
        read_frac: f64,
        seq_frac: f64,
        process_num: u32,
    ) -> Workload {
        Workload {
            unique_bytes: Bytes(unique_bytes),
            size_mean: Bytes(size_mean),
            read_frac,
            seq_frac,
            process_num,
            cpu_think: Default::default(),
            block_size: Bytes(4096),
        }
    }

    /// Parses and validates a complete workload from JSON text.
    pub fn from_json(text: &str) -> Result<Workload, Error> {
        WorkloadPatch::from_json(text)?.build()
    }

    /// Checks every parameter's range. Messages name the JSON key.
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |m: String| Err(Error::BadWorkload(m));
        let bs = self.block_size.0;
        if bs < 512 || !bs.is_power_of_two() || bs > (64 << 20) {
            return bad(format!(
                "blockSize must be a power of two from 512 B to 64 MiB, got {}",
                self.block_size.0
            ));
        }
        for (k, v) in [("readFrac", self.read_frac), ("seqFrac", self.seq_frac)] {
            if !(0.0..=1.0).contains(&v) {
                let v = crate::units::shown(v);
                return bad(format!("{k} must be between 0 and 1, got {v}"));
            }
        }
        if self.process_num == 0 || self.process_num > MAX_PROCESS_NUM {
            return bad(format!(
                "processNum must be between 1 and {MAX_PROCESS_NUM}, got {}",
                self.process_num
            ));
        }
        if self.size_mean.0 < bs {
            return bad(format!(
                "sizeMean ({}) must be at least blockSize ({})",
                self.size_mean, self.block_size
            ));
        }
        let per_gen = self.blocks_per_generator() * bs;
        if per_gen == 0 {
            return bad(format!(
                "uniqueBytes ({}) must hold at least one block ({}) per generator (processNum {})",
                self.unique_bytes, self.block_size, self.process_num
            ));
        }
        if self.blocks_per_generator() > MAX_BLOCKS_PER_GENERATOR {
            return bad(format!(
                "uniqueBytes / processNum is {} blocks, more than one generator handles ({MAX_BLOCKS_PER_GENERATOR}); raise blockSize or processNum",
                self.blocks_per_generator()
            ));
        }
        if self.size_mean.0 > per_gen {
            return bad(format!(
                "sizeMean ({}) is larger than a generator's file ({} = uniqueBytes / processNum, in whole blocks)",
                self.size_mean,
                Bytes(per_gen)
            ));
        }
        Ok(())
    }

    /// Blocks in each generator's file: `uniqueBytes / processNum`, rounded
    /// down to whole blocks.
    pub fn blocks_per_generator(&self) -> u64 {
        self.unique_bytes.0 / u64::from(self.process_num.max(1)) / self.block_size.0.max(1)
    }

    /// Memory the generators' LRU stacks need, in bytes.
    pub fn stack_memory_bytes(&self) -> u64 {
        self.blocks_per_generator() * u64::from(self.process_num) * STACK_BYTES_PER_BLOCK
    }

    /// Bytes in each generator's file.
    pub fn bytes_per_generator(&self) -> u64 {
        self.blocks_per_generator() * self.block_size.0
    }

    /// Bytes actually used over all generators (whole blocks per generator).
    pub fn total_bytes(&self) -> u64 {
        self.bytes_per_generator() * u64::from(self.process_num)
    }

    /// Trials of the size binomial: `2m - 2` with `m = sizeMean / blockSize`,
    /// rounded to the nearest integer (so sizeMean is used to the nearest
    /// half block).
    pub fn size_trials(&self) -> u64 {
        let m = self.size_mean.0 as f64 / self.block_size.0 as f64;
        (2.0 * m - 2.0).round().max(0.0) as u64
    }

    /// The mean request size the generator really draws from, in bytes:
    /// `blockSize * (1 + trials / 2)`, before clamping to the file size.
    pub fn effective_size_mean(&self) -> f64 {
        self.block_size.0 as f64 * (1.0 + self.size_trials() as f64 / 2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"{"uniqueBytes":"64MiB","sizeMean":"16KiB","readFrac":0.5,"seqFrac":0.25,"processNum":4}"#;

    #[test]
    fn parses_a_complete_workload_with_defaults() {
        let w = Workload::from_json(OK).unwrap();
        assert_eq!(w.unique_bytes.0, 64 << 20);
        assert_eq!(w.block_size.0, 4096);
        assert_eq!(w.cpu_think.0, std::time::Duration::ZERO);
        assert_eq!(w.blocks_per_generator(), (16 << 20) / 4096);
        assert_eq!(w.size_trials(), 6);
        assert_eq!(w.effective_size_mean(), 16384.0);
    }

    #[test]
    fn malformed_json_names_line_and_column() {
        let e = Workload::from_json("{\n \"uniqueBytes\": 5,,\n}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2, column"), "{e}");
    }

    #[test]
    fn unknown_keys_are_rejected() {
        let e = Workload::from_json(&OK.replace("seqFrac", "seqFraction"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field `seqFraction`"), "{e}");
    }

    #[test]
    fn out_of_range_values_are_rejected() {
        for (from, to, needle) in [
            (
                "\"readFrac\":0.5",
                "\"readFrac\":1.5",
                "readFrac must be between 0 and 1",
            ),
            (
                "\"seqFrac\":0.25",
                "\"seqFrac\":1e200",
                "seqFrac must be between 0 and 1, got 1e200",
            ),
            (
                "\"processNum\":4",
                "\"processNum\":0",
                "processNum must be between",
            ),
            (
                "\"sizeMean\":\"16KiB\"",
                "\"sizeMean\":\"1KiB\"",
                "at least blockSize",
            ),
            (
                "\"sizeMean\":\"16KiB\"",
                "\"sizeMean\":\"32MiB\"",
                "larger than a generator's file",
            ),
        ] {
            let e = Workload::from_json(&OK.replace(from, to))
                .unwrap_err()
                .to_string();
            assert!(e.contains(needle), "{to}: {e}");
        }
    }

    #[test]
    fn overlay_prefers_the_override() {
        let base = WorkloadPatch::from_json(OK).unwrap();
        let over = WorkloadPatch {
            size_mean: Some(Bytes(8192)),
            ..Default::default()
        };
        let w = base.overlay(over).build().unwrap();
        assert_eq!(w.size_mean.0, 8192);
        assert_eq!(w.process_num, 4);
    }
}
