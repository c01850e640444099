#!/usr/bin/env bash
# Memory and CPU of capability profiles against the number of texts (issue 16's scaling table).
#
#   scripts/profile_scaling.sh [SIZES...]        (default: 10000 100000 1000000 10000000)
#
# For each size N, two runs of PERF.md workload A's suite with constant "pos" models on N mostly
# distinct texts (workload A's sentence numbered i; every 10th text repeats an earlier one):
#   * in process: `capture` example `scaling` (texts generated a chunk at a time), CPU seconds
#     and peak RSS of the process;
#   * through `capkit profile classify` with two `cmd:` models (the `jsonl_model` example) and
#     --no-cache: the texts file is streamed; CPU seconds of the three processes, and the
#     peak RSS of capkit and of each model process (each under /usr/bin/time) and their sum.
# With CACHE=1 the `capkit profile` runs keep the prediction cache on (a fresh one per size, in
# the work directory) instead of --no-cache, and each size is run twice: `cmd+fill` (every answer
# is new and stored) and `cmd+hits` (every answer comes from the cache); the cache's size on disk
# and bytes per answer are printed after each size. With CACHE=preload the cache is instead filled
# straight from `capkit profile texts` by the `cache_preload` example (every text each model will be
# asked, answered "pos", written in key order: minutes where a first profile run takes hours at
# 10M texts) and only `cmd+hits` is run: the resumed run's CPU and peak RSS with the cache on.
# Needs release builds: cargo build --release -p capkit --bins --example jsonl_model
#                       (CACHE=preload) cargo build --release -p capkit-model-adapters --example cache_preload
#                       cargo build --release -p capkit-capture --example scaling
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}/release"
capkit="$target/capkit"
model="$target/examples/jsonl_model"
scaling="$target/examples/scaling"
for exe in "$capkit" "$model" "$scaling"; do
    [[ -x "$exe" ]] || { echo "missing $exe (see the build commands at the top)" >&2; exit 1; }
done
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(10000 100000 1000000 10000000)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat > "$work/suite.json" <<'JSON'
{"corruptions": [
  {"name": "typo_05", "transform": "keyboard_typo", "rate": 0.05, "seed": 0},
  {"name": "typo_10", "transform": "keyboard_typo", "rate": 0.1, "seed": 0},
  {"name": "typo_20", "transform": "keyboard_typo", "rate": 0.2, "seed": 0},
  {"name": "typo_40", "transform": "keyboard_typo", "rate": 0.4, "seed": 0}],
 "invariances": [{"name": "case", "transform": "case_jitter"}, {"name": "space", "transform": "whitespace"}],
 "probes": ["", "good", "bad", "GOOD!!!", "  spaced   out  ", "ß", "日本語", "1234",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "the service was fine"]}
JSON
echo '{"task": "classify", "rule": {"kind": "constant", "label": "pos"}}' > "$work/pos.json"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
printf '%-9s %-8s %9s %10s %9s %9s %9s %9s\n' texts mode cpu_s us/text capkit_MB student_MB teacher_MB total_MB
for n in "${sizes[@]}"; do
    line="$("$scaling" "$n")"
    get() { sed -E "s/.*$1=([^ ]+).*/\1/" <<<"$line"; }
    printf '%-9s %-8s %9s %10s %9s %9s %9s %9s\n' "$n" inproc "$(get cpu_s)" "$(get cpu_us_per_text)" \
        "$(get peak_rss_mb)" - - "$(get peak_rss_mb)"
    # The same texts as the example, as a file (awk: fast enough for 10M lines).
    awk -v n="$n" 'BEGIN { split("good bad great awful fine", w, " ");
        for (i = 0; i < n; i++) { j = (i % 10 == 9) ? int(i / 2) : i;
            printf "sample %d: the service was %s and the food was %s overall\n", j, w[j % 5 + 1], w[(j * 7) % 5 + 1] } }' \
        > "$work/texts.txt"
    spec() { echo "cmd:/usr/bin/time -f %U_%S_%M -o $work/$1.time $model $work/pos.json"; }
    if [[ "${CACHE:-0}" == 1 ]]; then
        rm -rf "$work/cache"
        modes=(cmd+fill cmd+hits)
        cache_args=(--cache-dir "$work/cache")
    elif [[ "${CACHE:-0}" == preload ]]; then
        rm -rf "$work/cache"
        # A million input texts at a time: `profile texts` keeps the distinct texts it has listed
        # in memory, and which texts a profile asks depends on each input text alone.
        rm -f "$work/asked.jsonl" "$work"/part.*
        split -l "${PRELOAD_CHUNK:-1000000}" "$work/texts.txt" "$work/part."
        for part in "$work"/part.*; do
            "$capkit" profile texts --texts "$part" --suite "$work/suite.json" >> "$work/asked.jsonl"
            rm -f "$part"
        done
        "$target/examples/cache_preload" "$work/cache" "$work/asked.jsonl" '"pos"' \
            "$(spec student)" "$(spec teacher)" | sed 's/^/  /'
        rm -f "$work/asked.jsonl"
        modes=(cmd+hits)
        cache_args=(--cache-dir "$work/cache")
    else
        modes=(cmd)
        cache_args=(--no-cache)
    fi
    for mode in "${modes[@]}"; do
        rm -f "$work/student.time" "$work/teacher.time"
        /usr/bin/time -f '%U %S %M' -o "$work/capkit.time" "$capkit" profile classify \
            --texts "$work/texts.txt" --suite "$work/suite.json" \
            --student "$(spec student)" --teacher "$(spec teacher)" "${cache_args[@]}" --out "$work/profile.json" \
            2> "$work/stderr.txt" || { cat "$work/stderr.txt" >&2; exit 1; }
        grep -q '"clean_agreement": 1.0' "$work/profile.json" || { echo "unexpected profile" >&2; exit 1; }
        read -r user sys kb < "$work/capkit.time"
        # A run answered wholly from the cache never starts the model processes.
        s_user=0 s_sys=0 s_kb=0 t_user=0 t_sys=0 t_kb=0
        [[ -s "$work/student.time" ]] && IFS=_ read -r s_user s_sys s_kb < <(tail -n1 "$work/student.time")
        [[ -s "$work/teacher.time" ]] && IFS=_ read -r t_user t_sys t_kb < <(tail -n1 "$work/teacher.time")
        # CPU of all three processes.
        cpu="$(awk -v a="$user" -v b="$sys" -v c="$s_user" -v d="$s_sys" -v e="$t_user" -v f="$t_sys" \
            'BEGIN { printf "%.2f", a + b + c + d + e + f }')"
        printf '%-9s %-8s %9s %10s %9.1f %9.1f %9.1f %9.1f\n' "$n" "$mode" "$cpu" \
            "$(awk -v c="$cpu" -v n="$n" 'BEGIN { printf "%.3f", c * 1e6 / n }')" \
            "$(awk -v k="$kb" 'BEGIN { print k / 1024 }')" "$(awk -v k="$s_kb" 'BEGIN { print k / 1024 }')" \
            "$(awk -v k="$t_kb" 'BEGIN { print k / 1024 }')" \
            "$(awk -v a="$kb" -v b="$s_kb" -v c="$t_kb" 'BEGIN { print (a + b + c) / 1024 }')"
    done
    if [[ "${CACHE:-0}" != 0 ]]; then
        "$capkit" cache stats --cache-dir "$work/cache" | sed -n 's/^\(size\|answers\)/  cache \1/p'
    fi
    [[ -n "${KEEP_STDERR:-}" ]] && cp "$work/stderr.txt" "$KEEP_STDERR"; rm -f "$work/texts.txt"
done
