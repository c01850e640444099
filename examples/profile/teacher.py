"""The teacher: 'pos' when the text contains 'good' in any case, else 'neg'.

It also has a decision API: it escalates (decision null) on texts of fewer than three words.
"""
import json
import sys

for line in sys.stdin:
    request = json.loads(line)
    text = request["text"]
    label = "pos" if "good" in text.lower() else "neg"
    decision = None if len(text.split()) < 3 else label
    print(json.dumps({"id": request["id"], "label": label, "decision": decision}), flush=True)
