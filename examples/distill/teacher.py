"""The teacher as a `cmd:` model: VADER's label (pos / neg / neu) for every `{"id", "text"}` line."""
import json
import sys

from distill import Teacher  # the example's module, beside this script

teacher = Teacher()
for line in sys.stdin:
    request = json.loads(line)
    print(json.dumps({"id": request["id"], "label": teacher.label(request["text"])}), flush=True)
