//! The uniqueBytes curves (the focal sweep and the two probes) with the
//! regions shaded, focal points marked and caches labelled, and the focal
//! sweep's log-log slope beneath (Fig. 4.6).

use super::{bounds, draw_curve, region_color, render, series, tick, Err, Figure, Series};
use super::{PARAM_COLORS, PROBE_COLORS};
use crate::predict::Param;
use crate::profile::{Probe, Profile};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

type LogChart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<LogCoord<f64>, RangedCoordf64>>;

/// The figure.
pub fn figure(p: &Profile) -> Result<Figure, Err> {
    let sweep = series(
        p,
        Param::UniqueBytes,
        &p.unique_bytes_curve,
        "focal sweep".into(),
        PARAM_COLORS[0],
    );
    let probes = probes(p);
    let title = title(p);
    let svg = render((900, 700), |root| {
        let (top, bottom) = root.split_vertically(480);
        let mut all: Vec<&Series> = vec![&sweep];
        all.extend(probes.iter());
        let (lo, hi, ymax) = bounds(&all, true);
        let mut chart = ChartBuilder::on(&top)
            .caption(&title, ("sans-serif", 16))
            .margin(8)
            .x_label_area_size(36)
            .y_label_area_size(64)
            .build_cartesian_2d((lo..hi).log_scale(), 0f64..ymax)?;
        chart
            .configure_mesh()
            .max_light_lines(0)
            .x_label_formatter(&|x| tick(*x))
            .y_label_formatter(&|y| tick(*y))
            .x_desc("uniqueBytes (MiB)")
            .y_desc("throughput (MB/s)")
            .draw()?;
        regions_and_caches(&mut chart, p, ymax)?;
        for s in &all {
            draw_curve(&mut chart, s)?;
        }
        focal_points(&mut chart, p, &sweep, ymax)?;
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.4))
            .position(SeriesLabelPosition::LowerLeft)
            .draw()?;
        slope(&bottom, &sweep, lo, hi)
    })?;
    Ok(Figure {
        name: "unique-bytes".into(),
        title,
        svg,
    })
}

/// The probes' sweeps: random reads and random writes at the focal
/// sweep's sizeMean and processNum (none without a focal sweep).
fn probes(p: &Profile) -> Vec<Series> {
    let Some(&first) = p.unique_bytes_curve.first() else {
        return Vec::new();
    };
    let g = &p.points[first].workload;
    let probe = |probe: Probe, k: usize| {
        let rf = probe.read_frac();
        let idx: Vec<usize> = (0..p.points.len())
            .filter(|&i| {
                let w = &p.points[i].workload;
                w.read_frac == rf
                    && w.seq_frac == 0.0
                    && w.size_mean == g.size_mean
                    && w.process_num == g.process_num
            })
            .collect();
        series(
            p,
            Param::UniqueBytes,
            &idx,
            format!("probe: random {probe}"),
            PROBE_COLORS[k],
        )
    };
    [probe(Probe::Reads, 0), probe(Probe::Writes, 1)]
        .into_iter()
        .filter(|s| s.pts.len() > 1)
        .collect()
}

fn title(p: &Profile) -> String {
    let caches: Vec<String> = p
        .cache_sizes_bytes
        .iter()
        .map(|&c| willy::units::Bytes(c).to_string())
        .collect();
    format!(
        "uniqueBytes: {} region(s); caches inferred: {}",
        p.regions.len(),
        if caches.is_empty() {
            "none".into()
        } else {
            caches.join(", ")
        }
    )
}

/// The regions shaded; each cache a dashed line with its label.
fn regions_and_caches(chart: &mut LogChart, p: &Profile, ymax: f64) -> Result<(), Err> {
    for (k, r) in p.regions.iter().enumerate() {
        let (a, b) = (
            r.from_unique_bytes as f64 / 1048576.0,
            r.to_unique_bytes as f64 / 1048576.0,
        );
        chart.draw_series(std::iter::once(Rectangle::new(
            [(a, 0.0), (b, ymax)],
            region_color(k).mix(0.15).filled(),
        )))?;
    }
    for (i, &c) in p.cache_sizes_bytes.iter().enumerate() {
        let x = c as f64 / 1048576.0;
        chart.draw_series(DashedLineSeries::new(
            [(x, 0.0), (x, ymax)],
            5,
            4,
            BLACK.mix(0.6).into(),
        ))?;
        // Labels stacked, so that caches close together stay readable.
        chart.draw_series(std::iter::once(Text::new(
            format!("cache {}", willy::units::Bytes(c)),
            (x * 1.03, ymax * (0.96 - 0.06 * i as f64)),
            ("sans-serif", 12),
        )))?;
    }
    Ok(())
}

/// Each region's focal point on the sweep, and the region's name.
fn focal_points(chart: &mut LogChart, p: &Profile, sweep: &Series, ymax: f64) -> Result<(), Err> {
    for (k, r) in p.regions.iter().enumerate() {
        let x = r.focal.unique_bytes.0 as f64 / 1048576.0;
        let y = sweep
            .pts
            .iter()
            .min_by(|a, b| (a.0 / x).ln().abs().total_cmp(&(b.0 / x).ln().abs()))
            .map_or(0.0, |q| q.1);
        chart.draw_series(std::iter::once(
            EmptyElement::at((x, y)) + Rectangle::new([(-6, -6), (6, 6)], BLACK.stroke_width(2)),
        ))?;
        chart.draw_series(std::iter::once(Text::new(
            format!("region {k}"),
            (x, ymax * 0.05),
            ("sans-serif", 12).into_font().color(&region_color(k)),
        )))?;
    }
    Ok(())
}

/// The slope of the focal sweep, as the drop rule sees it.
fn slope(
    area: &DrawingArea<SVGBackend, Shift>,
    sweep: &Series,
    lo: f64,
    hi: f64,
) -> Result<(), Err> {
    let slopes: Vec<(f64, f64)> = sweep
        .pts
        .windows(2)
        .map(|w| {
            (
                (w[0].0 * w[1].0).sqrt(),
                (w[1].1 / w[0].1).ln() / (w[1].0 / w[0].0).ln(),
            )
        })
        .collect();
    let smin = slopes.iter().map(|s| s.1).fold(-1.0, f64::min) * 1.1;
    let smax = slopes.iter().map(|s| s.1).fold(0.5, f64::max) * 1.1;
    let mut c2 = ChartBuilder::on(area)
        .caption(
            "log-log slope of the focal sweep (drop rule: below -0.5)",
            ("sans-serif", 13),
        )
        .margin(8)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d((lo..hi).log_scale(), smin..smax)?;
    c2.configure_mesh()
        .max_light_lines(0)
        .x_desc("uniqueBytes (MiB)")
        .y_desc("d ln T / d ln U")
        .draw()?;
    c2.draw_series(DashedLineSeries::new(
        [(lo, -0.5), (hi, -0.5)],
        5,
        4,
        RED.into(),
    ))?;
    c2.draw_series(LineSeries::new(
        slopes.iter().copied(),
        PARAM_COLORS[0].stroke_width(2),
    ))?;
    Ok(())
}
