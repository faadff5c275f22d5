//! From a validation: predicted against measured (Fig. 5.3), the error
//! CDF, and the error against each parameter (Fig. 5.4).

use super::{axis, render, tick, Err, Figure, PARAM_COLORS};
use crate::predict::Param;
use plotters::coord::Shift;
use plotters::prelude::*;
use willy::doc::validation::ValidationReport;

/// The three figures of a validation.
pub fn validation_figures(v: &ValidationReport) -> Result<Vec<Figure>, Err> {
    Ok(vec![scatter(v)?, cdf(v)?, by_param(v)?])
}

/// Predicted against measured, on log axes, with the diagonal.
fn scatter(v: &ValidationReport) -> Result<Figure, Err> {
    let pts: Vec<(f64, f64)> = v
        .points
        .iter()
        .map(|p| {
            (
                p.measured_bytes_per_sec / 1e6,
                p.predicted_bytes_per_sec / 1e6,
            )
        })
        .collect();
    let lo = pts
        .iter()
        .flat_map(|p| [p.0, p.1])
        .fold(f64::INFINITY, f64::min)
        / 1.5;
    let hi = pts.iter().flat_map(|p| [p.0, p.1]).fold(0.0, f64::max) * 1.5;
    let (lo, hi) = if lo.is_finite() && lo > 0.0 {
        (lo, hi)
    } else {
        (0.01, 1.0)
    };
    let title = format!(
        "Predicted against measured: median error {:.1}% over {} workloads",
        v.median_abs_error * 100.0,
        v.points.len()
    );
    let svg = render((700, 640), |root| {
        let mut c = ChartBuilder::on(root)
            .caption(&title, ("sans-serif", 15))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d((lo..hi).log_scale(), (lo..hi).log_scale())?;
        c.configure_mesh()
            .max_light_lines(0)
            .x_label_formatter(&|x| tick(*x))
            .y_label_formatter(&|y| tick(*y))
            .x_desc("measured throughput (MB/s)")
            .y_desc("predicted throughput (MB/s)")
            .draw()?;
        c.draw_series(LineSeries::new([(lo, lo), (hi, hi)], BLACK.mix(0.5)))?
            .label("perfect prediction")
            .legend(|(x, y)| {
                Rectangle::new([(x, y - 4), (x + 12, y + 4)], BLACK.mix(0.5).filled())
            });
        c.draw_series(
            pts.iter()
                .map(|&p| Circle::new(p, 3, PARAM_COLORS[1].filled())),
        )?
        .label("workload")
        .legend(|(x, y)| Rectangle::new([(x, y - 4), (x + 12, y + 4)], PARAM_COLORS[1].filled()));
        c.configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.4))
            .position(SeriesLabelPosition::UpperLeft)
            .draw()?;
        Ok(())
    })?;
    Ok(Figure {
        name: "validation-scatter".into(),
        title,
        svg,
    })
}

/// The error CDF as steps.
fn cdf(v: &ValidationReport) -> Result<Figure, Err> {
    let title = format!(
        "Error CDF: median {:.1}% (90% CI {:.1}-{:.1}%), repeatability {:.1}%",
        v.median_abs_error * 100.0,
        v.median_abs_error_ci90[0] * 100.0,
        v.median_abs_error_ci90[1] * 100.0,
        v.repeatability_error * 100.0
    );
    let emax = v.error_cdf.iter().map(|c| c.error).fold(0.1, f64::max) * 100.0 * 1.05;
    let svg = render((700, 480), |root| {
        let mut c = ChartBuilder::on(root)
            .caption(&title, ("sans-serif", 15))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d(0f64..emax, 0f64..1.0)?;
        c.configure_mesh()
            .max_light_lines(0)
            .x_desc("absolute relative error (%)")
            .y_desc("fraction of workloads")
            .draw()?;
        let mut steps = vec![(0.0, 0.0)];
        for q in &v.error_cdf {
            let prev = steps.last().expect("non-empty").1;
            steps.push((q.error * 100.0, prev));
            steps.push((q.error * 100.0, q.fraction));
        }
        c.draw_series(LineSeries::new(steps, PARAM_COLORS[1].stroke_width(2)))?;
        Ok(())
    })?;
    Ok(Figure {
        name: "validation-cdf".into(),
        title,
        svg,
    })
}

/// One panel per parameter: each error, and the median per bin.
fn by_param(v: &ValidationReport) -> Result<Figure, Err> {
    let title = "Error against each parameter (median per bin as a line)".to_string();
    let svg = render((1100, 700), |root| {
        let (head, body) = root.split_vertically(28);
        head.draw(&Text::new(title.clone(), (10, 6), ("sans-serif", 15)))?;
        let panels = body.split_evenly((2, 3));
        for (k, (param, area)) in Param::ALL.iter().zip(&panels).enumerate() {
            panel(area, v, *param, PARAM_COLORS[k])?;
        }
        Ok(())
    })?;
    Ok(Figure {
        name: "validation-by-param".into(),
        title,
        svg,
    })
}

/// The median error of each of `param`'s bins, at the bin's middle.
fn bin_medians(v: &ValidationReport, param: Param) -> Vec<(f64, f64)> {
    let (_, div, log) = axis(param);
    v.error_by_param
        .iter()
        .find(|e| e.param == param.name())
        .map(|e| {
            e.bins
                .iter()
                .filter_map(|b| {
                    let mid = if log {
                        (b.from * b.to).sqrt()
                    } else {
                        (b.from + b.to) / 2.0
                    };
                    b.median_abs_error.map(|m| (mid / div, m * 100.0))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn panel(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    v: &ValidationReport,
    param: Param,
    color: RGBColor,
) -> Result<(), Err> {
    let (xdesc, div, log) = axis(param);
    let xs: Vec<(f64, f64)> = v
        .points
        .iter()
        .map(|p| (param.of(&p.workload) / div, p.error * 100.0))
        .collect();
    let (mut lo, mut hi) = xs.iter().fold((f64::INFINITY, 0.0f64), |(a, b), p| {
        (a.min(p.0), b.max(p.0))
    });
    if !lo.is_finite() {
        (lo, hi) = (0.0, 1.0);
    }
    let ymax = xs.iter().map(|p| p.1).fold(1.0, f64::max) * 1.05;
    let med = bin_medians(v, param);
    macro_rules! scatter {
        ($xr:expr) => {{
            let mut c = ChartBuilder::on(area)
                .caption(param.name(), ("sans-serif", 13))
                .margin(6)
                .x_label_area_size(34)
                .y_label_area_size(46)
                .build_cartesian_2d($xr, 0f64..ymax)?;
            c.configure_mesh()
                .max_light_lines(0)
                .x_desc(xdesc)
                .y_desc("error (%)")
                .draw()?;
            c.draw_series(xs.iter().map(|&p| Circle::new(p, 2, color.filled())))?;
            c.draw_series(LineSeries::new(med.iter().copied(), color.stroke_width(2)))?;
        }};
    }
    if log {
        scatter!((lo / 1.2..hi * 1.2).log_scale());
    } else {
        scatter!(lo - 0.05..hi + 0.05);
    }
    Ok(())
}
