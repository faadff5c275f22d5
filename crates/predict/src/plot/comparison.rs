//! Ratio bars from `willy compare --json` (Fig. 5.13).

use super::{render, Err, Figure, PARAM_COLORS};
use plotters::prelude::*;
use willy::doc::prediction::Comparison;

/// The predicted throughput ratio A/B of each workload, with 1 dashed.
pub fn comparison_figure(v: &Comparison) -> Result<Figure, Err> {
    let rows: Vec<(String, f64)> = v
        .workloads
        .iter()
        .map(|r| (r.name.clone(), r.ratio))
        .collect();
    let stem = |path: &str, k: &str| {
        std::path::Path::new(path)
            .file_stem()
            .map_or(k.to_uppercase(), |s| s.to_string_lossy().into_owned())
    };
    let title = format!(
        "Predicted throughput ratio {} / {}",
        stem(&v.a, "a"),
        stem(&v.b, "b")
    );
    let ymax = rows.iter().map(|r| r.1).fold(1.0, f64::max) * 1.15;
    let svg = render((800, 480), |root| {
        let mut c = ChartBuilder::on(root)
            .caption(&title, ("sans-serif", 15))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d(0f64..rows.len() as f64, 0f64..ymax)?;
        let names: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
        c.configure_mesh()
            .max_light_lines(0)
            .disable_x_mesh()
            .x_labels(rows.len() * 2 + 1)
            .x_label_formatter(&|x| {
                let i = x.floor() as usize;
                if (x - i as f64 - 0.5).abs() < 0.26 {
                    names.get(i).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_desc("ratio of predicted throughput (A/B)")
            .draw()?;
        c.draw_series(rows.iter().enumerate().map(|(i, r)| {
            Rectangle::new(
                [(i as f64 + 0.2, 0.0), (i as f64 + 0.8, r.1)],
                PARAM_COLORS[1].filled(),
            )
        }))?;
        c.draw_series(DashedLineSeries::new(
            [(0.0, 1.0), (rows.len() as f64, 1.0)],
            5,
            4,
            BLACK.into(),
        ))?;
        Ok(())
    })?;
    Ok(Figure {
        name: "compare".into(),
        title,
        svg,
    })
}
