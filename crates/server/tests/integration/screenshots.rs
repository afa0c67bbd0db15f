//! Screenshot regions, annotated screenshots and screenshots in batches, end to end on the
//! virtual Android phone (built binary over stdio, real adb server on a private port).
//!
//! - `clip`: the region's pixels equal the same region cropped from a full PNG screenshot.
//! - `annotate`: every actionable element of the list returned with it has its box drawn
//!   at its bounds (mapped to screenshot pixels), and OCR (`tesseract`) reads back at least
//!   [`MIN_REF_SHARE`] of their ref labels.
//! - batches: a screenshot step returns its image, and a `delay` step waits at least its
//!   duration (a lower bound, not a timing benchmark).

use std::path::Path;
use std::time::{Duration, Instant};

use base64::Engine;
use image::RgbImage;
use mobile_screenshot::annotate::MARK_COLOUR;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Value, json};
use test_support::text_of;

use crate::gestures::{Rig, rig};

const DEADLINE: Duration = Duration::from_secs(300);
/// Set to a folder to keep the annotated screenshots there (for looking at a failure).
const SAVE_ENV: &str = "MOBILE_MCP_SHOTS_SAVE_DIR";
/// The share of the drawn ref labels that OCR must read back.
const MIN_REF_SHARE: f64 = 0.90;

fn images(r: &CallToolResult) -> Vec<RgbImage> {
    r.content
        .iter()
        .filter_map(|c| match c {
            ContentBlock::Image(i) => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(&i.data)
                    .unwrap();
                Some(image::load_from_memory(&bytes).unwrap().into_rgb8())
            }
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clip_is_the_region_of_the_full_screenshot() {
    tokio::time::timeout(DEADLINE, async {
        let Rig {
            mcp,
            phone,
            serial,
            _adb,
        } = rig().await;
        let dev = json!(serial);
        let tmp = tempfile::Builder::new()
            .tempdir_in(std::env::temp_dir())
            .unwrap();
        let full = tmp.path().join("full.png");
        let part = tmp.path().join("part.png");
        mcp.ok(
            "mobile_save_screenshot",
            json!({"device": dev, "saveTo": full.display().to_string()}),
        )
        .await;
        let rect = json!({"x": 100, "y": 300, "width": 400, "height": 250});
        let t = mcp
            .ok(
                "mobile_save_screenshot",
                json!({"device": dev, "saveTo": part.display().to_string(), "clip": rect}),
            )
            .await;
        assert!(t.contains("add 100 to its x and 300 to its y"), "{t}");
        let full = image::open(&full).unwrap().into_rgb8();
        let part = image::open(&part).unwrap().into_rgb8();
        assert_eq!(part.dimensions(), (400, 250));
        let want = image::imageops::crop_imm(&full, 100, 300, 400, 250).to_image();
        assert!(
            part == want,
            "the clip's pixels differ from the crop of the full screenshot"
        );

        // Returned as JPEG: full detail (not scaled to the 1024 default's factor), close
        // to the crop.
        let r = mcp
            .call(
                "mobile_take_screenshot",
                json!({"device": dev, "clip": rect}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        let shot = images(&r).remove(0);
        assert_eq!(shot.dimensions(), (400, 250));
        let diff: f64 = shot
            .pixels()
            .zip(want.pixels())
            .map(|(a, b)| {
                a.0.iter()
                    .zip(b.0)
                    .map(|(x, y)| (i32::from(*x) - i32::from(y)).abs() as f64)
                    .sum::<f64>()
            })
            .sum::<f64>()
            / (400.0 * 250.0 * 3.0);
        assert!(diff < 6.0, "mean JPEG difference {diff:.2}");

        // A ref clips to that element's bounds.
        let r = mcp
            .call(
                "mobile_list_elements_on_screen",
                json!({"device": dev, "format": "json"}),
            )
            .await;
        let els = r.structured_content.unwrap()["elements"]
            .as_array()
            .unwrap()
            .clone();
        let e = els
            .iter()
            .find(|e| {
                let c = &e["coordinates"];
                (51..1000).contains(&c["width"].as_i64().unwrap())
                    && (11..1000).contains(&c["height"].as_i64().unwrap())
            })
            .unwrap();
        let r = mcp
            .call(
                "mobile_take_screenshot",
                json!({"device": dev, "clip": e["ref"]}),
            )
            .await;
        let c = &e["coordinates"];
        assert_eq!(
            images(&r)[0].dimensions(),
            (
                c["width"].as_u64().unwrap() as u32,
                c["height"].as_u64().unwrap() as u32
            )
        );
        assert!(
            text_of(&r).contains(&format!("at ({}, {})", c["x"], c["y"])),
            "{}",
            text_of(&r)
        );

        // Empty and off-screen clips are refused before anything is captured.
        let before = phone.shell_commands().len();
        for (clip, want) in [
            (
                json!({"x": 2000, "y": 0, "width": 10, "height": 10}),
                "outside the screen",
            ),
            (json!({"x": 10, "y": 10, "width": 0, "height": 10}), "empty"),
        ] {
            let r = mcp
                .call(
                    "mobile_take_screenshot",
                    json!({"device": dev, "clip": clip}),
                )
                .await;
            assert_eq!(r.is_error, Some(true));
            assert!(text_of(&r).contains(want), "{}", text_of(&r));
        }
        // Each refusal needed the capture to know the screen's size: one screencap each.
        assert!(phone.shell_commands().len() - before <= 2);
        assert!(phone.injections().is_empty());
    })
    .await
    .expect("bounded");
}

/// Whether a pixel is the mark colour, with room for JPEG's rounding and its halved
/// colour resolution (a thin line blends with what is beside it): its hue, strongly.
fn is_mark(p: &image::Rgb<u8>) -> bool {
    let [r, g, b] = p.0.map(i32::from);
    let [mr, mg, mb] = MARK_COLOUR.map(i32::from);
    (r - g) > (mr - mg) / 2 && (b - g) > (mb - mg) / 3 && r > b
}

/// Whether the mark colour is at `(x, y)` or a pixel beside it.
fn mark_near(img: &RgbImage, x: u32, y: u32) -> bool {
    let (w, h) = img.dimensions();
    (x.saturating_sub(1)..=(x + 1).min(w - 1))
        .any(|x| (y.saturating_sub(1)..=(y + 1).min(h - 1)).any(|y| is_mark(img.get_pixel(x, y))))
}

/// The same rule the server marks by, over the JSON element list.
fn actionable(e: &Value) -> bool {
    let ty = e["type"].as_str().unwrap_or_default();
    let short = ty.rsplit('.').next().unwrap_or(ty);
    e["enabled"] != false
        && e["coordinates"]["width"].as_i64() > Some(0)
        && e["coordinates"]["height"].as_i64() > Some(0)
        && (e["clickable"] == true
            || ["Button", "EditText", "Switch", "CheckBox", "ImageButton"]
                .iter()
                .any(|k| short.ends_with(k)))
}

/// Keeps only the white text on the pink tags (as black on white), 3x, for the OCR.
fn tag_text(img: &RgbImage) -> image::GrayImage {
    let (w, h) = img.dimensions();
    let pink = |x: i64, y: i64| {
        x >= 0
            && y >= 0
            && x < w as i64
            && y < h as i64
            && is_mark(img.get_pixel(x as u32, y as u32))
    };
    let near = |x: i64, y: i64, dx: i64, dy: i64| (1..=10).any(|k| pink(x + dx * k, y + dy * k));
    let out = image::GrayImage::from_fn(w, h, |x, y| {
        let p = img.get_pixel(x, y);
        let (x, y) = (x as i64, y as i64);
        let light = p.0[1] > 110;
        let on_tag = near(x, y, -1, 0) && near(x, y, 1, 0) && near(x, y, 0, -1) && near(x, y, 0, 1);
        image::Luma([if light && on_tag { 0 } else { 255 }])
    });
    image::imageops::resize(&out, w * 3, h * 3, image::imageops::FilterType::Triangle)
}

/// Runs of indices where `ink` holds, joined over gaps shorter than `gap`.
fn runs(n: u32, gap: u32, ink: impl Fn(u32) -> bool) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for i in (0..n).filter(|i| ink(*i)) {
        match out.last_mut() {
            Some((_, end)) if i - *end <= gap => *end = i,
            _ => out.push((i, i)),
        }
    }
    out
}

/// Each tag's text cut out (with a white margin), 3x: found on the output of
/// [`tag_text`], cut from the smooth image where the tag's pink is white and its white text
/// dark (the inverted green channel, which the two differ in most).
fn tag_crops(img: &RgbImage) -> Vec<image::GrayImage> {
    let mask = tag_text(img);
    let (w, h) = mask.dimensions();
    let smooth = image::GrayImage::from_fn(img.width(), img.height(), |x, y| {
        image::Luma([255 - img.get_pixel(x, y).0[1]])
    });
    let smooth = image::imageops::resize(&smooth, w, h, image::imageops::FilterType::CatmullRom);
    let dark = |x: u32, y: u32| mask.get_pixel(x, y).0[0] < 128;
    let mut crops = Vec::new();
    for (y0, y1) in runs(h, 6, |y| (0..w).any(|x| dark(x, y))) {
        for (x0, x1) in runs(w, 40, |x| (y0..=y1).any(|y| dark(x, y))) {
            let (x0, y0) = (x0.saturating_sub(4), y0.saturating_sub(4));
            // Little margin below: a small element's own text starts just under its tag.
            let (cw, ch) = ((x1 + 4).min(w - 1) - x0 + 1, (y1 + 1).min(h - 1) - y0 + 1);
            let m = 20;
            let mut c = image::GrayImage::from_pixel(cw + 2 * m, ch + 2 * m, image::Luma([255]));
            let part = image::imageops::crop_imm(&smooth, x0, y0, cw, ch).to_image();
            image::imageops::replace(&mut c, &part, i64::from(m), i64::from(m));
            crops.push(c);
        }
    }
    crops
}

/// `tesseract PNG stdout --psm 7` (one line of text) over the characters of a ref.
async fn ocr_line(png: &Path) -> String {
    let run = tokio::process::Command::new("tesseract")
        .arg(png)
        .arg("stdout")
        .args(["--psm", "7"])
        // Labels are refs: `@e` and digits.
        .args(["-c", "tessedit_char_whitelist=@e0123456789"])
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("tesseract within a minute")
        .expect("tesseract (Debian package tesseract-ocr) is installed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn annotated_screenshots_box_every_actionable_element_with_a_legible_ref() {
    tokio::time::timeout(DEADLINE, async {
        let Rig {
            mcp,
            phone,
            serial,
            _adb,
        } = rig().await;
        let dev = json!(serial);
        let tmp = tempfile::Builder::new()
            .tempdir_in(std::env::temp_dir())
            .unwrap();
        let mut read = 0usize;
        let mut drawn = 0usize;
        // Two apps' first screens, and an alert dialog (Notes › Settings › Delete all notes)
        // whose buttons are the only actionable elements while it shows.
        let screens: [(&str, &str, &[&str]); 3] = [
            ("settings", "com.android.settings", &[]),
            ("notes", "com.example.notes", &[]),
            (
                "notes-dialog",
                "com.example.notes",
                &["Settings", "Delete all notes"],
            ),
        ];
        for (app, package, taps) in screens {
            mcp.ok(
                "mobile_launch_app",
                json!({"device": dev, "packageName": package}),
            )
            .await;
            for label in taps {
                let (x, y) = phone
                    .element_center(label)
                    .unwrap_or_else(|| panic!("no {label} on screen"));
                mcp.ok(
                    "mobile_click_on_screen_at_coordinates",
                    json!({"device": dev, "x": x, "y": y}),
                )
                .await;
            }
            assert_eq!(phone.state().dialog().is_some(), !taps.is_empty());
            let r = mcp
                .call(
                    "mobile_list_elements_on_screen",
                    json!({"device": dev, "format": "json"}),
                )
                .await;
            let els = r.structured_content.unwrap()["elements"]
                .as_array()
                .unwrap()
                .clone();
            let r = mcp
                .call(
                    "mobile_take_screenshot",
                    json!({"device": dev, "annotate": true}),
                )
                .await;
            assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
            // The mapping, the image, and the element list the marks were drawn from.
            assert!(matches!(r.content[1], ContentBlock::Image(_)));
            let ContentBlock::Text(list) = &r.content[2] else {
                panic!("no element list")
            };
            let img = images(&r).remove(0);
            if let Ok(dir) = std::env::var(SAVE_ENV) {
                img.save(Path::new(&dir).join(format!("annotated-{app}.png")))
                    .unwrap();
            }
            let f = f64::from(img.width()) / 1080.0;
            let marked: Vec<&Value> = els.iter().filter(|e| actionable(e)).collect();
            assert!(!marked.is_empty());
            for e in &marked {
                let reference = e["ref"].as_str().unwrap();
                assert!(
                    list.text.contains(&format!("\n{reference} ")),
                    "{reference} not listed"
                );
                let c = &e["coordinates"];
                let n = |k: &str| c[k].as_f64().unwrap();
                let (x0, y0) = ((n("x") * f).round() as u32, (n("y") * f).round() as u32);
                let x1 = (((n("x") + n("width")) * f).round() as u32).min(img.width()) - 1;
                let y1 = (((n("y") + n("height")) * f).round() as u32).min(img.height()) - 1;
                // The left and bottom edges (the tag sits at a top corner), sampled.
                let mut hits = 0;
                let mut total = 0;
                for k in 1..10 {
                    let y = y0 + (y1 - y0) * k / 10;
                    let x = x0 + (x1 - x0) * k / 10;
                    for (px, py) in [(x0, y), (x1, y), (x, y1)] {
                        total += 1;
                        hits += usize::from(mark_near(&img, px, py));
                    }
                }
                assert!(
                    hits * 10 >= total * 9,
                    "{reference} box at {c}: {hits}/{total} edge pixels marked"
                );
            }
            let mut text = String::new();
            for (i, crop) in tag_crops(&img).iter().enumerate() {
                let path = tmp.path().join(format!("{app}-{i}.png"));
                crop.save(&path).unwrap();
                if let Ok(dir) = std::env::var(SAVE_ENV) {
                    crop.save(Path::new(&dir).join(format!("{app}-{i}.png")))
                        .unwrap();
                }
                text.push_str(&ocr_line(&path).await.to_ascii_lowercase());
                text.push(' ');
            }
            let tokens: Vec<String> = text
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|t| !t.is_empty())
                .map(str::to_string)
                .collect();
            for e in &marked {
                let want = e["ref"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches('@')
                    .to_string();
                drawn += 1;
                read += usize::from(tokens.contains(&want));
            }
            println!("{app}: OCR read {:?}", tokens);
        }
        let share = read as f64 / drawn as f64;
        println!(
            "ref labels read back: {read}/{drawn} ({:.0}%)",
            share * 100.0
        );
        assert!(
            share >= MIN_REF_SHARE,
            "OCR read {read} of {drawn} ref labels"
        );
        assert!(phone.injections().is_empty());
    })
    .await
    .expect("bounded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_returns_its_screenshot_and_waits_its_delay() {
    tokio::time::timeout(DEADLINE, async {
        let Rig {
            mcp,
            phone,
            serial,
            _adb,
        } = rig().await;
        let dev = json!(serial);
        let started = Instant::now();
        let r = mcp
            .call(
                "mobile_batch_commands",
                json!({"device": dev, "steps": [
                    {"name": "mobile_press_button", "arguments": {"button": "HOME"}},
                    {"name": "delay", "arguments": {"duration": 400}},
                    {"name": "mobile_take_screenshot", "arguments": {"maxSize": 600}},
                    {"name": "mobile_get_orientation"},
                ]}),
            )
            .await;
        let took = started.elapsed();
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        assert!(took >= Duration::from_millis(400), "{took:?}");
        // Text of steps 1-3, the image, then the text of step 4.
        assert_eq!(r.content.len(), 3, "{:?}", r.content);
        let ContentBlock::Text(first) = &r.content[0] else {
            panic!()
        };
        assert!(
            first.text.contains("Step 2 (delay): waited 400 ms"),
            "{}",
            first.text
        );
        assert!(
            first
                .text
                .contains("Step 3 (mobile_take_screenshot): Screenshot is"),
            "{}",
            first.text
        );
        let img = images(&r).remove(0);
        assert_eq!(img.height().max(img.width()), 600);
        assert!(matches!(&r.content[2], ContentBlock::Text(t) if t.text.starts_with("Step 4")));
        assert!(phone.shell_commands().iter().any(|c| {
            c.argv
                .iter()
                .any(|a| a.first().is_some_and(|p| p == "screencap"))
        }));

        // A delay over the bound is refused before any step runs.
        phone.update_state(|s| s.input_events.clear());
        let r = mcp
            .call(
                "mobile_batch_commands",
                json!({"device": dev, "steps": [
                    {"name": "mobile_press_button", "arguments": {"button": "HOME"}},
                    {"name": "delay", "arguments": {"duration": 20000}},
                ]}),
            )
            .await;
        assert_eq!(r.is_error, Some(true));
        assert!(
            text_of(&r).contains("duration must be 0 to 10000"),
            "{}",
            text_of(&r)
        );
        assert!(phone.state().input_events.is_empty());
    })
    .await
    .expect("bounded");
}
