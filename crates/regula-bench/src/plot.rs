//! `--plot`: throughput against buffer size, one panel per algorithm and operation, one line per
//! implementation (SVG, drawn by plotters).

use std::collections::BTreeSet;
use std::path::Path;

use plotters::prelude::*;

use crate::{Impl, Report};

const COLORS: [RGBColor; 5] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
];

fn color(implementation: Impl) -> RGBColor {
    COLORS[implementation as usize % COLORS.len()]
}

/// Writes the SVG chart to `path` (which must end in `.svg`).
pub fn svg(report: &Report, path: &Path) -> Result<(), String> {
    if path.extension().and_then(|extension| extension.to_str()) != Some("svg") {
        return Err(format!(
            "{}: --plot writes SVG; give a file name ending in .svg",
            path.display()
        ));
    }
    let drawing = svg_string(report)?;
    std::fs::write(path, drawing)
        .map_err(|error| format!("cannot write {}: {error}", path.display()))
}

/// The SVG chart as text, e.g. to inline in an HTML report. Public-key rows (no buffer size)
/// are not plotted.
pub fn svg_string(report: &Report) -> Result<String, String> {
    let panels: Vec<(String, crate::Operation)> = report
        .rows
        .iter()
        .filter(|row| row.bytes.is_some())
        .map(|row| (row.algorithm.clone(), row.operation))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if panels.is_empty() {
        return Err("nothing to plot: no throughput rows".to_string());
    }
    let columns = panels.len().min(3);
    let rows = panels.len().div_ceil(columns);
    let size = (420 * columns as u32, 300 * rows as u32);
    let mut drawing = String::new();
    {
        let root = SVGBackend::with_string(&mut drawing, size).into_drawing_area();
        let draw_error = |error: DrawingAreaErrorKind<_>| format!("cannot draw the chart: {error}");
        root.fill(&WHITE).map_err(draw_error)?;
        for ((algorithm, operation), area) in panels.iter().zip(root.split_evenly((rows, columns)))
        {
            let rows: Vec<_> = report
                .rows
                .iter()
                .filter(|row| {
                    &row.algorithm == algorithm
                        && row.operation == *operation
                        && row.bytes.is_some()
                })
                .collect();
            let max_bytes = rows.iter().filter_map(|row| row.bytes).max().unwrap_or(16) as f64;
            let min_bytes = rows.iter().filter_map(|row| row.bytes).min().unwrap_or(16) as f64;
            let max_rate = rows.iter().map(|row| row.max).fold(1.0, f64::max) * 1.1;
            let mut chart = ChartBuilder::on(&area)
                .caption(
                    format!("{algorithm} {} (MB/s)", operation.name()),
                    ("sans-serif", 16),
                )
                .margin(8)
                .x_label_area_size(30)
                .y_label_area_size(50)
                .build_cartesian_2d((min_bytes..max_bytes * 1.05).log_scale(), 0.0..max_rate)
                .map_err(draw_error)?;
            chart
                .configure_mesh()
                .x_desc("bytes")
                .x_label_formatter(&|bytes| format!("{bytes:.0}"))
                .draw()
                .map_err(draw_error)?;
            let implementations: BTreeSet<Impl> =
                rows.iter().map(|row| row.implementation).collect();
            for implementation in implementations {
                let mut points: Vec<(f64, f64)> = rows
                    .iter()
                    .filter(|row| row.implementation == implementation)
                    .map(|row| (row.bytes.unwrap_or(0) as f64, row.median))
                    .collect();
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                let style = color(implementation);
                chart
                    .draw_series(LineSeries::new(points.clone(), style.stroke_width(2)))
                    .map_err(draw_error)?
                    .label(implementation.name())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 16, y)], style.stroke_width(2))
                    });
                chart
                    .draw_series(
                        points
                            .into_iter()
                            .map(|point| Circle::new(point, 3, style.filled())),
                    )
                    .map_err(draw_error)?;
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .position(SeriesLabelPosition::UpperLeft)
                .draw()
                .map_err(draw_error)?;
        }
        root.present().map_err(draw_error)?;
    }
    Ok(drawing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Operation, Row};

    #[test]
    fn draws_one_panel_per_algorithm_with_a_line_per_impl() {
        let row = |implementation, bytes, median| Row {
            algorithm: "sha256".into(),
            operation: Operation::Digest,
            bytes: Some(bytes),
            implementation,
            runs: 1,
            median,
            min: median,
            max: median,
            unit: "MB/s",
        };
        let report = Report {
            rows: vec![
                row(Impl::Regula, 16, 100.0),
                row(Impl::Regula, 8192, 1500.0),
                row(Impl::Openssl, 16, 80.0),
                row(Impl::Openssl, 8192, 1400.0),
            ],
            ..Report::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plot.svg");
        svg(&report, &path).unwrap();
        let drawn = std::fs::read_to_string(&path).unwrap();
        assert!(drawn.starts_with("<svg"));
        assert!(
            drawn.contains("sha256 digest (MB/s)")
                && drawn.contains("\nregula\n")
                && drawn.contains("\nopenssl\n")
        );
        assert!(
            drawn.matches("<polyline").count() >= 2,
            "one line per implementation"
        );
        assert!(svg(&report, &dir.path().join("plot.png")).is_err());
    }
}
