#!/usr/bin/python3
"""Writes the hand-made Locust CSV files of this directory with CRLF line
ends, as Locust's csv.writer does. Percentile columns follow Locust's
bucket walk: for response times x (ms) sorted, the p column is the bucket
of x[int(n*p)] (clamped to n-1).

Run with any python3: python3 make_fixtures.py
"""
import csv

PCT = ["50%", "66%", "75%", "80%", "90%", "95%", "98%", "99%", "99.9%", "99.99%", "100%"]
HEAD = ["Type", "Name", "Request Count", "Failure Count", "Median Response Time", "Average Response Time",
        "Min Response Time", "Max Response Time", "Average Content Size", "Requests/s", "Failures/s"] + PCT


def write(name, rows):
    with open(name, "w", newline="") as f:
        w = csv.writer(f)  # lineterminator "\r\n"
        w.writerows(rows)


def bucket(ms):
    if ms < 100:
        return round(ms)
    if ms < 1000:
        return round(ms, -1)
    if ms < 10000:
        return round(ms, -2)
    return round(ms, -3)


x = [10.0 * (i + 1) for i in range(10)]
ps = [0.5, 0.66, 0.75, 0.8, 0.9, 0.95, 0.98, 0.99, 0.999, 0.9999, 1.0]
vec = [int(bucket(x[min(int(10 * p), 9)])) for p in ps]
write("vector_stats.csv", [HEAD, ["POST", "/v1/chat/completions", 10, 0, vec[0], 55.0, 10.0, 100.0, 512.0, 0.5, 0.0] + vec,
                           ["", "Aggregated", 10, 0, vec[0], 55.0, 10.0, 100.0, 512.0, 0.5, 0.0] + vec])

write("demo_stats.csv", [HEAD,
    ["POST", "/v1/completions", 120, 3, 2400, 2511.73, 903.2, 7108.5, 1830.0, 1.98, 0.05, 2400, 2700, 2900, 3100, 3600, 4200, 5400, 6200, 7100, 7100, 7100],
    ["GET", "/health", 0, 0, 0, 0.0, 0, 0, 0, 0.0, 0.0] + ["N/A"] * 11,
    ["GET", "/v1/models", 8, 0, 5, "abc", 3.1, 9.9, 240.0, 0.13, 0.0, 5, 6, 6, 7, 9, 10, 10, 10, 10, 10, 10],
    ["GET", "/short", 3],
    ["", "Aggregated", 128, 3, 2300, 2355.0, 3.1, 7108.5, 1731.6, 2.11, 0.05, 2300, 2600, 2900, 3000, 3500, 4100, 5300, 6200, 7100, 7100, 7100]])

old = ["Type", "Name", "# requests", "# failures", "Median response time", "Average response time", "Min response time",
       "Max response time", "Average Content Size", "Requests/s", "Requests Failed/s",
       "50%", "66%", "75%", "80%", "90%", "95%", "98%", "99%", "99.9%", "99.99%", "99.999", "100%"]
with open("old_stats.csv", "w", newline="") as f:
    w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC)
    w.writerow(old)
    w.writerow(["POST", "/generate", 50, 1, 1200, 1310, 640, 4100, 900, 0.83, 0.02, 1200, 1300, 1400, 1500, 1900, 2600, 3800, 4100, 4100, 4100, 4100, 4100])
    w.writerow(["None", "Total", 50, 1, 1200, 1310, 640, 4100, 900, 0.83, 0.02, 1200, 1300, 1400, 1500, 1900, 2600, 3800, 4100, 4100, 4100, 4100, 4100])

hist = ["Timestamp", "User Count", "Type", "Name", "Requests/s", "Failures/s"] + PCT + [
    "Total Request Count", "Total Failure Count", "Total Median Response Time", "Total Average Response Time",
    "Total Min Response Time", "Total Max Response Time", "Total Average Content Size"]
rows = [hist]
for t in range(5):
    ts = 1780000000 + t
    rows.append([ts, 10 * (t + 1), "POST", "/v1/completions", "%f" % (1.5 * t), "%f" % 0.0] + [2000 + 100 * t] * 11 + [3 * t, 0, 2000, 2050.5, 900.0, 4000.0, 1500.0])
    rows.append([ts, 10 * (t + 1), "", "Aggregated", "%f" % (1.5 * t), "%f" % 0.0] + [2000 + 100 * t] * 11 + [3 * t, 0, 2000, 2050.5, 900.0, 4000.0, 1500.0])
rows.insert(5, [1779999990, 20, "", "Aggregated", "1.0", "0.0"] + ["N/A"] * 11 + [1, 0, 0, 0.0, 0, 0, 0])
rows[7][4] = "lots"
write("full_stats_history.csv", rows)

write("demo_failures.csv", [["Method", "Name", "Error", "Occurrences", "First Seen", "Last Seen"],
                            ["POST", "/v1/completions", "HTTPError('503 Server Error: Service Unavailable, retry later')", 3, "2026-11-30 10:00:01", "2026-11-30 10:04:59"],
                            ["POST", "/v1/completions", "ReadTimeout(\"timed out\")", 2, "2026-11-30 10:02:00", "2026-11-30 10:02:30"],
                            ["GET", "/health", "ConnectionError()", "x", "", ""]])

write("demo_exceptions.csv", [["Count", "Message", "Traceback", "Nodes"],
                              [2, "KeyError('choices')", 'Traceback (most recent call last):\n  File "locustfile.py", line 30, in chat\n    text = r.json()["choices"][0]\nKeyError: \'choices\'\n', "local"]])

write("empty_stats.csv", [HEAD])
write("not_locust.csv", [["when", "what", "how much"], ["today", "x", 3]])
