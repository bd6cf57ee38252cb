"""Writes the hand-made `vllm bench sweep serve` directory of this folder.

Layout as vllm/benchmarks/sweep/serve.py writes it (docs/formats/
vllm-bench.md, section 2): one directory per combination,
SERVE--<serve settings>-BENCH--<bench settings>, with run=<i>.json (the
`vllm bench serve` payload, indent 4, plus run_number and the swept
settings merged at the top level), summary.json (a list of the successful
runs' payloads), a failed run's run=<i>.failure.json, the warm-up's
warmup.json (a `vllm bench serve` payload of --warmup-num-prompts
requests, not a run), and summary.csv at the
top, in the shape of pandas DataFrame.to_csv (an unnamed index column).
The numbers are made up and consistent: throughputs are counts over
duration.

Run: python3 make_sweep.py (from this directory).
"""
import csv, json, os

EXP = "20260818_021333"

def payload(date, seqs, run, ttft_ms, dur):
    completed, inp, out = 8, 256, 128
    return {"date": date, "endpoint_type": "openai", "backend": "openai", "label": None, "model_id": "facebook/opt-125m",
            "tokenizer_id": "facebook/opt-125m", "num_prompts": 8, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": 2,
            "duration": dur, "completed": completed, "failed": 0, "total_input_tokens": inp, "total_output_tokens": out,
            "request_throughput": completed / dur, "request_goodput": None, "output_throughput": out / dur,
            "total_token_throughput": (inp + out) / dur, "max_output_tokens_per_s": 75.0, "max_concurrent_requests": 4,
            "mean_ttft_ms": ttft_ms, "median_ttft_ms": ttft_ms - 2.5, "std_ttft_ms": 3.25, "p99_ttft_ms": ttft_ms + 12.5,
            "mean_tpot_ms": 8.25, "median_tpot_ms": 8.0, "std_tpot_ms": 0.5, "p99_tpot_ms": 9.5,
            "mean_itl_ms": 8.25, "median_itl_ms": 7.5, "std_itl_ms": 2.75, "p99_itl_ms": 22.25,
            "mean_e2el_ms": 340.5, "median_e2el_ms": 166.5, "std_e2el_ms": 307.5, "p99_e2el_ms": 876.75,
            "run_number": run, "max_num_seqs": seqs}

combos = {
    "SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8": [
        payload("20260818-021333", 4, 0, 217.25, 1.25), payload("20260818-021340", 4, 1, 210.5, 1.5)],
    "SERVE--max_num_seqs=8-BENCH--max_concurrency=2-num_prompts=8": [
        payload("20260818-021401", 8, 0, 150.0, 1.0)],
}
rows = []
for name, runs in combos.items():
    d = os.path.join(EXP, name)
    os.makedirs(d, exist_ok=True)
    for p in runs:
        with open(os.path.join(d, "run=%d.json" % p["run_number"]), "w") as f:
            json.dump(p, f, indent=4)
        rows.append(p)
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump(runs, f, indent=4)
with open(os.path.join(EXP, "SERVE--max_num_seqs=8-BENCH--max_concurrency=2-num_prompts=8", "run=1.failure.json"), "w") as f:
    json.dump({"run_number": 1, "error": "server exited with code 1"}, f, indent=4)
warmup = payload("20260818-021330", 4, 0, 480.0, 0.5)
del warmup["run_number"]
warmup.update(num_prompts=2, completed=2, total_input_tokens=64, total_output_tokens=32, request_throughput=2 / 0.5,
              output_throughput=32 / 0.5, total_token_throughput=96 / 0.5)
with open(os.path.join(EXP, "SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8", "warmup.json"), "w") as f:
    json.dump(warmup, f, indent=4)
with open(os.path.join(EXP, "summary.csv"), "w", newline="") as f:
    keys = list(rows[0].keys())
    w = csv.writer(f)
    w.writerow([""] + keys)
    for i, r in enumerate(rows):
        w.writerow([i] + ["" if r[k] is None else r[k] for k in keys])
