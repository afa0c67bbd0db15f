//! uiautomator XML → elements: a dump of about 500 nodes (a long scrolling list, like a
//! settings or chat screen), parsed by `mobile_android::parse::ui::parse_elements`.
//! Throughput in nodes and in bytes. Run with `cargo bench -p mobile-android --bench uixml`.

use std::fmt::Write;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mobile_android::parse::ui::parse_elements;

const ROWS: usize = 125;

/// `ROWS` list rows of 4 nodes each (container, icon, title, subtitle) under a few layout
/// nodes: `4 * ROWS + 4` nodes, attribute set as `uiautomator dump` writes it.
fn dump() -> (String, usize) {
    let node = |s: &mut String,
                class: &str,
                text: &str,
                id: &str,
                desc: &str,
                clickable: bool,
                b: (i32, i32, i32, i32)| {
        write!(
            s,
            r#"<node index="0" text="{text}" resource-id="{id}" class="{class}" package="com.example.settings" content-desc="{desc}" checkable="false" checked="false" clickable="{clickable}" enabled="true" focusable="{clickable}" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[{},{}][{},{}]">"#,
            b.0, b.1, b.2, b.3
        )
        .expect("write to a String");
    };
    let mut s = String::from(
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">",
    );
    let mut n = 0;
    node(
        &mut s,
        "android.widget.FrameLayout",
        "",
        "",
        "",
        false,
        (0, 0, 1080, 2400),
    );
    node(
        &mut s,
        "android.widget.LinearLayout",
        "",
        "",
        "",
        false,
        (0, 0, 1080, 2400),
    );
    node(
        &mut s,
        "android.widget.FrameLayout",
        "",
        "android:id/content",
        "",
        false,
        (0, 80, 1080, 2400),
    );
    node(
        &mut s,
        "androidx.recyclerview.widget.RecyclerView",
        "",
        "com.example.settings:id/list",
        "",
        false,
        (0, 80, 1080, 2400),
    );
    n += 4;
    for i in 0..ROWS {
        let y = 80 + (i as i32) * 180;
        node(
            &mut s,
            "android.widget.LinearLayout",
            "",
            "com.example.settings:id/row",
            "",
            true,
            (0, y, 1080, y + 180),
        );
        node(
            &mut s,
            "android.widget.ImageView",
            "",
            "com.example.settings:id/icon",
            &format!("Icon {i}"),
            false,
            (40, y + 50, 120, y + 130),
        );
        s.push_str("</node>");
        node(
            &mut s,
            "android.widget.TextView",
            &format!("Setting number {i} &amp; more"),
            "com.example.settings:id/title",
            "",
            false,
            (160, y + 30, 1000, y + 90),
        );
        s.push_str("</node>");
        node(
            &mut s,
            "android.widget.TextView",
            &format!("Summary of setting {i}, on"),
            "com.example.settings:id/summary",
            "",
            false,
            (160, y + 100, 1000, y + 150),
        );
        s.push_str("</node></node>");
        n += 4;
    }
    s.push_str("</node></node></node></node></hierarchy>");
    (s, n)
}

fn bench(c: &mut Criterion) {
    let (xml, nodes) = dump();
    let parsed = parse_elements(&xml).expect("the generated dump parses");
    assert!(!parsed.is_empty(), "the generated dump yields elements");
    let mut g = c.benchmark_group("uixml");
    g.throughput(Throughput::Elements(nodes as u64));
    g.bench_function(format!("parse_{nodes}_nodes_elements"), |b| {
        b.iter(|| parse_elements(black_box(&xml)).expect("parse"))
    });
    g.throughput(Throughput::Bytes(xml.len() as u64));
    g.bench_function(format!("parse_{nodes}_nodes_bytes"), |b| {
        b.iter(|| parse_elements(black_box(&xml)).expect("parse"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
