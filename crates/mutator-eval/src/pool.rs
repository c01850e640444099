//! A bounded pool of worker threads that maps a slice and keeps the input order.

use std::panic;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Applies `f` to every item on at most `workers` scoped threads and returns the results in
/// input order, whatever order they finished in. Workers take the next unclaimed index, so a slow
/// item never holds back the others. With one worker (or one item) everything runs on the
/// calling thread. A panic in `f` is re-raised on the calling thread once the workers stop.
///
/// ```
/// let squares = mutator_eval::map_bounded(&[1, 2, 3, 4], 3, |_, x| x * x);
/// assert_eq!(squares, [1, 4, 9, 16]);
/// ```
pub fn map_bounded<T, R, F>(items: &[T], workers: usize, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(usize, &T) -> R + Sync,
{
    let workers = workers.clamp(1, items.len().max(1));
    if workers == 1 {
        return items.iter().enumerate().map(|(i, x)| f(i, x)).collect();
    }
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<R>> = Vec::with_capacity(items.len());
    slots.resize_with(items.len(), || None);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        done.push((i, f(i, item)));
                    }
                    done
                })
            })
            .collect();
        for handle in handles {
            match handle.join() {
                Ok(done) => {
                    for (i, r) in done {
                        slots[i] = Some(r);
                    }
                }
                Err(payload) => panic::resume_unwind(payload),
            }
        }
    });
    // Every index below `items.len()` was claimed by exactly one worker, and every worker
    // returned normally (a panic was re-raised above), so every slot is filled.
    #[allow(clippy::expect_used)]
    slots
        .into_iter()
        .map(|r| r.expect("every index is claimed exactly once"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_kept_for_any_worker_count() {
        let items: Vec<u64> = (0..257).collect();
        for workers in [0, 1, 2, 7, 300] {
            let out = map_bounded(&items, workers, |i, x| {
                if i % 13 == 0 {
                    std::thread::yield_now();
                }
                (i as u64, x * 3)
            });
            assert_eq!(out.len(), items.len());
            assert!(
                out.iter()
                    .enumerate()
                    .all(|(i, (j, y))| *j == i as u64 && *y == 3 * i as u64)
            );
        }
        assert!(map_bounded(&[] as &[u8], 4, |_, x| *x).is_empty());
    }

    #[test]
    fn workers_are_bounded() {
        let live = AtomicUsize::new(0);
        let peak = AtomicUsize::new(0);
        let items = vec![(); 64];
        map_bounded(&items, 3, |_, _| {
            let now = live.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(now, Ordering::SeqCst);
            std::thread::yield_now();
            live.fetch_sub(1, Ordering::SeqCst);
        });
        assert!(peak.load(Ordering::SeqCst) <= 3);
    }
}
