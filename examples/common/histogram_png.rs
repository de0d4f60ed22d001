//! A minimal histogram plot as PNG, without text: panels side by side, each with its series'
//! bars side by side per bin (colours in [`SERIES_COLOURS`] order), bar heights relative to the
//! panel's largest count, and the axes as black lines.
use std::path::Path;

use burn_gp::{Error, Result};

/// Bar colours of series 0, 1, 2, … (red, blue, green, orange).
pub const SERIES_COLOURS: [[u8; 3]; 4] = [[214, 39, 40], [31, 119, 180], [44, 160, 44], [255, 127, 14]];

/// Panel width and height in pixels.
const PANEL: (usize, usize) = (420, 300);

/// Margin around each panel's axes in pixels.
const MARGIN: usize = 30;

/// An RGB image being drawn.
struct Canvas {
    width: usize,
    height: usize,
    rgb: Vec<u8>,
}

impl Canvas {
    /// A white canvas.
    fn new(width: usize, height: usize) -> Self {
        Self { width, height, rgb: vec![255; width * height * 3] }
    }

    /// Fills the rectangle `[x0, x1) × [y0, y1)` (clipped to the canvas).
    fn fill(&mut self, (x0, x1): (usize, usize), (y0, y1): (usize, usize), colour: [u8; 3]) {
        for y in y0..y1.min(self.height) {
            for x in x0..x1.min(self.width) {
                let k = 3 * (y * self.width + x);
                self.rgb[k..k + 3].copy_from_slice(&colour);
            }
        }
    }
}

/// Writes `panels[p][series][bin]` counts as a PNG at `path`.
pub fn write_histogram_png(path: &Path, panels: &[Vec<Vec<usize>>]) -> Result<()> {
    let (pw, ph) = PANEL;
    let mut canvas = Canvas::new(pw * panels.len().max(1), ph);
    let black = [0, 0, 0];
    for (p, series) in panels.iter().enumerate() {
        if series.len() > SERIES_COLOURS.len() {
            return Err(Error::invalid("series", format!("at most {} per panel", SERIES_COLOURS.len())));
        }
        let bins = series.iter().map(Vec::len).max().unwrap_or(0).max(1);
        let top = series.iter().flatten().copied().max().unwrap_or(0).max(1) as f64;
        let (left, bottom) = (p * pw + MARGIN, ph - MARGIN);
        let (plot_w, plot_h) = (pw - 2 * MARGIN, ph - 2 * MARGIN);
        let bin_w = plot_w / bins;
        let bar_w = (bin_w.saturating_sub(2) / series.len().max(1)).max(1);
        for (s, counts) in series.iter().enumerate() {
            for (b, &c) in counts.iter().enumerate() {
                let height = (c as f64 / top * plot_h as f64).round() as usize;
                let x0 = left + b * bin_w + 1 + s * bar_w;
                canvas.fill((x0, x0 + bar_w), (bottom - height, bottom), SERIES_COLOURS[s]);
            }
        }
        canvas.fill((left, left + plot_w), (bottom, bottom + 1), black);
        canvas.fill((left - 1, left), (bottom - plot_h, bottom + 1), black);
        for b in 0..=bins {
            let x = left + b * bin_w;
            canvas.fill((x, x + 1), (bottom, bottom + 4), black);
        }
    }
    encode(path, &canvas)
}

/// Encodes the canvas as an 8-bit RGB PNG file.
fn encode(path: &Path, canvas: &Canvas) -> Result<()> {
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let png_error = |e: png::EncodingError| Error::invalid("png", format!("{}: {e}", path.display()));
    let file = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
    let mut encoder = png::Encoder::new(file, canvas.width as u32, canvas.height as u32);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(png_error)?;
    writer.write_image_data(&canvas.rgb).map_err(png_error)
}
