package schemas

// locustNatives maps Locust's --csv files (PREFIX_stats.csv,
// _stats_history.csv, _failures.csv, _exceptions.csv) to definitions.
// Milliseconds become seconds; percentiles are read off Locust's rounded
// buckets (locust_buckets).
var locustNatives = []Native{
	{Metric: HTTPResponseTime, Tool: "locust", Names: "Median/Average/Min/Max Response Time, 50%..100% (\"# requests\"-era: lower-case 'response time')", Versions: "0.x+",
		Note: "median and percentiles are bucketed; average, min and max exact (integers before 1.0)"},
	{Metric: HTTPResponseSize, Tool: "locust", Names: "Average Content Size", Versions: "0.x+"},
	{Metric: HTTPRequestRate, Tool: "locust", Names: "Requests/s (stats.csv)", Versions: "0.x+"},
	{Metric: HTTPFailureRate, Tool: "locust", Names: "Failures/s (Requests Failed/s before 1.0)", Versions: "0.x+"},
	{Metric: HTTPRequestRateCurrent, Tool: "locust", Names: "Requests/s (stats_history.csv)", Versions: "1.0+"},
	{Metric: HTTPFailureRateCurrent, Tool: "locust", Names: "Failures/s (stats_history.csv)", Versions: "1.0+"},
	{Metric: LoadUsers, Tool: "locust", Names: "User Count (stats_history.csv)", Versions: "1.0+"},
	{Metric: HTTPFailures, Tool: "locust", Names: "Occurrences (failures.csv); Failure Count (stats.csv)", Versions: "0.x+"},
	{Metric: HTTPRequests, Tool: "locust", Names: "Request Count (stats.csv)", Versions: "0.x+"},
	{Metric: ClientExceptions, Tool: "locust", Names: "Count (exceptions.csv)", Versions: "0.x+"},
}
