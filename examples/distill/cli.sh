#!/usr/bin/env bash
# The distillation example through the command line: the teacher and both students as `cmd:`
# models (teacher.py, student.py), profiled and compared by `capkit profile compare`, then
# `capkit report`. Usage: examples/distill/cli.sh DIR, where DIR is a `run.py --out DIR` output
# (the trained students and the held-out texts). $PYTHON is the interpreter with the example's
# requirements (default python3), $CAPKIT the capkit command (default: cargo run -q -p capkit --).
set -euo pipefail
dir=${1:?usage: cli.sh DIR (the output directory of run.py)}
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3}
read -r -a capkit <<< "${CAPKIT:-cargo run -q -p capkit --}"
for suite in default suite; do
  suite_args=()
  if [ "$suite" = suite ]; then suite_args=(--suite "$here/suite.json"); fi
  "${capkit[@]}" profile compare --texts "$dir/heldout.jsonl" "${suite_args[@]}" --no-cache \
      --teacher "cmd:$python $here/teacher.py" \
      --student "cmd:$python $here/student.py $dir/students/char_ngram.pkl" \
      --student "cmd:$python $here/student.py $dir/students/word.pkl" \
      --out "$dir/cli_compare_$suite.json"
done
"${capkit[@]}" report "$dir/cli_compare_default.json" "$dir/cli_compare_suite.json" \
    --out "$dir/cli_report.html"
echo "wrote $dir/cli_report.html"
