"""A distilled student as a `cmd:` model: `python student.py DIR/students/NAME.pkl`.

Loads the scikit-learn pipeline `run.py` trained and answers every `{"id", "text"}` line.
"""
import json
import pickle
import sys

if len(sys.argv) != 2:
    sys.exit("usage: student.py STUDENT.pkl")
with open(sys.argv[1], "rb") as f:
    pipeline = pickle.load(f)
for line in sys.stdin:
    request = json.loads(line)
    label = str(pipeline.predict([request["text"]])[0])
    print(json.dumps({"id": request["id"], "label": label}), flush=True)
