//! Every subcommand's bad input, run one after another: each gets its exit
//! code and one line on standard error, no panic, nothing on standard
//! output, and nothing left behind (no file, no cgroup). The table of
//! docs/BAD_INPUT.md is this test's output: `WILLY_BLESS=1` rewrites it,
//! and otherwise the test checks that it lists every case with its code.

use crate::util::*;

/// (command line, with `$DIR` for the scratch directory; exit code;
/// words the message must hold).
const CASES: &[(&str, i32, &str)] = &[
    (
        "run --scale --budget 0 --target $DIR/data",
        2,
        "must be more than 0",
    ),
    (
        "run --scale --budget -5m --target $DIR/data",
        2,
        "not negative",
    ),
    (
        "run --scale --budget 2m --target $DIR/data --profile $DIR/new.json",
        2,
        "cannot hold this plan",
    ),
    ("run --size-mean 0 --target $DIR/data", 2, "sizeMean"),
    (
        "run --unique-bytes abc --target $DIR/data",
        2,
        "--unique-bytes",
    ),
    (
        "run --unique-bytes 1PiB --target $DIR/data",
        2,
        "more than one generator handles",
    ),
    (
        "run --read-frac 1.5 --target $DIR/data",
        2,
        "readFrac must be between 0 and 1",
    ),
    ("run --read-frac -0.1 --target $DIR/data", 2, "readFrac"),
    ("run --seq-frac 2 --target $DIR/data", 2, "seqFrac"),
    ("run --process-num 0 --target $DIR/data", 2, "processNum"),
    (
        "run --process-num 100000 --target $DIR/data",
        2,
        "processNum must be between 1 and 4096",
    ),
    (
        "run --unique-bytes 8MiB --size-mean 1GiB --target $DIR/data",
        2,
        "larger than a generator's file",
    ),
    (
        "run --block-size 3000 --target $DIR/data",
        2,
        "power of two",
    ),
    ("run --cpu-think -1ms --target $DIR/data", 2, "--cpu-think"),
    ("run --ci 0 --target $DIR/data", 2, "between 0 and 1"),
    ("run --ci 2 --target $DIR/data", 2, "between 0 and 1"),
    ("run --max-time 1s --target $DIR/data", 2, "--max-time"),
    (
        "run --min-time 10s --max-time 5s --target $DIR/data",
        2,
        "--min-time",
    ),
    ("run --interval 0s --target $DIR/data", 2, "--interval"),
    (
        "run --warmup-min 5s --warmup-max 1s --target $DIR/data",
        2,
        "--warmup-max",
    ),
    ("run --max-time banana --target $DIR/data", 2, "--max-time"),
    ("run --seed abc --target $DIR/data", 2, "--seed"),
    ("run --engine foo --target $DIR/data", 2, "--engine"),
    (
        "run --workload $DIR/none.json --target $DIR/data",
        2,
        "cannot read workload file",
    ),
    (
        "run --workload $DIR/bad.json --target $DIR/data",
        2,
        "line 1",
    ),
    (
        "run --workload $DIR/unknown.json --target $DIR/data",
        2,
        "unknown field",
    ),
    ("run --target /proc", 2, "/proc"),
    (
        "run --target /etc/hostname",
        2,
        "neither a directory nor a block device",
    ),
    ("run --target $DIR/missing/dir", 2, "cannot be used"),
    ("run --target sim:nope", 2, "nope"),
    (
        "run --target sim:sparc1990 --cache-limit 1GiB",
        2,
        "--cache-limit",
    ),
    (
        "run --cache-limit 1KiB --target $DIR/data",
        2,
        "--cache-limit",
    ),
    (
        "run --json $DIR/missing/o.json --target $DIR/data",
        2,
        "cannot write --json",
    ),
    ("run --verify --target sim:sparc1990", 2, "--verify"),
    ("run --verify bogus --target $DIR/data", 2, "--verify"),
    ("run --verify --scale --target $DIR/data", 2, "--verify"),
    (
        "run --compare-fio --target sim:sparc1990",
        2,
        "--compare-fio",
    ),
    (
        "run --scale --focus nowhere --target sim:sparc1990",
        2,
        "--focus",
    ),
    ("run --scale --target /etc/hostname", 2, "not a directory"),
    (
        "run --scale --resume --target sim:sparc1990 --profile $DIR/new.json",
        2,
        "no checkpoint",
    ),
    (
        "run --scale --resume --target sim:sparc1990 --profile $DIR/q.json",
        2,
        "not a willy checkpoint",
    ),
    (
        "run --scale --target sim:sparc1990 --profile $DIR/q.json",
        2,
        "--resume",
    ),
    ("run --resume --target $DIR/data", 2, "--scale"),
    ("run --no-such-flag", 2, "--no-such-flag"),
    (
        "predict $DIR/none.json --profile $DIR/p.json",
        2,
        "cannot read workloads",
    ),
    ("predict $DIR/bad.json --profile $DIR/p.json", 2, "bad.json"),
    (
        "predict $DIR/w.json --profile $DIR/none.json",
        2,
        "no profile",
    ),
    (
        "predict $DIR/w.json --profile $DIR/junk.json",
        2,
        "junk.json",
    ),
    ("predict $DIR/w.json --profile $DIR/v.json", 2, "v.json"),
    (
        "predict $DIR/w.json --profile $DIR/p.json --model nope",
        2,
        "--model",
    ),
    (
        "predict $DIR/w.json --profile $DIR/p.json --json $DIR/missing/o.json",
        2,
        "cannot write --json",
    ),
    (
        "validate --profile $DIR/none.json --target sim:sparc1990",
        2,
        "no profile",
    ),
    (
        "validate --profile $DIR/p.json --samples 0 --target sim:sparc1990",
        2,
        "--samples",
    ),
    (
        "validate --profile $DIR/p.json --target sim:sparc1990 --warmup-min 5s --warmup-max 1s",
        2,
        "--warmup-max",
    ),
    (
        "validate --profile $DIR/p.json --target sim:sparc1990 --ci 1.5",
        2,
        "between 0 and 1",
    ),
    (
        "validate --profile $DIR/p.json --target sim:sparc1990 --json $DIR/missing/v.json",
        2,
        "cannot write --json",
    ),
    ("compare $DIR/p.json $DIR/none.json", 2, "no profile"),
    ("compare $DIR/p.json $DIR/v.json", 2, "v.json"),
    ("plot $DIR/none.json -o $DIR/plots", 2, "none.json"),
    (
        "plot $DIR/p.json --validation $DIR/p.json -o $DIR/plots",
        2,
        "p.json",
    ),
    (
        "report $DIR/p.json -o $DIR/missing/r.html",
        2,
        "cannot write --output",
    ),
    (
        "interfere -w $DIR/w.json --target sim:hdd",
        2,
        "two or more workloads",
    ),
    (
        "interfere -w $DIR/w.json -w $DIR/bad.json --target sim:hdd",
        2,
        "bad.json",
    ),
    (
        "interfere -w $DIR/w.json -w $DIR/unknown.json --target sim:hdd",
        2,
        "seqFraction",
    ),
    (
        "interfere -w $DIR/w.json -w $DIR/far.json --target sim:hdd",
        2,
        "overlap",
    ),
    (
        "interfere -w $DIR/w.json -w $DIR/w.json --target sim:hdd --json $DIR/missing/i.json",
        2,
        "cannot write --json",
    ),
    (
        "interfere -w $DIR/limited.json -w $DIR/w.json --target $DIR/data",
        2,
        "cacheLimit needs --processes",
    ),
    (
        "interfere -w $DIR/tiny.json -w $DIR/w.json --target $DIR/data --processes",
        2,
        "too small to run in",
    ),
    (
        "interfere -w $DIR/w.json -w $DIR/w.json --target sim:hdd --processes",
        2,
        "--processes runs workloads as processes",
    ),
    (
        "interfere --amortization 0.9 --target $DIR/data",
        2,
        "needs its probe",
    ),
    (
        "interfere --amortization 1 --target sim:hdd",
        2,
        "between 0 and 1",
    ),
    (
        "interfere --amortization 0.9 --probe $DIR/junk.json",
        2,
        "--probe",
    ),
    (
        "run --target sim:hdd@2",
        2,
        "only an array (raid0) or a bus",
    ),
    (
        "run --target sim:cheetah-bus@0",
        2,
        "the disk count is 1 to 64",
    ),
    ("run --target sim:cheetah-bus:4", 2, "the bus has 4 disks"),
    (
        "run --target sim:hdd:0",
        2,
        "only a bus of independent disks",
    ),
    (
        "run --target sim:cheetah-bus:0 --unique-bytes 8GiB",
        2,
        "the disk holds",
    ),
    (
        "run --target $DIR/data --target $DIR/data2 --process-num 1",
        2,
        "cannot be spread over 2 targets",
    ),
    ("bus-model", 2, "say what to model"),
    (
        "bus-model --target sim:hdd",
        2,
        "not a bus of independent disks",
    ),
    (
        "bus-model --target sim:cheetah-bus --sizes 16",
        2,
        "at least one sector",
    ),
    ("probe --target sim:nope", 2, "unknown simulator preset"),
    ("probe --target sim:hdd --only speed", 2, "no such probe"),
    (
        "probe --target sim:hdd --boundary-samples 0",
        2,
        "must be at least 1",
    ),
    ("probe --target $DIR/missing", 2, "--target"),
    ("probe --target $DIR/w.json", 2, "too little to probe"),
    (
        "probe --target $DIR/data --file-size 1MiB",
        2,
        "at least 64MiB",
    ),
    (
        "probe --target sim:hdd --json $DIR/missing/p.json",
        2,
        "cannot write --json",
    ),
    ("sim nope", 2, "nope"),
    ("schema nope", 2, "nope"),
    ("fio-job $DIR/bad.json", 2, "bad.json"),
    ("fio-job $DIR/w.json --runtime 0", 2, "--runtime"),
    ("csv $DIR/junk.json", 2, "no points to export"),
    (
        "csv $DIR/p.json -o $DIR/missing/p.csv",
        2,
        "cannot write --output",
    ),
    ("man nope", 2, "no subcommand"),
    ("completions tcsh", 2, "tcsh"),
    ("frobnicate", 2, "frobnicate"),
];

const GOOD: &str =
    r#"{"uniqueBytes":"8MiB","sizeMean":"16KiB","readFrac":0.5,"seqFrac":0.3,"processNum":2}"#;

/// The scratch directory's files: workloads, documents, a checkpoint that
/// is not one.
fn scratch() -> Dir {
    let d = Dir::new();
    std::fs::create_dir(d.join("data")).unwrap();
    d.write("w.json", GOOD);
    d.write("bad.json", "{\"uniqueBytes\": ");
    d.write("unknown.json", &GOOD.replace("seqFrac", "seqFraction"));
    d.write("junk.json", "garbage");
    d.write(
        "limited.json",
        &GOOD.replace("}", ",\"cacheLimit\":\"64MiB\"}"),
    );
    d.write("tiny.json", &GOOD.replace("}", ",\"cacheLimit\":\"1MiB\"}"));
    // Its region starts inside w.json's.
    d.write("far.json", &GOOD.replace("}", ",\"offset\":4096}"));
    d.write("q.json.ckpt", "garbage\n");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        root.join("docs/runs/2026-11-22/512m.json"),
        d.join("p.json"),
    )
    .unwrap();
    std::fs::copy(
        root.join("docs/figures/real-1g/validation.json"),
        d.join("v.json"),
    )
    .unwrap();
    d
}

/// willy's memory cgroups beneath willy's own parent, if any.
fn cgroups() -> Vec<String> {
    let Ok(own) = willy::cgroup::own_memory_cgroup() else {
        return vec![];
    };
    std::fs::read_dir(own)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("willy-"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn every_bad_input_fails_cleanly_with_its_code() {
    assert!(CASES.len() >= 40);
    let d = scratch();
    let dir = d.path().display().to_string();
    let before = d.entries("");
    let groups = cgroups();
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for &(line, code, needle) in CASES {
        let args: Vec<String> = line.split(' ').map(|a| a.replace("$DIR", &dir)).collect();
        let o = willy().args(&args).output().unwrap();
        let err = stderr(&o);
        let lines: Vec<&str> = err
            .lines()
            .filter(|l| !l.starts_with("willy: running in memory cgroup"))
            .collect();
        let wrong = [
            (o.status.code() != Some(code), "exit code"),
            (err.contains("panicked"), "panic"),
            (lines.len() != 1, "not one line"),
            (!err.contains(needle), "message"),
            (!o.stdout.is_empty(), "standard output"),
            (d.entries("") != before, "files made"),
            (!d.entries("data").is_empty(), "data files left"),
            (cgroups() != groups, "cgroup left"),
        ];
        for (bad, what) in wrong {
            if bad {
                failures.push(format!(
                    "{line}: {what} (exit {:?}): {err}",
                    o.status.code()
                ));
            }
        }
        rows.push(format!(
            "| `willy {line}` | {code} | {} |",
            lines
                .first()
                .unwrap_or(&"")
                .replace(&dir, "$DIR")
                .replace('|', "\\|")
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/BAD_INPUT.md");
    if std::env::var_os("WILLY_BLESS").is_some() {
        let text = format!(
            "# Bad input\n\nEvery row is a command that `tests/bad_input_table.rs` runs, with the exit code it got and the one line it printed on standard error ($DIR: the test's scratch directory, holding a workload `w.json`, a profile `p.json`, a validation `v.json`, malformed `bad.json` and `junk.json`, and a `q.json.ckpt` that is no checkpoint). Each ran with nothing printed on standard output, no panic, no file and no cgroup left behind. Regenerate with `WILLY_BLESS=1 cargo test --test integration bad_input_table`. Exit codes: README.md.\n\n| command | exit | message |\n|---|---|---|\n{}\n",
            rows.join("\n")
        );
        std::fs::write(&path, text).unwrap();
    }
    let doc = std::fs::read_to_string(&path).unwrap_or_default();
    for &(line, code, _) in CASES {
        let row = format!("| `willy {line}` | {code} |");
        assert!(
            doc.contains(&row),
            "docs/BAD_INPUT.md lacks {row}: WILLY_BLESS=1 rewrites it"
        );
    }
}
