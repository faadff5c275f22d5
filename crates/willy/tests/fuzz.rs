//! Fuzzing of every parser a user's input reaches: workloads, profiles,
//! validations, comparisons, simulator configurations, checkpoints, byte
//! sizes, think times and `--target`. The property: no panic, and an error
//! is one clear line.
//!
//! Three kinds of input per parser: arbitrary bytes (as text), arbitrary
//! JSON values, and valid documents with one value replaced by arbitrary
//! JSON or one key removed (which reach the checks behind the JSON
//! syntax). `WILLY_FUZZ_CASES` sets the cases per kind (default 2,000, the
//! short pass CI runs); docs/FUZZING.md has the long run's command and
//! counts.

use proptest::prelude::*;
use serde_json::Value;
use willy::doc::prediction::Comparison;
use willy::doc::profile::Profile;
use willy::doc::validation::ValidationReport;
use willy::sim::SimConfig;
use willy::testbed::TargetArg;
use willy::units::{Bytes, Think};
use willy::workload::WorkloadPatch;

fn cases() -> u32 {
    std::env::var("WILLY_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// An error a user can read: something, on one line.
fn clear(e: impl std::fmt::Display) -> Result<(), TestCaseError> {
    let s = e.to_string();
    prop_assert!(!s.trim().is_empty(), "empty error");
    prop_assert!(!s.contains('\n'), "error over several lines: {s}");
    Ok(())
}

/// Every parser, on one text: Ok or a clear error.
fn parse_all(text: &str) -> Result<(), TestCaseError> {
    if let Err(e) = WorkloadPatch::from_json(text).and_then(WorkloadPatch::build) {
        clear(e)?;
    }
    if let Err(e) = Profile::from_json(text) {
        clear(e)?;
    }
    if let Err(e) = ValidationReport::from_json(text) {
        clear(e)?;
    }
    if let Err(e) = Comparison::from_json(text) {
        clear(e)?;
    }
    if let Err(e) = SimConfig::from_json(text, "fuzz.json") {
        clear(e)?;
    }
    Ok(())
}

/// Arbitrary JSON: scalars (with awkward numbers and strings), arrays and
/// objects, nested.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        prop_oneof![Just(-1.0), Just(0.0), Just(0.5), Just(1.0), Just(1e300)].prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("64KiB"),
            Just("1.5GiB"),
            Just("0"),
            Just("-1MiB"),
            Just("99999999999PiB"),
            Just("2ms"),
            Just("NaN")
        ]
        .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(4, 48, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    ".{0,8}",
                    Just("uniqueBytes".to_string()),
                    Just("sizeMean".to_string()),
                    Just("readFrac".to_string()),
                    Just("kind".to_string()),
                    Just("schema_version".to_string()),
                    Just("points".to_string()),
                ],
                inner,
                0..8
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Every value in `v` (depth first), as paths of keys and indices.
fn paths(v: &Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(at.clone());
    let kids: Vec<(String, &Value)> = match v {
        Value::Object(m) => m.iter().map(|(k, v)| (k.clone(), v)).collect(),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v))
            .collect(),
        _ => vec![],
    };
    for (k, kid) in kids {
        at.push(k);
        paths(kid, at, out);
        at.pop();
    }
}

fn at_path<'a>(v: &'a mut Value, path: &[String]) -> &'a mut Value {
    path.iter().fold(v, |v, k| match v {
        Value::Object(m) => m.get_mut(k).expect("path from paths()"),
        Value::Array(a) => &mut a[k.parse::<usize>().expect("an index")],
        _ => unreachable!("paths() only descends into containers"),
    })
}

/// `doc` with the value at its `pick`th path replaced by `new`, or, when
/// `remove`, that key removed from its object.
fn mutate(doc: &Value, pick: usize, new: Value, remove: bool) -> String {
    let mut all = Vec::new();
    paths(doc, &mut Vec::new(), &mut all);
    let path = &all[pick % all.len()];
    let mut d = doc.clone();
    match path.split_last() {
        Some((last, parent)) if remove => match at_path(&mut d, parent) {
            Value::Object(m) => {
                m.remove(last);
            }
            v => *v = new,
        },
        _ => *at_path(&mut d, path) = new,
    }
    d.to_string()
}

fn doc(path: &str) -> Value {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
    serde_json::from_str(&std::fs::read_to_string(format!("{root}{path}")).unwrap()).unwrap()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let text = String::from_utf8_lossy(&bytes);
        parse_all(&text)?;
        if let Err(e) = Bytes::parse(&text) { clear(e)?; }
        if let Err(e) = Think::parse(&text) { clear(e)?; }
        if let TargetArg::Sim(name) = TargetArg::parse(Some(std::path::Path::new(&format!("sim:{text}")))) {
            // Names that are not presets and not JSON files: no I/O.
            if !name.contains('/') && !name.ends_with(".json") {
                if let Err(e) = SimConfig::load(&name) { clear(e)?; }
            }
        }
    }

    #[test]
    fn arbitrary_json(v in json()) {
        parse_all(&v.to_string())?;
    }

    #[test]
    fn sizes_and_times(s in "[-+ ]?[0-9]{0,22}(\\.[0-9]{0,6})?(e[0-9]{1,3})? ?(B|KB|KiB|MiB|GiB|TiB|PiB|EiB|k|m|g|ms|us|ns|s|h)?") {
        if let Err(e) = Bytes::parse(&s) { clear(e)?; }
        if let Err(e) = Think::parse(&s) { clear(e)?; }
    }

    #[test]
    fn mutated_workload(pick in any::<usize>(), new in json(), remove in any::<bool>()) {
        let w = serde_json::json!({"uniqueBytes":"8MiB","sizeMean":"16KiB","readFrac":0.5,
            "seqFrac":0.3,"processNum":4,"cpuThink":"1ms","blockSize":"4KiB"});
        let text = mutate(&w, pick, new, remove);
        if let Err(e) = WorkloadPatch::from_json(&text).and_then(WorkloadPatch::build) { clear(e)?; }
    }

    #[test]
    fn mutated_sim_config(pick in any::<usize>(), new in json(), remove in any::<bool>()) {
        let text = mutate(&doc("crates/willy/presets/sparc1990.json"), pick, new, remove);
        if let Err(e) = SimConfig::from_json(&text, "fuzz.json") { clear(e)?; }
    }
}

proptest! {
    // The documents are tens of KiB: a tenth of the cases.
    #![proptest_config(ProptestConfig { cases: (cases() / 10).max(1), ..config() })]

    #[test]
    fn mutated_profile(pick in any::<usize>(), new in json(), remove in any::<bool>()) {
        let text = mutate(&doc("docs/figures/sim-sparc1990/profile.json"), pick, new, remove);
        if let Err(e) = Profile::from_json(&text) { clear(e)?; }
    }

    #[test]
    fn mutated_validation(pick in any::<usize>(), new in json(), remove in any::<bool>()) {
        let text = mutate(&doc("docs/figures/real-1g/validation.json"), pick, new, remove);
        if let Err(e) = ValidationReport::from_json(&text) { clear(e)?; }
    }

    #[test]
    fn mutated_comparison(pick in any::<usize>(), new in json(), remove in any::<bool>()) {
        let text = mutate(&doc("docs/figures/sim-sparc1990/compare.json"), pick, new, remove);
        if let Err(e) = Comparison::from_json(&text) { clear(e)?; }
    }
}

proptest! {
    // A file per case: a tenth of the cases.
    #![proptest_config(ProptestConfig { cases: (cases() / 10).max(1), ..config() })]

    /// A checkpoint of arbitrary lines (some of them valid records) opens,
    /// or is refused with a clear error, and is never cut but at a torn
    /// last line.
    #[test]
    fn checkpoint_files(lines in prop::collection::vec(prop_oneof![
        json().prop_map(|v| v.to_string()),
        ".{0,40}",
        Just(r#"{"workload":{"uniqueBytes":8388608,"sizeMean":16384,"readFrac":0.5,"seqFrac":0.3,"processNum":4},"setting":{"seed":1,"engine":"uring","target":"d","direct":false},"measurement":null}"#.to_string()),
    ], 0..6), torn in any::<bool>()) {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f.ckpt");
        let mut text = lines.join("\n");
        if !torn { text.push('\n'); }
        std::fs::write(&p, &text).unwrap();
        match willy::checkpoint::Checkpoint::open(&p) {
            Ok(_) => {
                let kept = std::fs::read_to_string(&p).unwrap();
                prop_assert!(text.starts_with(&kept));
                prop_assert!(torn || kept == text, "a whole line was cut");
            }
            Err(e) => {
                clear(&e)?;
                prop_assert_eq!(std::fs::read_to_string(&p).unwrap(), text);
            }
        }
    }
}
