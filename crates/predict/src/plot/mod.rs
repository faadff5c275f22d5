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
//!
//! One file per figure: `unique.rs` (the uniqueBytes curves), `region.rs`
//! (each region's family and the overlays), `validation.rs`,
//! `comparison.rs`, `interference.rs`, `anomalies.rs`, `probe.rs` and `bus.rs`; this file holds what they share.

mod anomalies;
mod bus;
mod comparison;
mod interference;
mod probe;
mod region;
mod unique;
mod validation;

pub use anomalies::anomalies_figure;
pub use bus::bus_figure;
pub use comparison::comparison_figure;
pub use interference::interference_figure;
pub use probe::probe_figures;
pub use validation::validation_figures;

use crate::predict::Param;
use crate::profile::Profile;
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

/// `0xRRGGBB` values as colours.
const fn rgb<const N: usize>(hex: [u32; N]) -> [RGBColor; N] {
    let mut out = [RGBColor(0, 0, 0); N];
    let mut i = 0;
    while i < N {
        let h = hex[i];
        out[i] = RGBColor((h >> 16) as u8, (h >> 8) as u8, h as u8);
        i += 1;
    }
    out
}

/// Colours of uniqueBytes, sizeMean, readFrac, seqFrac, processNum.
pub const PARAM_COLORS: [RGBColor; 5] = rgb([0x333333, 0x1f77b4, 0xd62728, 0x2ca02c, 0x9467bd]);
/// Colours of regions 0, 1, ... (repeating).
pub const REGION_COLORS: [RGBColor; 6] =
    rgb([0xff7f0e, 0x17becf, 0x8c564b, 0xe377c2, 0xbcbd22, 0x7f7f7f]);
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
    ($area:expr, $title:expr, $xdesc:expr, $xrange:expr, $ymax:expr, $all:expr, $focal:expr, $shade:expr, $marks:expr) => {{
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
        let marks: &[(f64, String)] = $marks;
        for (x, label) in marks {
            chart.draw_series(DashedLineSeries::new(
                [(*x, 0.0), (*x, $ymax)],
                4,
                4,
                RGBColor(0x66, 0x66, 0x66).into(),
            ))?;
            chart.draw_series(std::iter::once(Text::new(
                label.clone(),
                (*x, $ymax * 0.97),
                ("sans-serif", 11),
            )))?;
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
    marks: &[(f64, String)],
) -> Result<(), Err> {
    let (xdesc, _, log) = axis(param);
    let (lo, hi, ymax) = bounds(all, log);
    let marks: Vec<(f64, String)> = marks
        .iter()
        .filter(|m| m.0 >= lo && m.0 <= hi)
        .cloned()
        .collect();
    if log {
        curves_chart!(
            area,
            title,
            xdesc,
            (lo..hi).log_scale(),
            ymax,
            all,
            focal,
            shade,
            &marks
        )
    } else {
        curves_chart!(area, title, xdesc, lo..hi, ymax, all, focal, shade, &marks)
    }
}

/// Where `willy probe` (with `--scale --probe`) marks the sizeMean axis,
/// in its units (KiB): the boundary it found and the efficient size.
fn probe_marks(p: &Profile, param: Param) -> Vec<(f64, String)> {
    let Some(probe) = p.probe.as_ref().filter(|_| param == Param::SizeMean) else {
        return Vec::new();
    };
    let unit = axis(param).1;
    let kib = |b: u64| willy::units::human_bytes(b as f64);
    let mut out = Vec::new();
    if let Some(b) = &probe.boundaries {
        if let Some(t) = b.track_bytes.as_ref().and_then(|t| t.first()) {
            out.push((*t as f64 / unit, format!("track {}", kib(*t))));
        } else if let Some(s) = b.stripe_unit_bytes {
            out.push((s as f64 / unit, format!("stripe {}", kib(s))));
        }
    }
    if let Some(e) = probe.efficient_size_bytes {
        out.push((e as f64 / unit, format!("efficient {}", kib(e))));
    }
    out
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

/// All figures of a profile: the uniqueBytes curve, one family per region
/// and one overlay per parameter.
pub fn profile_figures(p: &Profile) -> Result<Vec<Figure>, Err> {
    let mut out = vec![unique::figure(p)?];
    for (k, r) in p.regions.iter().enumerate() {
        out.push(region::family(p, k, r)?);
    }
    for param in REGION_PARAMS {
        out.push(region::overlay(p, param)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A profile that passes validation with an empty focal sweep (only
    /// regions' own curves) is drawn, not a panic (it indexed the sweep's
    /// first point).
    #[test]
    fn a_profile_without_a_focal_sweep_is_drawn() {
        let mut p = crate::profile::sample();
        p.unique_bytes_curve.clear();
        p.validate().unwrap();
        let figs = profile_figures(&p).unwrap();
        assert_eq!(figs[0].name, "unique-bytes");
        assert!(figs[0].svg.starts_with("<svg"));
    }
}
