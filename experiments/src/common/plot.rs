//! The examples' `--plot DIR` figures: SVG files drawn with plotters, one function per kind of
//! figure (line charts of curves, reliability diagram, ROC curves, grouped histogram, scatter,
//! predictive band). Text is written as SVG `<text>` in a generic sans-serif font, laid out by plotters' size
//! estimate, so no fonts need to be installed.
use std::borrow::Borrow;
use std::ops::Range;
use std::path::{Path, PathBuf};

use burn_gp::metrics;
use burn_gp::train::History;
use burn_gp::{Error, Result};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// `--plot DIR`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct PlotOptions {
    /// Write the example's figures as SVG files `<example>_<figure>.svg` into this folder (created
    /// if missing).
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,
}

impl PlotOptions {
    /// The figure writer of `example`, after creating the `--plot` folder; without `--plot`, one
    /// that writes nothing.
    pub fn figures(&self, example: &str) -> Result<Figures> {
        if let Some(dir) = &self.plot {
            std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.clone(), source })?;
            if !dir.is_dir() {
                return Err(Error::invalid("plot", format!("{} is not a folder", dir.display())));
            }
        }
        Ok(Figures { dir: self.plot.clone(), example: example.to_string() })
    }
}

/// Writes an example's figures to `<DIR>/<example>_<figure>.svg`, printing each path on stderr;
/// does nothing without `--plot`.
pub struct Figures {
    dir: Option<PathBuf>,
    example: String,
}

/// One named line of a [`Panel`].
pub struct Series {
    /// Legend entry.
    pub name: String,
    /// `(x, y)` points in drawing order; non-finite ones are skipped.
    pub points: Vec<(f64, f64)>,
}

/// One chart of a [`Figures::lines`] figure: its y-axis label and lines.
pub struct Panel {
    /// The y-axis label.
    pub y_label: String,
    /// The lines drawn in it.
    pub series: Vec<Series>,
}

/// One panel of a [`Figures::histogram`] figure: a caption and the counts of each series.
pub struct HistogramPanel {
    /// The panel's caption.
    pub caption: String,
    /// `(legend entry, counts per bin)`; the series' bars stand side by side in each bin.
    pub series: Vec<(String, Vec<usize>)>,
}

/// One panel of a [`Figures::scatter`] figure: a caption and its point sets.
pub struct ScatterPanel {
    /// The panel's caption.
    pub caption: String,
    /// `(legend entry, (x, y) points)`, drawn in order (later sets on top).
    pub series: Vec<(String, Vec<(f64, f64)>)>,
}

/// One panel of a [`Figures::scatter_step`] figure: points and a piecewise-constant fit.
pub struct StepPanel {
    /// The panel's caption.
    pub caption: String,
    /// The points `(x, y)`; non-finite ones are skipped.
    pub points: Vec<(f64, f64)>,
    /// The fit's pieces `(x from, x to, y)`, drawn as horizontal segments.
    pub steps: Vec<(f64, f64, f64)>,
}

/// Line and bar colours, in series order (Tableau 10).
const COLOURS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// The colour of series `i`.
fn colour(i: usize) -> RGBColor {
    COLOURS[i % COLOURS.len()]
}

/// Font family of all text.
const FONT: &str = "sans-serif";

/// A drawing error, boxed, while a figure is drawn.
type DrawError = Box<dyn std::error::Error>;

/// The drawing area of a figure.
type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// A chart with real-valued axes on a figure's area (`'c`: its legend entries' lifetime).
type Chart<'c, 's> = ChartContext<'c, SVGBackend<'s>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The range `[lo, hi]` of the finite values, widened by 5 % (and to a unit width when flat);
/// `None` without a finite value.
fn padded_range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let (lo, hi) =
        values.filter(|v| v.is_finite()).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if lo > hi {
        return None;
    }
    let pad = if hi > lo { 0.05 * (hi - lo) } else { 0.5 * lo.abs().max(1e-3) };
    Some((lo - pad, hi + pad))
}

/// Draws the legend of a chart's labelled series.
fn legend<'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, CT>,
    position: SeriesLabelPosition,
) -> std::result::Result<(), DrawError> {
    chart
        .configure_series_labels()
        .position(position)
        .label_font((FONT, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.5))
        .draw()?;
    Ok(())
}

/// The space around a chart and beside its axes, and its caption.
#[derive(Clone, Copy)]
struct Frame<'c> {
    /// Blank space around the chart, pixels.
    margin: u32,
    /// Width of the y-axis labels' area, pixels (the x-axis labels' is 40).
    y_label_area: u32,
    /// Caption above the chart, if any.
    caption: Option<&'c str>,
}

impl<'c> Frame<'c> {
    /// A frame without a caption.
    fn plain(margin: u32, y_label_area: u32) -> Self {
        Frame { margin, y_label_area, caption: None }
    }

    /// A panel's frame: margin 10, y labels 55, and `caption` above.
    fn captioned(caption: &'c str) -> Self {
        Frame { margin: 10, y_label_area: 55, caption: Some(caption) }
    }
}

/// A chart of `x × y` on `area` in `frame`, its axes (described by `(x_desc, y_desc)`, about
/// `x_labels` labels on the x axis), labels and a light grid drawn.
fn framed_chart<'c, 's>(
    area: &Area<'s>,
    frame: Frame,
    (x, y): (Range<f64>, Range<f64>),
    (x_desc, y_desc): (&str, &str),
    x_labels: usize,
) -> std::result::Result<Chart<'c, 's>, DrawError> {
    let mut builder = ChartBuilder::on(area);
    if let Some(caption) = frame.caption {
        builder.caption(caption, (FONT, 15));
    }
    let mut chart = builder
        .margin(frame.margin)
        .x_label_area_size(40)
        .y_label_area_size(frame.y_label_area)
        .build_cartesian_2d(x, y)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_labels(x_labels)
        .light_line_style(BLACK.mix(0.03))
        .label_style((FONT, 12))
        .axis_desc_style((FONT, 14))
        .draw()?;
    Ok(chart)
}

/// A thin dashed black reference line from `from` to `to` (a diagonal, a zero line) at opacity
/// `alpha`.
fn dashed(chart: &mut Chart, from: (f64, f64), to: (f64, f64), alpha: f64) -> std::result::Result<(), DrawError> {
    chart.draw_series(DashedLineSeries::new(vec![from, to], 6, 4, BLACK.mix(alpha).stroke_width(1)))?;
    Ok(())
}

/// Polyline legend mark in `colour`.
fn line_mark(colour: RGBColor) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
}

/// Box legend mark in `style`.
fn box_mark(style: ShapeStyle) -> impl Fn((i32, i32)) -> Rectangle<(i32, i32)> {
    move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], style)
}

impl Figures {
    /// Whether `--plot` was given (to skip preparing data that would not be drawn).
    pub fn enabled(&self) -> bool {
        self.dir.is_some()
    }

    /// Renders `draw` on a `width × height` SVG canvas titled `title` and writes it to
    /// `<DIR>/<example>_<figure>.svg`.
    fn write(
        &self,
        figure: &str,
        (width, height): (u32, u32),
        title: &str,
        draw: impl FnOnce(&Area) -> std::result::Result<(), DrawError>,
    ) -> Result<()> {
        let Some(dir) = &self.dir else { return Ok(()) };
        let name: String = format!("{}_{figure}", self.example)
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' })
            .collect();
        let path = dir.join(format!("{name}.svg"));
        let mut svg = String::new();
        let drawn = (|| -> std::result::Result<(), DrawError> {
            let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
            root.fill(&WHITE)?;
            let body = root.titled(title, (FONT, 18))?;
            draw(&body)?;
            root.present()?;
            Ok(())
        })();
        drawn.map_err(|e| Error::invalid("plot", format!("{}: {e}", path.display())))?;
        write_file(&path, &svg)?;
        eprintln!("wrote {}", path.display());
        Ok(())
    }

    /// Training curves: one panel for the objective and one per recorded metric, each with one
    /// line per run `(name, history)` that recorded it. Writes nothing when no run has a finite
    /// value (e.g. a model loaded, not trained).
    pub fn curves<H: Borrow<History>>(&self, figure: &str, title: &str, runs: &[(&str, H)]) -> Result<()> {
        let mut names = vec!["objective".to_string()];
        for (_, history) in runs {
            for record in &history.borrow().records {
                for (name, _) in &record.metrics {
                    if !names.contains(name) {
                        names.push(name.clone());
                    }
                }
            }
        }
        let panels = names
            .iter()
            .map(|name| Panel {
                y_label: name.clone(),
                series: runs
                    .iter()
                    .map(|(run, history)| Series {
                        name: run.to_string(),
                        points: history
                            .borrow()
                            .records
                            .iter()
                            .filter_map(|r| {
                                let value = if name == "objective" {
                                    Some(r.objective)
                                } else {
                                    r.metrics.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
                                };
                                value.map(|v| (r.epoch as f64, v))
                            })
                            .collect(),
                    })
                    .collect(),
            })
            .collect::<Vec<_>>();
        self.lines(figure, title, "epoch", &panels)
    }

    /// Line charts stacked vertically, one per panel, sharing the x-axis label `x_label`; lines
    /// with few points get a marker at each point. Panels without a finite point are left out,
    /// and nothing is written when none is left.
    pub fn lines(&self, figure: &str, title: &str, x_label: &str, panels: &[Panel]) -> Result<()> {
        let finite = |s: &Series| s.points.iter().filter(|(x, y)| x.is_finite() && y.is_finite()).count();
        let panels: Vec<&Panel> = panels.iter().filter(|p| p.series.iter().any(|s| finite(s) > 0)).collect();
        if !self.enabled() || panels.is_empty() {
            return Ok(());
        }
        let height = 60 + 260 * panels.len() as u32;
        self.write(figure, (900, height), title, |area| {
            for (panel, area) in panels.iter().zip(area.split_evenly((panels.len(), 1))) {
                let points = || {
                    panel.series.iter().flat_map(|s| s.points.iter().filter(|(x, y)| x.is_finite() && y.is_finite()))
                };
                let (x0, x1) = padded_range(points().map(|p| p.0)).unwrap_or((0.0, 1.0));
                let (y0, mut y1) = padded_range(points().map(|p| p.1)).unwrap_or((0.0, 1.0));
                if panel.series.len() > 1 {
                    // headroom for the legend
                    y1 += 0.3 * (y1 - y0);
                }
                let mut chart =
                    framed_chart(&area, Frame::plain(10, 70), (x0..x1, y0..y1), (x_label, panel.y_label.as_str()), 10)?;
                for (i, series) in panel.series.iter().enumerate() {
                    let c = colour(i);
                    let points: Vec<(f64, f64)> =
                        series.points.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
                    if points.is_empty() {
                        continue;
                    }
                    let markers = points.len() <= 60;
                    chart
                        .draw_series(LineSeries::new(points.iter().copied(), c.stroke_width(2)))?
                        .label(series.name.as_str())
                        .legend(line_mark(c));
                    if markers {
                        chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, c.filled())))?;
                    }
                }
                if panel.series.len() > 1 {
                    legend(&mut chart, SeriesLabelPosition::UpperRight)?;
                }
            }
            Ok(())
        })
    }

    /// Reliability diagram of class probabilities (`n × k`, row-major) against `labels`, over
    /// `bins` equal-width confidence bins ([`metrics::reliability`]): per non-empty bin the
    /// accuracy bar, the gap to the bin's mean confidence, the diagonal, and below the points per
    /// bin; the ECE ([`metrics::ece`]) in the title.
    pub fn reliability(
        &self,
        figure: &str,
        title: &str,
        probs: &[f64],
        k: usize,
        labels: &[usize],
        bins: usize,
    ) -> Result<()> {
        if !self.enabled() {
            return Ok(());
        }
        let bins_data = metrics::reliability(probs, k, labels, bins)?;
        let ece = metrics::ece(probs, k, labels, bins)?;
        let title = format!("{title}: ECE {ece:.4} ({bins} bins, n = {})", labels.len());
        self.write(figure, (760, 760), &title, |area| {
            let (top, bottom) = area.split_vertically(480);
            let mut chart = framed_chart(
                &top,
                Frame::plain(10, 60),
                (0.0..1.0, 0.0..1.0),
                ("confidence (largest class probability)", "accuracy"),
                10,
            )?;
            let filled = |b: &&metrics::ReliabilityBin| b.count > 0;
            // the gap's fill first: the opaque accuracy bar hides it where accuracy exceeds
            // confidence, and the mean-confidence line marks it there
            let gap = colour(1).mix(0.3).filled();
            chart
                .draw_series(
                    bins_data
                        .iter()
                        .filter(filled)
                        .map(|b| Rectangle::new([(b.lower, b.accuracy), (b.upper, b.confidence)], gap)),
                )?
                .label("gap to mean confidence")
                .legend(box_mark(gap));
            let bar = RGBColor(110, 165, 205).filled();
            chart
                .draw_series(
                    bins_data
                        .iter()
                        .filter(filled)
                        .map(|b| Rectangle::new([(b.lower, 0.0), (b.upper, b.accuracy)], bar)),
                )?
                .label("accuracy")
                .legend(box_mark(bar));
            chart.draw_series(
                bins_data
                    .iter()
                    .filter(filled)
                    .map(|b| Rectangle::new([(b.lower, 0.0), (b.upper, b.accuracy)], BLACK.stroke_width(1))),
            )?;
            chart
                .draw_series(bins_data.iter().filter(filled).map(|b| {
                    PathElement::new(vec![(b.lower, b.confidence), (b.upper, b.confidence)], colour(1).stroke_width(3))
                }))?
                .label("mean confidence")
                .legend(line_mark(colour(1)));
            chart
                .draw_series(DashedLineSeries::new(vec![(0.0, 0.0), (1.0, 1.0)], 6, 4, BLACK.stroke_width(1)))?
                .label("perfect calibration")
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK));
            legend(&mut chart, SeriesLabelPosition::UpperLeft)?;

            let top_count = bins_data.iter().map(|b| b.count).max().unwrap_or(1).max(1) as f64;
            let mut chart = framed_chart(
                &bottom,
                Frame::plain(10, 60),
                (0.0..1.0, 0.0..top_count * 1.2),
                ("confidence", "points per bin"),
                10,
            )?;
            chart.draw_series(
                bins_data
                    .iter()
                    .filter(filled)
                    .map(|b| Rectangle::new([(b.lower, 0.0), (b.upper, b.count as f64)], colour(7).mix(0.7).filled())),
            )?;
            let count_style = TextStyle::from((FONT, 11).into_font()).pos(Pos::new(HPos::Center, VPos::Bottom));
            chart.draw_series(bins_data.iter().filter(filled).map(|b| {
                let centre = (b.lower + b.upper) / 2.0;
                Text::new(b.count.to_string(), (centre, b.count as f64 + 0.04 * top_count), count_style.clone())
            }))?;
            Ok(())
        })
    }

    /// [`Figures::reliability`] of a binary classifier given the log predictive probability of
    /// each test point's label (`labels` 0 or 1).
    pub fn binary_reliability(
        &self,
        figure: &str,
        title: &str,
        log_density: &[f64],
        labels: &[usize],
        bins: usize,
    ) -> Result<()> {
        if !self.enabled() {
            return Ok(());
        }
        let p_one: Vec<f64> = log_density
            .iter()
            .zip(labels)
            .map(|(l, &y)| {
                let p = l.exp().clamp(0.0, 1.0);
                if y == 1 {
                    p
                } else {
                    1.0 - p
                }
            })
            .collect();
        self.reliability(figure, title, &metrics::binary_probs(&p_one)?, 2, labels, bins)
    }

    /// ROC curves `(name, points)` (e.g. [`metrics::roc_curve`]), each with its area in the
    /// legend, and the chance diagonal.
    pub fn roc(&self, figure: &str, title: &str, curves: &[(String, Vec<(f64, f64)>)]) -> Result<()> {
        if !self.enabled() {
            return Ok(());
        }
        self.write(figure, (720, 680), title, |area| {
            let mut chart = framed_chart(
                area,
                Frame::plain(15, 60),
                (0.0..1.0, 0.0..1.0),
                ("false positive rate", "true positive rate"),
                10,
            )?;
            dashed(&mut chart, (0.0, 0.0), (1.0, 1.0), 0.6)?;
            for (i, (name, points)) in curves.iter().enumerate() {
                let auc: f64 = points.windows(2).map(|w| (w[1].0 - w[0].0) * (w[1].1 + w[0].1) / 2.0).sum();
                let c = colour(i);
                chart
                    .draw_series(LineSeries::new(points.iter().copied(), c.stroke_width(2)))?
                    .label(format!("{name} (AUC {auc:.3})"))
                    .legend(line_mark(c));
            }
            legend(&mut chart, SeriesLabelPosition::LowerRight)
        })
    }

    /// Histograms side by side, one per panel, over equal bins spanning `range`; in each bin the
    /// panel's series stand side by side.
    pub fn histogram(
        &self,
        figure: &str,
        title: &str,
        x_label: &str,
        range: (f64, f64),
        panels: &[HistogramPanel],
    ) -> Result<()> {
        if !self.enabled() || panels.is_empty() {
            return Ok(());
        }
        let width = 80 + 560 * panels.len() as u32;
        self.write(figure, (width, 500), title, |area| {
            for (panel, area) in panels.iter().zip(area.split_evenly((1, panels.len()))) {
                let bins = panel.series.iter().map(|(_, c)| c.len()).max().unwrap_or(1).max(1);
                let top = panel.series.iter().flat_map(|(_, c)| c.iter()).copied().max().unwrap_or(0).max(1) as f64;
                let mut chart = framed_chart(
                    &area,
                    Frame::captioned(panel.caption.as_str()),
                    (range.0..range.1, 0.0..top * 1.15),
                    (x_label, "count"),
                    bins + 1,
                )?;
                let bin_w = (range.1 - range.0) / bins as f64;
                let bar_w = 0.85 * bin_w / panel.series.len().max(1) as f64;
                for (s, (name, counts)) in panel.series.iter().enumerate() {
                    let style = colour(s).mix(0.85).filled();
                    chart
                        .draw_series(counts.iter().enumerate().map(|(b, &c)| {
                            let x0 = range.0 + b as f64 * bin_w + 0.075 * bin_w + s as f64 * bar_w;
                            Rectangle::new([(x0, 0.0), (x0 + bar_w, c as f64)], style)
                        }))?
                        .label(name.as_str())
                        .legend(box_mark(style));
                }
                legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
            }
            Ok(())
        })
    }

    /// Scatter plots side by side over the unit square, one per panel, with the diagonal; each
    /// panel's point sets in the series colours (later sets on top).
    pub fn scatter(&self, figure: &str, title: &str, labels: (&str, &str), panels: &[ScatterPanel]) -> Result<()> {
        if !self.enabled() || panels.is_empty() {
            return Ok(());
        }
        let width = 80 + 560 * panels.len() as u32;
        self.write(figure, (width, 620), title, |area| {
            for (panel, area) in panels.iter().zip(area.split_evenly((1, panels.len()))) {
                let mut chart =
                    framed_chart(&area, Frame::captioned(panel.caption.as_str()), (0.0..1.0, 0.0..1.0), labels, 10)?;
                dashed(&mut chart, (0.0, 0.0), (1.0, 1.0), 0.5)?;
                for (i, (name, points)) in panel.series.iter().enumerate() {
                    let style = colour(i).mix(if i == 0 { 0.35 } else { 0.9 }).filled();
                    chart
                        .draw_series(
                            points
                                .iter()
                                .filter(|(x, y)| x.is_finite() && y.is_finite())
                                .map(|&p| Circle::new(p, 2, style)),
                        )?
                        .label(format!("{name} ({})", points.len()))
                        .legend(move |(x, y)| Circle::new((x + 10, y), 4, style));
                }
                legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
            }
            Ok(())
        })
    }

    /// Scatter plots side by side, one per panel, on axes fitted to the data, each with a dashed
    /// line at `y = 0` and the panel's piecewise-constant fit in green (e.g. a regression tree's
    /// leaf means, as in Fig. 10 of the skew GP paper).
    pub fn scatter_step(&self, figure: &str, title: &str, labels: (&str, &str), panels: &[StepPanel]) -> Result<()> {
        if !self.enabled() || panels.is_empty() {
            return Ok(());
        }
        let width = 80 + 560 * panels.len() as u32;
        self.write(figure, (width, 620), title, |area| {
            for (panel, area) in panels.iter().zip(area.split_evenly((1, panels.len()))) {
                let xs = panel.points.iter().map(|p| p.0).chain(panel.steps.iter().flat_map(|s| [s.0, s.1]));
                let ys = panel.points.iter().map(|p| p.1).chain(panel.steps.iter().map(|s| s.2)).chain([0.0]);
                let (Some(x), Some(y)) = (padded_range(xs), padded_range(ys)) else { continue };
                let mut chart =
                    framed_chart(&area, Frame::captioned(panel.caption.as_str()), (x.0..x.1, y.0..y.1), labels, 10)?;
                dashed(&mut chart, (x.0, 0.0), (x.1, 0.0), 0.5)?;
                let style = colour(0).mix(0.8).filled();
                let finite: Vec<(f64, f64)> =
                    panel.points.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
                chart
                    .draw_series(finite.iter().map(|&p| Circle::new(p, 3, style)))?
                    .label(format!("sets ({})", finite.len()))
                    .legend(move |(x, y)| Circle::new((x + 10, y), 4, style));
                let green = colour(2).stroke_width(3);
                for (k, &(from, to, level)) in panel.steps.iter().enumerate() {
                    let drawn = chart.draw_series(LineSeries::new(vec![(from, level), (to, level)], green))?;
                    if k == 0 {
                        drawn.label("regression tree").legend(line_mark(colour(2)));
                    }
                }
                legend(&mut chart, SeriesLabelPosition::LowerRight)?;
            }
            Ok(())
        })
    }

    /// A 1-D predictive band: `predictions` `(x, mean, standard deviation)` drawn as the mean and
    /// the band mean ± 2σ (sorted by x), over the `observed` `(x, y)` points (at most 3 000 of
    /// them, evenly thinned).
    pub fn band(
        &self,
        figure: &str,
        title: &str,
        (x_label, y_label): (&str, &str),
        observed: &[(f64, f64)],
        predictions: &[(f64, f64, f64)],
    ) -> Result<()> {
        if !self.enabled() || predictions.is_empty() {
            return Ok(());
        }
        let mut pred: Vec<(f64, f64, f64)> = predictions.iter().copied().filter(|p| p.0.is_finite()).collect();
        pred.sort_by(|a, b| a.0.total_cmp(&b.0));
        let stride = observed.len().div_ceil(3000).max(1);
        let shown: Vec<(f64, f64)> = observed.iter().step_by(stride).copied().collect();
        let upper: Vec<(f64, f64)> = pred.iter().map(|&(x, m, s)| (x, m + 2.0 * s)).collect();
        let lower: Vec<(f64, f64)> = pred.iter().rev().map(|&(x, m, s)| (x, m - 2.0 * s)).collect();
        let xs = || shown.iter().map(|p| p.0).chain(pred.iter().map(|p| p.0));
        let ys = || shown.iter().map(|p| p.1).chain(upper.iter().chain(&lower).map(|p| p.1));
        let (x0, x1) = padded_range(xs()).unwrap_or((0.0, 1.0));
        let (y0, y1) = padded_range(ys()).unwrap_or((0.0, 1.0));
        // headroom for the legend
        let y1 = y1 + 0.2 * (y1 - y0);
        let observed_label =
            if stride > 1 { format!("training points (every {stride}th)") } else { "training points".to_string() };
        self.write(figure, (1000, 520), title, |area| {
            let mut chart = framed_chart(area, Frame::plain(15, 60), (x0..x1, y0..y1), (x_label, y_label), 10)?;
            let dots = BLACK.mix(0.35).filled();
            chart
                .draw_series(shown.iter().map(|&p| Circle::new(p, 1, dots)))?
                .label(observed_label.as_str())
                .legend(move |(x, y)| Circle::new((x + 10, y), 3, dots));
            let fill = colour(0).mix(0.25).filled();
            let outline: Vec<(f64, f64)> = upper.iter().chain(&lower).copied().collect();
            chart.draw_series(std::iter::once(Polygon::new(outline, fill)))?.label("mean ± 2σ").legend(box_mark(fill));
            chart
                .draw_series(LineSeries::new(pred.iter().map(|&(x, m, _)| (x, m)), colour(0).stroke_width(2)))?
                .label("predictive mean")
                .legend(line_mark(colour(0)));
            legend(&mut chart, SeriesLabelPosition::UpperRight)
        })
    }
}

/// Writes `text` to `path`.
fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|source| Error::Io { path: path.to_path_buf(), source })
}
