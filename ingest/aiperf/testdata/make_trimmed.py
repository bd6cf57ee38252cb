#!/usr/bin/python3
"""Writes trimmed/demo-8b-openai-chat-concurrency4/: an AIPerf artifacts
directory whose records file was trimmed against its summary, as a run
copied with `head` or cut short by a full disk leaves it. The summary is
artifacts/demo-8b-openai-chat-concurrency4/profile_export_aiperf.json
unchanged (15 successful requests); the records are the first 9 lines of
its profile_export.jsonl (the warm-up record, 7 successful and 1 failed
request). Every statistic recomputed from these records is of another
population than the summary's, for one cause.

Pure Python: python3 make_trimmed.py (after make_artifacts.py).
"""
import os
import shutil

src = os.path.join("artifacts", "demo-8b-openai-chat-concurrency4")
out = os.path.join("trimmed", "demo-8b-openai-chat-concurrency4")
os.makedirs(out, exist_ok=True)
shutil.copyfile(os.path.join(src, "profile_export_aiperf.json"), os.path.join(out, "profile_export_aiperf.json"))
with open(os.path.join(src, "profile_export.jsonl")) as f:
    lines = f.readlines()
with open(os.path.join(out, "profile_export.jsonl"), "w") as f:
    f.writelines(lines[:9])
