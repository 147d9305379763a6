"""Shared setup of the training/asr checks that run a model in onnxruntime-node (the gateway's
runtime), each run as a script: /usr/bin/python3 training/asr/test_X.py [models/<name>].
Import it before numpy or torch: it keeps OpenBLAS to one thread, puts training/asr and
training/common (common.py) on the import path, and names ROOT (the repository) and MODEL
(argv[1], else models/small-am-v2)."""
import json
import os
import subprocess
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "common"))  # common.py
ROOT = os.path.dirname(os.path.dirname(HERE))
MODEL = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "models", "small-am-v2")


def run_node(script, *args):
    """`node -e script args...` run in the repository (for its node_modules); the JSON of its last stdout line."""
    run = subprocess.run(["node", "-e", script, *map(str, args)], cwd=ROOT, capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"onnxruntime-node failed: {run.stderr[-3000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])
