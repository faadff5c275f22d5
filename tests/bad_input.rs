//! Bad input: a clear one-line error, exit code 2, no panic, nothing written.

use crate::util::*;
use std::path::Path;

const GOOD: &str =
    r#"{"uniqueBytes":"8MiB","sizeMean":"16KiB","readFrac":0.5,"seqFrac":0.3,"processNum":4}"#;

/// Runs `willy run` with a workload file and extra flags against an empty
/// data directory; checks the error and that nothing was written.
fn bad_run(workload: &str, extra: &[&str], needle: &str) {
    let d = Dir::new();
    let w = d.write("w.json", workload);
    std::fs::create_dir(d.join("data")).unwrap();
    let out = d.join("out.json");
    let o = willy()
        .arg("run")
        .arg("--workload")
        .arg(&w)
        .arg("--target")
        .arg(d.join("data"))
        .arg("--json")
        .arg(&out)
        .args(extra)
        .args(QUICK)
        .output()
        .unwrap();
    assert_usage_error(&o, needle);
    assert!(
        d.entries("data").is_empty(),
        "files written: {:?}",
        d.entries("data")
    );
    assert!(!out.exists(), "JSON written despite the error");
}

#[test]
fn malformed_json_gives_line_and_column() {
    bad_run(
        "{\n  \"uniqueBytes\": \"8MiB\",\n  \"sizeMean\" 5\n}",
        &[],
        "line 3, column 14",
    );
}

#[test]
fn unknown_keys_are_named() {
    bad_run(
        &GOOD.replace("seqFrac", "seqFraction"),
        &[],
        "unknown field `seqFraction`",
    );
}

#[test]
fn out_of_range_values() {
    bad_run(
        &GOOD.replace("\"readFrac\":0.5", "\"readFrac\":1.5"),
        &[],
        "readFrac must be between 0 and 1, got 1.5",
    );
    bad_run(
        &GOOD.replace("\"processNum\":4", "\"processNum\":0"),
        &[],
        "processNum must be between 1 and",
    );
    bad_run(
        &GOOD.replace("\"16KiB\"", "\"2KiB\""),
        &[],
        "sizeMean (2 KiB) must be at least blockSize (4 KiB)",
    );
    bad_run(
        &GOOD.replace("\"16KiB\"", "\"4MiB\""),
        &[],
        "larger than a generator's file (2 MiB",
    );
    bad_run(
        GOOD,
        &["--seq-frac", "-0.1"],
        "seqFrac must be between 0 and 1",
    );
}

#[test]
fn missing_parameters_are_named() {
    bad_run(
        r#"{"uniqueBytes":"8MiB","sizeMean":"16KiB","readFrac":0.5,"processNum":4}"#,
        &[],
        "missing workload parameter `seqFrac`",
    );
}

#[test]
fn units_that_cannot_be_parsed() {
    bad_run(
        &GOOD.replace("\"8MiB\"", "\"8 parsecs\""),
        &[],
        "cannot parse byte size \"8 parsecs\"",
    );
    bad_run(
        GOOD,
        &["--size-mean", "12furlongs"],
        "cannot parse byte size \"12furlongs\"",
    );
}

#[test]
fn a_target_that_does_not_exist() {
    let d = Dir::new();
    let o = willy()
        .args(["run", "--target"])
        .arg(d.join("nope"))
        .args(QUICK)
        .output()
        .unwrap();
    assert_usage_error(&o, "cannot be used: No such file or directory");
}

#[test]
fn a_regular_file_is_not_a_target() {
    let d = Dir::new();
    let f = d.write("precious.txt", "keep me");
    let o = willy()
        .args(["run", "--target"])
        .arg(&f)
        .args(QUICK)
        .output()
        .unwrap();
    assert_usage_error(&o, "neither a directory nor a block device");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "keep me");
}

#[test]
fn working_sets_too_large_for_the_generators_memory() {
    // 4 PiB in 4 KiB blocks over 4096 generators: 256 Gi blocks of stacks.
    bad_run(
        GOOD,
        &["--unique-bytes", "4PiB", "--process-num", "4096"],
        "LRU stacks would need",
    );
    // One generator cannot hold 2^30 blocks or more.
    bad_run(
        GOOD,
        &[
            "--unique-bytes",
            "8TiB",
            "--process-num",
            "1",
            "--size-mean",
            "4KiB",
        ],
        "raise blockSize or processNum",
    );
}

#[test]
fn not_enough_free_space_is_checked_before_any_file() {
    // 1 TiB in 1 MiB blocks: small stacks, far more than the disk holds.
    bad_run(
        GOOD,
        &[
            "--unique-bytes",
            "1TiB",
            "--block-size",
            "1MiB",
            "--size-mean",
            "1MiB",
        ],
        "not enough free space",
    );
}

#[test]
fn json_output_in_a_missing_directory() {
    let d = Dir::new();
    let o = willy()
        .args(["run", "--target"])
        .arg(d.path())
        .arg("--json")
        .arg(d.join("no/such/dir/out.json"))
        .args(QUICK)
        .output()
        .unwrap();
    assert_usage_error(&o, "is not a directory");
    assert!(d.entries("").is_empty());
}

#[test]
fn bad_flags_get_one_line() {
    let o = willy()
        .args(["run", "--engine", "floppy"])
        .output()
        .unwrap();
    assert_usage_error(&o, "invalid value 'floppy'");
    let o = willy().args(["run", "--ci", "2"]).output().unwrap();
    assert_usage_error(&o, "between 0 and 1");
    // Issue 14's contract: a zero budget exits 2, before anything starts.
    let d = Dir::new();
    let o = willy()
        .args(["run", "--scale", "--budget", "0", "--target"])
        .arg(d.path())
        .output()
        .unwrap();
    assert_usage_error(&o, "--budget");
    assert!(stderr(&o).contains("more than 0"), "{}", stderr(&o));
    assert!(d.entries("").is_empty());
}

/// Mounts a filesystem for the duration of a test (root only).
struct Mount(std::path::PathBuf);

impl Mount {
    fn new(at: &Path, args: &str) -> Mount {
        std::fs::create_dir_all(at).unwrap();
        sh(&format!("mount {args} {}", at.display()));
        Mount(at.to_path_buf())
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_target_that_cannot_be_written() {
    if !is_root() {
        eprintln!("skipped: needs root to mount a read-only filesystem");
        return;
    }
    let d = Dir::new();
    let _m = Mount::new(&d.join("ro"), "-t tmpfs -o ro,size=64m tmpfs");
    let o = willy()
        .args(["run", "--target"])
        .arg(d.join("ro"))
        .args(QUICK)
        .output()
        .unwrap();
    assert_usage_error(&o, "cannot be written");
}

#[test]
fn o_direct_unsupported_suggests_dropping_it() {
    if !is_root() {
        eprintln!("skipped: needs root to mount ramfs");
        return;
    }
    let d = Dir::new();
    let _m = Mount::new(&d.join("ram"), "-t ramfs ramfs");
    let o = willy()
        .args(["run", "--unique-bytes", "4MiB", "--direct", "--target"])
        .arg(d.join("ram"))
        .args(QUICK)
        .output()
        .unwrap();
    assert_usage_error(&o, "O_DIRECT is not supported by the filesystem");
    assert!(stderr(&o).contains("drop --direct"));
    assert!(
        d.entries("ram").is_empty(),
        "left behind: {:?}",
        d.entries("ram")
    );
}

/// Issue 14's bad inputs: each one line, exit 2, naming the flag and a
/// value that works; nothing written.
#[test]
fn flags_out_of_range_name_the_flag_and_a_value_that_works() {
    let d = Dir::new();
    let run = |extra: &[&str]| {
        willy()
            .args(["run", "--target"])
            .arg(d.path())
            .args(extra)
            .output()
            .unwrap()
    };
    // Used to be OOM-killed silently (exit 137), its files left behind.
    let o = run(&["--cache-limit", "1KiB"]);
    assert_usage_error(&o, "--cache-limit 1KiB is too small");
    assert!(stderr(&o).contains("--cache-limit 16MiB or more"));
    let o = run(&["--max-time", "1s"]);
    assert_usage_error(&o, "--max-time 1s is below --min-time 5s");
    assert!(stderr(&o).contains("pass --max-time 5s or more"));
    let o = run(&["--max-time", "1s", "--min-time", "1s"]);
    assert_usage_error(&o, "--max-time 1s holds fewer than 10 intervals of 250ms");
    assert!(d.entries("").is_empty(), "{:?}", d.entries(""));
    // `willy report -o` names its own flag, not --json.
    let o = willy()
        .args(["report", "docs/runs/2026-11-22/1g-d.json", "-o"])
        .arg(d.join("missing/r.html"))
        .output()
        .unwrap();
    assert_usage_error(&o, "cannot write --output");
}

/// psync's thread per generator: a processNum beyond RLIMIT_NPROC is
/// refused up front, with a processNum that fits.
#[test]
fn process_num_beyond_the_thread_limit_is_refused() {
    use std::os::unix::process::CommandExt;
    let d = Dir::new();
    let mut c = willy();
    c.args(["run", "--engine", "psync", "--process-num", "100"])
        .args(["--unique-bytes", "8MiB", "--target"])
        .arg(d.path());
    // SAFETY: setrlimit is async-signal-safe.
    unsafe {
        c.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: 300,
                rlim_max: 300,
            };
            libc::setrlimit(libc::RLIMIT_NPROC, &lim);
            Ok(())
        });
    }
    let o = c.output().unwrap();
    assert_usage_error(&o, "pass --process-num 44 or less, or --engine uring");
    assert!(d.entries("").is_empty());
}
