//! `willy bus-model --json`: throughput against the number of disks on
//! the bus, one colour per block size; Barve's model as lines, the
//! simulated bus (with `--measure`) as points.

use super::{render, Err, Figure, REGION_COLORS};
use plotters::prelude::*;
use willy::doc::bus::BusDoc;
use willy::units::human_bytes;

/// The figure of a bus document.
pub fn bus_figure(d: &BusDoc) -> Result<Figure, Err> {
    let mut sizes: Vec<u64> = d.points.iter().map(|p| p.block_bytes).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let dmax = d.points.iter().map(|p| p.disks).max().unwrap_or(1) as f64;
    let ymax = d
        .points
        .iter()
        .map(|p| {
            p.model_throughput_bytes_per_sec
                .max(p.measured_throughput_bytes_per_sec.unwrap_or(0.0))
        })
        .fold(0.0, f64::max)
        / 1e6
        * 1.15;
    let bus = d.parameters.bus_mb_per_s;
    let title = format!(
        "Disks sharing a {bus:.0} MB/s bus ({}): Barve's model (lines){}",
        d.source,
        if d.points
            .iter()
            .any(|p| p.measured_throughput_bytes_per_sec.is_some())
        {
            ", the simulated bus (points)"
        } else {
            ""
        }
    );
    let svg = render((900, 520), |root| {
        let root = root.titled(&title, ("sans-serif", 15))?;
        let mut c = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(55)
            .build_cartesian_2d(0.5..dmax + 0.5, 0f64..ymax.max(bus * 1.05))?;
        c.configure_mesh()
            .x_desc("disks on the bus, D")
            .y_desc("throughput, all disks, MB/s")
            .x_labels(dmax as usize + 1)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .draw()?;
        c.draw_series(DashedLineSeries::new(
            [(0.5, bus), (dmax + 0.5, bus)],
            6,
            4,
            BLACK.into(),
        ))?
        .label("the bus's rate")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], BLACK));
        for (k, &b) in sizes.iter().enumerate() {
            let color = REGION_COLORS[k % REGION_COLORS.len()];
            let mut pts: Vec<_> = d.points.iter().filter(|p| p.block_bytes == b).collect();
            pts.sort_by_key(|p| p.disks);
            c.draw_series(LineSeries::new(
                pts.iter()
                    .map(|p| (f64::from(p.disks), p.model_throughput_bytes_per_sec / 1e6)),
                color.stroke_width(2),
            ))?
            .label(format!("{} blocks", human_bytes(b as f64)))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2)));
            c.draw_series(pts.iter().filter_map(|p| {
                p.measured_throughput_bytes_per_sec
                    .map(|t| Circle::new((f64::from(p.disks), t / 1e6), 4, color.filled()))
            }))?;
        }
        c.configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
        Ok(())
    })?;
    Ok(Figure {
        name: "bus".into(),
        title,
        svg,
    })
}
