//! `willy completions SHELL` and `willy man`: a shell's completion script
//! and the man page, both made from the flags themselves, so they never
//! drift from them.

use clap_complete::Shell;

/// Prints the completion script of `shell` for the command `cmd`.
pub fn cmd_completions(shell: Shell, mut cmd: clap::Command) -> anyhow::Result<()> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "willy", &mut out);
    emit(&out)
}

/// Prints the man page (roff) of `cmd`, or of its subcommand `sub` as
/// willy-SUB(1), the page that willy(1) refers to for its flags.
pub fn cmd_man(cmd: clap::Command, sub: Option<&str>) -> anyhow::Result<()> {
    let mut cmd = cmd;
    cmd.build();
    let page = match sub {
        None => cmd,
        Some(name) => {
            let Some(s) = cmd.find_subcommand(name).filter(|s| !s.is_hide_set()) else {
                let names: Vec<&str> = cmd.get_subcommands().map(|s| s.get_name()).collect();
                return Err(willy::Error::Usage(format!(
                    "willy man: no subcommand {name:?} (one of {})",
                    names.join(", ")
                ))
                .into());
            };
            let full = format!("willy-{}", s.get_name());
            s.clone().name(full.clone()).display_name(full)
        }
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(page).render(&mut out)?;
    emit(&out)
}

fn emit(bytes: &[u8]) -> anyhow::Result<()> {
    Ok(super::bytes_to_stdout(bytes)?)
}
