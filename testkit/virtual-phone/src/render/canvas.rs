//! The pixel buffer the renderer draws into, and its primitives: filled and rounded
//! rectangles and circles with anti-aliased edges, triangles, and text through
//! `mobile_screenshot::text` (the project's one text drawer, with its embedded Roboto).

use mobile_screenshot::text::{self, Style};

/// An opaque colour.
pub(crate) type Rgb = [u8; 3];

/// How a text line sits in its box, horizontally.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    Left,
    Center,
}

/// An RGBA8 frame being drawn (always opaque).
pub(crate) struct Canvas {
    pub(crate) w: i32,
    pub(crate) h: i32,
    pub(crate) px: Vec<u8>,
    /// Pixels per dp (density / 160), for sizes given in dp and sp.
    pub(crate) dp: f32,
}

impl Canvas {
    pub(crate) fn new(w: i32, h: i32, dp: f32) -> Canvas {
        let mut px = vec![0u8; (w.max(0) as usize) * (h.max(0) as usize) * 4];
        for p in px.chunks_exact_mut(4) {
            p[3] = 255;
        }
        Canvas { w, h, px, dp }
    }

    /// `v` dp in pixels.
    pub(crate) fn d(&self, v: f32) -> i32 {
        (v * self.dp).round() as i32
    }

    /// A solid rectangle `[l, r) x [t, b)`, clipped.
    pub(crate) fn fill(&mut self, l: i32, t: i32, r: i32, b: i32, c: Rgb) {
        let (l, r) = (l.clamp(0, self.w), r.clamp(0, self.w));
        let (t, b) = (t.clamp(0, self.h), b.clamp(0, self.h));
        if l >= r || t >= b {
            return;
        }
        let row: Vec<u8> = std::iter::repeat_n([c[0], c[1], c[2], 255], (r - l) as usize)
            .flatten()
            .collect();
        for y in t..b {
            let start = ((y * self.w + l) * 4) as usize;
            self.px[start..start + row.len()].copy_from_slice(&row);
        }
    }

    /// Darkens the whole frame by `k` (0 = unchanged, 1 = black): the dim behind a dialog.
    pub(crate) fn dim(&mut self, k: f32) {
        for p in self.px.chunks_exact_mut(4) {
            for v in &mut p[..3] {
                *v = (f32::from(*v) * (1.0 - k)).round() as u8;
            }
        }
    }

    /// Blends `c` at `alpha` (0..=1) onto one pixel, clipped.
    fn blend(&mut self, x: i32, y: i32, c: Rgb, alpha: f32) {
        if x < 0 || y < 0 || x >= self.w || y >= self.h || alpha <= 0.0 {
            return;
        }
        let i = ((y * self.w + x) * 4) as usize;
        let a = alpha.min(1.0);
        for (k, &src) in c.iter().enumerate() {
            let v = f32::from(src) * a + f32::from(self.px[i + k]) * (1.0 - a);
            self.px[i + k] = v.round() as u8;
        }
    }

    /// A rectangle with corners of `radius` pixels, anti-aliased, clipped. A radius of half
    /// the height makes a pill; a square with radius half its side is a circle.
    pub(crate) fn round_rect(&mut self, l: i32, t: i32, r: i32, b: i32, radius: i32, c: Rgb) {
        let radius = radius.clamp(0, ((r - l).min(b - t)) / 2);
        if radius == 0 {
            return self.fill(l, t, r, b, c);
        }
        // Middle band: plain rows; corner rows by each pixel's distance to the arc.
        self.fill(l, t + radius, r, b - radius, c);
        let rad = radius as f32;
        let (cl, cr) = ((l + radius) as f32, (r - radius) as f32);
        let (ct, cb) = ((t + radius) as f32, (b - radius) as f32);
        for y in (t..t + radius).chain(b - radius..b) {
            if y < 0 || y >= self.h {
                continue;
            }
            let py = y as f32 + 0.5;
            let dy = (ct - py).max(py - cb).max(0.0);
            for x in l.max(0)..r.min(self.w) {
                let px = x as f32 + 0.5;
                let dx = (cl - px).max(px - cr).max(0.0);
                let cover = rad - (dx * dx + dy * dy).sqrt() + 0.5;
                self.blend(x, y, c, cover);
            }
        }
    }

    /// A filled circle of radius `r` around `(cx, cy)`.
    pub(crate) fn circle(&mut self, cx: i32, cy: i32, r: i32, c: Rgb) {
        self.round_rect(cx - r, cy - r, cx + r, cy + r, r, c);
    }

    /// A filled triangle, edges smoothed.
    pub(crate) fn triangle(&mut self, p: [(f32, f32); 3], c: Rgb) {
        let edge = |a: (f32, f32), b: (f32, f32), x: f32, y: f32| {
            (b.0 - a.0) * (y - a.1) - (b.1 - a.1) * (x - a.0)
        };
        let area = edge(p[0], p[1], p[2].0, p[2].1);
        if area == 0.0 {
            return;
        }
        let xs = p.map(|q| q.0);
        let ys = p.map(|q| q.1);
        let min = |v: [f32; 3]| v.iter().copied().fold(f32::MAX, f32::min);
        let max = |v: [f32; 3]| v.iter().copied().fold(f32::MIN, f32::max);
        let bbox = (min(xs), min(ys), max(xs), max(ys));
        self.shape(bbox, c, |x, y| {
            [
                edge(p[0], p[1], x, y),
                edge(p[1], p[2], x, y),
                edge(p[2], p[0], x, y),
            ]
            .iter()
            .all(|e| e * area >= 0.0)
        });
    }

    /// A quarter-circle fan of radius `r` with its point at `(x, y)`, opening upwards (the
    /// Wi-Fi symbol).
    pub(crate) fn fan(&mut self, x: f32, y: f32, r: f32, c: Rgb) {
        self.shape((x - r, y - r, x + r, y), c, |px, py| {
            let (dx, dy) = (px - x, y - py);
            dx * dx + dy * dy <= r * r && dy >= dx.abs()
        });
    }

    /// Fills the points of `bbox` (left, top, right, bottom) for which `inside` holds,
    /// with edges smoothed by 4x4 supersampling.
    fn shape(&mut self, bbox: (f32, f32, f32, f32), c: Rgb, inside: impl Fn(f32, f32) -> bool) {
        let (x0, y0) = (bbox.0.floor() as i32, bbox.1.floor() as i32);
        let (x1, y1) = (bbox.2.ceil() as i32, bbox.3.ceil() as i32);
        for y in y0.max(0)..y1.min(self.h) {
            for x in x0.max(0)..x1.min(self.w) {
                let mut hits = 0;
                for sy in 0..4 {
                    for sx in 0..4 {
                        let fx = x as f32 + (sx as f32 + 0.5) / 4.0;
                        let fy = y as f32 + (sy as f32 + 0.5) / 4.0;
                        hits += i32::from(inside(fx, fy));
                    }
                }
                self.blend(x, y, c, hits as f32 / 16.0);
            }
        }
    }

    /// A text style of `sp` scaled pixels in `c`.
    pub(crate) fn style(&self, sp: f32, c: Rgb) -> Style {
        Style::new(sp * self.dp, [c[0], c[1], c[2], 255])
    }

    /// One line of text with its line box's top-left at `(x, y)`; returns its width.
    pub(crate) fn text(&mut self, x: i32, y: i32, style: &Style, s: &str) -> i32 {
        let (w, h) = (self.w as u32, self.h as u32);
        text::draw_styled(&mut self.px, w, h, x, y, style, s).round() as i32
    }

    /// One line of text in the box `[l, r) x [t, b)`: vertically centred, aligned as asked,
    /// shortened with an ellipsis when wider than the box. Returns the right edge drawn.
    pub(crate) fn text_in(
        &mut self,
        (l, t, r, b): (i32, i32, i32, i32),
        style: &Style,
        align: Align,
        s: &str,
    ) -> i32 {
        let s = text::ellipsize(style, s, (r - l) as f32);
        let width = text::measure(style, &s).round() as i32;
        let line = text::line_height(style.px).round() as i32;
        let x = match align {
            Align::Left => l,
            Align::Center => l + ((r - l) - width) / 2,
        };
        let y = t + ((b - t) - line) / 2;
        self.text(x, y, style, &s);
        x + width
    }
}

/// `c` mixed with black by `k` (0 = unchanged, 1 = black).
pub(crate) fn darker(c: Rgb, k: f32) -> Rgb {
    c.map(|v| (f32::from(v) * (1.0 - k)).round() as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(c: &Canvas, x: i32, y: i32) -> [u8; 3] {
        let i = ((y * c.w + x) * 4) as usize;
        [c.px[i], c.px[i + 1], c.px[i + 2]]
    }

    #[test]
    fn shapes_cover_their_insides_and_stay_clipped() {
        let mut c = Canvas::new(60, 40, 1.0);
        c.round_rect(-10, 5, 70, 35, 15, [255, 0, 0]);
        assert_eq!(at(&c, 30, 20), [255, 0, 0]);
        c.circle(30, 20, 8, [0, 255, 0]);
        assert_eq!(at(&c, 30, 20), [0, 255, 0]);
        assert_eq!(at(&c, 0, 0), [0, 0, 0], "outside the rounded corner");
        c.triangle([(50.0, 2.0), (58.0, 2.0), (54.0, 10.0)], [0, 0, 255]);
        assert_eq!(at(&c, 54, 4), [0, 0, 255]);
        c.circle(100, 100, 30, [9, 9, 9]);
        c.fill(-5, -5, 100, 2, [7, 7, 7]);
        assert_eq!(at(&c, 59, 1), [7, 7, 7]);
    }

    #[test]
    fn text_in_centres_and_shortens() {
        let mut c = Canvas::new(200, 40, 1.0);
        let style = c.style(16.0, [255, 255, 255]);
        let right = c.text_in((0, 0, 200, 40), &style, Align::Center, "OK");
        assert!(right > 100 && right < 130, "{right}");
        let right = c.text_in(
            (0, 0, 60, 40),
            &style,
            Align::Left,
            "A very long label indeed",
        );
        assert!(right <= 60, "{right}");
    }
}
