//! `willy run --verify`: a block changed behind willy's back is caught,
//! with its file and offset, and the run exits 3.

use crate::util::*;
use std::os::unix::fs::FileExt;
use std::time::{Duration, Instant};

const MIB: u64 = 1 << 20;

#[test]
fn a_block_overwritten_under_a_running_workload_is_found_at_its_offset() {
    // The whole 4 KiB block at 3 MiB + 20 KiB replaced by junk.
    corrupt_and_catch(&[], 0, &[0xAA; 4096], "no willy header");
    // A zeroed sector inside it: named by its own offset.
    corrupt_and_catch(&[], 1536, &[0; 512], "its sector 3 (byte offset 3167744)");
}

#[test]
fn full_verification_catches_a_few_changed_bytes() {
    corrupt_and_catch(&["full"], 1000, &[0xAA; 16], "checksum");
}

/// Runs a --verify workload (level `level`), writes `junk` at `at` bytes
/// into the block at 3 MiB + 20 KiB of its file once the file is filled,
/// and checks that the run fails with exit 3 naming the block and `what`.
fn corrupt_and_catch(level: &[&str], at: u64, junk: &[u8], what: &str) {
    let d = Dir::new();
    std::fs::create_dir(d.join("data")).unwrap();
    let child = willy()
        .args(["run", "--verify"])
        .args(level)
        .args(["--unique-bytes", "8MiB", "--size-mean", "4KiB"])
        .args(["--read-frac", "1", "--seq-frac", "0", "--process-num", "1"])
        .args(["--min-time", "30s", "--max-time", "60s", "--target"])
        .arg(d.join("data"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The file is filled in 1 MiB chunks, in order: once it is whole, the
    // chunk holding the block below is written and will not be again.
    let t = Instant::now();
    let file = loop {
        let full = d
            .entries("data")
            .into_iter()
            .find(|n| std::fs::metadata(d.join("data").join(n)).is_ok_and(|m| m.len() == 8 * MIB));
        if let Some(n) = full {
            break d.join("data").join(n);
        }
        assert!(t.elapsed() < Duration::from_secs(30), "no data file");
        std::thread::sleep(Duration::from_millis(20));
    };
    let block = 3 * MIB + 5 * 4096;
    let f = std::fs::OpenOptions::new().write(true).open(&file).unwrap();
    f.write_all_at(junk, block + at).unwrap();
    drop(f);
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("data verification failed"), "{err}");
    assert!(
        err.contains(&format!(
            "{}: block at byte offset {block}:",
            file.display()
        )),
        "{err}"
    );
    assert!(err.contains(what), "{err}");
    assert!(
        t.elapsed() < Duration::from_secs(25),
        "found only at the end"
    );
    assert!(d.entries("data").is_empty(), "{:?}", d.entries("data"));
}

#[test]
fn a_clean_run_says_how_many_blocks_it_checked() {
    let d = Dir::new();
    let o = run_ok(
        willy()
            .args([
                "run",
                "--verify",
                "--unique-bytes",
                "8MiB",
                "--read-frac",
                "0.5",
            ])
            .args(["--process-num", "2", "--json", "-", "--target"])
            .arg(d.path())
            .args(QUICK),
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let n = v["verified_blocks"].as_u64().unwrap();
    assert!(n > 100, "{n} blocks checked");
    assert!(
        stderr(&o).contains("every one as written"),
        "{}",
        stderr(&o)
    );
    // Without --verify the field is absent.
    let o = run_ok(
        willy()
            .args(["run", "--unique-bytes", "8MiB", "--json", "-", "--target"])
            .arg(d.path())
            .args(QUICK),
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v.get("verified_blocks").is_none());
}
