"""A distilled student as a `cmd:` model: `python student.py DIR/students/NAME.pkl`.

Loads the scikit-learn pipeline `run.py` trained and answers every `{"id", "text"}` line, in
order. It predicts every complete line already received in one `predict` call: a pipeline costs
far more per call than per text, and the protocol lets a model answer whenever it likes.
"""
import json
import os
import pickle
import sys

if len(sys.argv) != 2:
    sys.exit("usage: student.py STUDENT.pkl")
with open(sys.argv[1], "rb") as f:
    pipeline = pickle.load(f)
pending = b""
while True:
    chunk = os.read(0, 1 << 16)  # whatever has arrived, waiting only when nothing has
    if not chunk:
        break
    *lines, pending = (pending + chunk).split(b"\n")
    requests = [json.loads(line) for line in lines if line.strip()]
    if requests:
        labels = pipeline.predict([r["text"] for r in requests])
        sys.stdout.write("".join(json.dumps({"id": r["id"], "label": str(label)}) + "\n"
                                 for r, label in zip(requests, labels)))
        sys.stdout.flush()
