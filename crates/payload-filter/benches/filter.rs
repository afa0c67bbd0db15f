//! Throughput of the filter on a realistic ~1 MB tool result, next to `serde_json` parsing and
//! serializing the same payload, so the filter's cost can be read against the JSON work the
//! server does anyway.
//!
//! Three variants of one payload shape (a uiautomator-like element list and an app list):
//! `realistic` (about one string in twenty carries a term), `no_terms`, and `dense` (every text
//! field carries terms). Run with `cargo bench -p mcp-payload-filter -- --quick`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use mcp_payload_filter::Filter;
use serde_json::{Value, json};

#[derive(Clone, Copy)]
enum Density {
    None,
    Realistic,
    Dense,
}

/// A small deterministic generator, so every run measures the same payload.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        let i = usize::try_from(self.next()).unwrap_or(0) % items.len();
        items[i]
    }
}

const WORDS: &[&str] = &[
    "Settings",
    "Search",
    "Open",
    "Cancel",
    "OK",
    "Next",
    "Back",
    "Home",
    "Profile",
    "Messages",
    "Camera",
    "Photos",
    "Download",
    "Share",
    "Delete",
    "Edit",
    "Save",
    "Account",
    "Privacy",
    "Notifications",
    "Battery",
    "Network",
    "Display",
    "Sound",
    "Storage",
    "Security",
    "Update",
];
const TERMS: &[&str] = &[
    "Qwen",
    "Alibaba",
    "DashScope",
    "Taobao",
    "Alipay",
    "DingTalk",
    "Tmall",
    "通义千问",
    "阿里云",
    "支付宝",
    "淘宝",
    "钉钉",
    "Q-Wen",
    "ali-yun",
    "Tongyi",
];
const CLASSES: &[&str] = &[
    "android.widget.TextView",
    "android.widget.Button",
    "android.widget.ImageView",
    "android.widget.FrameLayout",
    "android.widget.LinearLayout",
    "androidx.recyclerview.widget.RecyclerView",
];

fn phrase(rng: &mut Lcg, density: Density) -> String {
    let mut words: Vec<&str> = (0..3).map(|_| rng.pick(WORDS)).collect();
    let with_term = match density {
        Density::None => false,
        Density::Realistic => rng.next().is_multiple_of(20),
        Density::Dense => true,
    };
    if with_term {
        words[1] = rng.pick(TERMS);
        if matches!(density, Density::Dense) {
            words.push(rng.pick(TERMS));
        }
    }
    words.join(" ")
}

fn package(rng: &mut Lcg, density: Density, i: usize) -> String {
    let vendor = match density {
        Density::None => "example",
        Density::Realistic if !rng.next().is_multiple_of(20) => "example",
        _ => rng.pick(&["taobao", "alibaba", "eg.android.AlipayGphone", "qwen"]),
    };
    format!("com.{vendor}.app{i}")
}

/// About 1 MB of JSON: elements like `mobile_list_elements` returns, then installed apps.
fn payload(density: Density) -> Value {
    let mut rng = Lcg(42);
    let elements: Vec<Value> = (0..3600)
        .map(|i| {
            let x = rng.next() % 1080;
            let y = rng.next() % 2400;
            json!({
                "type": rng.pick(CLASSES),
                "text": phrase(&mut rng, density),
                "label": phrase(&mut rng, density),
                "identifier": format!("{}:id/item_{i}", package(&mut rng, density, i % 40)),
                "rect": {"x": x, "y": y, "width": 120 + i % 300, "height": 48 + i % 96},
                "focused": i % 97 == 0,
                "clickable": i % 3 == 0,
            })
        })
        .collect();
    let apps: Vec<Value> = (0..2400)
        .map(|i| {
            json!({
                "appName": phrase(&mut rng, density),
                "packageName": package(&mut rng, density, i),
                "versionName": format!("{}.{}.{}", i % 9, i % 13, i % 101),
            })
        })
        .collect();
    json!({
        "content": [{"type": "text", "text": "Found 3600 elements and 2400 apps"}],
        "structuredContent": {"elements": elements, "apps": apps},
    })
}

fn bench(c: &mut Criterion) {
    let filter = Filter::global();
    for (name, density) in [
        ("no_terms", Density::None),
        ("realistic", Density::Realistic),
        ("dense", Density::Dense),
    ] {
        let value = payload(density);
        let text = serde_json::to_string(&value).unwrap_or_default();
        let mut encoded = value.clone();
        filter.encode_value(&mut encoded);

        let mut group = c.benchmark_group(format!("payload_{name}"));
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function("encode_value", |b| {
            b.iter_batched(
                || value.clone(),
                |mut v| {
                    filter.encode_value(&mut v);
                    v
                },
                BatchSize::LargeInput,
            );
        });
        group.bench_function("decode_value", |b| {
            b.iter_batched(
                || encoded.clone(),
                |mut v| {
                    let result = filter.decode_value(&mut v);
                    (v, result)
                },
                BatchSize::LargeInput,
            );
        });
        group.bench_function("encode_str_of_serialized", |b| {
            b.iter(|| filter.encode_str(black_box(&text)).len());
        });
        group.bench_function("serde_json_parse", |b| {
            b.iter(|| serde_json::from_str::<Value>(black_box(&text)).map(|v| v.is_object()));
        });
        group.bench_function("serde_json_serialize", |b| {
            b.iter(|| serde_json::to_string(black_box(&value)).map(|s| s.len()));
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    // Short on purpose: the figures are for orders of magnitude, and the suite should finish
    // within a minute on a shared machine.
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    targets = bench
}
criterion_main!(benches);
