package schemas

// nativeTables lists, per tool, which native names report which metric
// definition. Each tool's table lives in its own file (native_<tool>.go).
var nativeTables = [][]Native{
	vllmNatives,
	mlperfNatives, guidellmNatives, llmperfNatives, locustNatives,
	genaiperfNatives,
	aiperfNatives, captureNatives,
	llmdbrNatives, inferencePerfNatives, genaiBenchNatives, mlperfEndpointsNatives, energyNatives,
}
