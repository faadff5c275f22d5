//! `willy completions SHELL` and `willy man`: made from the flags, so a
//! flag that exists is completed and documented.

use crate::util::*;

#[test]
fn bash_completion_knows_subcommands_and_flags() {
    let o = run_ok(willy().args(["completions", "bash"]));
    let s = stdout(&o);
    assert!(s.contains("complete -F _willy"), "not a bash script");
    for word in [
        "fio-job",
        "--scale",
        "--cache-limit",
        "--verify",
        "validate",
    ] {
        assert!(
            s.contains(word),
            "{word} missing from the completion script"
        );
    }
    for shell in ["zsh", "fish"] {
        let o = run_ok(willy().args(["completions", shell]));
        assert!(stdout(&o).contains("budget"), "{shell}");
    }
    let o = willy().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn man_pages_document_every_subcommand() {
    let o = run_ok(willy().arg("man"));
    let page = stdout(&o);
    assert!(
        page.starts_with(".ie") || page.contains(".TH willy 1"),
        "{page}"
    );
    let o = run_ok(willy().args(["man", "run"]));
    let run = stdout(&o);
    assert!(run.contains(".TH willy-run 1"));
    for flag in ["cache\\-limit", "budget", "verify"] {
        assert!(run.contains(flag), "willy-run(1) lacks --{flag}");
    }
    let o = willy().args(["man", "nope"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("one of run,"), "{}", stderr(&o));
}
