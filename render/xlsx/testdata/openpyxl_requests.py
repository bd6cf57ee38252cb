#!/usr/bin/env python3
"""Write the same Requests sheet as BenchmarkRequestsSheet with openpyxl's
write-only mode, for timing verdict's streamed workbook against it.

The rows follow the same formulas as syntheticRequests in bench_test.go:
18 columns, a header, one failed request in every 1000, TTFT and TPOT in
milliseconds. openpyxl writes plain values (no number formats, no frozen
pane, no table), which makes its job lighter than verdict's.

    apt-get install python3-openpyxl        # Debian's package (3.0.x)
    /usr/bin/python3 render/xlsx/testdata/openpyxl_requests.py 1000000 /tmp/openpyxl.xlsx

It prints the wall time, the CPU time and the peak resident memory.
"""
import resource
import sys
import time

import openpyxl

HEADER = ["run", "run ID", "index", "status", "phase", "start (s)", "end (s)", "client queue (ms)", "TTFT (ms)",
          "TTFT answer (ms)", "E2E (s)", "TPOT (ms)", "input tokens", "output tokens", "reasoning tokens", "chunks",
          "max chunk gap (ms)", "error"]


def rows(n):
    for i in range(n):
        out = 50 + i % 200
        ttft = 0.05 + (i % 97) * 0.001
        e2e = ttft + out * 0.01
        start = i * 0.001
        inp = 200 + i % 500
        if i % 1000 == 999:
            yield ["bench", "bench-run", i, "error", "profiling", start, start + e2e, None, None, None, None, None,
                   inp, None, None, None, None, "upstream reset"]
            continue
        gaps = [0.01 + ((i + k) % 13) * 0.0001 for k in range(out - 1)]
        tpot = (e2e - ttft) / (out - 1) * 1e3
        yield ["bench", "bench-run", i, "ok", "profiling", start, start + e2e, None, ttft * 1e3, None, e2e, tpot,
               inp, out, None, len(gaps) + 1, max(gaps) * 1e3, None]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    path = sys.argv[2] if len(sys.argv) > 2 else "openpyxl.xlsx"
    t0, c0 = time.perf_counter(), time.process_time()
    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("Requests")
    ws.append(HEADER)
    for r in rows(n):
        ws.append(r)
    wb.save(path)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"openpyxl {openpyxl.__version__} write-only: {n} rows in {wall:.1f} s wall, {cpu:.1f} s CPU, "
          f"{n / wall:.0f} rows/s, peak RSS {peak:.0f} MiB")


if __name__ == "__main__":
    main()
