//! Per-task time of generating every expected set over `bench_domains2000.txt` once,
//! single-threaded, with `data.json` (a quick profile; the criterion bench is the measurement).
//!
//! Prints the best of 10 rounds per task (on a shared machine the minimum is the figure least
//! disturbed by other processes), and their sum.
//!
//! `cargo run --release -p capkit-typo-generators --example task_timings [task ids... | --interleaved]`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Instant;

use typo_generators::{Data, Registry};

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../typo-tasks/tests/fixtures");
    let data =
        Data::from_json_str(&std::fs::read_to_string(dir.join("data.json")).unwrap()).unwrap();
    let text = std::fs::read_to_string(dir.join("bench_domains2000.txt")).unwrap();
    let names: Vec<&str> = text.split('\n').filter(|l| !l.is_empty()).collect();
    let registry = Registry::new(&data);
    let only: Vec<String> = std::env::args().skip(1).collect();
    let rounds = 10;
    if only.iter().any(|o| o == "--interleaved") {
        // The bench's loop: every task for one name, then the next name.
        let mut best = f64::INFINITY;
        for _ in 0..rounds {
            let start = Instant::now();
            let mut variants = 0usize;
            for name in &names {
                for task in &registry {
                    variants += task.expect(name).len();
                }
            }
            assert_eq!(variants, 2_293_745);
            best = best.min(start.elapsed().as_secs_f64() * 1e3);
        }
        println!("interleaved, all 22 tasks: {best:.2} ms (best of {rounds})");
        return;
    }
    let mut rows = Vec::new();
    let (mut wall_total, mut examples, mut variants) = (0.0, 0usize, 0usize);
    for task in registry
        .iter()
        .filter(|t| only.is_empty() || only.iter().any(|o| o == t.id))
    {
        let mut best_wall = f64::INFINITY;
        let (mut ex, mut va) = (0, 0);
        for _ in 0..rounds {
            let start = Instant::now();
            (ex, va) = (0, 0);
            for name in &names {
                let set = task.expect(name);
                if !set.is_empty() {
                    ex += 1;
                    va += set.len();
                }
            }
            best_wall = best_wall.min(start.elapsed().as_secs_f64() * 1e3);
        }
        wall_total += best_wall;
        examples += ex;
        variants += va;
        rows.push((task.id, best_wall, ex, va));
    }
    rows.sort_by(|a, b| b.1.total_cmp(&a.1));
    println!("task        ms  examples  variants");
    for (id, wall, ex, va) in rows {
        println!("{id:<4} {wall:9.2}  {ex:8}  {va:8}");
    }
    println!(
        "all  {wall_total:9.2}  {examples:8}  {variants:8}   (sum of per-task best of {rounds})"
    );
}
