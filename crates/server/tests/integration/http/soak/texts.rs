//! Long and growing texts: a note typed in pieces, ASCII (`input text`) and Chinese
//! (through the on-device helper and the clipboard), each piece checked against the field
//! on the phone, the whole read back through the element list now and then, the user's
//! clip checked to be back after every piece. The ref table must stay bounded as every
//! version of the text is a new identity (the soak's memory plateau).

use super::*;

const NOTES: &str = "com.example.notes";
const BODY: &str = "com.example.notes:id/body_input";
/// The user's clip, there before the soak types and expected back after every piece.
const USER_CLIP: &str = "the user's copy, kept by the soak";
/// A note grows to this many characters, then starts again empty.
const LONGEST: usize = 12_000;

/// The Notes editor in front, its body focused and empty, the user's clip set.
fn fresh_note(phone: &PhoneHandle) {
    phone.update_state(|s| {
        if s.foreground_package() != Some(NOTES) {
            let _ = s.start_activity(NOTES, None);
        }
        if let Some(f) = s.stack.last_mut() {
            f.screen = "editor".into();
        }
        s.focus(Some(BODY.into()));
        if let Some(e) = s
            .packages
            .get_mut(NOTES)
            .and_then(|p| p.screens.get_mut("editor"))
            .and_then(|sc| sc.elements.iter_mut().find(|e| e.resource_id == BODY))
        {
            e.text.clear();
        }
        s.clipboard = USER_CLIP.into();
        s.clip.has_clip = true;
        s.clip.source = Some(NOTES.into());
    });
}

/// What the text rounds typed: pieces, characters, notes started, read-backs.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct TextFigures {
    pub pieces: usize,
    pub chars: usize,
    pub notes: usize,
    pub read_backs: usize,
    pub longest: usize,
}

/// Types growing notes on `phone` (this task's alone) until `end`.
pub(super) async fn text_rounds(
    url: &str,
    dev: &str,
    phone: &PhoneHandle,
    end: Instant,
    faults: &Faults,
) -> TextFigures {
    let (session, _) = Session::open(url, None).await;
    let mut fig = TextFigures::default();
    let mut id = 20_000u64;
    let mut note = String::new();
    while Instant::now() < end {
        if note.is_empty() || note.chars().count() >= LONGEST {
            fresh_note(phone);
            note.clear();
            fig.notes += 1;
        }
        fig.pieces += 1;
        let n = fig.pieces;
        let piece = if n % 2 == 0 {
            format!("{n:05} the quick brown fox jumps over the lazy dog. ").repeat(8)
        } else {
            format!("你好，世界{n:05}。我们一起写长笔记")
        };
        id += 1;
        let r = session
            .send(&call(
                id,
                "mobile_type_keys",
                json!({"device": dev, "text": piece, "submit": false,
                       "settleTimeoutMs": 0, "observe": "none"}),
            ))
            .await;
        let Some(result) = result_of(&r, "typing a piece", faults) else {
            continue;
        };
        if result["isError"] == true {
            faults.add(format!(
                "typing piece {n} ({} chars into {} chars) failed: {}",
                piece.chars().count(),
                note.chars().count(),
                text_of(&result)
            ));
            // What the field holds now is where the note goes on from.
            note = phone.state().focused_text().unwrap_or_default();
            continue;
        }
        note.push_str(&piece);
        fig.chars += piece.chars().count();
        fig.longest = fig.longest.max(note.chars().count());
        let s = phone.state();
        if s.focused_text().as_deref() != Some(note.as_str()) {
            faults.add(format!(
                "after piece {n} the field holds {} chars, not the {} typed",
                s.focused_text().map_or(0, |t| t.chars().count()),
                note.chars().count()
            ));
            note = s.focused_text().unwrap_or_default();
        }
        if s.clipboard != USER_CLIP {
            faults.add(format!(
                "after piece {n} the clip is {:?}, not the user's",
                s.clipboard.chars().take(40).collect::<String>()
            ));
        }
        if n % 4 == 0 {
            id += 1;
            let r = session
                .send(&call(
                    id,
                    "mobile_list_elements_on_screen",
                    json!({"device": dev, "format": "json"}),
                ))
                .await;
            if let Some(list) = result_of(&r, "reading the note back", faults) {
                let field = list["structuredContent"]["elements"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|e| e["identifier"] == BODY || e["id"] == BODY)
                    .and_then(|e| e["text"].as_str().map(str::to_string));
                if field.as_deref() == Some(note.as_str()) {
                    fig.read_backs += 1;
                } else {
                    faults.add(format!(
                        "the note read back is {:?} chars, typed {}",
                        field.map(|f| f.chars().count()),
                        note.chars().count()
                    ));
                }
            }
        }
    }
    fig
}
