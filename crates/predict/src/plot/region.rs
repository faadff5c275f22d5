//! Each region's family of curves (Figs. 4.7-4.15), and each parameter's
//! curves of every region overlaid.

use super::{
    axis, draw_curves, probe_marks, region_color, region_curve, render, series, Err, Figure,
    Series, PARAM_COLORS, REGION_PARAMS,
};
use crate::predict::Param;
use crate::profile::{Profile, ProfileRegion};
use plotters::prelude::*;

/// Region `k`'s four curves around its focal point, one panel each.
pub fn family(p: &Profile, k: usize, r: &ProfileRegion) -> Result<Figure, Err> {
    let title = format!("Region {k}: focal {:#}", r.focal);
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
            let marks = probe_marks(p, *param);
            draw_curves(
                area,
                param.name(),
                *param,
                &[&s],
                fy.map(|y| (fx, y)),
                &[],
                &marks,
            )?;
        }
        Ok(())
    })?;
    Ok(Figure {
        name: format!("region-{k}"),
        title,
        svg,
    })
}

/// `param`'s curve of every region on one chart.
pub fn overlay(p: &Profile, param: Param) -> Result<Figure, Err> {
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
        draw_curves(
            root,
            &title,
            param,
            &refs,
            None,
            &[],
            &probe_marks(p, param),
        )
    })?;
    Ok(Figure {
        name: format!("overlay-{}", param.name()),
        title,
        svg,
    })
}
