//! Draws the laid-out screen into RGBA pixels: status and navigation bars, a toolbar in the
//! app's colour, filled boxes per element type, and text as glyph-like blocks derived from each
//! character (so different text gives a different image). Results are cached per screen state.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

use image::ImageEncoder;
use image::codecs::png::{CompressionType, FilterType, PngEncoder};

use crate::layout::{Node, NodeRole};
use crate::state::ElementKind;

/// A rendered frame.
pub struct Frame {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// RGBA_8888, row-major, no padding.
    pub rgba: Vec<u8>,
    png: OnceLock<Vec<u8>>,
}

impl Frame {
    /// A copy of the frame with `fills` painted over it (`[l, t, r, b]`, RGB), clipped.
    pub fn painted(&self, fills: &[([i32; 4], [u8; 3])]) -> Frame {
        let mut rgba = self.rgba.clone();
        let (w, h) = (self.width as i32, self.height as i32);
        for ([l, t, r, b], c) in fills {
            for y in (*t).max(0)..(*b).min(h) {
                for x in (*l).max(0)..(*r).min(w) {
                    let i = ((y * w + x) * 4) as usize;
                    rgba[i..i + 3].copy_from_slice(c);
                    rgba[i + 3] = 255;
                }
            }
        }
        Frame {
            width: self.width,
            height: self.height,
            rgba,
            png: OnceLock::new(),
        }
    }

    /// PNG encoding of the frame (computed once).
    pub fn png(&self) -> &[u8] {
        self.png.get_or_init(|| {
            let mut out = Vec::new();
            let enc =
                PngEncoder::new_with_quality(&mut out, CompressionType::Fast, FilterType::Sub);
            enc.write_image(
                &self.rgba,
                self.width,
                self.height,
                image::ExtendedColorType::Rgba8,
            )
            .expect("encoding an in-memory RGBA buffer cannot fail");
            out
        })
    }
}

/// Per-phone cache of the last frame.
#[derive(Default)]
pub struct RenderCache {
    last: Mutex<Option<(u64, Arc<Frame>)>>,
}

impl RenderCache {
    /// Renders (or reuses) the frame for `root`.
    pub fn get(
        &self,
        root: &Node,
        width: u32,
        height: u32,
        status_h: i32,
        nav_h: i32,
    ) -> Arc<Frame> {
        let mut h = DefaultHasher::new();
        root.hash(&mut h);
        (width, height, status_h, nav_h).hash(&mut h);
        let key = h.finish();
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((k, f)) = last.as_ref()
            && *k == key
        {
            return f.clone();
        }
        let frame = Arc::new(render(root, width, height, status_h, nav_h));
        *last = Some((key, frame.clone()));
        frame
    }
}

type Rgb = [u8; 3];

struct Canvas {
    w: i32,
    h: i32,
    px: Vec<u8>,
}

impl Canvas {
    fn fill(&mut self, l: i32, t: i32, r: i32, b: i32, c: Rgb) {
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

    fn frame(&mut self, l: i32, t: i32, r: i32, b: i32, width: i32, c: Rgb) {
        self.fill(l, t, r, t + width, c);
        self.fill(l, b - width, r, b, c);
        self.fill(l, t, l + width, b, c);
        self.fill(r - width, t, r, b, c);
    }

    /// Text as blocks: one cell per character, a 3x5 pattern from the character's bits.
    fn text(&mut self, s: &str, l: i32, t: i32, r: i32, b: i32, c: Rgb) {
        let cell_h = ((b - t) * 6 / 10).clamp(10, 60);
        let cell_w = cell_h * 6 / 10;
        let dot_w = (cell_w / 3).max(1);
        let dot_h = (cell_h / 5).max(1);
        let top = t + ((b - t) - cell_h) / 2;
        let mut x = l;
        for ch in s.chars() {
            if x + cell_w > r {
                break;
            }
            if !ch.is_whitespace() {
                let bits = (ch as u32).wrapping_mul(2_654_435_761) >> 7 | 0b010_000_000_000_010;
                for k in 0..15 {
                    if bits & (1 << k) != 0 {
                        let (cx, cy) = (k % 3, k / 3);
                        self.fill(
                            x + cx * dot_w,
                            top + cy * dot_h,
                            x + (cx + 1) * dot_w - 1,
                            top + (cy + 1) * dot_h - 1,
                            c,
                        );
                    }
                }
            }
            x += cell_w + cell_w / 4;
        }
    }
}

fn app_colour(package: &str) -> Rgb {
    let mut h = DefaultHasher::new();
    package.hash(&mut h);
    let v = h.finish();
    // Mid-saturation colours so white text stays readable.
    [
        40 + (v & 0x7f) as u8,
        40 + ((v >> 8) & 0x7f) as u8,
        60 + ((v >> 16) & 0x7f) as u8,
    ]
}

fn draw(c: &mut Canvas, n: &Node, accent: Rgb) {
    let [l, t, r, b] = n.bounds;
    match n.role {
        NodeRole::Container => {}
        NodeRole::Toolbar => c.fill(l, t, r, b, accent),
        NodeRole::Title => c.text(&n.text, l, t, r, b, [255, 255, 255]),
        NodeRole::Element(kind) => {
            let pad = ((b - t) / 6).max(2);
            match kind {
                ElementKind::Text => c.text(&n.text, l, t, r, b, [33, 33, 33]),
                ElementKind::ListItem => {
                    c.fill(l, b - 2, r, b, [224, 224, 224]);
                    c.text(&n.text, l + pad, t, r, b, [33, 33, 33]);
                }
                ElementKind::Button => {
                    c.fill(l, t, r, b, if n.enabled { accent } else { [189, 189, 189] });
                    c.text(&n.text, l + pad * 2, t, r - pad, b, [255, 255, 255]);
                }
                ElementKind::EditText => {
                    c.fill(l, t, r, b, [250, 250, 250]);
                    let (bw, bc) = if n.focused {
                        (6, accent)
                    } else {
                        (2, [158, 158, 158])
                    };
                    c.frame(l, t, r, b, bw, bc);
                    let tc = if n.is_hint {
                        [170, 170, 170]
                    } else {
                        [20, 20, 20]
                    };
                    c.text(&n.text, l + pad * 2, t, r - pad, b, tc);
                }
                ElementKind::Switch => {
                    c.text(&n.text, l, t, r - (b - t) * 2, b, [33, 33, 33]);
                    let track = if n.checked { accent } else { [189, 189, 189] };
                    let sw_l = r - (b - t) * 2;
                    c.fill(sw_l, t + pad * 2, r, b - pad * 2, track);
                    let knob_l = if n.checked { r - (b - t) } else { sw_l };
                    c.fill(knob_l, t + pad, knob_l + (b - t), b - pad, [250, 250, 250]);
                    c.frame(
                        knob_l,
                        t + pad,
                        knob_l + (b - t),
                        b - pad,
                        2,
                        [120, 120, 120],
                    );
                }
                ElementKind::Image => c.fill(l, t, r, b, [120, 144, 156]),
                ElementKind::AppIcon => {
                    let icon = ((r - l).min(b - t) * 6 / 10).max(8);
                    let cx = (l + r) / 2;
                    c.fill(
                        cx - icon / 2,
                        t,
                        cx + icon / 2,
                        t + icon,
                        app_colour(&n.content_desc),
                    );
                    c.text(&n.text, l + 8, t + icon, r - 8, b, [255, 255, 255]);
                }
            }
        }
    }
    for ch in &n.children {
        draw(c, ch, accent);
    }
}

/// An all-black frame (the screen is off).
pub fn black(width: u32, height: u32) -> Frame {
    let mut rgba = vec![0u8; (width * height * 4) as usize];
    for px in rgba.chunks_exact_mut(4) {
        px[3] = 255;
    }
    Frame {
        width,
        height,
        rgba,
        png: OnceLock::new(),
    }
}

/// Renders a tree into a new frame.
pub fn render(root: &Node, width: u32, height: u32, status_h: i32, nav_h: i32) -> Frame {
    let (w, h) = (width as i32, height as i32);
    let mut c = Canvas {
        w,
        h,
        px: vec![0; (width * height * 4) as usize],
    };
    let launcher = root.package == crate::state::LAUNCHER_PACKAGE;
    let bg = if launcher {
        [38, 50, 56]
    } else {
        [255, 255, 255]
    };
    c.fill(0, 0, w, h, bg);
    let accent = app_colour(&root.package);
    draw(&mut c, root, accent);
    // System bars drawn last, over the app.
    c.fill(0, 0, w, status_h, [0, 0, 0]);
    c.text("12:00", 24, 0, 200, status_h, [255, 255, 255]);
    c.fill(
        w - 120,
        status_h / 4,
        w - 40,
        status_h * 3 / 4,
        [255, 255, 255],
    );
    c.fill(0, h - nav_h, w, h, [0, 0, 0]);
    c.fill(
        w / 2 - 100,
        h - nav_h / 2 - 4,
        w / 2 + 100,
        h - nav_h / 2 + 4,
        [200, 200, 200],
    );
    Frame {
        width,
        height,
        rgba: c.px,
        png: OnceLock::new(),
    }
}
