//! Text drawing onto RGBA8 pixel buffers, with an embedded font: the one place where the
//! project turns strings into pixels (the test phones' screens, marks drawn on screenshots).
//!
//! The font is Roboto (Regular and Medium), the Material Design typeface, Copyright 2015
//! Google Inc., under the Apache License 2.0, which allows embedding it in a program; the
//! files, their licence text and where they came from are in `crates/screenshot/fonts/`.
//! Roboto is what Android itself draws its UI with, so a screen drawn with it reads as a
//! phone's screen to a person and to a vision model. Characters Roboto lacks (CJK) come,
//! glyph by glyph, from a small subset of Droid Sans Fallback (Apache-2.0 too, Android's
//! CJK font before Noto; its characters and origin are in the same folder's README).
//!
//! The rasterizer is `ab_glyph`: pure Rust (no system libraries, no C build), maintained,
//! and the rasterizer that `imageproc` and `glyph_brush` build on. It gives kerning and
//! coverage-based anti-aliasing through `ttf-parser`, which reads the font in place from the
//! embedded bytes without copying. (`fontdue` was the other candidate; it rasterizes faster
//! but nothing here draws text in a hot loop, and its layout API is larger than needed.)
//!
//! Sizes: `px` is the em size in pixels, as CSS `font-size` or Android's `sp` times the
//! screen density; text drawn at `px = 14.0 * 2.625` on a 1080 px wide screen is Material's
//! 14 sp body text on a Pixel. Positions: `(x, y)` is the top-left corner of the line box
//! (the baseline is [`ascent`] below `y`), so a line sits in `y .. y + line_height(px)`.
//! Drawing is alpha-blended ("source over") and clipped to the buffer; text is one line
//! (a `\n` is not a line break: lay out lines with [`line_height`]).
//!
//! ```
//! use mobile_screenshot::text;
//! let (w, h) = (120u32, 40u32);
//! let mut rgba = vec![255u8; (w * h * 4) as usize];
//! text::draw_text(&mut rgba, w, h, 4, 4, 20.0, [0, 0, 0, 255], "Hello");
//! assert!(rgba.chunks(4).any(|p| p[0] < 128));
//! assert!(text::text_width(20.0, "Hello") < text::text_width(20.0, "Hello, world"));
//! ```

use std::sync::OnceLock;

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};

static REGULAR_TTF: &[u8] = include_bytes!("../fonts/Roboto-Regular.ttf");
static MEDIUM_TTF: &[u8] = include_bytes!("../fonts/Roboto-Medium.ttf");
static FALLBACK_TTF: &[u8] = include_bytes!("../fonts/DroidSansFallback-subset.ttf");

/// Which of the embedded faces to draw with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Weight {
    /// Roboto Regular (400): body text, list rows, text fields.
    #[default]
    Regular,
    /// Roboto Medium (500): Material's titles, buttons and tabs.
    Medium,
}

/// How to draw a run of text: size, colour and face.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Style {
    /// The em size in pixels (see the module doc).
    pub px: f32,
    /// RGBA colour; its alpha multiplies the glyphs' coverage.
    pub color: [u8; 4],
    /// The face.
    pub weight: Weight,
}

impl Style {
    /// Regular text of this size and colour.
    pub fn new(px: f32, color: [u8; 4]) -> Self {
        Style {
            px,
            color,
            weight: Weight::Regular,
        }
    }

    /// The same style in Roboto Medium.
    pub fn medium(self) -> Self {
        Style {
            weight: Weight::Medium,
            ..self
        }
    }
}

fn font(weight: Weight) -> &'static FontRef<'static> {
    static REGULAR: OnceLock<FontRef<'static>> = OnceLock::new();
    static MEDIUM: OnceLock<FontRef<'static>> = OnceLock::new();
    let (cell, bytes) = match weight {
        Weight::Regular => (&REGULAR, REGULAR_TTF),
        Weight::Medium => (&MEDIUM, MEDIUM_TTF),
    };
    // The bytes are the embedded files, checked by the unit tests: parsing cannot fail.
    cell.get_or_init(|| FontRef::try_from_slice(bytes).expect("the embedded Roboto parses"))
}

/// The CJK fallback (a subset of Droid Sans Fallback, one weight), for characters Roboto
/// lacks.
fn fallback() -> &'static FontRef<'static> {
    static FALLBACK: OnceLock<FontRef<'static>> = OnceLock::new();
    FALLBACK.get_or_init(|| {
        FontRef::try_from_slice(FALLBACK_TTF).expect("the embedded Droid Sans Fallback parses")
    })
}

/// Lays out one line of `text` with `style` from a caret at 0: calls `each` with every
/// glyph's font, scale, id and caret position, and returns the advance width. A character
/// Roboto has no glyph for (nor a look-alike) comes from the fallback font when that has
/// it, else it is Roboto's empty box; kerning applies between glyphs of the same font.
fn lay_out(
    style: &Style,
    text: &str,
    mut each: impl FnMut(&'static FontRef<'static>, PxScale, ab_glyph::GlyphId, f32),
) -> f32 {
    let main = font(style.weight);
    let main_scaled = main.as_scaled(scale(main, style.px));
    let mut caret = 0.0;
    let mut prev: Option<(bool, ab_glyph::GlyphId)> = None;
    for c in text.chars() {
        let mut id = glyph(&main_scaled, c);
        let mut from_main = true;
        if id.0 == 0 && fallback().glyph_id(c).0 != 0 {
            id = fallback().glyph_id(c);
            from_main = false;
        }
        let f = if from_main { main } else { fallback() };
        let scaled = f.as_scaled(scale(f, style.px));
        if let Some((was_main, p)) = prev
            && was_main == from_main
        {
            caret += scaled.kern(p, id);
        }
        each(f, scaled.scale(), id, caret);
        caret += scaled.h_advance(id);
        prev = Some((from_main, id));
    }
    caret
}

/// ab_glyph's scale is the ascent-to-descent height; `px` is the em size.
fn scale(font: &FontRef<'_>, px: f32) -> PxScale {
    let units_per_em = font.units_per_em().unwrap_or(1000.0);
    PxScale::from(px.max(0.0) * font.height_unscaled() / units_per_em)
}

/// The glyph for `c`, or for its plain look-alike when the font has none (a non-breaking
/// hyphen as in Apple's "Wi‑Fi", non-breaking spaces).
fn glyph<F: Font, S: ScaleFont<F>>(s: &S, c: char) -> ab_glyph::GlyphId {
    let id = s.glyph_id(c);
    if id.0 != 0 {
        return id;
    }
    match c {
        '\u{2010}' | '\u{2011}' => s.glyph_id('-'),
        '\u{00a0}' | '\u{202f}' | '\u{2007}' => s.glyph_id(' '),
        _ => id,
    }
}

/// Distance from the top of the line box to the baseline, in pixels, at em size `px`.
pub fn ascent(px: f32) -> f32 {
    let f = font(Weight::Regular);
    f.as_scaled(scale(f, px)).ascent()
}

/// Height of one line (ascent + descent + line gap), in pixels, at em size `px`: the distance
/// from one line's top to the next one's.
pub fn line_height(px: f32) -> f32 {
    let f = font(Weight::Regular);
    let s = f.as_scaled(scale(f, px));
    s.ascent() - s.descent() + s.line_gap()
}

/// Advance width of `text` in Roboto Regular at em size `px`, in pixels.
pub fn text_width(px: f32, text: &str) -> f32 {
    measure(&Style::new(px, [0; 4]), text)
}

/// Advance width of `text` drawn with `style`, in pixels.
pub fn measure(style: &Style, text: &str) -> f32 {
    lay_out(style, text, |_, _, _, _| {})
}

/// The longest prefix of `text` (ending at a character boundary) whose width with `style`,
/// plus an ellipsis, fits in `max_width`; `text` itself if it fits. For labels in fixed boxes.
pub fn ellipsize(style: &Style, text: &str, max_width: f32) -> String {
    if measure(style, text) <= max_width {
        return text.to_string();
    }
    let budget = max_width - measure(style, "…");
    let mut end = 0;
    for (i, c) in text.char_indices() {
        if measure(style, &text[..i + c.len_utf8()]) > budget {
            break;
        }
        end = i + c.len_utf8();
    }
    format!("{}…", text[..end].trim_end())
}

/// Draws one line of Roboto Regular text with its line box's top-left at `(x, y)` onto an
/// RGBA8 buffer of `width` x `height` pixels (row-major, 4 bytes a pixel), alpha-blended and
/// clipped. Returns the advance width drawn, in pixels. A buffer shorter than
/// `width * height * 4` bytes is drawn as far as it goes.
#[allow(clippy::too_many_arguments)]
pub fn draw_text(
    rgba: &mut [u8],
    width: u32,
    height: u32,
    x: i32,
    y: i32,
    px: f32,
    color: [u8; 4],
    text: &str,
) -> f32 {
    draw_styled(rgba, width, height, x, y, &Style::new(px, color), text)
}

/// [`draw_text`] with a [`Style`] (size, colour, face).
pub fn draw_styled(
    rgba: &mut [u8],
    width: u32,
    height: u32,
    x: i32,
    y: i32,
    style: &Style,
    text: &str,
) -> f32 {
    let main = font(style.weight);
    let baseline = y as f32 + main.as_scaled(scale(main, style.px)).ascent();
    lay_out(style, text, |f, scale, id, caret| {
        let glyph = id.with_scale_and_position(scale, point(x as f32 + caret, baseline));
        let Some(outline) = f.outline_glyph(glyph) else {
            return; // a space, or a character the font lacks a drawing for
        };
        let bounds = outline.px_bounds();
        let (left, top) = (bounds.min.x as i64, bounds.min.y as i64);
        outline.draw(|gx, gy, coverage| {
            let (px_x, px_y) = (left + i64::from(gx), top + i64::from(gy));
            if px_x < 0 || px_y < 0 || px_x >= i64::from(width) || px_y >= i64::from(height) {
                return;
            }
            let at = ((px_y as usize) * width as usize + px_x as usize) * 4;
            if let Some(pixel) = rgba.get_mut(at..at + 4) {
                blend(pixel, style.color, coverage);
            }
        });
    })
}

/// [`draw_styled`] onto an `image::RgbaImage`.
pub fn draw_on_image(
    image: &mut image::RgbaImage,
    x: i32,
    y: i32,
    style: &Style,
    text: &str,
) -> f32 {
    let (width, height) = image.dimensions();
    draw_styled(image.as_mut(), width, height, x, y, style, text)
}

/// Source-over blend of `color` at `coverage` (0..=1) onto one RGBA8 pixel.
fn blend(pixel: &mut [u8], color: [u8; 4], coverage: f32) {
    let a = coverage.clamp(0.0, 1.0) * f32::from(color[3]) / 255.0;
    if a <= 0.0 {
        return;
    }
    let dst_a = f32::from(pixel[3]) / 255.0;
    let out_a = a + dst_a * (1.0 - a);
    for i in 0..3 {
        let src = f32::from(color[i]);
        let dst = f32::from(pixel[i]);
        let v = (src * a + dst * dst_a * (1.0 - a)) / out_a;
        pixel[i] = v.round().clamp(0.0, 255.0) as u8;
    }
    pixel[3] = (out_a * 255.0).round().clamp(0.0, 255.0) as u8;
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLACK: [u8; 4] = [0, 0, 0, 255];

    fn white(w: u32, h: u32) -> Vec<u8> {
        vec![255; (w * h * 4) as usize]
    }

    /// Bounding box (x0, y0, x1, y1) of the pixels darker than mid-grey.
    fn inked(rgba: &[u8], w: u32) -> Option<(u32, u32, u32, u32)> {
        let mut b: Option<(u32, u32, u32, u32)> = None;
        for (i, p) in rgba.chunks(4).enumerate() {
            if p[0] < 128 {
                let (x, y) = (i as u32 % w, i as u32 / w);
                b = Some(match b {
                    None => (x, y, x, y),
                    Some((x0, y0, x1, y1)) => (x0.min(x), y0.min(y), x1.max(x), y1.max(y)),
                });
            }
        }
        b
    }

    #[test]
    fn both_embedded_faces_parse() {
        for w in [Weight::Regular, Weight::Medium] {
            assert!(font(w).glyph_id('A').0 != 0, "{w:?} has a glyph for A");
        }
    }

    #[test]
    fn draws_ink_inside_the_line_box_where_asked() {
        let (w, h) = (200, 60);
        let mut rgba = white(w, h);
        let advance = draw_text(&mut rgba, w, h, 30, 10, 24.0, BLACK, "Settings");
        let (x0, y0, x1, y1) = inked(&rgba, w).expect("text was drawn");
        assert!((30..34).contains(&x0), "starts at x = 30: {x0}");
        assert!(
            y0 >= 10 && (y1 as f32) < 10.0 + line_height(24.0),
            "in the line box: {y0}..{y1}"
        );
        assert!(
            (x1 as f32) <= 30.0 + advance + 1.0,
            "ends within the advance {advance}: {x1}"
        );
        // Cap height of Roboto is about 0.71 em: "S" spans most of that.
        assert!(
            (y1 - y0) as f32 > 0.6 * 24.0,
            "glyphs are of the size asked: {y0}..{y1}"
        );
    }

    #[test]
    fn clips_at_every_edge_without_panicking() {
        let (w, h) = (40, 20);
        for (x, y) in [
            (-30, 0),
            (25, 0),
            (0, -15),
            (0, 12),
            (-1000, -1000),
            (1000, 1000),
        ] {
            let mut rgba = white(w, h);
            draw_text(&mut rgba, w, h, x, y, 24.0, BLACK, "Wide text here");
            assert_eq!(rgba.len(), (w * h * 4) as usize);
        }
        // Half off the left edge: the visible part is the same pixels as columns 10.. of
        // the text drawn whole, and nothing wraps onto the row above.
        let mut clipped = white(w, h);
        draw_text(&mut clipped, w, h, -10, 0, 16.0, BLACK, "HHHH");
        let wide = 60;
        let mut whole = white(wide, h);
        draw_text(&mut whole, wide, h, 0, 0, 16.0, BLACK, "HHHH");
        for row in 0..h as usize {
            let got = &clipped[row * w as usize * 4..(row + 1) * w as usize * 4];
            let want =
                &whole[(row * wide as usize + 10) * 4..(row * wide as usize + 10 + w as usize) * 4];
            assert_eq!(got, want, "row {row}");
        }
        assert!(inked(&clipped, w).is_some());
        // A short buffer is drawn as far as it goes.
        let mut short = vec![255u8; 10];
        draw_text(&mut short, w, h, 0, 0, 16.0, BLACK, "H");
    }

    #[test]
    fn width_grows_with_text_and_size() {
        let a = text_width(16.0, "Wi-Fi");
        assert!(a > 0.0);
        assert!(text_width(16.0, "Wi-Fi and more") > a);
        assert!(text_width(32.0, "Wi-Fi") > 1.9 * a);
        assert_eq!(text_width(16.0, ""), 0.0);
        let regular = Style::new(20.0, BLACK);
        assert!(measure(&regular.medium(), "Network") >= measure(&regular, "Network"));
        assert!(line_height(20.0) > ascent(20.0) && ascent(20.0) > 0.0);
    }

    #[test]
    fn blends_with_the_colour_alpha_over_the_background() {
        let (w, h) = (60, 30);
        let mut rgba = vec![0u8; (w * h * 4) as usize];
        for p in rgba.chunks_mut(4) {
            p.copy_from_slice(&[0, 0, 255, 255]);
        }
        draw_text(&mut rgba, w, h, 2, 2, 24.0, [255, 0, 0, 128], "III");
        let darkest = rgba.chunks(4).map(|p| p[0]).max().unwrap();
        assert!(
            (120..=136).contains(&darkest),
            "half-transparent red over blue: {darkest}"
        );
        assert!(
            rgba.chunks(4).all(|p| p[3] == 255),
            "an opaque background stays opaque"
        );
    }

    #[test]
    fn ellipsize_keeps_short_text_and_cuts_long_text_to_fit() {
        let style = Style::new(16.0, BLACK);
        assert_eq!(ellipsize(&style, "Short", 200.0), "Short");
        let cut = ellipsize(&style, "A rather long label for a narrow box", 80.0);
        assert!(cut.ends_with('…') && measure(&style, &cut) <= 80.0, "{cut}");
    }

    #[test]
    fn look_alikes_stand_in_for_missing_characters() {
        let f = font(Weight::Regular);
        let s = f.as_scaled(scale(f, 16.0));
        for c in ['\u{2011}', '\u{00a0}', '\u{202f}'] {
            assert_ne!(glyph(&s, c).0, 0, "{c:?} has a glyph or a stand-in");
        }
        let ratio = text_width(16.0, "Wi\u{2011}Fi") / text_width(16.0, "Wi-Fi");
        assert!((0.9..1.1).contains(&ratio), "{ratio}");
    }

    /// The ink of `text` drawn alone at 40 px, as a black-and-white mask.
    fn mask(text: &str) -> Vec<bool> {
        let (w, h) = (120u32, 60u32);
        let mut rgba = white(w, h);
        draw_text(&mut rgba, w, h, 4, 4, 40.0, BLACK, text);
        rgba.chunks(4).map(|p| p[0] < 128).collect()
    }

    #[test]
    fn cjk_comes_from_the_fallback_glyph_by_glyph() {
        // Roboto has no Han glyph: without the fallback these would be its empty box.
        for c in "示例世界你好日本語".chars() {
            assert_eq!(font(Weight::Regular).glyph_id(c).0, 0, "{c}");
            assert_ne!(fallback().glyph_id(c).0, 0, "{c}");
        }
        // U+E000 is in neither font: it draws Roboto's .notdef box.
        let notdef = mask("\u{e000}");
        assert!(notdef.iter().any(|&p| p), "the box is drawn");
        let shi = mask("示");
        let li = mask("例");
        assert!(shi.iter().filter(|&&p| p).count() > 30);
        assert_ne!(shi, notdef, "示 is a glyph, not the box");
        assert_ne!(li, notdef, "例 is a glyph, not the box");
        assert_ne!(shi, li);
        // A Han character is one em wide; Latin around it still comes from Roboto.
        let em = text_width(40.0, "示");
        assert!((em - 40.0).abs() < 2.0, "{em}");
        assert!(
            (text_width(40.0, "a示b") - (text_width(40.0, "ab") + em)).abs() < 2.0,
            "mixed text adds up"
        );
    }

    #[test]
    fn draws_on_an_image() {
        let mut img = image::RgbaImage::from_pixel(50, 30, image::Rgba([255; 4]));
        draw_on_image(&mut img, 2, 2, &Style::new(20.0, BLACK).medium(), "OK");
        assert!(img.pixels().any(|p| p.0[0] < 64));
    }
}
