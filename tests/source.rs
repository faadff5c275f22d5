//! The source tree's own contract: what outside checks and the next
//! contributor rely on.

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Every `.rs` file of the workspace, outside `target/`.
fn sources() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            let name = e.file_name();
            if name == "target" || name.to_string_lossy().starts_with('.') {
                continue;
            }
            if p.is_dir() && !p.is_symlink() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new(ROOT), &mut out);
    out
}

/// The directory of the crate `file` belongs to: the nearest ancestor
/// with a Cargo.toml that builds it (benches/ belongs to crates/willy,
/// whose Cargo.toml names it).
fn crate_dir(file: &Path) -> PathBuf {
    let rel = file.strip_prefix(ROOT).unwrap();
    if rel.starts_with("benches") {
        return Path::new(ROOT).join("crates/willy");
    }
    let mut d = file.parent().unwrap();
    while !d.join("Cargo.toml").exists() {
        d = d.parent().unwrap();
    }
    d.to_path_buf()
}

#[test]
fn no_include_str_reaches_outside_its_crate() {
    let mut bad = Vec::new();
    for f in sources() {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let Some(at) = line.find("include_str!(\"") else {
                continue;
            };
            let arg = &line[at + "include_str!(\"".len()..];
            let arg = &arg[..arg.find('"').unwrap()];
            let target = f.parent().unwrap().join(arg);
            let target = std::fs::canonicalize(&target)
                .unwrap_or_else(|e| panic!("{}:{}: {arg}: {e}", f.display(), i + 1));
            let home = std::fs::canonicalize(crate_dir(&f)).unwrap();
            if !target.starts_with(&home) {
                bad.push(format!("{}:{}: {arg}", f.display(), i + 1));
            }
        }
    }
    assert!(bad.is_empty(), "include_str! outside the crate: {bad:#?}");
}

#[test]
fn the_self_scaling_crate_does_not_depend_on_prediction() {
    let toml = std::fs::read_to_string(Path::new(ROOT).join("crates/scale/Cargo.toml")).unwrap();
    assert!(!toml.contains("willy-predict"), "{toml}");
    // The README's copy of a preset still works: presets/ leads to them.
    assert!(Path::new(ROOT).join("presets/hdd.json").is_file());
}

/// No function is longer than about 80 lines, but the measurement hot loop
/// (run.rs `worker`), which stays in one piece to be read as one.
#[test]
fn functions_stay_short() {
    let mut long = Vec::new();
    for f in sources() {
        let text = std::fs::read_to_string(&f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let t = l.trim_start();
            let indent = &l[..l.len() - t.len()];
            let t = t
                .strip_prefix("pub(crate) ")
                .or(t.strip_prefix("pub "))
                .unwrap_or(t);
            if !t.starts_with("fn ") || l.trim_end().ends_with(';') {
                continue;
            }
            let close = format!("{indent}}}");
            let Some(end) = lines[i..].iter().position(|x| *x == close) else {
                continue;
            };
            let name = t[3..].split(['(', '<']).next().unwrap_or("");
            if end + 1 > 80 && name != "worker" {
                long.push(format!(
                    "{}:{} {name}: {} lines",
                    f.display(),
                    i + 1,
                    end + 1
                ));
            }
        }
    }
    assert!(long.is_empty(), "{long:#?}");
}
