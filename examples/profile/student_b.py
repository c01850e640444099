"""A second student: 'pos' when the text contains 'good' in any case, unless it contains 'not'.

It has a decision API: it escalates (decision null) on texts with a comma, which it finds
ambiguous.
"""
import json
import sys

for line in sys.stdin:
    request = json.loads(line)
    text = request["text"].lower()
    label = "pos" if "good" in text and "not" not in text else "neg"
    decision = None if "," in text else label
    print(json.dumps({"id": request["id"], "label": label, "decision": decision}), flush=True)
