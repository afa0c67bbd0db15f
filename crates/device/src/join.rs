//! `join_all`: runs futures concurrently on the caller's task and keeps their order. The
//! one copy for every crate of mobile-mcp (none of them needs a futures crate for it).

use std::future::Future;
use std::task::Poll;

/// Runs the futures concurrently and returns their outputs in the order given.
pub async fn join_all<F: Future>(futs: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let mut pinned: Vec<_> = futs.into_iter().map(Box::pin).collect();
    let mut out: Vec<Option<F::Output>> = (0..pinned.len()).map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (f, slot) in pinned.iter_mut().zip(out.iter_mut()) {
            if slot.is_none() {
                match f.as_mut().poll(cx) {
                    Poll::Ready(v) => *slot = Some(v),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    out.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn outputs_keep_the_order_given() {
        let slow_first = [30u64, 0, 10].map(|ms| async move {
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
            ms
        });
        assert_eq!(join_all(slow_first).await, vec![30, 0, 10]);
        let none: Vec<std::future::Ready<u8>> = Vec::new();
        assert!(join_all(none).await.is_empty());
    }
}
