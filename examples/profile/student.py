"""A distilled student: 'pos' when the text contains 'good' (case-sensitive), else 'neg'."""
import json
import sys

for line in sys.stdin:
    request = json.loads(line)
    label = "pos" if "good" in request["text"] else "neg"
    print(json.dumps({"id": request["id"], "label": label}), flush=True)
