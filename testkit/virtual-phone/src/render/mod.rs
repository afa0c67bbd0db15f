//! Draws the laid-out screen into RGBA pixels as a plain Material screen at the phone's
//! density: the app's widgets (`widgets`), then the system's status bar, navigation bar and
//! keyboard over them (`system`), then an alert dialog's window, if one shows, under its dim
//! over all of it (`dialog`), on the primitives of `canvas`. Text is real text, drawn
//! with `mobile_screenshot::text` (Roboto), so what the element list says can be read off
//! the picture. Results are cached per screen state: a screenshot of an unchanged screen
//! costs no drawing.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

use image::ImageEncoder;
use image::codecs::png::{CompressionType, FilterType, PngEncoder};

use crate::layout::{Node, NodeRole};
use crate::state::ElementKind;

mod canvas;
mod dialog;
mod system;
mod widgets;

use canvas::{Canvas, Rgb};

/// A rendered frame.
pub(crate) struct Frame {
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
    pub(crate) fn painted(&self, fills: &[([i32; 4], [u8; 3])]) -> Frame {
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
    pub(crate) fn png(&self) -> &[u8] {
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
pub(crate) struct RenderCache {
    last: Mutex<Option<(u64, Arc<Frame>)>>,
}

impl RenderCache {
    /// Renders (or reuses) the frame for `root`.
    pub(crate) fn get(
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

/// The app's colour: a Material 700 shade chosen by the package name, dark enough for white
/// text on it.
pub(crate) fn app_colour(package: &str) -> Rgb {
    const PALETTE: [Rgb; 10] = [
        [25, 118, 210], // blue
        [48, 63, 159],  // indigo
        [0, 121, 107],  // teal
        [56, 142, 60],  // green
        [81, 45, 168],  // deep purple
        [211, 47, 47],  // red
        [194, 24, 91],  // pink
        [0, 151, 167],  // cyan
        [230, 74, 25],  // deep orange
        [69, 90, 100],  // blue grey
    ];
    let mut h = DefaultHasher::new();
    package.hash(&mut h);
    PALETTE[(h.finish() % PALETTE.len() as u64) as usize]
}

/// The launcher's wallpaper: a dark blue vertical gradient.
fn wallpaper(c: &mut Canvas) {
    let (top, bottom): (Rgb, Rgb) = ([20, 33, 61], [52, 84, 110]);
    for y in 0..c.h {
        let k = y as f32 / c.h.max(1) as f32;
        let row =
            [0, 1, 2].map(|i| (f32::from(top[i]) * (1.0 - k) + f32::from(bottom[i]) * k) as u8);
        c.fill(0, y, c.w, y + 1, row);
    }
}

/// An all-black frame (the screen is off).
pub(crate) fn black(width: u32, height: u32) -> Frame {
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
pub(crate) fn render(root: &Node, width: u32, height: u32, status_h: i32, nav_h: i32) -> Frame {
    let (w, h) = (width as i32, height as i32);
    // The bars are 24 dp high: that gives the density.
    let dp = status_h.max(1) as f32 / 24.0;
    let mut c = Canvas::new(w, h, dp);
    let launcher = root.package == crate::state::LAUNCHER_PACKAGE;
    if launcher {
        wallpaper(&mut c);
    } else {
        c.fill(0, 0, w, h, [255, 255, 255]);
    }
    let accent = app_colour(&root.package);
    widgets::draw(&mut c, root, accent);
    // System parts drawn last, over the app.
    let mut keyboard = false;
    root.walk(&mut |n| {
        keyboard |= n.focused && n.role == NodeRole::Element(ElementKind::EditText);
    });
    if keyboard {
        system::keyboard(&mut c, h - nav_h, accent);
    }
    let (status_bg, nav_bg) = if launcher {
        (None, None)
    } else {
        (Some(canvas::darker(accent, 0.25)), Some([0, 0, 0]))
    };
    system::status_bar(&mut c, status_h, status_bg);
    system::nav_bar(&mut c, h - nav_h, nav_bg);
    for window in root.children.iter().filter(|n| n.role == NodeRole::Dialog) {
        dialog::draw(&mut c, window, accent);
    }
    Frame {
        width,
        height,
        rgba: c.px,
        png: OnceLock::new(),
    }
}
