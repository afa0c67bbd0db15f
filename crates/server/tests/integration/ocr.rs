//! What a vision model sees: the words of the element list, read back by OCR from the
//! screenshot the same server returns, on several screens of the virtual Android phone and
//! of the fake iOS simulator. Through the real server over MCP (stdio), with Debian's
//! `tesseract` as the reader.
//!
//! For each screen: `mobile_list_elements_on_screen` gives the labels, `mobile_take_screenshot`
//! (default options: JPEG, at most 1024 px on the longest side) gives the picture.
//!
//! - Visible labels: elements that are not containers (the `Application` window and
//!   `Group`s carry a name, not drawn text) whose box lies on the screen; their text and
//!   label, or, for an iOS text field with a value, the value (its placeholder is gone then).
//! - Words: runs of ASCII letters and digits, lowercased (the `eng` model reads Latin script
//!   only: the CJK in one app's name is not counted).
//! - Reading: tesseract (`tesseract IN stdout --psm N`) reads the whole picture, in grey and
//!   upscaled 2x, as sparse text (psm 11); a label with a word not found there is read again
//!   from its element's box cut from the picture, made black on white and upscaled 4x, as
//!   one block (psm 6), since tesseract's layout analysis passes over text on filled
//!   buttons and bars. A word is read back when either reading has it.
//! - Each screen must read back at least [`MIN_SHARE`] of its visible labels' words; the
//!   per-screen shares are printed. The screens include an Android alert dialog over a
//!   dimmed screen and an iOS system alert; on iOS the software keyboard's letter keys
//!   must read back too ([`KEYBOARD_SHARE`]), and a CJK app name is read with the `chi_sim`
//!   model where it is installed.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use base64::Engine;
use rmcp::model::ContentBlock;
use serde_json::{Value, json};
use test_support::{McpChild, text_of};
use virtual_phone::adb_server::PrivateAdbServer;
use virtual_phone::{PhoneConfig, VirtualPhone};

/// The share of the visible labels' words that OCR must read back on every screen.
const MIN_SHARE: f64 = 0.90;
const DEADLINE: Duration = Duration::from_secs(300);
/// Bound on one tesseract run.
const OCR_DEADLINE: Duration = Duration::from_secs(60);
/// Set to a folder to keep each screen's screenshot there (for looking at a failure).
const SAVE_ENV: &str = "MOBILE_MCP_OCR_SAVE_DIR";

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

/// A visible label: its element's box on the screen (x, y, width, height) and its words.
struct Label {
    rect: (f64, f64, f64, f64),
    words: Vec<String>,
}

/// The visible labels of `elements` on a `w` x `h` screen, in list order.
fn visible_labels(elements: &[Value], (w, h): (f64, f64)) -> Vec<Label> {
    let mut out = Vec::new();
    for e in elements {
        let ty = e["type"].as_str().unwrap_or_default();
        if matches!(ty, "Application" | "Group" | "Other" | "Window") {
            continue;
        }
        let c = &e["coordinates"];
        let n = |k: &str| c[k].as_f64().unwrap_or(0.0);
        let (x, y, cw, ch) = (n("x"), n("y"), n("width"), n("height"));
        if cw <= 0.0 || ch <= 0.0 || x < 0.0 || y < 0.0 || x + cw > w + 0.5 || y + ch > h + 0.5 {
            continue;
        }
        // The text and the label often say the same; count each word of the element once.
        let mut seen = BTreeSet::new();
        let mut words_of = Vec::new();
        // A text field with a value shows the value; its label is only a name then.
        let field_with_value = matches!(ty, "TextField" | "SecureTextField" | "SearchField")
            && e["value"].as_str().is_some_and(|v| !v.is_empty());
        let fields: &[&str] = if field_with_value {
            &["value"]
        } else {
            &["text", "label"]
        };
        for field in fields {
            for word in words(e[field].as_str().unwrap_or_default()) {
                if seen.insert(word.clone()) {
                    words_of.push(word);
                }
            }
        }
        if !words_of.is_empty() {
            out.push(Label {
                rect: (x, y, cw, ch),
                words: words_of,
            });
        }
    }
    out
}

/// `part` as black text on white: inverted when mostly dark (light text on a filled button
/// or bar), then thresholded halfway between its darkest and its lightest grey.
fn dark_on_light(mut part: image::GrayImage) -> image::GrayImage {
    let mut levels: Vec<u8> = part.pixels().map(|p| p.0[0]).collect();
    levels.sort_unstable();
    if levels[levels.len() / 2] < 128 {
        image::imageops::invert(&mut part);
        levels = levels.iter().rev().map(|v| 255 - v).collect();
    }
    // Black and white at the middle grey between the darkest and the lightest level.
    let mid = (u16::from(levels[0]) + u16::from(levels[levels.len() - 1])) / 2;
    for p in part.pixels_mut() {
        p.0[0] = if u16::from(p.0[0]) < mid { 0 } else { 255 };
    }
    // What is dark and touches the edge is the ground around the element (the page around
    // a button's rounded ends), not text: it would frame the text and hide it from
    // tesseract, so it is cleared.
    let (w, h) = part.dimensions();
    let mut todo: Vec<(u32, u32)> = (0..w)
        .flat_map(|x| [(x, 0), (x, h - 1)])
        .chain((0..h).flat_map(|y| [(0, y), (w - 1, y)]))
        .collect();
    while let Some((x, y)) = todo.pop() {
        if part.get_pixel(x, y).0[0] == 255 {
            continue;
        }
        part.put_pixel(x, y, image::Luma([255]));
        if x > 0 {
            todo.push((x - 1, y));
        }
        if y > 0 {
            todo.push((x, y - 1));
        }
        if x + 1 < w {
            todo.push((x + 1, y));
        }
        if y + 1 < h {
            todo.push((x, y + 1));
        }
    }
    part
}

/// Runs `tesseract PNG stdout`; panics saying how to install it when it is missing.
async fn tesseract(png: &Path, psm: &str) -> String {
    let run = tokio::process::Command::new("tesseract")
        .arg(png)
        .arg("stdout")
        .args(["--psm", psm])
        .kill_on_drop(true)
        .output();
    let out = match tokio::time::timeout(OCR_DEADLINE, run).await {
        Err(_) => panic!("tesseract took over {OCR_DEADLINE:?} on {}", png.display()),
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => panic!(
            "the OCR test needs Debian's `tesseract` (package tesseract-ocr; scripts/test.sh installs it): {e}"
        ),
        Ok(Err(e)) => panic!("running tesseract: {e}"),
        Ok(Ok(out)) => out,
    };
    assert!(
        out.status.success(),
        "tesseract failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Lists the elements and takes a screenshot of `device`, reads it, and returns the share of
/// label words read back (asserting nothing; the caller does).
async fn read_back(mcp: &McpChild, device: &str, screen: &str, tmp: &Path) -> (f64, Vec<String>) {
    let r = mcp
        .call("mobile_get_screen_size", json!({"device": device}))
        .await;
    let s = r.structured_content.clone().unwrap_or_default();
    let size = (
        s["width"].as_f64().unwrap_or(0.0),
        s["height"].as_f64().unwrap_or(0.0),
    );
    let r = mcp
        .call(
            "mobile_list_elements_on_screen",
            json!({"device": device, "format": "json"}),
        )
        .await;
    assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
    let elements = r.structured_content.clone().unwrap()["elements"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let labels = visible_labels(&elements, size);
    let want: Vec<&String> = labels.iter().flat_map(|l| &l.words).collect();
    assert!(
        !want.is_empty(),
        "{screen}: no visible labels in {elements:?}"
    );

    let r = mcp
        .call("mobile_take_screenshot", json!({"device": device}))
        .await;
    assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
    let img = r
        .content
        .iter()
        .find_map(|c| match c {
            ContentBlock::Image(i) => Some(i.data.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{screen}: no image in {}", text_of(&r)));
    let jpeg = base64::engine::general_purpose::STANDARD
        .decode(img)
        .unwrap();
    let picture = image::load_from_memory(&jpeg).unwrap().to_rgb8();
    let (w, h) = picture.dimensions();
    assert!(
        w.max(h) <= 1024,
        "{screen}: the default screenshot is {w}x{h}"
    );
    let save_dir = std::env::var_os(SAVE_ENV).map(std::path::PathBuf::from);
    if let Some(dir) = &save_dir {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(format!("{screen}.jpg")), &jpeg).unwrap();
    }
    let ocr = async |name: String, part: &image::GrayImage, psm: &str, zoom: u32| {
        let big = image::imageops::resize(
            part,
            part.width() * zoom,
            part.height() * zoom,
            image::imageops::FilterType::CatmullRom,
        );
        let png = tmp.join(format!("{name}.png"));
        big.save(&png).unwrap();
        let text = tesseract(&png, psm).await;
        if let Some(dir) = &save_dir {
            std::fs::write(dir.join(format!("{name}.txt")), &text).unwrap();
            std::fs::copy(&png, dir.join(format!("{name}.png"))).unwrap();
        }
        // Roboto's capital I is a bare stroke, and so is a text caret: tesseract reads both
        // as a bar, so a bar counts as a break and as an I.
        let mut read: BTreeSet<String> = words(&text).into_iter().collect();
        read.extend(words(&text.replace('|', "I")));
        read
    };
    // The whole picture, as sparse text (a screen is not a page of paragraphs).
    let gray = image::DynamicImage::ImageRgb8(picture.clone()).to_luma8();
    let whole = ocr(screen.to_string(), &gray, "11", 2).await;
    let (sx, sy) = (f64::from(w) / size.0, f64::from(h) / size.1);
    let mut missed = Vec::new();
    for (i, label) in labels.iter().enumerate() {
        if label.words.iter().all(|w| whole.contains(w)) {
            continue;
        }
        // Tesseract's layout analysis passes over text on filled buttons and bars: read the
        // element's own box (with a margin) as one block too.
        let (x, y, bw, bh) = label.rect;
        let m = 4.0;
        let x0 = ((x * sx - m).max(0.0) as u32).min(w - 1);
        let y0 = ((y * sy - m).max(0.0) as u32).min(h - 1);
        let x1 = (((x + bw) * sx + m) as u32).clamp(x0 + 1, w);
        let y1 = (((y + bh) * sy + m) as u32).clamp(y0 + 1, h);
        let part = image::imageops::crop_imm(&gray, x0, y0, x1 - x0, y1 - y0).to_image();
        let boxed = ocr(format!("{screen}-{i}"), &dark_on_light(part), "6", 4).await;
        missed.extend(
            label
                .words
                .iter()
                .filter(|w| !whole.contains(*w) && !boxed.contains(*w))
                .cloned(),
        );
    }
    let share = 1.0 - missed.len() as f64 / want.len() as f64;
    println!(
        "{screen}: {:.0}% of {} label words read back ({w}x{h} screenshot); missed {missed:?}",
        share * 100.0,
        want.len()
    );
    (share, missed)
}

/// Reads `want` (Han characters) off the home-screen label of the icon labelled `label`
/// with tesseract's Simplified Chinese model (Debian's `tesseract-ocr-chi-sim`); says so
/// and checks nothing when that model is not installed (the glyphs' pixels are checked by
/// `mobile_screenshot::text`'s unit tests either way).
async fn cjk_label(mcp: &McpChild, device: &str, label: &str, want: &str, tmp: &Path) {
    let langs = tokio::process::Command::new("tesseract")
        .arg("--list-langs")
        .output()
        .await
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if !langs.lines().any(|l| l.trim() == "chi_sim") {
        println!("tesseract has no chi_sim model (tesseract-ocr-chi-sim): CJK label not read");
        return;
    }
    let (cx, cy) = center_of(mcp, device, label).await;
    let r = mcp
        .call("mobile_get_screen_size", json!({"device": device}))
        .await;
    let size = r.structured_content.clone().unwrap_or_default();
    let r = mcp
        .call("mobile_take_screenshot", json!({"device": device}))
        .await;
    let img = r
        .content
        .iter()
        .find_map(|c| match c {
            ContentBlock::Image(i) => Some(i.data.clone()),
            _ => None,
        })
        .unwrap();
    let jpeg = base64::engine::general_purpose::STANDARD
        .decode(img)
        .unwrap();
    let gray = image::load_from_memory(&jpeg).unwrap().to_luma8();
    let k = f64::from(gray.width()) / size["width"].as_f64().unwrap();
    // The label is under the icon: from the icon's lower edge down, across its column.
    let (x0, y0) = (((cx - 45.0) * k).max(0.0) as u32, ((cy + 30.0) * k) as u32);
    let (w, h) = ((90.0 * k) as u32, (60.0 * k) as u32);
    let part = image::imageops::crop_imm(&gray, x0, y0, w, h).to_image();
    let part = dark_on_light(part);
    let big = image::imageops::resize(&part, w * 4, h * 4, image::imageops::FilterType::CatmullRom);
    let png = tmp.join("ios-cjk-label.png");
    big.save(&png).unwrap();
    let run = tokio::process::Command::new("tesseract")
        .arg(&png)
        .args(["stdout", "-l", "chi_sim", "--psm", "6"])
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(OCR_DEADLINE, run)
        .await
        .unwrap()
        .unwrap();
    let text: String = String::from_utf8_lossy(&out.stdout)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    println!("CJK label read as {text:?}");
    assert!(
        text.contains(want),
        "{want} not read off the label: {text:?}"
    );
}

/// The share of the 26 letter keys OCR must read off the iOS keyboard.
const KEYBOARD_SHARE: f64 = 0.80;

/// Reads the bottom of the screenshot, where the software keyboard is, as black text on
/// white (the key caps and the panel fall to white), and returns the share of the letters
/// a–z read there and the letters missed; the `space` and `return` keys must read too.
async fn keyboard_keys(mcp: &McpChild, device: &str, tmp: &Path) -> (f64, Vec<char>) {
    let r = mcp
        .call("mobile_take_screenshot", json!({"device": device}))
        .await;
    let img = r
        .content
        .iter()
        .find_map(|c| match c {
            ContentBlock::Image(i) => Some(i.data.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no image in {}", text_of(&r)));
    let jpeg = base64::engine::general_purpose::STANDARD
        .decode(img)
        .unwrap();
    let gray = image::load_from_memory(&jpeg).unwrap().to_luma8();
    let (w, h) = gray.dimensions();
    // The keyboard covers a good third of a phone's height; its key rows are in the
    // lower part of that.
    let top = h * 66 / 100;
    let mut part = image::imageops::crop_imm(&gray, 0, top, w, h - top).to_image();
    for p in part.pixels_mut() {
        p.0[0] = if p.0[0] < 128 { 0 } else { 255 };
    }
    let big = image::imageops::resize(
        &part,
        part.width() * 3,
        part.height() * 3,
        image::imageops::FilterType::CatmullRom,
    );
    let png = tmp.join("ios-keyboard.png");
    big.save(&png).unwrap();
    let text = tesseract(&png, "6").await.to_ascii_lowercase();
    println!("ios keyboard read as {text:?}");
    let read = words(&text);
    for key in ["space", "return"] {
        assert!(read.iter().any(|w| w == key), "no {key} key in {text:?}");
    }
    // The letters of the key caps, not of the words on the wide keys.
    let letters = text.replace("space", " ").replace("return", " ");
    let missed: Vec<char> = ('a'..='z').filter(|c| !letters.contains(*c)).collect();
    (1.0 - missed.len() as f64 / 26.0, missed)
}

/// The centre of the first listed element whose text or label is `label`.
async fn center_of(mcp: &McpChild, device: &str, label: &str) -> (f64, f64) {
    let r = mcp
        .call(
            "mobile_list_elements_on_screen",
            json!({"device": device, "format": "json"}),
        )
        .await;
    let elements = r.structured_content.clone().unwrap()["elements"].clone();
    let e = elements
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["text"] == label || e["label"] == label)
        .unwrap_or_else(|| panic!("no element {label:?} in {elements}"))
        .clone();
    let c = &e["coordinates"];
    let n = |k: &str| c[k].as_f64().unwrap();
    (n("x") + n("width") / 2.0, n("y") + n("height") / 2.0)
}

async fn tap(mcp: &McpChild, device: &str, label: &str) {
    let (x, y) = center_of(mcp, device, label).await;
    mcp.ok(
        "mobile_click_on_screen_at_coordinates",
        json!({"device": device, "x": x, "y": y}),
    )
    .await;
}

fn check(results: &[(String, f64, Vec<String>)]) {
    let low: Vec<_> = results.iter().filter(|(_, s, _)| *s < MIN_SHARE).collect();
    assert!(
        low.is_empty(),
        "OCR read back less than {:.0}% of the label words on: {low:?}",
        MIN_SHARE * 100.0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn android_screens_read_back_their_element_labels() {
    tokio::time::timeout(DEADLINE, async {
        let phone = VirtualPhone::start(PhoneConfig::default()).expect("start the virtual phone");
        let adb = PrivateAdbServer::start().expect("start a private adb server");
        adb.connect(&phone).expect("adb connect");
        let server = format!("127.0.0.1:{}", adb.port());
        let mcp = McpChild::spawn(crate::SERVER, &["--adb-server", &server], &adb.env()).await;
        let dev = phone.serial();
        let tmp = tempfile::Builder::new()
            .tempdir_in(std::env::temp_dir())
            .unwrap();
        let mut results = Vec::new();
        let mut shot = async |name: &str| {
            let (share, missed) = read_back(&mcp, &dev, name, tmp.path()).await;
            results.push((name.to_string(), share, missed));
        };

        mcp.ok(
            "mobile_press_button",
            json!({"device": dev, "button": "HOME"}),
        )
        .await;
        assert_eq!(
            phone.state().foreground_package(),
            Some("com.android.launcher3")
        );
        shot("android-launcher").await;

        mcp.ok(
            "mobile_launch_app",
            json!({"device": dev, "packageName": "com.android.settings"}),
        )
        .await;
        assert_eq!(
            phone.state().foreground_package(),
            Some("com.android.settings")
        );
        shot("android-settings").await;

        tap(&mcp, &dev, "Network & internet").await;
        assert_eq!(
            phone.state().foreground().map(|f| f.screen.as_str()),
            Some("network")
        );
        shot("android-settings-network").await;

        mcp.ok(
            "mobile_launch_app",
            json!({"device": dev, "packageName": "com.example.notes"}),
        )
        .await;
        shot("android-notes").await;

        // A form with a focused field, its typed value and the keyboard up.
        tap(&mcp, &dev, "New note").await;
        tap(&mcp, &dev, "Title").await;
        mcp.ok(
            "mobile_type_keys",
            json!({"device": dev, "text": "Groceries", "submit": false}),
        )
        .await;
        assert_eq!(phone.state().focused_text().as_deref(), Some("Groceries"));
        shot("android-notes-editor").await;

        // An alert dialog over the dimmed settings screen; its buttons dismiss it.
        mcp.ok(
            "mobile_launch_app",
            json!({"device": dev, "packageName": "com.example.notes"}),
        )
        .await;
        tap(&mcp, &dev, "Settings").await;
        tap(&mcp, &dev, "Delete all notes").await;
        assert_eq!(
            phone.state().dialog().map(|d| d.title.as_str()),
            Some("Delete all notes?")
        );
        shot("android-notes-dialog").await;
        tap(&mcp, &dev, "Cancel").await;
        assert!(
            phone.state().dialog().is_none(),
            "Cancel dismissed the dialog"
        );
        assert_eq!(
            phone.state().foreground().map(|f| f.screen.as_str()),
            Some("settings")
        );

        mcp.ok(
            "mobile_launch_app",
            json!({"device": dev, "packageName": "com.alibaba.qwen"}),
        )
        .await;
        shot("android-qwen").await;

        check(&results);
        drop(mcp);
        phone.stop();
    })
    .await
    .expect("the Android OCR test finished in time");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ios_screens_read_back_their_element_labels() {
    tokio::time::timeout(DEADLINE, async {
        let dir = tempfile::Builder::new()
            .tempdir_in(std::env::temp_dir())
            .unwrap();
        let state = dir.path().join("state.json");
        fake_xcode::write_default_state(&state).unwrap();
        let bin = |b: &str| {
            test_support::cargo_bin("fake-xcode", b)
                .display()
                .to_string()
        };
        let env = vec![
            ("MOBILE_MCP_XCRUN".to_string(), bin("fake-xcrun")),
            ("MOBILE_MCP_IDB".to_string(), bin("fake-idb")),
            ("FAKE_IOS_STATE".to_string(), state.display().to_string()),
            // No Android here: an adb server where nothing answers, and no `adb` to start.
            ("PATH".to_string(), "/nonexistent".to_string()),
            ("ANDROID_HOME".to_string(), "/nonexistent".to_string()),
        ];
        let mcp = McpChild::spawn(
            crate::SERVER,
            &["--adb-server", "127.0.0.1:1", "--allow-url-scheme", "qwen"],
            &env,
        )
        .await;
        let dev = fake_xcode::BOOTED_UDID;
        let sim = || {
            fake_xcode::read_state(&state)
                .unwrap()
                .simulator(dev)
                .unwrap()
                .clone()
        };
        let mut results = Vec::new();
        let mut shot = async |name: &str| {
            let (share, missed) = read_back(&mcp, dev, name, dir.path()).await;
            results.push((name.to_string(), share, missed));
        };

        assert_eq!(sim().foreground, None, "the home screen shows");
        shot("ios-home").await;
        // The app named in CJK: its label's Han characters are glyphs, not empty boxes.
        cjk_label(&mcp, dev, fake_xcode::NOTES_NAME, "示例", dir.path()).await;

        mcp.ok(
            "mobile_launch_app",
            json!({"device": dev, "packageName": "com.apple.Preferences"}),
        )
        .await;
        assert_eq!(sim().foreground.as_deref(), Some("com.apple.Preferences"));
        shot("ios-settings").await;

        tap(&mcp, dev, "General").await;
        assert_eq!(
            sim().shown.get("com.apple.Preferences").map(String::as_str),
            Some("com.apple.Preferences/general")
        );
        shot("ios-settings-general").await;

        mcp.ok(
            "mobile_launch_app",
            json!({"device": dev, "packageName": "com.alibaba.qwen"}),
        )
        .await;
        tap(&mcp, dev, "Ask Qwen").await;
        mcp.ok(
            "mobile_type_keys",
            json!({"device": dev, "text": "Hello there", "submit": false}),
        )
        .await;
        shot("ios-qwen").await;
        // The software keyboard is up under the focused field: its key labels read back.
        let (share, missed) = keyboard_keys(&mcp, dev, dir.path()).await;
        assert!(
            share >= KEYBOARD_SHARE,
            "the keyboard's letters read back: {share:.2}, missed {missed:?}"
        );

        // A system alert over the dimmed home screen: iOS asks before a custom scheme opens
        // its app; Cancel dismisses it.
        mcp.ok(
            "mobile_press_button",
            json!({"device": dev, "button": "HOME"}),
        )
        .await;
        // The server says the URL waits behind the confirmation (an error result).
        let r = mcp
            .call(
                "mobile_open_url",
                json!({"device": dev, "url": "qwen://chat"}),
            )
            .await;
        assert!(text_of(&r).contains("Open in “Qwen”?"), "{}", text_of(&r));
        assert_eq!(
            sim().alert.map(|a| a.title),
            Some("Open in “Qwen”?".to_string())
        );
        shot("ios-alert").await;
        tap(&mcp, dev, "Cancel").await;
        assert!(sim().alert.is_none(), "Cancel dismissed the alert");
        assert_eq!(sim().foreground, None, "the app did not open");

        check(&results);
    })
    .await
    .expect("the iOS OCR test finished in time");
}
