//! `willy probe --json`: efficiency against request size, aligned and
//! unaligned, with the boundary marked (Lachesis Fig. 3); the seek curve
//! with Barve's fit.

use super::{render, Err, Figure, PARAM_COLORS};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use willy::doc::probe::Probe;
use willy::doc::probe::{Efficiency, SeekCurve};

type LogChart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<LogCoord<f64>, RangedCoordf64>>;
use willy::units::human_bytes;

/// The probe's figures: efficiency and seek, each where that probe ran.
pub fn probe_figures(p: &Probe) -> Result<Vec<Figure>, Err> {
    let mut out = Vec::new();
    if p.efficiency.is_some() {
        out.push(efficiency(p)?);
    }
    if p.seek_curve.is_some() {
        out.push(seek(p)?);
    }
    Ok(out)
}

/// Efficiency (0-1) against request size on a log axis: aligned and
/// unaligned reads with their 95% intervals, streaming dashed, 90% of it
/// dotted, the alignment unit and the efficient size as vertical lines.
fn efficiency(p: &Probe) -> Result<Figure, Err> {
    let e = p.efficiency.as_ref().expect("efficiency ran");
    let xs: Vec<f64> = e.points.iter().map(|q| q.size_bytes as f64).collect();
    let (lo, hi) = (
        xs.iter().copied().fold(f64::INFINITY, f64::min) / 1.3,
        xs.iter().copied().fold(0.0, f64::max) * 1.3,
    );
    let title = format!(
        "Efficiency on {}: reads aligned to a {} ({}) and not",
        p.target,
        e.alignment,
        human_bytes(e.alignment_bytes as f64)
    );
    let svg = render((900, 520), |root| {
        let root = root.titled(&title, ("sans-serif", 16))?;
        let mut c = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(55)
            .build_cartesian_2d((lo..hi).log_scale(), 0f64..1.05)?;
        c.configure_mesh()
            .x_desc("request size")
            .y_desc("efficiency: share of time moving data")
            .x_label_formatter(&|x| short_bytes(*x))
            .draw()?;
        marks(&mut c, e, lo, hi)?;
        curves(&mut c, e)?;
        c.configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
        Ok(())
    })?;
    Ok(Figure {
        name: "probe-efficiency".into(),
        title,
        svg,
    })
}

/// Seek time against distance (a fraction of the device, log axis):
/// measured points with their 95% intervals and the fitted two-piece curve,
/// the break marked.
fn seek(p: &Probe) -> Result<Figure, Err> {
    let s = p.seek_curve.as_ref().expect("seek ran");
    let (lo, hi) = (
        s.points.first().map_or(1e-3, |q| q.fraction) / 1.3,
        s.points.last().map_or(1.0, |q| q.fraction) * 1.3,
    );
    let ymax = s
        .points
        .iter()
        .map(|q| (q.seek_ms + q.seek_ci95_ms).max(q.fitted_ms))
        .fold(0.0, f64::max)
        .max(0.01)
        * 1.1;
    let ymin = s
        .points
        .iter()
        .map(|q| q.seek_ms - q.seek_ci95_ms)
        .fold(0.0, f64::min);
    let title = if s.none_found {
        format!(
            "Seek on {}: none found (every distance within noise of zero)",
            p.target
        )
    } else {
        format!(
            "Seek on {}: {:.3} + {:.3} sqrt(x) below x = {:.4}, {:.3} + {:.3} x above, ms",
            p.target, s.a_ms, s.b_ms, s.break_fraction, s.c_ms, s.d_ms
        )
    };
    let svg = render((900, 520), |root| {
        let root = root.titled(&title, ("sans-serif", 15))?;
        let mut c = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(55)
            .build_cartesian_2d((lo..hi).log_scale(), ymin..ymax)?;
        c.configure_mesh()
            .x_desc("seek distance x, a fraction of the device")
            .y_desc("seek time, ms")
            .draw()?;
        seek_series(&mut c, s, lo, hi, (ymin, ymax))?;
        c.configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
        Ok(())
    })?;
    Ok(Figure {
        name: "probe-seek".into(),
        title,
        svg,
    })
}

/// Streaming dashed, 90% of it dotted, the alignment unit and the
/// efficient size as vertical lines.
fn marks(c: &mut LogChart, e: &Efficiency, lo: f64, hi: f64) -> Result<(), Err> {
    let flat = |y: f64| [(lo, y), (hi, y)];
    c.draw_series(DashedLineSeries::new(flat(e.streaming), 6, 4, BLACK.into()))?
        .label(format!("streaming {:.3}", e.streaming))
        .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], BLACK));
    c.draw_series(DashedLineSeries::new(
        flat(0.9 * e.streaming),
        2,
        4,
        BLACK.into(),
    ))?;
    let unit = e.alignment_bytes as f64;
    if unit > lo && unit < hi {
        c.draw_series(DashedLineSeries::new(
            [(unit, 0.0), (unit, 1.05)],
            4,
            4,
            PARAM_COLORS[3].into(),
        ))?
        .label(if e.alignment == "4 KiB" {
            "4 KiB alignment".to_string()
        } else {
            format!("{} {}", e.alignment, human_bytes(unit))
        })
        .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], PARAM_COLORS[3]));
    }
    if let Some(s) = e.efficient_size_bytes {
        let s = s as f64;
        c.draw_series(LineSeries::new(
            [(s, 0.0), (s, 1.05)],
            PARAM_COLORS[2].stroke_width(1),
        ))?
        .label(format!("efficient size {}", human_bytes(s)))
        .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], PARAM_COLORS[2]));
    }
    Ok(())
}

/// Aligned and unaligned efficiency with their 95% intervals.
fn curves(c: &mut LogChart, e: &Efficiency) -> Result<(), Err> {
    for (k, name, color) in [
        (0, "aligned", PARAM_COLORS[0]),
        (1, "unaligned", PARAM_COLORS[1]),
    ] {
        let pts: Vec<(f64, f64, f64)> = e
            .points
            .iter()
            .map(|q| {
                let s = q.size_bytes as f64;
                if k == 0 {
                    (s, q.aligned, q.aligned_ci95)
                } else {
                    (s, q.unaligned, q.unaligned_ci95)
                }
            })
            .collect();
        c.draw_series(LineSeries::new(
            pts.iter().map(|p| (p.0, p.1)),
            color.stroke_width(2),
        ))?
        .label(name)
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2)));
        c.draw_series(
            pts.iter()
                .map(|p| Circle::new((p.0, p.1), 3, color.filled())),
        )?;
        for &(x, y, ci) in &pts {
            if ci.is_finite() {
                c.draw_series(LineSeries::new([(x, y - ci), (x, y + ci)], color))?;
            }
        }
    }
    Ok(())
}

/// The fitted curve, the measured points with their intervals, the break.
fn seek_series(
    c: &mut LogChart,
    s: &SeekCurve,
    lo: f64,
    hi: f64,
    y: (f64, f64),
) -> Result<(), Err> {
    let (ymin, ymax) = y;
    let n = 200;
    let curve = (0..=n).map(|i| {
        let x = lo * (hi / lo).powf(i as f64 / n as f64);
        let y = if x < s.break_fraction {
            s.a_ms + s.b_ms * x.sqrt()
        } else {
            s.c_ms + s.d_ms * x
        };
        (x, y)
    });
    c.draw_series(LineSeries::new(curve, PARAM_COLORS[1].stroke_width(2)))?
        .label("fit (Barve eq. 7)")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], PARAM_COLORS[1].stroke_width(2)));
    c.draw_series(
        s.points
            .iter()
            .map(|q| Circle::new((q.fraction, q.seek_ms), 3, PARAM_COLORS[0].filled())),
    )?
    .label("measured")
    .legend(|(x, y)| Circle::new((x + 8, y), 3, PARAM_COLORS[0].filled()));
    for q in &s.points {
        c.draw_series(LineSeries::new(
            [
                (q.fraction, q.seek_ms - q.seek_ci95_ms),
                (q.fraction, q.seek_ms + q.seek_ci95_ms),
            ],
            PARAM_COLORS[0],
        ))?;
    }
    if s.break_fraction > lo && s.break_fraction < hi {
        c.draw_series(DashedLineSeries::new(
            [(s.break_fraction, ymin), (s.break_fraction, ymax)],
            4,
            4,
            BLACK.into(),
        ))?;
    }
    Ok(())
}

/// A size on an axis: three significant digits at most, `977 KiB`.
fn short_bytes(x: f64) -> String {
    let (v, unit) = if x >= 1024.0 * 1024.0 {
        (x / 1024.0 / 1024.0, "MiB")
    } else if x >= 1024.0 {
        (x / 1024.0, "KiB")
    } else {
        (x, "B")
    };
    if v >= 10.0 {
        format!("{v:.0} {unit}")
    } else {
        format!("{v:.1} {unit}")
    }
}
