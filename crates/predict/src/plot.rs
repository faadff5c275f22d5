//! Figures as SVG, drawn with plotters (Chen 1992, Figs. 4.6-4.15, 5.3,
//! 5.4 and 5.13).
//!
//! Conventions, the same in every figure:
//! - throughput in MB/s (10^6 bytes per second), uniqueBytes in MiB,
//!   sizeMean in KiB; sizes and processNum on log axes;
//! - every measured point is a filled circle with its 95% confidence
//!   interval as a vertical bar (no bar where none was computed), joined by
//!   a line of the same colour: one `<polyline>` per curve;
//! - a region's focal point is an unfilled black square;
//! - parameters and regions keep their colours ([`PARAM_COLORS`],
//!   [`REGION_COLORS`]) across figures.

use crate::predict::Param;
use crate::profile::Profile;
use crate::validate::ValidationReport;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

/// One figure.
#[derive(Clone, Debug)]
pub struct Figure {
    /// File name without extension, e.g. `region-0`.
    pub name: String,
    /// What it shows, one line.
    pub title: String,
    /// The SVG document.
    pub svg: String,
}

/// Colours of uniqueBytes, sizeMean, readFrac, seqFrac, processNum.
pub const PARAM_COLORS: [RGBColor; 5] = [
    RGBColor(0x33, 0x33, 0x33),
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0x94, 0x67, 0xbd),
];
/// Colours of regions 0, 1, ... (repeating).
pub const REGION_COLORS: [RGBColor; 6] = [
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x17, 0xbe, 0xcf),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0xbc, 0xbd, 0x22),
    RGBColor(0x7f, 0x7f, 0x7f),
];
/// The probes' colours: random reads, random writes.
pub const PROBE_COLORS: [RGBColor; 2] = [RGBColor(0x00, 0x66, 0x99), RGBColor(0xcc, 0x44, 0x00)];

type Err = Box<dyn std::error::Error>;

/// One curve: (x, throughput, relative CI half-width) by x.
#[derive(Clone, Debug)]
struct Series {
    label: String,
    color: RGBColor,
    pts: Vec<(f64, f64, Option<f64>)>,
}

fn region_color(k: usize) -> RGBColor {
    REGION_COLORS[k % REGION_COLORS.len()]
}

/// What a parameter is plotted as: its axis title, the value shown, and
/// whether the axis is logarithmic.
fn axis(p: Param) -> (&'static str, f64, bool) {
    match p {
        Param::UniqueBytes => ("uniqueBytes (MiB)", 1048576.0, true),
        Param::SizeMean => ("sizeMean (KiB)", 1024.0, true),
        Param::ReadFrac => ("readFrac", 1.0, false),
        Param::SeqFrac => ("seqFrac", 1.0, false),
        Param::ProcessNum => ("processNum", 1.0, true),
    }
}

fn series(p: &Profile, param: Param, idx: &[usize], label: String, color: RGBColor) -> Series {
    let div = axis(param).1;
    let mut pts: Vec<(f64, f64, Option<f64>)> = idx
        .iter()
        .map(|&i| {
            let pt = &p.points[i];
            (
                param.of(&pt.workload) / div,
                pt.throughput_bytes_per_sec / 1e6,
                pt.ci95_rel,
            )
        })
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    Series { label, color, pts }
}

fn bounds(all: &[&Series], log: bool) -> (f64, f64, f64) {
    let xs = all.iter().flat_map(|s| s.pts.iter().map(|p| p.0));
    let (mut lo, mut hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    if !lo.is_finite() {
        (lo, hi) = (0.0, 1.0);
    }
    if log {
        (lo, hi) = (lo / 1.3, hi * 1.3);
    } else {
        let pad = ((hi - lo) * 0.05).max(0.05);
        (lo, hi) = (lo - pad, hi + pad);
    }
    let ymax = all
        .iter()
        .flat_map(|s| s.pts.iter().map(|p| p.1 * (1.0 + p.2.unwrap_or(0.0))))
        .fold(0.0, f64::max);
    (lo, hi, if ymax > 0.0 { ymax * 1.1 } else { 1.0 })
}

/// One curve: its line (with a legend entry) and a circle with the 95% CI
/// bar at every point.
fn draw_curve<X: Ranged<ValueType = f64>>(
    chart: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<X, RangedCoordf64>>,
    s: &Series,
) -> Result<(), Err> {
    let c = s.color;
    chart
        .draw_series(LineSeries::new(
            s.pts.iter().map(|p| (p.0, p.1)),
            c.stroke_width(2),
        ))?
        .label(s.label.clone())
        .legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 12, y + 4)], c.filled()));
    chart.draw_series(s.pts.iter().map(|&(x, y, ci)| {
        let h = y * ci.unwrap_or(0.0);
        ErrorBar::new_vertical(x, y - h, y, y + h, c.filled(), 6)
    }))?;
    Ok(())
}

/// Draws curves (with CI bars) on `area`; `focal` marks a point.
macro_rules! curves_chart {
    ($area:expr, $title:expr, $xdesc:expr, $xrange:expr, $ymax:expr, $all:expr, $focal:expr, $shade:expr) => {{
        let mut chart = ChartBuilder::on($area)
            .caption($title, ("sans-serif", 15))
            .margin(8)
            .x_label_area_size(36)
            .y_label_area_size(64)
            .build_cartesian_2d($xrange, 0f64..$ymax)?;
        chart
            .configure_mesh()
            .max_light_lines(0)
            .x_labels(8)
            .x_label_formatter(&|x| tick(*x))
            .y_label_formatter(&|y| tick(*y))
            .x_desc($xdesc)
            .y_desc("throughput (MB/s)")
            .label_style(("sans-serif", 11))
            .draw()?;
        let shade: &[(f64, f64, RGBColor)] = $shade;
        for &(a, b, c) in shade {
            chart.draw_series(std::iter::once(Rectangle::new(
                [(a, 0.0), (b, $ymax)],
                c.mix(0.12).filled(),
            )))?;
        }
        let all: &[&Series] = $all;
        for s in all {
            draw_curve(&mut chart, s)?;
        }
        let focal: Option<(f64, f64)> = $focal;
        if let Some(f) = focal {
            chart.draw_series(std::iter::once(
                EmptyElement::at(f) + Rectangle::new([(-6, -6), (6, 6)], BLACK.stroke_width(2)),
            ))?;
        }
        if all.len() > 1 {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.4))
                .label_font(("sans-serif", 11))
                .position(SeriesLabelPosition::UpperRight)
                .draw()?;
        }
        Ok::<(), Err>(())
    }};
}

/// A tick label: no trailing ".0", at most three significant decimals.
fn tick(v: f64) -> String {
    if v == v.round() && v.abs() < 1e9 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{}", (v * 1000.0).round() / 1000.0)
    }
}

fn draw_curves(
    area: &DrawingArea<SVGBackend, Shift>,
    title: &str,
    param: Param,
    all: &[&Series],
    focal: Option<(f64, f64)>,
    shade: &[(f64, f64, RGBColor)],
) -> Result<(), Err> {
    let (xdesc, _, log) = axis(param);
    let (lo, hi, ymax) = bounds(all, log);
    if log {
        curves_chart!(
            area,
            title,
            xdesc,
            (lo..hi).log_scale(),
            ymax,
            all,
            focal,
            shade
        )
    } else {
        curves_chart!(area, title, xdesc, lo..hi, ymax, all, focal, shade)
    }
}

fn render(
    size: (u32, u32),
    f: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<(), Err>,
) -> Result<String, Err> {
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, size).into_drawing_area();
        root.fill(&WHITE)?;
        f(&root)?;
        root.present()?;
    }
    Ok(s)
}

/// A workload in one line, for captions.
pub fn describe(w: &willy::workload::Workload) -> String {
    format!(
        "uniqueBytes {}, sizeMean {}, readFrac {}, seqFrac {}, processNum {}",
        w.unique_bytes, w.size_mean, w.read_frac, w.seq_frac, w.process_num
    )
}

const REGION_PARAMS: [Param; 4] = [
    Param::SizeMean,
    Param::ReadFrac,
    Param::SeqFrac,
    Param::ProcessNum,
];

fn region_curve(r: &crate::profile::ProfileRegion, p: Param) -> &[usize] {
    match p {
        Param::UniqueBytes => &r.curves.unique_bytes,
        Param::SizeMean => &r.curves.size_mean,
        Param::ReadFrac => &r.curves.read_frac,
        Param::SeqFrac => &r.curves.seq_frac,
        Param::ProcessNum => &r.curves.process_num,
    }
}

/// The uniqueBytes curves (the focal sweep and the two probes) with the
/// regions shaded, focal points marked and caches labelled, and the focal
/// sweep's log-log slope beneath (Fig. 4.6).
fn unique_figure(p: &Profile) -> Result<Figure, Err> {
    let sweep = series(
        p,
        Param::UniqueBytes,
        &p.unique_bytes_curve,
        "focal sweep".into(),
        PARAM_COLORS[0],
    );
    let probe = |rf: f64, k: usize, name: &str| {
        let g = &p.points[p.unique_bytes_curve[0]].workload;
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
            format!("probe: random {name}"),
            PROBE_COLORS[k],
        )
    };
    let probes: Vec<Series> = [probe(1.0, 0, "reads"), probe(0.0, 1, "writes")]
        .into_iter()
        .filter(|s| s.pts.len() > 1)
        .collect();
    let shade: Vec<(f64, f64, RGBColor)> = p
        .regions
        .iter()
        .enumerate()
        .map(|(k, r)| {
            (
                r.from_unique_bytes as f64 / 1048576.0,
                r.to_unique_bytes as f64 / 1048576.0,
                region_color(k),
            )
        })
        .collect();
    let caches: Vec<String> = p
        .cache_sizes_bytes
        .iter()
        .map(|&c| willy::units::Bytes(c).to_string())
        .collect();
    let title = format!(
        "uniqueBytes: {} region(s); caches inferred: {}",
        p.regions.len(),
        if caches.is_empty() {
            "none".into()
        } else {
            caches.join(", ")
        }
    );
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
        for &(a, b, c) in &shade {
            chart.draw_series(std::iter::once(Rectangle::new(
                [(a, 0.0), (b, ymax)],
                c.mix(0.15).filled(),
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
        for s in &all {
            draw_curve(&mut chart, s)?;
        }
        for (k, r) in p.regions.iter().enumerate() {
            let x = r.focal.unique_bytes.0 as f64 / 1048576.0;
            let y = sweep
                .pts
                .iter()
                .min_by(|a, b| (a.0 / x).ln().abs().total_cmp(&(b.0 / x).ln().abs()))
                .map_or(0.0, |q| q.1);
            chart.draw_series(std::iter::once(
                EmptyElement::at((x, y))
                    + Rectangle::new([(-6, -6), (6, 6)], BLACK.stroke_width(2)),
            ))?;
            chart.draw_series(std::iter::once(Text::new(
                format!("region {k}"),
                (x, ymax * 0.05),
                ("sans-serif", 12).into_font().color(&region_color(k)),
            )))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.4))
            .position(SeriesLabelPosition::LowerLeft)
            .draw()?;
        // The slope of the focal sweep, as the drop rule sees it.
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
        let mut c2 = ChartBuilder::on(&bottom)
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
    })?;
    Ok(Figure {
        name: "unique-bytes".into(),
        title,
        svg,
    })
}

/// All figures of a profile: the uniqueBytes curve, one family per region
/// and one overlay per parameter.
pub fn profile_figures(p: &Profile) -> Result<Vec<Figure>, Err> {
    let mut out = vec![unique_figure(p)?];
    for (k, r) in p.regions.iter().enumerate() {
        let title = format!("Region {k}: focal {}", describe(&r.focal));
        let svg = render((1000, 760), |root| {
            let (head, body) = root.split_vertically(28);
            head.draw(&Text::new(title.clone(), (10, 6), ("sans-serif", 15)))?;
            let panels = body.split_evenly((2, 2));
            for (param, area) in REGION_PARAMS.iter().zip(&panels) {
                let k2 = Param::ALL.iter().position(|q| q == param).expect("listed");
                let s = series(
                    p,
                    *param,
                    region_curve(r, *param),
                    param.name().into(),
                    PARAM_COLORS[k2],
                );
                let fx = param.of(&r.focal) / axis(*param).1;
                let fy = s
                    .pts
                    .iter()
                    .find(|q| (q.0 - fx).abs() <= 1e-9 * fx.abs().max(1.0))
                    .map(|q| q.1);
                draw_curves(area, param.name(), *param, &[&s], fy.map(|y| (fx, y)), &[])?;
            }
            Ok(())
        })?;
        out.push(Figure {
            name: format!("region-{k}"),
            title,
            svg,
        });
    }
    for param in REGION_PARAMS {
        let all: Vec<Series> = p
            .regions
            .iter()
            .enumerate()
            .map(|(k, r)| {
                series(
                    p,
                    param,
                    region_curve(r, param),
                    format!("region {k}"),
                    region_color(k),
                )
            })
            .collect();
        let refs: Vec<&Series> = all.iter().collect();
        let title = format!("{} in every region", param.name());
        let svg = render((800, 500), |root| {
            draw_curves(root, &title, param, &refs, None, &[])
        })?;
        out.push(Figure {
            name: format!("overlay-{}", param.name()),
            title,
            svg,
        });
    }
    Ok(out)
}

/// From a validation: predicted against measured (Fig. 5.3), the error
/// CDF, and the error against each parameter (Fig. 5.4).
pub fn validation_figures(v: &ValidationReport) -> Result<Vec<Figure>, Err> {
    let mut out = Vec::new();
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
    out.push(Figure {
        name: "validation-scatter".into(),
        title,
        svg,
    });

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
    out.push(Figure {
        name: "validation-cdf".into(),
        title,
        svg,
    });

    let title = "Error against each parameter (median per bin as a line)".to_string();
    let svg = render((1100, 700), |root| {
        let (head, body) = root.split_vertically(28);
        head.draw(&Text::new(title.clone(), (10, 6), ("sans-serif", 15)))?;
        let panels = body.split_evenly((2, 3));
        for (k, (param, area)) in Param::ALL.iter().zip(&panels).enumerate() {
            let (xdesc, div, log) = axis(*param);
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
            let med: Vec<(f64, f64)> = v
                .error_by_param
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
                .unwrap_or_default();
            let color = PARAM_COLORS[k];
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
        }
        Ok(())
    })?;
    out.push(Figure {
        name: "validation-by-param".into(),
        title,
        svg,
    });
    Ok(out)
}

/// Ratio bars from `willy compare --json` (Fig. 5.13).
pub fn comparison_figure(v: &serde_json::Value) -> Result<Figure, Err> {
    let rows: Vec<(String, f64)> = v["workloads"]
        .as_array()
        .ok_or("not a willy comparison: no \"workloads\"")?
        .iter()
        .map(|r| {
            Ok((
                r["name"]
                    .as_str()
                    .ok_or("a workload has no name")?
                    .to_string(),
                r["ratio"].as_f64().ok_or("a workload has no ratio")?,
            ))
        })
        .collect::<Result<_, Err>>()?;
    let stem = |k: &str| {
        v[k].as_str()
            .and_then(|s| std::path::Path::new(s).file_stem())
            .map_or(k.to_uppercase(), |s| s.to_string_lossy().into_owned())
    };
    let title = format!("Predicted throughput ratio {} / {}", stem("a"), stem("b"));
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
