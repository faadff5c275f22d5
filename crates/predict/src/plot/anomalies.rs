//! `willy anomalies --json`: the samples in two-parameter projections,
//! anomalies in red, the clusters' rectangles drawn (Shen et al., FAST'05).

use super::{render, Err, Figure, REGION_COLORS};
use crate::anomalies::unit_of;
use plotters::prelude::*;
use willy::doc::anomalies::{Anomalies, Dimension};
use willy::units::Bytes;

/// The projections drawn, as dimension names (those of the document).
const PAIRS: [(&str, &str); 6] = [
    ("processNum", "seqFrac"),
    ("processNum", "readFrac"),
    ("seqFrac", "readFrac"),
    ("uniqueBytes", "sizeMean"),
    ("processNum", "uniqueBytes"),
    ("sizeMean", "seqFrac"),
];

/// Six panels, each one pair of parameters over the unit square of their
/// sampled ranges (sizes on log axes): normal samples grey, anomalous
/// ones red, each cluster's projection a rectangle in its colour
/// (cluster 1 first). Below: the clusters as sentences.
pub fn anomalies_figure(d: &Anomalies) -> Result<Figure, Err> {
    let points: Vec<(Vec<f64>, bool)> = d
        .samples
        .iter()
        .map(|s| (unit_of(&d.dimensions, s), s.anomalous))
        .collect();
    let title = format!(
        "Anomalies on {}: {} of {} samples at least {:.0}% below the {}",
        d.target,
        d.samples.iter().filter(|s| s.anomalous).count(),
        d.samples.len(),
        d.threshold * 100.0,
        if d.expect == "model" {
            "model"
        } else {
            "profile"
        }
    );
    let index = |n: &str| d.dimensions.iter().position(|x| x.name == n);
    let text: Vec<(usize, String)> = d
        .clusters
        .iter()
        .take(4)
        .enumerate()
        .flat_map(|(k, c)| {
            wrap(&format!("cluster {}: {}", k + 1, c.description), 150)
                .into_iter()
                .map(move |l| (k, l))
        })
        .collect();
    let lines = text.len();
    let svg = render((1080, 700 + 16 * lines as u32), |root| {
        let root = root.titled(&title, ("sans-serif", 16))?;
        let (grid, below) = root.split_vertically(660);
        for (area, (a, b)) in grid.split_evenly((2, 3)).iter().zip(PAIRS) {
            if let (Some(i), Some(j)) = (index(a), index(b)) {
                panel(area, d, &points, (i, j))?;
            }
        }
        for (n, (k, line)) in text.iter().enumerate() {
            let color = REGION_COLORS[k % REGION_COLORS.len()];
            below.draw(&Text::new(
                line.as_str(),
                (10, 4 + 16 * n as i32),
                ("sans-serif", 12).into_font().color(&color),
            ))?;
        }
        Ok(())
    })?;
    Ok(Figure {
        name: "anomalies".into(),
        title,
        svg,
    })
}

/// `s` in lines of at most about `width` characters, broken after commas.
fn wrap(s: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in s.split_inclusive(", ") {
        let last = lines.last_mut().expect("one line");
        if !last.is_empty() && last.len() + word.len() > width {
            lines.push(format!("    {word}"));
        } else {
            last.push_str(word);
        }
    }
    lines
}

/// Tick labels of a dimension at unit coordinate `x`.
fn tick(dim: &Dimension, x: f64) -> String {
    let [lo, hi] = dim.range.unwrap_or([0.0, 1.0]);
    let v = if dim.log {
        (lo.max(1.0).ln() + x * (hi.max(1.0).ln() - lo.max(1.0).ln())).exp()
    } else {
        lo + x * (hi - lo)
    };
    match dim.name.as_str() {
        "uniqueBytes" | "sizeMean" => Bytes(v as u64).to_string(),
        "processNum" => format!("{}", v.round()),
        _ => format!("{v:.1}"),
    }
}

fn panel(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    d: &Anomalies,
    points: &[(Vec<f64>, bool)],
    (i, j): (usize, usize),
) -> Result<(), Err> {
    let (dx, dy) = (&d.dimensions[i], &d.dimensions[j]);
    let mut c = ChartBuilder::on(area)
        .margin(8)
        .x_label_area_size(32)
        .y_label_area_size(56)
        .build_cartesian_2d(-0.02f64..1.02, -0.02f64..1.02)?;
    c.configure_mesh()
        .disable_mesh()
        .x_labels(4)
        .y_labels(4)
        .x_label_formatter(&|x| tick(dx, *x))
        .y_label_formatter(&|y| tick(dy, *y))
        .x_desc(dx.name.as_str())
        .y_desc(dy.name.as_str())
        .label_style(("sans-serif", 10))
        .draw()?;
    let grey = RGBColor(170, 170, 170);
    c.draw_series(
        points
            .iter()
            .filter(|p| !p.1)
            .map(|p| Circle::new((p.0[i], p.0[j]), 2, grey.filled())),
    )?;
    c.draw_series(
        points
            .iter()
            .filter(|p| p.1)
            .map(|p| Circle::new((p.0[i], p.0[j]), 3, RED.filled())),
    )?;
    for (k, cl) in d.clusters.iter().enumerate().rev() {
        let color = REGION_COLORS[k % REGION_COLORS.len()];
        let (bx, by) = (cl.unit_bounds[i], cl.unit_bounds[j]);
        c.draw_series(std::iter::once(Rectangle::new(
            [(bx[0], by[0]), (bx[1], by[1])],
            color.stroke_width(2),
        )))?;
    }
    Ok(())
}
