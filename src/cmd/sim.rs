//! `willy sim presets`: the simulated systems.

use clap::Subcommand;

#[derive(Subcommand, Debug)]
pub enum SimCommand {
    /// List the built-in presets.
    Presets {
        /// Print a JSON array of {name, description, cache_sizes_bytes}.
        #[arg(long)]
        json: bool,
    },
}

pub fn cmd_sim(command: SimCommand) -> anyhow::Result<()> {
    let SimCommand::Presets { json } = command;
    let mut all = Vec::new();
    for (name, _) in willy::sim::PRESETS {
        all.push(willy::sim::SimConfig::load(name)?);
    }
    if json {
        let v: Vec<serde_json::Value> = all
            .iter()
            .map(|c| {
                serde_json::json!({
                    "name": c.name,
                    "description": c.description,
                    "cache_sizes_bytes": c.cache_sizes_bytes,
                })
            })
            .collect();
        outln!("{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(());
    }
    for c in &all {
        let sizes: Vec<String> = c.cache_sizes_bytes.iter().map(|b| b.to_string()).collect();
        let sizes = if sizes.is_empty() {
            "none".to_string()
        } else {
            sizes.join(" + ")
        };
        outln!("{:<14} cache {:<18} {}", c.name, sizes, c.description)?;
    }
    Ok(())
}
