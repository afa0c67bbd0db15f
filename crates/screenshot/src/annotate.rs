//! Annotated screenshots ("set of marks"): each actionable element's box and its `@ref`
//! drawn onto the scaled image, so what a model sees in the picture names what it can tap.
//!
//! The marks are given in the capture's screen pixels; they are drawn after scaling, at the
//! output's resolution, so lines and labels keep the same weight whatever the capture's
//! size. A box is an outline inside the element's bounds; its label is a small filled tag
//! in a corner of a tall box (the top-right one first, where a row's own text rarely is),
//! and just outside a box too low to hold it clear of its centred text (a button), moved
//! on when it would not fit or would cover another label.
//!
//! ```
//! use mobile_device::{CaptureFormat, Screenshot, ScreenshotOptions};
//! use mobile_screenshot::annotate::{self, Mark};
//! let frame = Screenshot { format: CaptureFormat::Rgba8 { width: 200, height: 400 }, bytes: vec![255; 200 * 400 * 4] };
//! let marks = [Mark { x: 10.0, y: 20.0, width: 100.0, height: 60.0, label: "@e1".into() }];
//! let out = annotate::process_annotated(&frame, &ScreenshotOptions::default(), None, &marks).unwrap();
//! assert_eq!((out.width, out.height), (200, 400));
//! ```

use mobile_device::{Result, Screenshot};

use crate::clip::Region;
use crate::text;
use crate::{ProcessedScreenshot, ScreenshotOptions};

/// The colour of boxes and label tags: a deep pink that plain Material screens do not use.
pub const MARK_COLOUR: [u8; 3] = [214, 0, 118];
/// The colour of label text, on [`MARK_COLOUR`].
pub const LABEL_TEXT_COLOUR: [u8; 3] = [255, 255, 255];

/// One element to mark, in the capture's screen pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
    /// What the tag says, e.g. `@e5`.
    pub label: String,
}

/// The box outline's thickness in output pixels for an image of `size`.
pub fn line_width(size: (u32, u32)) -> u32 {
    (size.0.max(size.1) / 340).max(2)
}

/// The label text's em size in output pixels for an image of `size`: about 1.7% of the
/// longest side (17 px at the default 1024), never under 13 px. Drawn in Roboto Medium,
/// whose heavier strokes survive JPEG at that size.
pub fn label_px(size: (u32, u32)) -> f32 {
    (size.0.max(size.1) as f32 * 0.017).max(13.0)
}

/// The style labels are drawn in at `px`.
fn label_style(px: f32) -> text::Style {
    let [r, g, b] = LABEL_TEXT_COLOUR;
    text::Style::new(px, [r, g, b, 255]).medium()
}

/// Like [`crate::clip::process_clip`] (or [`crate::process()`] without a clip), with
/// `marks` drawn onto the image before it is encoded. Marks are in the capture's screen
/// pixels (not the clip's); those outside the clip are left out.
///
/// # Errors
/// As [`crate::clip::process_clip`].
pub fn process_annotated(
    capture: &Screenshot,
    opts: &ScreenshotOptions,
    clip: Option<Region>,
    marks: &[Mark],
) -> Result<ProcessedScreenshot> {
    let overlay = Overlay {
        marks,
        origin: clip.map_or((0.0, 0.0), |r| (f64::from(r.x), f64::from(r.y))),
    };
    crate::process::render(capture, opts, clip, Some(&overlay))
}

/// Marks to draw over a scaled image whose top-left is `origin` in capture pixels.
pub(crate) struct Overlay<'a> {
    marks: &'a [Mark],
    origin: (f64, f64),
}

/// A rectangle in output pixels, right and bottom exclusive.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Px {
    x0: i64,
    y0: i64,
    x1: i64,
    y1: i64,
}

impl Px {
    fn overlaps(&self, o: &Px) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }
    fn inside(&self, w: i64, h: i64) -> bool {
        self.x0 >= 0 && self.y0 >= 0 && self.x1 <= w && self.y1 <= h
    }
}

impl Overlay<'_> {
    /// Draws onto `rgb` (RGB rows of `size`), which shows `from` capture pixels.
    pub(crate) fn draw(&self, rgb: &mut [u8], size: (u32, u32), from: (u32, u32)) {
        let (w, h) = (i64::from(size.0), i64::from(size.1));
        let fx = f64::from(size.0) / f64::from(from.0.max(1));
        let fy = f64::from(size.1) / f64::from(from.1.max(1));
        let t = i64::from(line_width(size));
        let px = label_px(size);
        let boxes: Vec<(Px, &str)> = self
            .marks
            .iter()
            .filter_map(|m| {
                let b = Px {
                    x0: ((m.x - self.origin.0) * fx).round() as i64,
                    y0: ((m.y - self.origin.1) * fy).round() as i64,
                    x1: ((m.x + m.width - self.origin.0) * fx).round() as i64,
                    y1: ((m.y + m.height - self.origin.1) * fy).round() as i64,
                };
                let b = Px {
                    x0: b.x0.max(0),
                    y0: b.y0.max(0),
                    x1: b.x1.min(w),
                    y1: b.y1.min(h),
                };
                (b.x1 > b.x0 && b.y1 > b.y0).then_some((b, m.label.as_str()))
            })
            .collect();
        for (b, _) in &boxes {
            outline(rgb, w, *b, t);
        }
        let mut placed: Vec<Px> = Vec::new();
        for (b, label) in &boxes {
            let (lw, lh) = tag_size(px, label);
            let tag = place(*b, lw, lh, t, w, h, &placed);
            fill(rgb, w, tag, MARK_COLOUR);
            draw_label(rgb, w, tag, px, label);
            placed.push(tag);
        }
    }
}

/// The tag's size for `label` at `px`: the text and a small padding.
fn tag_size(px: f32, label: &str) -> (i64, i64) {
    let pad = (px * 0.25).ceil() as i64;
    let text_w = text::measure(&label_style(px), label).ceil() as i64;
    let text_h = text::line_height(px).ceil() as i64;
    (text_w + 2 * pad, text_h)
}

/// Where a `lw`×`lh` tag of box `b` goes, the first that fits in the image and covers no
/// tag already placed: inside the top-right, top-left or bottom-right corner when the box
/// is at least three tags tall (a row's or a button's own line of text sits in its middle
/// third, so the tag stays clear of it); otherwise, or when no corner is free, just outside
/// the box, above it (right end, then left end) or below it; inside the top-right corner of
/// a smaller box only when all of those are taken. The top-right corner if none is free.
fn place(b: Px, lw: i64, lh: i64, t: i64, w: i64, h: i64, placed: &[Px]) -> Px {
    let at = |x0: i64, y0: i64| Px {
        x0,
        y0,
        x1: x0 + lw,
        y1: y0 + lh,
    };
    let wide = b.x1 - b.x0 >= lw + 2 * t;
    let fits_inside = wide && b.y1 - b.y0 >= lh + 2 * t;
    let tall = wide && b.y1 - b.y0 >= 3 * lh + 2 * t;
    let mut options = Vec::new();
    if tall {
        options.push(at(b.x1 - lw, b.y0));
        options.push(at(b.x0, b.y0));
        options.push(at(b.x1 - lw, b.y1 - lh));
    }
    let right = (b.x1 - lw).max(b.x0);
    options.push(at(right, b.y0 - lh));
    options.push(at(b.x0, b.y0 - lh));
    options.push(at(right, b.y1));
    options.push(at(b.x0, b.y1));
    if fits_inside && !tall {
        options.push(at(b.x1 - lw, b.y0));
    }
    options
        .iter()
        .copied()
        .find(|o| o.inside(w, h) && !placed.iter().any(|p| p.overlaps(o)))
        .unwrap_or_else(|| {
            let o = at((b.x1 - lw).max(0), b.y0.max(0));
            Px {
                x1: o.x1.min(w),
                y1: o.y1.min(h),
                ..o
            }
        })
}

/// A `t`-pixel outline just inside `b`.
fn outline(rgb: &mut [u8], w: i64, b: Px, t: i64) {
    let t = t.min((b.x1 - b.x0) / 2).min((b.y1 - b.y0) / 2).max(1);
    fill(rgb, w, Px { y1: b.y0 + t, ..b }, MARK_COLOUR);
    fill(rgb, w, Px { y0: b.y1 - t, ..b }, MARK_COLOUR);
    fill(rgb, w, Px { x1: b.x0 + t, ..b }, MARK_COLOUR);
    fill(rgb, w, Px { x0: b.x1 - t, ..b }, MARK_COLOUR);
}

/// Fills `r` (clipped to the image) with `c`.
fn fill(rgb: &mut [u8], w: i64, r: Px, c: [u8; 3]) {
    let h = rgb.len() as i64 / (w * 3).max(1);
    let (x0, x1) = (r.x0.clamp(0, w), r.x1.clamp(0, w));
    let (y0, y1) = (r.y0.clamp(0, h), r.y1.clamp(0, h));
    for y in y0..y1 {
        let row = &mut rgb[(y * w * 3) as usize..((y + 1) * w * 3) as usize];
        for p in row[(x0 * 3) as usize..(x1 * 3) as usize].chunks_exact_mut(3) {
            p.copy_from_slice(&c);
        }
    }
}

/// Writes `label` in [`LABEL_TEXT_COLOUR`] onto the tag `r` (already filled).
fn draw_label(rgb: &mut [u8], w: i64, r: Px, px: f32, label: &str) {
    let (tw, th) = ((r.x1 - r.x0).max(0) as u32, (r.y1 - r.y0).max(0) as u32);
    if tw == 0 || th == 0 {
        return;
    }
    // The tag drawn on its own RGBA buffer (the text module's format), then copied in.
    let mut tag = Vec::with_capacity((tw * th * 4) as usize);
    for _ in 0..tw * th {
        tag.extend_from_slice(&[MARK_COLOUR[0], MARK_COLOUR[1], MARK_COLOUR[2], 255]);
    }
    let pad = (px * 0.25).ceil() as i32;
    text::draw_styled(&mut tag, tw, th, pad, 0, &label_style(px), label);
    let h = rgb.len() as i64 / (w * 3).max(1);
    for ty in 0..i64::from(th) {
        let y = r.y0 + ty;
        if y < 0 || y >= h {
            continue;
        }
        for tx in 0..i64::from(tw) {
            let x = r.x0 + tx;
            if x < 0 || x >= w {
                continue;
            }
            let s = ((ty * i64::from(tw) + tx) * 4) as usize;
            let d = ((y * w + x) * 3) as usize;
            rgb[d..d + 3].copy_from_slice(&tag[s..s + 3]);
        }
    }
}

#[cfg(test)]
mod tests {
    use mobile_device::CaptureFormat;

    use super::*;
    use crate::OutputFormat;

    fn white(w: u32, h: u32) -> Screenshot {
        Screenshot {
            format: CaptureFormat::Rgba8 {
                width: w,
                height: h,
            },
            bytes: vec![255; (w * h * 4) as usize],
        }
    }

    fn near(p: &[u8], c: [u8; 3], tol: i32) -> bool {
        p.iter()
            .zip(c)
            .all(|(a, b)| (i32::from(*a) - i32::from(b)).abs() <= tol)
    }

    #[test]
    fn boxes_are_drawn_at_their_bounds_after_scaling() {
        let cap = white(1080, 2400);
        let marks = [Mark {
            x: 100.0,
            y: 500.0,
            width: 600.0,
            height: 200.0,
            label: "@e1".into(),
        }];
        let opts = ScreenshotOptions {
            max_size: Some(1200),
            scale: None,
            format: OutputFormat::Png,
        };
        let out = process_annotated(&cap, &opts, None, &marks).unwrap();
        assert_eq!((out.width, out.height), (540, 1200));
        let img = image::load_from_memory(&out.bytes).unwrap().into_rgb8();
        // Bounds at half scale: x 50..350, y 250..350; the bottom-left corner region
        // carries no tag.
        for y in [260, 300, 340] {
            assert!(
                near(&img.get_pixel(50, y).0, MARK_COLOUR, 0),
                "left edge at y {y}"
            );
            assert!(
                near(&img.get_pixel(349, y).0, MARK_COLOUR, 0),
                "right edge at y {y}"
            );
            assert!(
                near(&img.get_pixel(49, y).0, [255; 3], 0),
                "outside the box at y {y}"
            );
            assert!(
                near(&img.get_pixel(150, y).0, [255; 3], 0),
                "inside the box at y {y}"
            );
        }
        assert!(near(&img.get_pixel(100, 349).0, MARK_COLOUR, 0));
        assert!(near(&img.get_pixel(100, 250).0, MARK_COLOUR, 0));
    }

    #[test]
    fn a_low_box_keeps_its_tag_outside_and_a_tall_one_inside() {
        let (lw, lh, t) = (30, 16, 2);
        // A button two tags tall: a tag inside would cover the top of its centred label.
        let button = Px {
            x0: 200,
            y0: 300,
            x1: 280,
            y1: 340,
        };
        let tag = place(button, lw, lh, t, 500, 1000, &[]);
        assert!(!tag.overlaps(&button), "{tag:?} is outside {button:?}");
        assert_eq!(
            (tag.x1, tag.y1),
            (button.x1, button.y0),
            "above its right end"
        );
        // A row four tags tall: the tag sits in its top-right corner, above the middle.
        let row = Px {
            x0: 0,
            y0: 500,
            x1: 500,
            y1: 564,
        };
        let tag = place(row, lw, lh, t, 500, 1000, &[]);
        assert_eq!((tag.x1, tag.y0), (row.x1, row.y0), "{tag:?}");
        assert!(tag.y1 <= row.y0 + (row.y1 - row.y0) / 3);
        // At the image's top edge there is no room above: below the box instead.
        let top = Px {
            y0: 0,
            y1: 40,
            ..button
        };
        let tag = place(top, lw, lh, t, 500, 1000, &[]);
        assert_eq!(tag.y0, top.y1, "{tag:?}");
    }

    #[test]
    fn tags_do_not_cover_each_other_and_stay_inside_the_image() {
        let b = Px {
            x0: 20,
            y0: 40,
            x1: 50,
            y1: 50,
        };
        let first = place(b, 40, 16, 2, 100, 100, &[]);
        assert!(first.inside(100, 100));
        let second = place(b, 40, 16, 2, 100, 100, &[first]);
        assert!(
            !second.overlaps(&first) && second.inside(100, 100),
            "{second:?}"
        );
    }

    #[test]
    fn marks_outside_a_clip_are_left_out_and_inside_ones_are_moved() {
        let cap = white(400, 400);
        let marks = [
            Mark {
                x: 110.0,
                y: 110.0,
                width: 50.0,
                height: 50.0,
                label: "@e1".into(),
            },
            Mark {
                x: 300.0,
                y: 300.0,
                width: 50.0,
                height: 50.0,
                label: "@e2".into(),
            },
        ];
        let clip = Region {
            x: 100,
            y: 100,
            width: 100,
            height: 100,
        };
        let opts = ScreenshotOptions {
            max_size: None,
            scale: None,
            format: OutputFormat::Png,
        };
        let out = process_annotated(&cap, &opts, Some(clip), &marks).unwrap();
        let img = image::load_from_memory(&out.bytes).unwrap().into_rgb8();
        assert!(near(&img.get_pixel(10, 40).0, MARK_COLOUR, 0));
        assert!(near(&img.get_pixel(90, 95).0, [255; 3], 0));
    }
}
