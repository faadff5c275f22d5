//! willy's JSON documents, typed and versioned, below everything that
//! writes or reads them: the self-scaling benchmark writes profiles, the
//! predictor reads them and writes validations, predictions and
//! comparisons; the plots and the report draw them all.
//!
//! Every document has a `kind` and a `schema_version`. [`read`] checks the
//! kind and the version before the rest, so a document from another willy
//! says so instead of failing on a field, and each document then checks
//! what its types cannot. The JSON Schemas are generated from the types
//! and checked in under `docs/schema/`; tests keep the two equal.
//!
//! - [`profile`]: what `willy run --scale` found;
//! - [`validation`]: what `willy validate` measured against its predictions;
//! - [`prediction`]: `willy predict` and `willy compare`;
//! - [`interference`]: what `willy interfere` measured;
//! - [`anomalies`]: what `willy anomalies` sampled and clustered;
//! - [`probe`]: what `willy probe` found of a device.
//! - [`bus`]: Barve's model of disks on a bus (`willy bus-model`).

pub mod anomalies;
pub mod bus;
pub mod csv;
pub mod interference;
pub mod prediction;
pub mod probe;
pub mod profile;
pub mod validation;

use serde::de::DeserializeOwned;

/// Why a document cannot be used.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum DocError {
    /// Not JSON, or not shaped like the document.
    #[error("malformed {what}: {msg}")]
    Malformed {
        /// The document, e.g. "profile".
        what: &'static str,
        /// What is wrong.
        msg: String,
    },
    /// Written by another version of willy.
    #[error(
        "{what} schema version {found} is not supported (this willy reads versions {}); {redo}",
        fmt_versions(supported)
    )]
    Version {
        /// The document.
        what: &'static str,
        /// The version in the file.
        found: u32,
        /// The versions this willy reads.
        supported: &'static [u32],
        /// What to do instead.
        redo: &'static str,
    },
    /// Shaped like the document, but inconsistent.
    #[error("invalid {what}: {msg}")]
    Invalid {
        /// The document.
        what: &'static str,
        /// What is wrong.
        msg: String,
    },
}

fn fmt_versions(v: &[u32]) -> String {
    let s: Vec<String> = v.iter().map(u32::to_string).collect();
    s.join(" and ")
}

/// What every document says of itself.
pub trait Document: DeserializeOwned {
    /// Its `kind` field, e.g. `"willy-profile"`.
    const KIND: &'static str;
    /// Its name in messages, e.g. "profile".
    const WHAT: &'static str;
    /// The versions this willy reads, newest last.
    const VERSIONS: &'static [u32];
    /// What to do with a document of another version.
    const REDO: &'static str;
    /// Checks what the types cannot (after parsing).
    fn check(&self) -> Result<(), DocError> {
        Ok(())
    }
}

/// Parses and checks a document: the kind, then the version, then the
/// fields, then [`Document::check`].
pub fn read<D: Document>(text: &str) -> Result<D, DocError> {
    let malformed = |msg: String| DocError::Malformed { what: D::WHAT, msg };
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| malformed(e.to_string()))?;
    if v.get("kind").and_then(|k| k.as_str()) != Some(D::KIND) {
        return Err(malformed(format!(
            "not a willy {} (no \"kind\": \"{}\")",
            D::WHAT,
            D::KIND
        )));
    }
    match v.get("schema_version").and_then(|s| s.as_u64()) {
        Some(n) if D::VERSIONS.iter().any(|&k| u64::from(k) == n) => {}
        Some(n) => {
            return Err(DocError::Version {
                what: D::WHAT,
                found: u32::try_from(n).unwrap_or(u32::MAX),
                supported: D::VERSIONS,
                redo: D::REDO,
            })
        }
        None => return Err(malformed("no schema_version".into())),
    }
    let d: D = serde_json::from_value(v).map_err(|e| malformed(e.to_string()))?;
    d.check()?;
    Ok(d)
}

/// The JSON Schema of `T`, pretty-printed.
pub fn schema_of<T: schemars::JsonSchema>() -> String {
    let s = schemars::schema_for!(T);
    serde_json::to_string_pretty(&s).expect("schema serialises") + "\n"
}

/// Test support: the checked-in schema `docs/schema/NAME` equals `want`
/// (`WILLY_BLESS=1` rewrites it).
#[cfg(test)]
pub(crate) fn assert_schema_current(name: &str, want: &str) {
    let path = format!("{}/../../docs/schema/{name}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("WILLY_BLESS").is_some() {
        std::fs::write(&path, want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/schema/{name} is stale: rerun with WILLY_BLESS=1"
    );
}
