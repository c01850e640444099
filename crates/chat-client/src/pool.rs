//! A bounded pool of worker threads that maps a slice and delivers results in input order.

use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError, mpsc};

/// How far (in items) workers may run ahead of the oldest undelivered result, per worker. Bounds
/// the results held back while a slow item (a request waiting out its timeout) is in flight.
const WINDOW_PER_WORKER: usize = 64;

/// Applies `f` to every item on at most `workers` scoped threads and returns the results in
/// input order, whatever order they finished in. See [`for_each_ordered`].
///
/// ```
/// let squares = chat_client::map_bounded(&[1, 2, 3, 4], 3, |_, x| x * x);
/// assert_eq!(squares, [1, 4, 9, 16]);
/// ```
pub fn map_bounded<T, R, F>(items: &[T], workers: usize, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(usize, &T) -> R + Sync,
{
    let mut out = Vec::with_capacity(items.len());
    for_each_ordered(items, workers, f, |_, r| out.push(r));
    out
}

struct Progress {
    /// Results delivered so far (every index below this one went to the sink).
    delivered: usize,
    /// A worker or the sink panicked: everyone stops.
    poisoned: bool,
}

/// Applies `f` to every item on at most `workers` scoped threads and hands each result to `sink`
/// on the calling thread, in input order, as soon as every earlier result has been handed over.
///
/// Workers take the next unclaimed index, so a slow item never holds back the others; they stay
/// within a bounded window ahead of the oldest undelivered result, so memory stays bounded too.
/// With one worker (or one item) everything runs on the calling thread. A panic in `f` or `sink`
/// stops the workers and is re-raised on the calling thread.
pub fn for_each_ordered<T, R, F, S>(items: &[T], workers: usize, f: F, mut sink: S)
where
    T: Sync,
    R: Send,
    F: Fn(usize, &T) -> R + Sync,
    S: FnMut(usize, R),
{
    let workers = workers.clamp(1, items.len().max(1));
    if workers == 1 {
        for (i, item) in items.iter().enumerate() {
            sink(i, f(i, item));
        }
        return;
    }
    let window = workers * WINDOW_PER_WORKER;
    let next = AtomicUsize::new(0);
    let progress = Mutex::new(Progress {
        delivered: 0,
        poisoned: false,
    });
    let moved = Condvar::new();
    let poison = || {
        progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .poisoned = true;
        moved.notify_all();
    };
    let (tx, rx) = mpsc::channel::<(usize, R)>();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (f, next, progress, moved, poison) = (&f, &next, &progress, &moved, &poison);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let mut p = progress.lock().unwrap_or_else(PoisonError::into_inner);
                    // The oldest undelivered index is always inside the window, so it never
                    // waits here and delivery always advances.
                    while i >= p.delivered + window && !p.poisoned {
                        p = moved.wait(p).unwrap_or_else(PoisonError::into_inner);
                    }
                    if p.poisoned {
                        break;
                    }
                    drop(p);
                    match panic::catch_unwind(AssertUnwindSafe(|| f(i, item))) {
                        Ok(r) => {
                            if tx.send((i, r)).is_err() {
                                break;
                            }
                        }
                        Err(payload) => {
                            poison();
                            panic::resume_unwind(payload);
                        }
                    }
                }
            });
        }
        drop(tx);
        let delivered = panic::catch_unwind(AssertUnwindSafe(|| {
            let mut pending = BTreeMap::new();
            let mut delivered = 0;
            for (i, r) in rx {
                pending.insert(i, r);
                let before = delivered;
                while let Some(r) = pending.remove(&delivered) {
                    sink(delivered, r);
                    delivered += 1;
                }
                if delivered != before {
                    progress
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .delivered = delivered;
                    moved.notify_all();
                }
            }
        }));
        if let Err(payload) = delivered {
            poison();
            panic::resume_unwind(payload);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_kept_for_any_worker_count() {
        let items: Vec<u64> = (0..1000).collect();
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

    #[test]
    fn a_slow_first_item_holds_back_at_most_the_window() {
        let items: Vec<usize> = (0..2000).collect();
        let started_max = AtomicUsize::new(0);
        let mut delivered = Vec::new();
        for_each_ordered(
            &items,
            2,
            |i, _| {
                started_max.fetch_max(i, Ordering::SeqCst);
                if i == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    // While item 0 sleeps the other worker may only run ahead by the window.
                    assert!(started_max.load(Ordering::SeqCst) < 2 * WINDOW_PER_WORKER);
                }
                i
            },
            |i, r| {
                assert_eq!(i, r);
                delivered.push(r);
            },
        );
        assert_eq!(delivered, items);
    }

    #[test]
    fn panics_reach_the_caller_without_deadlock() {
        let items: Vec<usize> = (0..500).collect();
        let caught = panic::catch_unwind(|| {
            map_bounded(&items, 2, |i, _| {
                assert!(i != 3, "item three");
                i
            })
        });
        assert!(caught.is_err());
        let caught = panic::catch_unwind(|| {
            for_each_ordered(&items, 2, |i, _| i, |i, _| assert!(i != 10, "sink"));
        });
        assert!(caught.is_err());
    }
}
