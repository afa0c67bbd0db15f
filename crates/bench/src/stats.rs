//! Summary statistics of the samples: median, min and max.

use std::time::Duration;

/// Median, min and max of a set of samples, in milliseconds.
#[derive(Default, Clone, serde::Serialize)]
pub(crate) struct Stats {
    pub(crate) n: usize,
    pub(crate) median_ms: f64,
    pub(crate) min_ms: f64,
    pub(crate) max_ms: f64,
}

/// The statistics of `samples`, or `None` when there are none.
pub(crate) fn stats(samples: &[Duration]) -> Option<Stats> {
    if samples.is_empty() {
        return None;
    }
    let mut ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e3).collect();
    ms.sort_by(|a, b| a.total_cmp(b));
    let n = ms.len();
    let median = if n % 2 == 1 {
        ms[n / 2]
    } else {
        (ms[n / 2 - 1] + ms[n / 2]) / 2.0
    };
    Some(Stats {
        n,
        median_ms: median,
        min_ms: ms[0],
        max_ms: ms[n - 1],
    })
}

/// The median of counts (the upper one of an even number), or `None` when there are none.
pub(crate) fn median_u(v: &[usize]) -> Option<usize> {
    let mut v = v.to_vec();
    v.sort_unstable();
    v.get(v.len() / 2).copied()
}
