//! `willy interfere --json`: each workload's fair share of its stand-alone
//! throughput beside what it got, and its R-value (Argon, FAST'07).

use super::{render, Err, Figure, PARAM_COLORS};
use plotters::coord::Shift;
use plotters::prelude::*;
use willy::doc::interference::Interference;

/// Left: per workload, `share x alone` (light) and `shared` (dark), MB/s.
/// Right: R-values with their 95% intervals, 1 dashed, 0.9 dotted; grey
/// when the run was not contended.
pub fn interference_figure(d: &Interference) -> Result<Figure, Err> {
    let names: Vec<String> = d.workloads.iter().map(|w| w.name.clone()).collect();
    let mb = |x: f64| x / 1e6;
    let ymax = d
        .workloads
        .iter()
        .map(|w| mb(w.shared_bytes_per_sec).max(mb(w.share * w.alone_bytes_per_sec)))
        .fold(0.0, f64::max)
        .max(1e-9)
        * 1.15;
    let rmax = d
        .workloads
        .iter()
        .map(|w| w.r_value_ci95.map_or(w.r_value, |c| c[1]))
        .filter(|r| r.is_finite())
        .fold(1.0, f64::max)
        * 1.1;
    let title = format!(
        "Interference on {}: {}",
        d.target,
        if d.contended {
            "contended"
        } else {
            "not contended (R says nothing)"
        }
    );
    let label = move |x: &f64| {
        let i = x.floor() as usize;
        if (x - i as f64 - 0.5).abs() < 0.26 {
            names.get(i).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    let svg = render((960, 460), |root| {
        let root = root.titled(&title, ("sans-serif", 16))?;
        let (left, right) = root.split_horizontally(540);
        throughputs(&left, d, ymax, &label)?;
        r_values(&right, d, rmax, &label)?;
        Ok(())
    })?;
    Ok(Figure {
        name: "interference".into(),
        title,
        svg,
    })
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Per workload, `share x alone` (light) and `shared` (dark), MB/s.
fn throughputs(
    area: &Area,
    d: &Interference,
    ymax: f64,
    label: &dyn Fn(&f64) -> String,
) -> Result<(), Err> {
    let n = d.workloads.len();
    let mb = |x: f64| x / 1e6;
    let mut c = ChartBuilder::on(area)
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..n as f64, 0f64..ymax)?;
    c.configure_mesh()
        .disable_x_mesh()
        .x_labels(n * 2 + 1)
        .x_label_formatter(label)
        .y_desc("MB/s: share x alone (light), shared (dark)")
        .draw()?;
    let fair = PARAM_COLORS[1].mix(0.35).filled();
    c.draw_series(d.workloads.iter().enumerate().map(|(i, w)| {
        let x = i as f64;
        Rectangle::new(
            [
                (x + 0.15, 0.0),
                (x + 0.5, mb(w.share * w.alone_bytes_per_sec)),
            ],
            fair,
        )
    }))?;
    c.draw_series(d.workloads.iter().enumerate().map(|(i, w)| {
        let x = i as f64;
        Rectangle::new(
            [(x + 0.5, 0.0), (x + 0.85, mb(w.shared_bytes_per_sec))],
            PARAM_COLORS[1].filled(),
        )
    }))?;
    Ok(())
}

/// R-values with their 95% intervals; 1 dashed, 0.9 dotted.
fn r_values(
    area: &Area,
    d: &Interference,
    rmax: f64,
    label: &dyn Fn(&f64) -> String,
) -> Result<(), Err> {
    let n = d.workloads.len();
    let mut r = ChartBuilder::on(area)
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0f64..n as f64, 0f64..rmax)?;
    r.configure_mesh()
        .disable_x_mesh()
        .x_labels(n * 2 + 1)
        .x_label_formatter(label)
        .y_desc("R = shared / (share x alone)")
        .draw()?;
    let color = if d.contended {
        PARAM_COLORS[2]
    } else {
        RGBColor(0x99, 0x99, 0x99)
    };
    r.draw_series(d.workloads.iter().enumerate().map(|(i, w)| {
        let x = i as f64;
        Rectangle::new(
            [(x + 0.3, 0.0), (x + 0.7, w.r_value.max(0.0))],
            color.filled(),
        )
    }))?;
    for (i, w) in d.workloads.iter().enumerate() {
        if let Some([lo, hi]) = w.r_value_ci95 {
            let x = i as f64 + 0.5;
            r.draw_series(LineSeries::new([(x, lo), (x, hi)], BLACK.stroke_width(2)))?;
        }
    }
    r.draw_series(DashedLineSeries::new(
        [(0.0, 1.0), (n as f64, 1.0)],
        5,
        4,
        BLACK.into(),
    ))?;
    r.draw_series(DashedLineSeries::new(
        [(0.0, 0.9), (n as f64, 0.9)],
        2,
        4,
        BLACK.into(),
    ))?;
    Ok(())
}
